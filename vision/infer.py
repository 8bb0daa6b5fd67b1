"""Reading moves: which legal move explains the change between the expected view and what is seen.

`read_change(game, state, seen)` compares an Observation with the expected view of the current
state and of every legal move's result (vision/expect.py) and returns a Reading:

- `none`: nothing clearly changed (no cell's reading contradicts its expected label by
  `cell_margin` nats, nor holds the odds against an expected empty cell by as much) and no legal
  move fits the faint leanings either.
  Moves that change nothing the camera sees (Blockade's rolls and `end`, a pass) are never read
  from the camera: they come from events; `invisible_moves` (vision/sight.py) lists them.
- `move`: one explanation fits (no changed cell left contradicted, no explained cell
  contradicted) and beats every explanation that looks different by `margin` nats.
- `ambiguous`: several explanations are within the margin (`same_view=False`), or several lead to
  the same view but to different states (`same_view=True`: the camera can never tell them
  apart; vision/belief.py carries such readings instead of asking), or no cell clearly changed
  but a legal move's cells all lean its way and together beat no change by `margin` nats (a
  faint change: the players confirm it rather than have it pass silently).
- `illegal`: the board clearly changed and no legal move fits: the reading names the closest
  legal explanation, the physical move the changed cells suggest (squares that lost a piece to
  squares that gained one, in the game's notation) and the referee's reason why it is illegal;
  `nearest` lists the closest explanations of the best few views (the pipeline reads the frame
  again under each, pi/pipeline.py's second look).

Scoring: a hypothesis's log-likelihood is the sum over cells of log(max(p(expected label),
epsilon)). Only cells whose label differs from the current view matter, so each hypothesis is
scored by its difference from the no-change hypothesis, and each (cell, label) term is computed
once. A faint change (vision/expect.py `faint_pair`: a Blockade pyramid leaving one of its colour
it was nested in, or coming onto one of its colour and size, or a Small onto one of its colour,
which the camera all but cannot see go or come) that the reading doubts by less than `faint_limit`
nats counts in the score but does not spoil the fit of a single move, nor sink it where its square
did not clearly change (a single move fits when what the camera sees of it beats no change by
`cell_margin`): the place that shows (where the piece now stands, or the square it left), and the
margin over every other explanation decide. No change of a sequence of moves is faint (a change
that needs several moves is explained strictly). Explanations within the margin that differ only by
faint changes on squares that did not clearly change (a Small gone onto one of two towers of its
colour, neither seen to grow) look alike: when the best is LOOK_ALIKE_ODDS times as likely as the
others together, the verdict is a move with all of them, which read_change asks about and a belief
keeps (vision/belief.py); else they are asked about. Only moves that leave or reach a cell still
unexplained are tried. Blockade players move several pieces in a turn: when no single move fits,
sequences of up to 3 piece moves are tried, extending only partial sequences that explained changed
cells without spoiling any (the `beam` explaining most, then scoring best); among sequences that
look the same the shortest are kept, so one piece moved twice between two still frames reads as one
move.
When a question goes unanswered, vision/belief.py keeps its candidates and, if the next change
fits no single move, tries each candidate followed by one move (`extensions`).
Pure: no OpenCV, no I/O.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Iterable, Iterator, Literal, Mapping, Sequence

from rules.core import Game, IllegalMoveError, InvalidMoveError
from vision.expect import faint_pair, seen_part
from vision.observation import EMPTY, CellSeen, Observation
from vision.sight import move_touches, physical_moves, referee_reason, view_of

Kind = Literal["none", "move", "ambiguous", "illegal"]
Diff = tuple[tuple[str, str], ...]

SEQUENCE_LENGTHS: dict[str, int] = {"blockade": 3}  # piece moves per observation; others 1
MAX_SEQUENCE = 3
NEAREST = 3  # the closest legal explanations an illegal reading lists (views apart)
TIED_READING = 0.8  # a label this close to a reading's best reads alike with it (stale_misreads)
UNSURE_READING = 0.5  # ... while the later reading's best is no likelier than this
LOOK_ALIKE_ODDS = 2.0  # look-alikes are kept when the best is this much likelier than the rest together


class ReadError(ValueError):
    """Raised for bad input to the inference: settings, or an observation of another game."""


def either(candidates: Sequence[Sequence[str]]) -> str:
    """Returns candidate move lists as the players read them: "a1-b1 or a1-c1 b2-c3"."""
    return " or ".join(" ".join(candidate) for candidate in candidates)


@dataclass(frozen=True, slots=True)
class Settings:
    """The inference's tunable numbers (log-likelihoods in nats)."""

    margin: float = 3.0  # a move must beat every different-looking explanation by this
    cell_margin: float = 2.0  # a cell contradicts a label when its reading favours another by this
    faint_limit: float = 7.0  # a faint change (expect.faint_pair) contradicted by less spoils no fit
    epsilon: float = 1e-4  # the floor of a label's probability
    max_moves: int | None = None  # moves per observation; None: SEQUENCE_LENGTHS, else 1
    beam: int = 4  # partial sequences kept per depth

    def __post_init__(self) -> None:
        for name in ("margin", "cell_margin", "epsilon", "faint_limit"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
                raise ReadError(f"{name} must be a positive number, not {value!r}")
        if not self.epsilon < 0.5:
            raise ReadError(f"epsilon must be below 0.5, not {self.epsilon!r}")
        if self.max_moves is not None and self.max_moves not in range(1, MAX_SEQUENCE + 1):
            raise ReadError(
                f"max_moves must be 1 to {MAX_SEQUENCE} or None, not {self.max_moves!r}")
        if isinstance(self.beam, bool) or not isinstance(self.beam, int) or self.beam < 1:
            raise ReadError(f"beam must be a whole number >= 1, not {self.beam!r}")

    def sequence_length(self, game: str) -> int:
        """Returns how many moves one observation may hold for a game."""
        return self.max_moves or SEQUENCE_LENGTHS.get(game, 1)


@dataclass(frozen=True, slots=True)
class Reading:
    """What the camera says happened. For `move`, take back the last `rewind` accepted moves (a
    belief found that an earlier reading was another of its look-alikes) and play `moves` in
    order; for `ambiguous`, the players confirm one of `candidates` (each a sequence of moves,
    played after the same `rewind`)."""

    kind: Kind
    moves: tuple[str, ...] = ()
    candidates: tuple[tuple[str, ...], ...] = ()
    rewind: int = 0
    same_view: bool = False
    closest: tuple[str, ...] = ()
    nearest: tuple[tuple[str, ...], ...] = ()  # illegal: the closest legal explanations, best first
    physical: tuple[str, ...] = ()
    reason: str = ""
    changed: tuple[str, ...] = ()
    margin: float | None = None
    frame: int | None = None

    @property
    def move(self) -> str | None:
        """Returns the move of a one-move reading, else None."""
        return self.moves[0] if self.kind == "move" and len(self.moves) == 1 else None

    def message(self) -> str:
        """Returns a one-line text for the players (the alert for ambiguous and illegal)."""
        if self.kind == "none":
            return "no change"
        if self.kind == "move":
            return "move " + " ".join(self.moves)
        if self.kind == "ambiguous":
            return f"confirm the move: {either(self.candidates)} ({self.reason})"
        physical = " ".join(self.physical) or "this change"
        closest = f" (closest legal: {' '.join(self.closest)})" if self.closest else ""
        return f"illegal move {physical}: {self.reason}{closest}"

    def as_dict(self) -> dict[str, Any]:
        """Returns the reading as JSON-ready data."""
        return {
            "kind": self.kind, "moves": list(self.moves),
            "candidates": [list(c) for c in self.candidates], "rewind": self.rewind,
            "same_view": self.same_view, "closest": list(self.closest),
            "physical": list(self.physical), "reason": self.reason,
            "changed": list(self.changed), "margin": self.margin, "frame": self.frame,
            "message": self.message(),
        }


# -- scoring -----------------------------------------------------------------------------------


class Scorer:
    """Scores views against one observation, relative to the current view (terms cached)."""

    def __init__(self, seen: Observation, current: Mapping[str, str], settings: Settings,
                 stale: frozenset[str] = frozenset()) -> None:
        self.seen = seen
        self.current = current
        self.stale = stale
        self._floor = settings.epsilon
        self._cell_margin = settings.cell_margin
        self._faint_limit = settings.faint_limit
        self._terms: dict[tuple[str, str], float] = {}
        self.changed: tuple[str, ...] = tuple(
            square for square, label in current.items()
            if square not in stale and (self.contradicts(square, label) or self.filled(square, label))
        )

    def term(self, square: str, label: str) -> float:
        """Returns log(max(p(label), epsilon)) at a square."""
        key = (square, label)
        value = self._terms.get(key)
        if value is None:
            value = math.log(max(self.probability(square, label), self._floor))
            self._terms[key] = value
        return value

    def probability(self, square: str, label: str) -> float:
        """Returns the probability the reading gives what the camera can tell of a label at a
        square (expect.seen_part: every label it cannot tell from this one counts with it)."""
        cell, game = self.seen.cells[square], self.seen.game
        part = seen_part(game, label)
        if part == label:
            return cell.probability(label)
        return sum(p for other, p in cell.probs.items() if seen_part(game, other) == part)

    def doubt(self, square: str, label: str) -> float:
        """Returns by how many nats a square's reading favours its best label over this one."""
        return self.term(square, self.seen.cells[square].label) - self.term(square, label)

    def filled(self, square: str, label: str) -> bool:
        """Tells whether a square the position holds empty reads filled: the odds against empty
        by the cell margin, though no one label beats it so (a tall column whose height the
        camera cannot place spreads over every height it may have: BLOCK.BLOCK sweep 1124's
        upright bar4 read brown at 4 to 8 cubes, 0.19 each, and empty at 0.028, went unseen).
        Only for empty: a piece's reading spread over its look-alikes (a stack's height, what
        nests in it) says little of a change (counted for every label, Blockade recordings
        read 3170 -> 3126 moves of 3534)."""
        if label != EMPTY:
            return False
        against = math.log(max(1.0 - self.probability(square, label), self._floor))
        return against - self.term(square, label) >= self._cell_margin

    def contradicts(self, square: str, label: str) -> bool:
        """Tells whether a square's reading favours another label over this one by the margin."""
        return self.doubt(square, label) >= self._cell_margin

    def faintly(self, square: str, label: str) -> bool:
        """Tells whether a label differs from the current one by a change the camera all but
        cannot see (expect.faint_pair) and the reading is not sure it did not happen."""
        return (faint_pair(self.seen.game, self.current[square], label)
                and self.doubt(square, label) < self._faint_limit)

    def diff(self, view: Mapping[str, str]) -> Diff:
        """Returns the (square, label) pairs where a view differs from the current one."""
        current = self.current
        return tuple((square, label) for square, label in view.items() if label != current[square])

    def look(self, diff: Diff) -> Diff:
        """Returns what the camera sees of a difference: its changes but the faint ones on
        squares that did not clearly change (a pyramid nested into one of its colour there may
        as well have gone elsewhere)."""
        return tuple((square, label) for square, label in diff
                     if square in self.changed or not faint_pair(self.seen.game, self.current[square], label))

    def score(self, diff: Diff) -> float:
        """Returns a difference's score over no change."""
        return sum(self.term(s, label) - self.term(s, self.current[s]) for s, label in diff)

    def clearly(self, diff: Diff) -> bool:
        """Tells whether a difference beats no change by a cell's margin."""
        return self.score(diff) >= self._cell_margin

    def judge(self, diff: Diff, strict: bool = False) -> tuple[float, frozenset[str]]:
        """Returns a view's score over no change and the squares it leaves contradicted (a faint
        change the reading is not sure of counts only in the score, unless `strict`)."""
        score = self.score(diff)
        touched = {square for square, _ in diff}
        misfit = {square for square, label in diff
                  if self.contradicts(square, label) and (strict or not self.faintly(square, label))}
        misfit.update(square for square in self.changed if square not in touched)
        return score, frozenset(misfit)


@dataclass(frozen=True, slots=True)
class Hypothesis:
    """One explanation: the moves, the state they lead to, its view's difference and fit."""

    moves: tuple[str, ...]
    state: Any = field(compare=False)
    diff: Diff
    score: float
    misfit: frozenset[str]
    gain: float = 0.0  # score over the sequence one move shorter
    look: Diff = ()  # the difference the camera sees (Scorer.look)
    clear: bool = False  # what the camera sees of it beats no change by a cell's margin

    @property
    def fits(self) -> bool:
        """Tells whether the view explains every changed cell, contradicts none, and beats no
        change, or what the camera sees of it clearly does (a single move's faint change on a
        square that did not clearly change, which the camera all but cannot see, cannot sink a
        move that shows clearly elsewhere)."""
        return not self.misfit and (self.score > 0.0 or self.clear)


def stale_misreads(current: Mapping[str, str], seen: Observation, before: Observation | None) -> frozenset[str]:
    """Returns the squares read otherwise than the position holds them, as at the last reading
    the referee accepted: a misreading that lasts says nothing about what changed since."""
    if before is None or set(before.cells) != set(seen.cells):
        return frozenset()
    return frozenset(square for square, label in current.items()
                     if before.cells[square].label != label != seen.cells[square].label
                     and _read_alike(before.cells[square], seen.cells[square]))


def _read_alike(before: CellSeen, seen: CellSeen) -> bool:
    """Tells whether a square reads as an earlier reading did: the same label, or, when neither
    is sure, one that reading found about as likely as its own (a column whose top the camera
    cannot place reads as tall as the search reaches, and the search reaches higher as the
    column grows). A sure reading after an unsure one is news (BLOCK.BLOCK env805: a bar3 stood
    upright read two cubes or three alike, then three)."""
    return seen.label == before.label or (seen.confidence < UNSURE_READING
                                          and before.probability(seen.label) >= TIED_READING * before.confidence)


def scorer_for(game: Game[Any, Any], state: Any, seen: Observation, settings: Settings,
               before: Observation | None = None, lasting: frozenset[str] = frozenset()) -> Scorer:
    """Returns the scorer of an observation against a state (leaving out the misreadings that
    last since `before`, the last reading accepted, and the `lasting` squares), or raises
    ReadError."""
    if not isinstance(seen, Observation):
        raise ReadError(f"expected an Observation, got {type(seen).__name__}")
    if seen.game != game.name:
        raise ReadError(f"the observation is of {seen.game}, but the game is {game.name}")
    current = view_of(game, state)
    if set(current) != set(seen.cells):
        raise ReadError(f"the observation has a {seen.size}x{seen.size} grid, but the "
                        f"{game.name} board has {len(current)} squares")
    return Scorer(seen, current, settings, stale_misreads(current, seen, before) | lasting)


def _children(game: Game[Any, Any], parent: Hypothesis, scorer: Scorer, seen: set[Any],
              spoilers: frozenset[str]) -> Iterator[Hypothesis]:
    """Yields the parent's sequence extended by each legal move that touches a cell the parent
    leaves unexplained and shows something new, once per state not met before; a move known
    to spoil a cell outside the change is skipped unless the parent's moves touched its squares."""
    touched = {square for text in parent.moves for square in move_touches(game, text)}
    for move in game.legal_moves(parent.state):
        squares = move_touches(game, move)
        if parent.misfit.isdisjoint(squares) or (
                str(move) in spoilers and touched.isdisjoint(squares)):
            continue
        state = game.play(parent.state, move)
        known = len(seen)
        seen.add(state)
        if len(seen) == known:
            continue
        diff = scorer.diff(view_of(game, state))
        if diff == parent.diff:
            continue  # the camera cannot see this move
        strict = bool(parent.moves)  # faint: single moves only
        score, misfit = scorer.judge(diff, strict)
        look = scorer.look(diff)
        yield Hypothesis(parent.moves + (str(move),), state, diff, score, misfit,
                         score - parent.score, look, not strict and scorer.clearly(look))


def extensions(game: Game[Any, Any], state: Any, scorer: Scorer,
               sequences: Sequence[Sequence[str]]) -> list[Hypothesis]:
    """Returns each legal sequence of the given ones extended by one move (a question left
    unanswered, then the next move): the sequences' states are where the search starts."""
    found: list[Hypothesis] = []
    seen: set[Any] = set()
    for moves in sequences:
        try:
            after = game.play_all(list(moves), state)
        except (IllegalMoveError, InvalidMoveError):
            continue
        diff = scorer.diff(view_of(game, after))
        score, misfit = scorer.judge(diff, strict=True)
        parent = Hypothesis(tuple(moves), after, diff, score, misfit, score, scorer.look(diff))
        found.extend(_children(game, parent, scorer, seen, frozenset()))
    return found


def _extendable(child: Hypothesis, parent: Hypothesis) -> bool:
    """Tells whether a partial sequence is worth another move: it fixed changed cells, spoiled
    none, and the fit improved."""
    return bool(child.misfit) and child.misfit < parent.misfit and child.gain > 0.0


def explanations(game: Game[Any, Any], state: Any, scorer: Scorer,
                 settings: Settings) -> list[Hypothesis]:
    """Returns every scored explanation of the change: legal moves, or short sequences when no
    shorter explanation fits (each state once, by its first sequence). Single moves that
    contradict a cell outside the change are not tried again later in a sequence, unless an
    earlier move of it touched their squares."""
    root = Hypothesis((), state, (), 0.0, frozenset(scorer.changed))
    found: list[Hypothesis] = []
    frontier, seen, spoilers = [root], {state}, frozenset[str]()
    for depth in range(settings.sequence_length(game.name)):
        pairs = [(c, p) for p in frontier for c in _children(game, p, scorer, seen, spoilers)]
        found.extend(child for child, _ in pairs)
        if any(child.fits for child, _ in pairs):
            break
        if depth == 0:
            spoilers = frozenset(c.moves[0] for c, _ in pairs if not c.misfit <= root.misfit)
        promising = [child for child, parent in pairs if _extendable(child, parent)]
        frontier = sorted(promising, key=lambda c: (len(c.misfit), -c.score))[: settings.beam]
    return found


# -- judging -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Entry:
    """An explanation from one member of a belief (member 0 when there is no belief)."""

    member: int
    hypothesis: Hypothesis


@dataclass(frozen=True, slots=True)
class Verdict:
    """The outcome of judging: the kind, the entries it rests on, and the winning margin."""

    kind: Kind
    entries: tuple[Entry, ...]
    margin: float | None


def _groups(entries: Sequence[Entry]) -> list[list[Entry]]:
    """Returns the entries grouped by view, best score first (stable)."""
    groups: dict[Diff, list[Entry]] = {}
    for entry in entries:
        groups.setdefault(entry.hypothesis.diff, []).append(entry)
    return sorted(groups.values(), key=lambda group: -group[0].hypothesis.score)


def _shortest(group: Sequence[Entry]) -> tuple[Entry, ...]:
    """Returns the entries of a group with the fewest moves."""
    fewest = min(len(entry.hypothesis.moves) for entry in group)
    return tuple(entry for entry in group if len(entry.hypothesis.moves) == fewest)


def judge(entries: Sequence[Entry], settings: Settings, look_alikes: bool = True) -> Verdict:
    """Returns which explanation wins: one view, several within the margin (a move with all of
    them when they look alike and the best is likeliest, unless look_alikes is False), or none
    that fits."""
    ranked = _groups(entries)
    fitting = [group for group in ranked if group[0].hypothesis.fits]
    if not fitting:  # the nearest explanation of each of the best few views, best first
        return Verdict("illegal", tuple(group[0] for group in ranked[:NEAREST]), None)
    best = fitting[0]
    top = best[0].hypothesis.score
    others = [group[0].hypothesis.score for group in ranked if group is not best]
    margin = top - max(others) if others else None
    rivals = [e for group in ranked if group is not best
              for e in group if e.hypothesis.score >= top - settings.margin]
    if rivals and look_alikes and _look_alike(best, rivals) and _likeliest(top, rivals):
        return Verdict("move", _shortest(sorted(best + rivals, key=lambda e: -e.hypothesis.score)), margin)
    if rivals:
        return Verdict("ambiguous", _shortest(best) + tuple(rivals), margin)
    return Verdict("move", _shortest(best), margin)


def _likeliest(top: float, rivals: Sequence[Entry]) -> bool:
    """Tells whether the best explanation is LOOK_ALIKE_ODDS times as likely as its rivals
    together (else the players are asked: a coin toss is not a reading)."""
    together = math.log(sum(math.exp(entry.hypothesis.score - top) for entry in rivals))
    return -together >= math.log(LOOK_ALIKE_ODDS)


def _look_alike(best: Sequence[Entry], rivals: Sequence[Entry]) -> bool:
    """Tells whether the explanations within the margin differ only by faint changes on squares
    that did not clearly change (Scorer.look): the camera cannot tell them apart, so a belief
    keeps them all."""
    return all(entry.hypothesis.look == best[0].hypothesis.look for entry in rivals)


def distinct_states(entries: Iterable[Entry]) -> list[Entry]:
    """Returns the entries leading to different states, first of each kept."""
    kept: dict[Any, Entry] = {}
    for entry in entries:
        kept.setdefault(entry.hypothesis.state, entry)
    return list(kept.values())


def distinct_moves(entries: Iterable[Entry]) -> tuple[tuple[str, ...], ...]:
    """Returns the entries' move sequences without repeats, in order."""
    return tuple(dict.fromkeys(entry.hypothesis.moves for entry in entries))


def illegal_reading(game: Game[Any, Any], state: Any, scorer: Scorer, verdict: Verdict) -> Reading:
    """Returns the illegal reading: the closest legal explanation, the physical move, the reason."""
    changed = scorer.changed
    physical = physical_moves(game, state, scorer.seen, changed)
    reason = referee_reason(game, state, physical) if physical else None
    if reason is None:
        where = ", ".join(changed)
        reason = (f"the board changed on {where} in a way no legal move explains" if not physical
                  else f"{' '.join(physical)} would be legal, but the board on {where} "
                       "does not show its result")
    nearest = tuple(entry.hypothesis.moves for entry in verdict.entries)
    return Reading("illegal", closest=nearest[0] if nearest else (), physical=physical, reason=reason,
                   changed=changed, nearest=nearest, frame=scorer.seen.frame)


# -- the reading -------------------------------------------------------------------------------


def move_reading(moves: tuple[str, ...], scorer: Scorer, verdict: Verdict,
                 rewind: int = 0) -> Reading:
    """Returns a move reading (after taking back `rewind` reported moves)."""
    return Reading("move", moves=moves, rewind=rewind, changed=scorer.changed,
                   margin=verdict.margin, frame=scorer.seen.frame)


def ask_reading(candidates: tuple[tuple[str, ...], ...], reason: str, same_view: bool,
                scorer: Scorer, verdict: Verdict, rewind: int = 0) -> Reading:
    """Returns an ambiguous reading: the players confirm one of the candidates."""
    return Reading("ambiguous", candidates=candidates, rewind=rewind, same_view=same_view,
                   reason=reason, changed=scorer.changed, margin=verdict.margin,
                   frame=scorer.seen.frame)


UNCLEAR = "the camera cannot tell these moves apart well enough"
FAINT = "the board barely changed: confirm the move if it was played"
LOOK_ALIKE = "these moves look the same from above"


def reading_for(game: Game[Any, Any], state: Any, scorer: Scorer, verdict: Verdict) -> Reading:
    """Returns the reading a verdict gives for one state (no belief)."""
    if verdict.kind == "illegal":
        return illegal_reading(game, state, scorer, verdict)
    candidates = distinct_moves(verdict.entries)
    if verdict.kind == "ambiguous":
        return ask_reading(candidates, UNCLEAR, False, scorer, verdict)
    if len(distinct_states(verdict.entries)) > 1:
        return ask_reading(candidates, LOOK_ALIKE, True, scorer, verdict)
    return move_reading(verdict.entries[0].hypothesis.moves, scorer, verdict)


def leanings(game: Game[Any, Any], state: Any, scorer: Scorer, least: float) -> tuple[tuple[float, str, bool], ...]:
    """Returns (score, move, unseen) for the legal moves, best first, whose changed cells all lean
    their way without any being contradicted and that together beat no change by at least
    `least` nats (for a still board where no single cell clearly changed); `unseen` tells that
    every change of the move is one the camera all but cannot see (expect.faint_pair)."""
    seen, current = scorer.seen.cells, scorer.current
    leaning = {square for square, label in current.items() if seen[square].label != label}
    found: list[tuple[float, str, bool]] = []
    for move in game.legal_moves(state) if leaning else ():
        if leaning.isdisjoint(move_touches(game, move)):
            continue
        diff = scorer.diff(view_of(game, game.play(state, move)))
        score, misfit = scorer.judge(diff, strict=True)
        if diff and not misfit and score >= least:
            unseen = all(faint_pair(game.name, current[square], label) for square, label in diff)
            found.append((score, str(move), unseen))
    return tuple(sorted(found, key=lambda found: -found[0]))


def faint_reading(found: Sequence[tuple[float, str, bool]], scorer: Scorer, settings: Settings) -> Reading:
    """Returns the reading of a board where no cell clearly changed, given the moves it leans
    toward (leanings): none, or an ask about those that beat no change by the margin."""
    candidates = tuple((move,) for score, move, _ in found if score >= settings.margin)
    if not candidates:
        return Reading("none", frame=scorer.seen.frame)
    return Reading("ambiguous", candidates=candidates, reason=FAINT, frame=scorer.seen.frame)


def unchanged_reading(game: Game[Any, Any], state: Any, scorer: Scorer,
                      settings: Settings) -> Reading:
    """Returns the reading of a board where no cell clearly changed: none, or an ask when a
    legal move's faint change fits."""
    return faint_reading(leanings(game, state, scorer, settings.margin), scorer, settings)


def read_change(game: Game[Any, Any], state: Any, seen: Observation,
                settings: Settings | None = None) -> Reading:
    """Returns the reading that explains the change from the state's expected view to what is
    seen now (see the module docstring); raises ReadError for bad input."""
    settings = settings or Settings()
    scorer = scorer_for(game, state, seen, settings)
    if not scorer.changed:
        return unchanged_reading(game, state, scorer, settings)
    hypotheses = explanations(game, state, scorer, settings)
    verdict = judge([Entry(0, hypothesis) for hypothesis in hypotheses], settings)
    return reading_for(game, state, scorer, verdict)
