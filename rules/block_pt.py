"""Block (Portuguese rulebook): race a pawn to the far rank or wall the other pawn in."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, ClassVar, TypeVar

from rules.core import (
    Game,
    InvalidMoveError,
    Outcome,
    other,
    parse_square,
    square_name,
)

SIZE = 9
PIECES = 7
CAP = 200
SQUARES: tuple[int, ...] = tuple(range(SIZE * SIZE))
START: tuple[int, int] = (8 * SIZE + 4, 4)  # X on e9, Y on e1
GOAL_RANK: tuple[int, int] = (0, SIZE - 1)  # X heads for rank 1, Y for rank 9
PAWN_NAMES: tuple[str, str] = ("X", "Y")
PIECE_NAMES: tuple[str, str] = ("M", "N")
T = TypeVar("T")
_NOTATION_HELP = "expected a pawn move like e9-e8, a placement like +g3, or pass"


def _name(square: int) -> str:
    """Returns the notation name of a board index."""
    return square_name(square % SIZE, square // SIZE)


def _rank(square: int) -> int:
    """Returns the 0-based rank of a board index."""
    return square // SIZE


def _neighbours(square: int) -> tuple[int, ...]:
    """Returns the board indices orthogonally next to a square."""
    file, rank = square % SIZE, square // SIZE
    steps = ((file - 1, rank), (file + 1, rank), (file, rank - 1), (file, rank + 1))
    return tuple(r * SIZE + f for f, r in steps if 0 <= f < SIZE and 0 <= r < SIZE)


NEIGHBOURS: tuple[tuple[int, ...], ...] = tuple(_neighbours(s) for s in SQUARES)


# -- moves -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Step:
    """A pawn move from one square to another (legal only one orthogonal step)."""

    source: int
    target: int

    def __str__(self) -> str:
        return f"{_name(self.source)}-{_name(self.target)}"


@dataclass(frozen=True, slots=True)
class Place:
    """A blocking piece from the mover's hand put on a square."""

    square: int

    def __str__(self) -> str:
        return f"+{_name(self.square)}"


@dataclass(frozen=True, slots=True)
class Pass:
    """A pass, legal only when the mover has no other action (house)."""

    def __str__(self) -> str:
        return "pass"


BlockPTMove = Step | Place | Pass
PASS = Pass()
PLACES: tuple[Place, ...] = tuple(Place(s) for s in SQUARES)


def _parse_square(text: str, part: str) -> int:
    """Returns the board index named by part of a move text, or raises InvalidMoveError."""
    file, rank = parse_square(part, SIZE, text)
    return rank * SIZE + file


# -- state -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BlockPTState:
    """A position: pawn squares, placed blocking pieces and action counts, per player."""

    pawns: tuple[int, int]
    blocks: tuple[frozenset[int], frozenset[int]]
    counters: tuple[int, int]
    outcome: Outcome | None = None


def _hand(state: BlockPTState, player: int) -> int:
    """Returns how many blocking pieces a player still holds."""
    return PIECES - len(state.blocks[player - 1])


def _mover(state: BlockPTState) -> int:
    """Returns whose turn it is by the action counts (player 1 when they are equal)."""
    return 1 if state.counters[0] == state.counters[1] else 2


def _enclosure(state: BlockPTState, player: int) -> frozenset[int]:
    """Returns the squares a player's pawn reaches over empty squares and its own pieces."""
    walls = state.blocks[other(player) - 1]
    start = state.pawns[player - 1]
    seen = {start}
    frontier = [start]
    while frontier:
        square = frontier.pop()
        for near in NEIGHBOURS[square]:
            if near not in seen and near not in walls:
                seen.add(near)
                frontier.append(near)
    return frozenset(seen)


def _trapped(state: BlockPTState, player: int) -> bool:
    """Tells whether no path leads a player's pawn to its goal rank (pawns ignored)."""
    goal = GOAL_RANK[player - 1]
    return all(_rank(square) != goal for square in _enclosure(state, player))


def _reach(state: BlockPTState, player: int) -> int:
    """Returns how many squares a pawn reaches inside its enclosure, its own excluded."""
    return len(_enclosure(state, player)) - 1


# -- endings -----------------------------------------------------------------------------


def _goal_outcome(state: BlockPTState) -> Outcome | None:
    """Returns a win for a pawn standing on its goal rank."""
    for player in (1, 2):
        if _rank(state.pawns[player - 1]) == GOAL_RANK[player - 1]:
            return Outcome(player, "goal")
    return None


def _better(first: int, second: int) -> int | None:
    """Returns 1 or 2 for the larger of two counts, or None when they are equal."""
    if first == second:
        return None
    return 1 if first > second else 2


def _both_trapped_outcome(state: BlockPTState) -> Outcome:
    """Returns the result when both pawns are trapped: hand, then enclosure, then draw."""
    winner = _better(_hand(state, 1), _hand(state, 2))
    if winner is None:
        winner = _better(_reach(state, 1), _reach(state, 2))
    return Outcome(winner, "trapped")


def _trapped_outcome(state: BlockPTState) -> Outcome | None:
    """Returns the result of trapped pawns, or None while the game goes on."""
    trapped = [player for player in (1, 2) if _trapped(state, player)]
    if len(trapped) == 2:
        return _both_trapped_outcome(state)
    if len(trapped) == 1 and _hand(state, trapped[0]) == 0:
        return Outcome(other(trapped[0]), "trapped")
    return None


def _cap_outcome(state: BlockPTState) -> Outcome | None:
    """Returns a draw once both players have taken CAP actions."""
    if min(state.counters) >= CAP:
        return Outcome(None, "cap")
    return None


def _decide(state: BlockPTState) -> Outcome | None:
    """Returns how the game ends in a state, checked in the rulebook's order."""
    for check in (_goal_outcome, _trapped_outcome, _cap_outcome):
        outcome = check(state)
        if outcome is not None:
            return outcome
    return None


# -- legality ----------------------------------------------------------------------------


def _steps(state: BlockPTState, player: int) -> list[BlockPTMove]:
    """Returns the pawn steps open to a player: not onto opponent pieces or the other pawn."""
    source = state.pawns[player - 1]
    walls = state.blocks[other(player) - 1]
    rival = state.pawns[other(player) - 1]
    return [
        Step(source, target)
        for target in NEIGHBOURS[source]
        if target not in walls and target != rival
    ]


def _may_place(state: BlockPTState, player: int) -> bool:
    """Tells whether a player may place at all: a piece in hand and not its first turn."""
    return _hand(state, player) > 0 and state.counters[player - 1] > 0


def _placements(state: BlockPTState, player: int) -> list[BlockPTMove]:
    """Returns the placements open to a player: every square that holds no piece."""
    if not _may_place(state, player):
        return []
    taken = state.blocks[0] | state.blocks[1] | set(state.pawns)
    return [PLACES[square] for square in SQUARES if square not in taken]


def _occupant(state: BlockPTState, square: int) -> str | None:
    """Returns a description of the piece on a square, or None when it is empty."""
    for player in (1, 2):
        if state.pawns[player - 1] == square:
            return f"the {PAWN_NAMES[player - 1]} pawn"
        if square in state.blocks[player - 1]:
            return f"a blocking piece {PIECE_NAMES[player - 1]}"
    return None


def _explain_step(state: BlockPTState, player: int, move: Step) -> str:
    """Returns the rule a pawn move breaks."""
    pawn = state.pawns[player - 1]
    if move.source != pawn:
        return f"your pawn stands on {_name(pawn)}, not on {_name(move.source)}"
    if move.target not in NEIGHBOURS[pawn]:
        return "a pawn moves exactly one square orthogonally"
    if move.target in state.blocks[other(player) - 1]:
        return f"{_name(move.target)} holds an opponent's blocking piece"
    if move.target == state.pawns[other(player) - 1]:
        return f"{_name(move.target)} holds the other pawn (house: pawns never share a square)"
    return f"{move} is legal"


def _explain_place(state: BlockPTState, player: int, move: Place) -> str:
    """Returns the rule a placement breaks."""
    if state.counters[player - 1] == 0:
        return "your first turn must be a pawn move"
    if _hand(state, player) == 0:
        return "you have no blocking pieces left in hand"
    occupant = _occupant(state, move.square)
    if occupant is not None:
        return f"{_name(move.square)} is occupied by {occupant}"
    return f"{move} is legal"


def _with(pair: tuple[T, T], index: int, value: T) -> tuple[T, T]:
    """Returns a copy of a pair with one item replaced."""
    return (value, pair[1]) if index == 0 else (pair[0], value)


def _acted(state: BlockPTState, index: int, move: BlockPTMove) -> BlockPTState:
    """Returns the state after the player at index acts, counted but not yet judged."""
    after = replace(state, counters=_with(state.counters, index, state.counters[index] + 1))
    if isinstance(move, Step):
        return replace(after, pawns=_with(state.pawns, index, move.target))
    if isinstance(move, Place):
        blocks = state.blocks[index] | {move.square}
        return replace(after, blocks=_with(state.blocks, index, blocks))
    return after


def _cells(state: BlockPTState) -> dict[str, list[dict[str, Any]]]:
    """Returns the occupied squares in the shared board format: a pawn on top of its piece."""
    cells: dict[str, list[dict[str, Any]]] = {}
    for player in (1, 2):
        blocker = {"kind": "blocker", "owner": player, "label": PIECE_NAMES[player - 1]}
        for square in sorted(state.blocks[player - 1]):
            cells[_name(square)] = [dict(blocker)]
    for player in (1, 2):
        pawn = {"kind": "pawn", "owner": player, "label": PAWN_NAMES[player - 1]}
        cells.setdefault(_name(state.pawns[player - 1]), []).append(pawn)
    return cells


# -- the game ----------------------------------------------------------------------------


class BlockPT(Game[BlockPTState, BlockPTMove]):
    """Block: each player walks a pawn to the far rank or walls the other pawn in."""

    name: ClassVar[str] = "block-pt"
    variants: ClassVar[tuple[str, ...]] = ()
    house_rules: ClassVar[tuple[str, ...]] = (
        "A pawn may never enter the square of the other pawn.",
        "A player with no other legal action passes; pass is legal only then, and it counts"
        " as an action.",
        "Trapped means no orthogonal path from the pawn to its goal rank over empty squares"
        " and the player's own blocking pieces; pawns are ignored, and a pawn on its goal"
        " rank is never trapped.",
        "When both pawns are trapped, more pieces in hand wins, then more squares reachable"
        " inside the enclosure (found as in the trapped test, the pawn's own square"
        " excluded), else the game is drawn (reason trapped).",
        f"Move cap: the game is drawn (reason cap) once both players have taken {CAP} actions;"
        " a goal or trap reached on the capping action wins over the cap.",
    )
    scores_doc: ClassVar[str] = (
        '"1": blocking pieces M that X (player 1) still holds; '
        '"2": blocking pieces N that Y (player 2) still holds.'
    )
    counters_doc: ClassVar[str] = (
        '"1", "2": actions each player has taken (pawn moves, placements and passes).'
    )

    def initial_state(self) -> BlockPTState:
        """Returns X on e9 and Y on e1, every blocking piece in hand, no action taken."""
        return BlockPTState(START, (frozenset(), frozenset()), (0, 0))

    def parse(self, text: str) -> BlockPTMove:
        """Returns the typed move for `e9-e8`, `+g3` or `pass`, or raises InvalidMoveError."""
        if text == "pass":
            return PASS
        if text.startswith("+"):
            return PLACES[_parse_square(text, text[1:])]
        parts = text.split("-")
        if len(parts) == 2:
            return Step(_parse_square(text, parts[0]), _parse_square(text, parts[1]))
        raise InvalidMoveError(text, _NOTATION_HELP)

    def generate(self, state: BlockPTState) -> list[BlockPTMove]:
        """Returns the pawn steps and placements of the mover, or pass when there are none."""
        if state.outcome is not None:
            return []
        player = _mover(state)
        moves = _steps(state, player) + _placements(state, player)
        return moves if moves else [PASS]

    def play(self, state: BlockPTState, move: BlockPTMove) -> BlockPTState:
        """Returns the state after a legal move, with the ending checked."""
        after = _acted(state, _mover(state) - 1, move)
        return replace(after, outcome=_decide(after))

    def explain(self, state: BlockPTState, move: BlockPTMove) -> str:
        """Returns the rule a move breaks in the state."""
        if state.outcome is not None:
            return "the game is over"
        player = _mover(state)
        if isinstance(move, Step):
            return _explain_step(state, player, move)
        if isinstance(move, Place):
            return _explain_place(state, player, move)
        if move not in self.generate(state):
            return "pass is legal only when you have no other action (house)"
        return "pass is legal"

    def to_move(self, state: BlockPTState) -> int | None:
        """Returns the player to act, or None once the game is over."""
        return None if state.outcome is not None else _mover(state)

    def ply(self, state: BlockPTState) -> int:
        """Returns how many actions both players have taken."""
        return state.counters[0] + state.counters[1]

    def outcome(self, state: BlockPTState) -> Outcome | None:
        """Returns how the game ended, or None while it goes on."""
        return state.outcome

    def scores(self, state: BlockPTState) -> dict[str, Any]:
        """Returns the blocking pieces each player still holds."""
        return {"1": _hand(state, 1), "2": _hand(state, 2)}

    def counters(self, state: BlockPTState) -> dict[str, int]:
        """Returns each player's count of actions, passes included."""
        return {"1": state.counters[0], "2": state.counters[1]}

    def max_plies(self) -> int:
        """Returns the cap on both players' actions: no game lasts longer."""
        return 2 * CAP

    def board(self, state: BlockPTState) -> dict[str, Any]:
        """Returns the position: pieces and pawns on the grid, blocking pieces in hand."""
        hand = {str(player): _hand(state, player) for player in (1, 2)}
        return {"size": SIZE, "cells": _cells(state), "off": {"hand": hand}}

    def hand(self, state: BlockPTState, player: int) -> int:
        """Returns how many blocking pieces a player still holds."""
        return _hand(state, player)

    def trapped(self, state: BlockPTState, player: int) -> bool:
        """Tells whether a player's pawn can no longer reach its goal rank."""
        return _trapped(state, player)

    def reach(self, state: BlockPTState, player: int) -> int:
        """Returns how many squares a pawn reaches inside its enclosure, its own excluded."""
        return _reach(state, player)
