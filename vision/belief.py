"""A belief: the states the camera cannot tell apart, kept until later observations settle them.

When several legal moves explain what is seen equally well and lead to different states with
the same expected view, `read_change` alone must ask. A Belief keeps every such state instead
(at most MAX_STATES), reports one of them, and narrows on later observations.

Where this happens in the five games:
- Blockade: a Small put on a stack topped by a pyramid of its colour shows in the label
  (vision/observation.py: nested pyramids are counted), but from above it all but vanishes, so
  when it may have gone onto either of two such stacks and neither clearly grew, the two
  results look alike (vision/infer.py: faint changes); the belief keeps both when one is
  LOOK_ALIKE_ODDS times as likely, and reports that one; not while a question stands, where the
  position is stale and a guess on it compounds (a random look then read a stale move, and the
  rolls after it were taken into a game gone astray). (A move that changes no view at all is
  not read: see vision/infer.py.) A Small put onto or taken off a pyramid of its colour may
  not show clearly anywhere: when nothing clearly changed but the board leans toward such a
  move by UNSEEN_LEAN nats, LOOK_ALIKE_ODDS times as likely as no move and every other leaning
  move together, the belief reports it and keeps the position without it beside it, so a later
  look that shows otherwise takes it back (sweeps 901 and 905: a Small moved so at the first
  turn went unread, and a later move of it was read from the stack it had left: a false move
  each; a still board with a weaker lean, or any while a question or an illegal change stands,
  reads as no change, and one leaning by the margin toward a move that does show is asked about).
- BLOCK.BLOCK: none. Labels carry the column height and the board is a height map with no
  holes (RULES.md house rule), so the grown columns give a placement's cells exactly, and the
  cells give the shape. Not so for several placements caught up with at once after a misreading:
  they may split the grown cells otherwise, leaving other blocks in hand, and that is asked
  about (`_split_otherwise`).
- Block Arena: none. One move moves one block or meeple, every cell of a block shows its colour
  and orientation, and two readings of the same lying cells as different block pairs would
  differ in at least two blocks.
- Tuned and Block (PT): none. Every animal, tile and pawn is visible, so different moves give
  different views.

When it asks (an `ambiguous` reading; the belief does not change until the players answer
with `choose`, except that a question between different-looking moves keeps its candidates in
`asked`: when the next change fits no single move, each candidate followed by one move is tried,
so a question nobody answers costs no later move (in Blockade, whose observer reads a square
that did not change since the last frame as the position holds it, the squares the question's
looks saw change are read for this as those looks read them: `_as_asked`); a later look answers
it with one of its own candidates, or with one the question did not favour followed by a move,
only by SETTLE_MARGINS margins, or when SETTLE_LEADS later looks in a row each favoured the
question's favourite by LEAD nats (one look's margin may tip between the candidates at random; a
run of looks favouring the same one is taken as the board), else the question is asked again;
moves from events that come meanwhile, a done's `end` and a roll, are put after each candidate
(`deferred`), so the turn goes on and the look that settles the question plays them too;
meanwhile a move from the reported position is read only as one of the candidates, since the
game has gone on through those moves): when the change is
explained in some members and, in another member, every way to make it is illegal (the next
move's legality differs and the camera cannot settle it); when the winning explanations look
different but are within the margin (as read_change asks); and when keeping every look-alike
would exceed MAX_STATES. A member whose own result of the winning moves looks different from
what is seen is dropped silently: the camera settled it.

A change read as illegal keeps its nearest explanations in `missed` (the last MISSED) until the
board reads unchanged or a move is read; they start the next readings as a question's candidates
do, so a move misread once is caught up with the next one if the next look reads it right. When
that catch-up fits nothing either, its own nearest explanations (one move longer) are kept too,
so moves played while a misreading lasts are caught up with once it clears. Where
a reading holds one move, a square the next look reads as that change did, otherwise than the
position holds it, and that none of those explanations touches is a misreading that lasts
(`_lasting`): the next reading leaves it out, so the move the camera did see is read past it.

Readings are relative to what was reported: each `move` reading plays the moves of one member
(preferably the one already reported); when the belief later settles on another member, the
reading has `rewind` = the number of moves reported since the belief's anchor, and `moves` is
that member's whole path since the anchor.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Iterable, Mapping, Sequence

from rules.core import Game, IllegalMoveError, InvalidMoveError
from vision.infer import (
    LOOK_ALIKE_ODDS,
    MAX_SEQUENCE,
    UNCLEAR,
    Entry,
    Hypothesis,
    Reading,
    Scorer,
    Settings,
    Verdict,
    ask_reading,
    distinct_moves,
    explanations,
    extensions,
    faint_reading,
    illegal_reading,
    judge,
    leanings,
    move_reading,
    scorer_for,
    stale_misreads,
)
from vision.observation import CellSeen, Observation, king_step
from vision.sight import move_touches, referee_reason, view_of

MAX_STATES = 16
MISSED = 6  # the nearest explanations of illegal readings kept to start a later reading from
UNSEEN_LEAN = 1.0  # nats: a still board leaning so toward a move the camera all but cannot see reads it
ECHOING = frozenset({"blockade"})  # games whose observer reads a square that did not change since
                                   # the last frame read as the position holds it (its nesting evidence)
SETTLE_LEADS = 3  # later looks in a row that favour a question's favourite by LEAD nats settle it
LEAD = 1.5  # nats: half the margin (BLOCK.BLOCK sweep 1157 favoured the true ell by 2.3 at 20 looks)
SETTLE_MARGINS = 2.0  # a later look answers a question left unanswered by this many margins
FIRST_LOOK_DOUBT = 3.0  # nats: a second look may change a square the first read unchanged only
                        # if the first doubted that change by less (on 24 BLOCK.BLOCK second looks
                        # the one right change there was doubted by 2.3, the one wrong by 4.3; that
                        # wrong one's first look, through the markers' lens, doubts it by 3.7)


@dataclass(frozen=True, slots=True)
class Member:
    """One state the belief holds, and the moves that lead to it from the anchor."""

    state: Any = field(compare=False)
    path: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Belief:
    """The states consistent with everything seen since the last certain state (the anchor)."""

    game: Game[Any, Any]
    anchor: Any
    members: tuple[Member, ...]
    reported: tuple[str, ...] = ()
    settings: Settings = Settings()
    asked: tuple[tuple[str, ...], ...] = ()  # the candidates of a question left unanswered
    missed: tuple[tuple[str, ...], ...] = ()  # the nearest explanations of changes read as illegal
    disputed: Observation | None = field(default=None, compare=False)  # the last change read as illegal
    kept: tuple[str, ...] = ()  # moves from events since the question was asked: each candidate holds them
    leads: int = 0  # looks in a row since the question that favoured its favourite (see _leads)
    asked_cells: Mapping[str, CellSeen] = field(default_factory=dict, compare=False)  # what its looks saw change

    @classmethod
    def start(cls, game: Game[Any, Any], state: Any, settings: Settings | None = None) -> Belief:
        """Returns the certain belief in one state."""
        return cls(game, state, (Member(state),), (), settings or Settings())

    @property
    def certain(self) -> bool:
        """Tells whether the belief holds a single state."""
        return len(self.members) == 1

    @property
    def states(self) -> tuple[Any, ...]:
        """Returns the states the belief holds."""
        return tuple(member.state for member in self.members)

    @property
    def state(self) -> Any:
        """Returns the reported state (the member whose path was reported)."""
        return next((m.state for m in self.members if m.path == self.reported),
                    self.members[0].state)

    # -- observations ------------------------------------------------------------------------

    def read(self, seen: Observation, before: Observation | None = None) -> tuple[Reading, Belief]:
        """Returns the reading of an observation and the belief after it (for none, illegal and
        ambiguous readings the same states, with what the look leaves to remember); `before` is
        the last observation accepted."""
        scorer = scorer_for(self.game, self.state, seen, self.settings, before, self._lasting(seen))
        if not scorer.changed:
            return self._unchanged(scorer)
        entries = [Entry(index, hypothesis) for index, member in enumerate(self.members)
                   for hypothesis in explanations(self.game, member.state, scorer, self.settings)
                   if not self.kept or hypothesis.moves + self.kept in self.asked]
        verdict = judge(entries, self.settings, look_alikes=not self.asked)
        further: tuple[tuple[str, ...], ...] = ()
        if verdict.kind == "illegal" and (self.asked or self.missed):
            caught = self._catch_up(scorer)
            verdict, further = (verdict, self._lengthened(caught)) if caught.kind == "illegal" else (caught, ())
        elif verdict.kind == "move" and self.missed:
            verdict = self._seen_on_the_way(verdict, scorer)
        leads = self._leads(verdict)
        settled = leads >= SETTLE_LEADS
        if settled and verdict.kind == "ambiguous":
            verdict = Verdict("move", best_view(verdict.entries), verdict.margin)
        elif not settled and verdict.kind == "move" and self._barely_settles(verdict):
            return ask_reading(self.asked, UNCLEAR, False, scorer, verdict), replace(self, leads=leads)
        if verdict.kind == "illegal":
            reading = illegal_reading(self.game, self.state, scorer, verdict)
            missed = tuple(dict.fromkeys(self.missed + reading.nearest + further))[-MISSED:]
            return reading, replace(self, missed=missed, disputed=seen, leads=0)
        if verdict.kind == "ambiguous":
            reading = self._ask(verdict, scorer, UNCLEAR, same_view=False)
            asked = () if reading.rewind else self._keeping(reading.candidates)
            return reading, replace(self, asked=asked, kept=self.kept if asked else (), missed=(), disputed=None,
                                    asked_cells=self._seen_changing(scorer) if asked else {},
                                    leads=leads if asked else 0)
        return self._narrow(verdict, scorer)

    def _unchanged(self, scorer: Scorer) -> tuple[Reading, Belief]:
        """Returns the reading of a board where no cell clearly changed and the belief after it:
        an unseen move the board leans toward (see _unseen) is reported, and the position
        without it is kept beside it; else none, or a question about a faint change."""
        found = leanings(self.game, self.state, scorer, least=0.0)
        unseen = self._unseen(found)
        if unseen is None:
            return faint_reading(found, scorer, self.settings), self._unmissed()
        move, margin = unseen
        member = Member(self.game.apply(self.state, move), self.reported + (move,))
        belief = Belief(self.game, self.anchor, (member, *self.members), member.path, self.settings)
        return move_reading((move,), scorer, Verdict("move", (), margin)), belief

    def _unseen(self, found: Sequence[tuple[float, str, bool]]) -> tuple[str, float] | None:
        """Returns the move the camera all but cannot see (every change of it a pyramid onto or
        off one of its colour: expect.faint_pair) that a board where nothing clearly changed
        leans toward (found: its leanings) by UNSEEN_LEAN nats, LOOK_ALIKE_ODDS times as likely as no move and every
        other leaning move together, and its margin over the likeliest of those; None when
        there is none, while a question or an illegal change stands, or when the belief holds
        as many positions as it may."""
        if self.asked or self.missed or len(self.members) >= MAX_STATES:
            return None
        if not found or not found[0][2] or found[0][0] < UNSEEN_LEAN:
            return None
        top, move, _ = found[0]
        rivals = [0.0, *(score for score, _, _ in found[1:])]
        if -math.log(sum(math.exp(score - top) for score in rivals)) < math.log(LOOK_ALIKE_ODDS):
            return None
        return move, top - max(rivals)

    def _leads(self, verdict: Verdict) -> int:
        """Returns how many looks in a row since the question, this one included, favoured its
        favourite by LEAD nats or more: 0 without a question or when this look does not."""
        if not self.asked or verdict.kind not in ("move", "ambiguous") or verdict.margin is None:
            return 0
        favourite, best = self.asked[0], verdict.entries[0].hypothesis.moves
        return self.leads + 1 if verdict.margin >= LEAD and best[:len(favourite)] == favourite else 0

    def _barely_settles(self, verdict: Verdict) -> bool:
        """Tells whether a move reading answers the question left unanswered by less than
        SETTLE_MARGINS margins, with one of its candidates alone or with one the question did
        not favour followed by later moves: a look that found them too close once must now
        tell them apart clearly, not tip between them (a question asked again and again over a
        stale position tips at random, and a look that also holds later moves reads the column
        it asked about no better than the look that asked: BLOCK.BLOCK bright-546 caught up
        with five moves through the unfavoured candidate, a column read a cube short)."""
        if not self.asked or verdict.margin is None or verdict.margin >= SETTLE_MARGINS * self.settings.margin:
            return False
        return any(moves in self.asked or moves + self.kept in self.asked
                   or any(moves[:len(asked)] == asked for asked in self.asked[1:])
                   for moves in distinct_moves(verdict.entries))

    def _unmissed(self) -> Belief:
        """Returns the belief without the illegal changes' explanations (the board is back as
        the position holds it)."""
        return replace(self, missed=(), disputed=None) if self.missed or self.disputed else self

    def _reads_turns(self) -> bool:
        """Tells whether one reading may hold several moves (Blockade's turns): an illegal
        change's nearest explanations then do not cover what the reading holds."""
        return self.settings.sequence_length(self.game.name) > 1

    def _lasting(self, seen: Observation) -> frozenset[str]:
        """Returns the squares read otherwise than the position holds them, as the last change
        read as illegal read them, that none of that change's nearest legal explanations
        touches: a misreading that lasts (a column read a cube too tall) says nothing about what
        changed since, so the moves the camera did see are read past it. Not where one reading
        may hold several moves (Blockade's turns): there the nearest explanations do not cover
        the turn, and a cell the camera all but cannot see change may be one of its moves (on
        Blockade random looks it read 47 fewer moves and two more false ones)."""
        if self.disputed is None or not self.missed or self._reads_turns():
            return frozenset()
        touched = {square for moves in self.missed for move in moves for square in move_touches(self.game, move)}
        lasting = stale_misreads(view_of(self.game, self.state), seen, self.disputed) - touched
        return lasting - self._shown_by_a_move(seen, lasting) if lasting else lasting

    def _shown_by_a_move(self, seen: Observation, squares: frozenset[str]) -> set[str]:
        """Returns the squares among these that a legal move, played now or after one of the
        nearest explanations, changes to just what is seen: a change the rules explain may be
        the next move, not a misreading (BLOCK.BLOCK fresh-d 640: a bar2 put down beside an
        unexplained change was left out as lasting, and the moves after it were read past it)."""
        shown: set[str] = set()
        for moves in ((), *self.missed):
            try:
                start = self.game.play_all(list(moves), self.state)
            except (IllegalMoveError, InvalidMoveError):
                continue
            before = view_of(self.game, start)
            for move in self.game.legal_moves(start):
                if not squares & move_touches(self.game, move):
                    continue
                after = view_of(self.game, self.game.play(start, move))
                changed = {square for square, label in after.items() if before[square] != label}
                if changed & squares and all(seen.cells[square].label == after[square] for square in changed):
                    shown |= changed & squares
        return shown

    def _catch_up(self, scorer: Scorer) -> Verdict:
        """Returns the verdict on the unanswered question's candidates and the nearest
        explanations of changes read as illegal since the last move, each followed by one move
        (a question when other moves lead to its view as well: see _split_otherwise)."""
        scorer = self._as_asked(scorer)
        starts = tuple(dict.fromkeys(self.asked + self.missed))
        entries = self._from_reported(lambda state: extensions(self.game, state, scorer, starts))
        return self._split_otherwise(judge(entries, self.settings, look_alikes=False), scorer)

    def _seen_changing(self, scorer: Scorer) -> dict[str, CellSeen]:
        """Returns the cells the looks of the question standing saw change, this look's added."""
        earlier = self.asked_cells if self.asked else {}
        return {**earlier, **{square: scorer.seen.cells[square] for square in scorer.changed}}

    def _as_asked(self, scorer: Scorer) -> Scorer:
        """Returns the scorer with the squares the question's looks saw change, which this look
        does not, read as those looks read them, in a game whose observer reads a square that
        did not change since the last frame as the position holds it (ECHOING): the position
        lacks the question's moves, so later looks echo it there (Blockade sweep 1128: a Medium
        gone from a5, asked to have gone to b1 or c1, read at every later look as still on a5,
        so no catch-up fitted, and the game stalled after 37 of 113 moves)."""
        echoed = {square: cell for square, cell in self.asked_cells.items() if square not in scorer.changed}
        if not self.asked or not echoed or self.game.name not in ECHOING:
            return scorer
        seen = Observation(scorer.seen.game, {**scorer.seen.cells, **echoed}, scorer.seen.frame)
        return Scorer(seen, scorer.current, self.settings, scorer.stale)

    def _from_reported(self, search: Callable[[Any], Iterable[Hypothesis]]) -> list[Entry]:
        """Returns the entries a search finds from the state of the member whose path was
        reported (a catch-up goes on from what the players were told)."""
        return [Entry(index, hypothesis) for index, member in enumerate(self.members)
                if member.path == self.reported for hypothesis in search(member.state)]

    def _split_otherwise(self, verdict: Verdict, scorer: Scorer) -> Verdict:
        """Returns a catch-up's move verdict as a question when other moves, not the same ones
        in another order (the camera saw which change came first), lead to its view and to
        another position: among its own entries, or, where it starts from changes read as
        illegal, found by a search of as many moves (up to MAX_SEQUENCE) from the reported
        position. Such a catch-up starts from a few near explanations only, and several moves
        may split the cells that changed otherwise (BLOCK.BLOCK sweep 1111: a slab then an ell
        on it was caught up with as an ell then an ess, the same columns but other blocks left:
        two false moves). A question's candidates are all its look left possible, so a search
        past them finds moves that look contradicted (sweep 805: an upright bar2 where the
        look that asked saw the ell's third cube; asked about at every look after, 3 of 21 read).
        Not for Blockade's turns, whose look-alikes the belief keeps."""
        if verdict.kind != "move" or self._reads_turns():
            return verdict
        first = verdict.entries[0].hypothesis
        length = len(first.moves)
        reaching = self._reaching(verdict, length, scorer) if self.missed else []
        rivals = tuple(entry for entry in (*verdict.entries[1:], *reaching)
                       if entry.hypothesis.state != first.state
                       and sorted(entry.hypothesis.moves) != sorted(first.moves))
        return Verdict("ambiguous", verdict.entries[:1] + rivals, verdict.margin) if rivals else verdict

    def _reaching(self, verdict: Verdict, length: int, scorer: Scorer) -> list[Entry]:
        """Returns the explanations of as many moves (none past MAX_SEQUENCE) from the reported
        member that reach one of a verdict's views."""
        if not 2 <= length <= MAX_SEQUENCE:
            return []
        views = {entry.hypothesis.diff for entry in verdict.entries}
        settings = replace(self.settings, max_moves=length)
        return [entry for entry in self._from_reported(lambda state: explanations(self.game, state, scorer, settings))
                if len(entry.hypothesis.moves) == length and entry.hypothesis.diff in views]

    def _caught_up(self, scorer: Scorer) -> Verdict | None:
        """Returns the catch-up's verdict (see _catch_up), or None when none of it fits."""
        verdict = self._catch_up(scorer)
        return None if verdict.kind == "illegal" else verdict

    def _lengthened(self, caught: Verdict) -> tuple[tuple[str, ...], ...]:
        """Returns the nearest explanations of a catch-up that fitted nothing, each one kept
        explanation and one more move: the next reading starts from them, so moves played while
        a misreading lasts are caught up with once it clears (Block Arena fresh-b 612: a shadow
        read as a walnut block hid one move, then two more were played before it cleared). Not
        where one reading may hold several moves (Blockade's turns)."""
        if self._reads_turns():
            return ()
        return tuple(entry.hypothesis.moves for entry in caught.entries)

    def _seen_on_the_way(self, verdict: Verdict, scorer: Scorer) -> Verdict:
        """Returns the catch-up through the last illegal change's nearest explanations when it
        reaches the very view a move reading reaches (a piece moved on from where that change
        saw it: Tuned sweep 1108's dog, read on c2 as two animals, then moved to c3, was read
        as a2-c3, one move where two were played); else the move verdict. Not where one
        reading may hold several moves (Blockade's turns), whose nearest explanations do not
        cover the turn."""
        if self._reads_turns():
            return verdict
        caught = self._caught_up(scorer)
        if caught is None or caught.kind != "move":
            return verdict
        views = {entry.hypothesis.diff for entry in verdict.entries}
        return caught if {entry.hypothesis.diff for entry in caught.entries} == views else verdict

    def _narrow(self, verdict: Verdict, scorer: Scorer) -> tuple[Reading, Belief]:
        """Returns the move reading and the narrowed belief, or an ask when it cannot pick."""
        if self._legality_differs(verdict):
            reason = ("the camera could not tell which look-alike move happened earlier, and "
                      "this move is legal only after some of them")
            return self._ask(verdict, scorer, reason, same_view=True, whole=True), self
        kept = self._successors(verdict)
        if len(kept) > MAX_STATES:
            reason = f"more than {MAX_STATES} positions look the same"
            return self._ask(verdict, scorer, reason, same_view=True), self
        chosen = next((pair for pair in kept if pair[0] == self.reported), kept[0])
        reading = self._move_reading(chosen, verdict, scorer)
        return reading, self._after(tuple(member for _, member in kept), chosen[1])

    def _legality_differs(self, verdict: Verdict) -> bool:
        """Tells whether, in some member that does not explain the change, every winning
        sequence of moves is illegal (then the camera cannot rule that member out)."""
        explained = {entry.member for entry in verdict.entries}
        sequences = distinct_moves(verdict.entries)
        return any(all(referee_reason(self.game, member.state, moves) is not None
                       for moves in sequences)
                   for index, member in enumerate(self.members) if index not in explained)

    def _successors(self, verdict: Verdict) -> list[tuple[tuple[str, ...], Member]]:
        """Returns (old path, new member) for each distinct state the winning entries reach,
        by the reported member's path where it reaches one too (no needless rewind)."""
        kept: dict[Any, tuple[tuple[str, ...], Member]] = {}
        for entry in sorted(verdict.entries, key=lambda entry: self.members[entry.member].path != self.reported):
            old = self.members[entry.member].path
            hypothesis = entry.hypothesis
            kept.setdefault(hypothesis.state,
                            (old, Member(hypothesis.state, old + hypothesis.moves)))
        return list(kept.values())

    def _move_reading(self, chosen: tuple[tuple[str, ...], Member], verdict: Verdict,
                      scorer: Scorer) -> Reading:
        """Returns the move reading of the chosen member, rewinding if its past was not reported."""
        old, member = chosen
        if old == self.reported:
            return move_reading(member.path[len(old):], scorer, verdict)
        return move_reading(member.path, scorer, verdict, rewind=len(self.reported))

    def _after(self, members: tuple[Member, ...], chosen: Member) -> Belief:
        """Returns the belief holding members, re-anchored when only one is left."""
        if len(members) == 1:
            return Belief.start(self.game, members[0].state, self.settings)
        return Belief(self.game, self.anchor, members, chosen.path, self.settings)

    def _ask(self, verdict: Verdict, scorer: Scorer, reason: str, same_view: bool,
             whole: bool = False) -> Reading:
        """Returns an ambiguous reading over the entries' paths: relative to what was reported
        when every path extends it and `whole` is not asked for, else whole paths since the
        anchor, after taking back every reported move."""
        paths = tuple(dict.fromkeys(self.members[e.member].path + e.hypothesis.moves
                                    for e in verdict.entries))
        done = len(self.reported)
        if not whole and all(path[:done] == self.reported for path in paths):
            paths, rewind = tuple(path[done:] for path in paths), 0
        else:
            rewind = done
        return ask_reading(paths, reason, same_view, scorer, verdict, rewind)

    def fits_first_look(self, first: Observation, moves: Sequence[str], before: Observation | None = None) -> bool:
        """Tells whether moves a second look read under their own position may be what the first
        look saw (pi.pipeline): a square they change that the first look read unchanged, it
        doubted by less than FIRST_LOOK_DOUBT, and a square the first look read changed that
        they leave alone is a king step from one they change (a misreading that lasts since
        `before`, the last reading accepted, counts as unchanged). A moved piece hides or shows
        only cells near it; a look under a trial position leans to that position's pieces
        wherever it cannot see well, so it must not overrule what the first look saw clearly."""
        scorer = scorer_for(self.game, self.state, first, self.settings, before)
        diff = scorer.diff(view_of(self.game, self.game.play_all(list(moves), self.state)))
        changes = {square for square, _ in diff}
        if any(square not in scorer.changed and scorer.doubt(square, label) >= FIRST_LOOK_DOUBT
               for square, label in diff):
            return False
        return all(any(king_step(square, other) for other in changes)
                   for square in scorer.changed if square not in changes)

    # -- moves that do not come from the camera ------------------------------------------------

    def deferred(self, move: str) -> Belief | None:
        """Returns the belief with a move from an event (a done's `end`, a roll) put after each
        candidate of the question left unanswered that it may follow, or None when it follows
        none: a later look that settles the question then plays it too."""
        try:
            canonical = (str(self.game.coerce(move)),)
        except InvalidMoveError:
            return None
        if canonical[0] in self.kept:  # a question is carried over one turn's end, no further
            return None
        extended = tuple(candidate + canonical for candidate in self.asked
                         if referee_reason(self.game, self.state, candidate + canonical) is None)
        return replace(self, asked=extended, kept=self.kept + canonical) if extended else None

    def undeferred(self) -> Belief:
        """Returns the belief without the moves kept from events: each candidate of the
        question cut where they start, as if they had never come."""
        cut = (candidate[:run_start(candidate, self.kept)] for candidate in self.asked)
        return replace(self, asked=tuple(dict.fromkeys(cut)), kept=())

    def _keeping(self, candidates: tuple[tuple[str, ...], ...]) -> tuple[tuple[str, ...], ...]:
        """Returns a question's candidates each followed by the moves kept from events since
        the question before it (`kept`), unless it holds them already or they may not follow it."""
        if not self.kept:
            return candidates
        return tuple(candidate + self.kept if self._may_keep(candidate) else candidate for candidate in candidates)

    def _may_keep(self, candidate: tuple[str, ...]) -> bool:
        """Tells whether the kept moves may be put after a candidate that does not hold them."""
        return (run_start(candidate, self.kept) is None
                and referee_reason(self.game, self.state, candidate + self.kept) is None)

    def play(self, move: str) -> Belief:
        """Returns the belief after a move from an event (a roll, `end`, a pass) or the players:
        members where it is illegal are dropped; raises IllegalMoveError if it is illegal in all."""
        kept: list[Member] = []
        error: IllegalMoveError | None = None
        for member in self.members:
            try:
                after = self.game.apply(member.state, move)
            except IllegalMoveError as illegal:
                error = error or illegal
                continue
            kept.append(Member(after, member.path + (str(self.game.coerce(move)),)))
        if not kept:
            assert error is not None
            raise error
        reported = self.reported + (str(self.game.coerce(move)),)
        chosen = next((m for m in kept if m.path == reported), kept[0])
        return self._after(tuple(kept), chosen)

    def choose(self, moves: Sequence[str], rewind: int = 0) -> Belief:
        """Returns the certain belief after the players confirm a reading: take back `rewind`
        reported moves, then play `moves` (raises a RulesError if that is not legal)."""
        if not 0 <= rewind <= len(self.reported):
            raise ValueError(f"cannot take back {rewind} moves: {len(self.reported)} were reported")
        path = self.reported[: len(self.reported) - rewind] + tuple(moves)
        return Belief.start(self.game, self.game.play_all(list(path), self.anchor), self.settings)


def best_view(entries: Sequence[Entry]) -> tuple[Entry, ...]:
    """Returns the entries that lead to the first one's view."""
    return tuple(entry for entry in entries if entry.hypothesis.diff == entries[0].hypothesis.diff)


def run_start(moves: Sequence[str], part: Sequence[str]) -> int | None:
    """Returns where some moves first hold a run of others, in order and together, or None."""
    moves, part = tuple(moves), tuple(part)
    return next((start for start in range(len(moves) - len(part) + 1) if moves[start:start + len(part)] == part), None)
