"""Blockade: Looney pyramids on a 5x5 board, dice points, towers capped by black blockades."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any, ClassVar

from rules.blockade_board import (
    BLACK_SUPPLY,
    OWNER,
    SIDE_NAMES,
    SIDES,
    SIZE,
    SQUARES,
    START,
    Colour,
    Landing,
    Piece,
    Size,
    Source,
    Stack,
    Tower,
    Towers,
    blockades_against,
    completed_tower,
    distances,
    landing_check,
    name,
    reason,
    source_check,
)
from rules.blockade_moves import (
    PIPS,
    Allocation,
    BlockadeMove,
    End,
    Roll,
    Step,
    all_rolls,
    allocations,
    parse_move,
    points_left,
    spend,
)
from rules.core import Game, Outcome, other

CAP = 100  # completed turns each (house)
TOWERS_TO_WIN = 5
MOST_STEPS_PER_TURN = 2 * max(PIPS)  # every piece move costs at least one point


@dataclass(frozen=True, slots=True)
class BlockadeState:
    """A Blockade position: stacks (bottom first), towers, black supply, turn and points."""

    stacks: tuple[Stack, ...] = START
    towers: Towers = tuple(None for _ in SQUARES)
    supply: tuple[Size, ...] = BLACK_SUPPLY
    player: int = 1
    points: frozenset[Allocation] | None = None  # open allocations; None while a roll is due
    turns: tuple[int, int] = (0, 0)
    moves: int = 0
    result: Outcome | None = None
    # The last roll, read by board() only while points are open; not compared, hashed or shown.
    roll: Roll | None = field(default=None, compare=False, repr=False)

    def __deepcopy__(self, memo: dict[int, object]) -> BlockadeState:
        return self  # deeply immutable (tuples, frozensets, frozen values): a copy is itself


def _replaced(items: tuple[Any, ...], square: int, value: Any) -> tuple[Any, ...]:
    """Returns a copy of a per-square tuple with one square's entry replaced."""
    return items[:square] + (value,) + items[square + 1 :]


def _slot(player: int, colour: Colour) -> int:
    """Returns which of a side's two colours (0 or 1) a colour is."""
    return SIDES[player].index(colour)


def _points_text(count: int, colour: Colour) -> str:
    """Returns "only N <colour> points are left" with the right number."""
    noun, verb = ("point", "is") if count == 1 else ("points", "are")
    return f"only {count} {colour.word} {noun} {verb} left"


def _tower_count(towers: Towers, colour: Colour) -> int:
    """Returns how many towers of a colour stand on the board."""
    return sum(1 for tower in towers if tower is not None and tower.colour is colour)


def _mover(state: BlockadeState, source: int) -> Piece | None:
    """Returns the top piece of a square if the player to move may move it."""
    stack = state.stacks[source]
    free = source_check(stack, state.towers[source], state.player) is Source.FREE
    return stack[-1] if free else None


def _lands(state: BlockadeState, piece: Piece, target: int) -> bool:
    """Tells whether a piece may land on a square's top."""
    return landing_check(piece, state.stacks[target], state.towers[target]) is Landing.OK


def _path_cost(state: BlockadeState, move: Step) -> int | None:
    """Returns the cost of the cheapest passable path of a piece move, or None if none."""
    blocked = blockades_against(state.towers, state.player)
    return distances(move.source, blocked).get(move.target)


def _landings(state: BlockadeState, pieces: set[Piece]) -> dict[Piece, tuple[int, ...]]:
    """Returns, for each kind of moving piece, the squares whose top it may land on."""
    return {p: tuple(t for t in SQUARES if _lands(state, p, t)) for p in pieces}


def _steps(state: BlockadeState, points: frozenset[Allocation]) -> list[Step]:
    """Returns every piece move the player to move can afford with the open points."""
    blocked = blockades_against(state.towers, state.player)
    movers = {s: p for s in SQUARES if (p := _mover(state, s)) is not None}
    landings = _landings(state, set(movers.values()))
    steps: list[Step] = []
    for source, piece in movers.items():
        budget = points_left(points, _slot(state.player, piece.colour))
        reach = distances(source, blocked, budget) if budget else {}
        steps.extend(Step(source, t) for t in landings[piece] if t in reach and t != source)
    return steps


@lru_cache(maxsize=64)
def _legal(state: BlockadeState) -> tuple[BlockadeMove, ...]:
    """Returns the legal moves of a state (cached: the checked apply asks for them again)."""
    if state.result is not None:
        return ()
    if state.points is None:
        return tuple(all_rolls(state.player))
    return (End(), *_steps(state, state.points))


def _with_tower(state: BlockadeState, square: int) -> BlockadeState:
    """Returns the state with the tower a landing just completed capped, locked and counted."""
    colour = completed_tower(state.stacks[square])
    if colour is None:
        return state
    capped = bool(state.supply)
    cap = (Piece(Colour.BLACK, state.supply[0]),) if capped else ()
    towers = _replaced(state.towers, square, Tower(colour, capped))
    won = _tower_count(towers, colour) >= TOWERS_TO_WIN
    return replace(
        state,
        stacks=_replaced(state.stacks, square, state.stacks[square] + cap),
        towers=towers,
        supply=state.supply[1:],
        result=Outcome(OWNER[colour], "towers") if won else None,
    )


def _end_turn(state: BlockadeState) -> BlockadeState:
    """Returns the state after `end`: the turn counted, the other side to roll."""
    turns = list(state.turns)
    turns[state.player - 1] += 1
    capped = min(turns) >= CAP
    return replace(
        state,
        player=other(state.player),
        points=None,
        turns=(turns[0], turns[1]),
        result=Outcome(None, "cap") if capped else None,
    )


def _move_piece(state: BlockadeState, move: Step) -> BlockadeState:
    """Returns the state after a piece move: points spent, piece moved, towers checked."""
    assert state.points is not None
    piece = state.stacks[move.source][-1]
    cost = _path_cost(state, move)
    assert cost is not None
    stacks = _replaced(state.stacks, move.source, state.stacks[move.source][:-1])
    stacks = _replaced(stacks, move.target, stacks[move.target] + (piece,))
    points = spend(state.points, _slot(state.player, piece.colour), cost)
    return _with_tower(replace(state, stacks=stacks, points=points), move.target)


def _roll_problem(state: BlockadeState, move: Roll) -> str:
    """Returns why a roll is not legal now."""
    if state.points is not None:
        return "the dice were already rolled this turn: move pieces or end"
    if move.side != state.player:
        first, second = (c.word for c in SIDES[state.player])
        return f"it is {SIDE_NAMES[state.player]}'s turn: roll the {first} and {second} dice"
    return "nothing forbids this roll now"


def _step_problem(state: BlockadeState, move: Step, points: frozenset[Allocation]) -> str:
    """Returns the rule a piece move breaks: source, landing, path or points."""
    stack, target = state.stacks[move.source], state.stacks[move.target]
    source = source_check(stack, state.towers[move.source], state.player)
    if source is not Source.FREE:
        return reason(source, square=name(move.source), piece=stack[-1])
    piece = stack[-1]
    landing = landing_check(piece, target, state.towers[move.target])
    if landing is not Landing.OK:
        return reason(landing, piece=piece, top=target[-1], colour=piece.colour.word)
    cost = _path_cost(state, move)
    if cost is None:
        return "no path avoids the opponent's blockades"
    budget = points_left(points, _slot(state.player, piece.colour))
    steps = "1 step" if cost == 1 else f"{cost} steps"
    return f"{name(move.target)} is {steps} away but {_points_text(budget, piece.colour)}"


def _pyramid(piece: Piece, locked: bool) -> dict[str, Any]:
    """Returns a pyramid in the shared board format."""
    size = piece.size.name[0]
    return {"kind": "pyramid", "colour": piece.colour.word, "size": size, "locked": locked}


def _cells(state: BlockadeState) -> dict[str, list[dict[str, Any]]]:
    """Returns every occupied square's pyramids, bottom first, those of a tower locked."""
    cells: dict[str, list[dict[str, Any]]] = {}
    for square, stack in enumerate(state.stacks):
        tower = state.towers[square]
        locked = 0 if tower is None else tower.locked
        if stack:
            cells[name(square)] = [_pyramid(p, level < locked) for level, p in enumerate(stack)]
    return cells


def _off(state: BlockadeState) -> dict[str, Any]:
    """Returns what is off the grid: the black supply, the open points and their roll."""
    supply = {size.name[0]: state.supply.count(size) for size in sorted(Size, reverse=True)}
    if state.points is None:
        return {"black_supply": supply, "points": None, "roll": None}
    points = sorted([list(allocation) for allocation in state.points], reverse=True)
    roll = None if state.roll is None else str(state.roll)
    return {"black_supply": supply, "points": points, "roll": roll}


class Blockade(Game[BlockadeState, BlockadeMove]):
    """The Blockade referee: cool (blue + green) against warm (red + yellow)."""

    name: ClassVar[str] = "blockade"
    house_rules: ClassVar[tuple[str, ...]] = (
        "Player 1 is cool (blue + green) and moves first; the rulebook rolls for first player.",
        f"Cap: after {CAP} completed turns each the game is a draw (reason cap).",
        "The players roll real dice and enter the result: all 36 rolls are legal.",
        "Both dice at 3 or less: the referee keeps both ways to use them open until the "
        "piece moves decide; a move fits when some open way has the points for it.",
        "A piece move `b1-d3` takes a cheapest passable king-step path and costs its length; "
        "a piece may move several times in a turn, each move paid on its own.",
        "A tower forms only when a Small lands on a Medium on a Large, the three of one "
        "colour and alone on the square; the largest black left caps it at once.",
        "A tower's three pieces and its black cap never move again; a piece that lands on "
        "the cap moves freely, and the square stays a blockade whatever sits on it.",
        "With no black left a new tower still counts and is locked, but is no blockade.",
        "Five towers of one colour win at once, checked after each piece move; towers of the "
        "two colours of a side are not added together.",
        "`end` is legal at any time after the roll; unused points are lost.",
    )
    scores_doc: ClassVar[str] = (
        'towers per colour: {"1": {"blue": n, "green": n}, "2": {"red": n, "yellow": n}}'
    )
    counters_doc: ClassVar[str] = "completed turns per player (counted at `end`)"

    def initial_state(self) -> BlockadeState:
        """Returns the set-up position, cool to roll."""
        return BlockadeState()

    def parse(self, text: str) -> BlockadeMove:
        """Returns the typed move for a canonical move text, or raises InvalidMoveError."""
        return parse_move(text)

    def generate(self, state: BlockadeState) -> list[BlockadeMove]:
        """Returns the 36 rolls when a roll is due, else `end` and every affordable piece move."""
        return list(_legal(state))

    def play(self, state: BlockadeState, move: BlockadeMove) -> BlockadeState:
        """Returns the state after a legal move."""
        counted = replace(state, moves=state.moves + 1)
        if isinstance(move, Roll):
            return replace(counted, points=allocations(move), roll=move)
        if isinstance(move, End):
            return _end_turn(counted)
        return _move_piece(counted, move)

    def explain(self, state: BlockadeState, move: BlockadeMove) -> str:
        """Returns the rule an illegal move breaks."""
        if state.result is not None:
            return "the game is over"
        if isinstance(move, Roll):
            return _roll_problem(state, move)
        if state.points is None:
            return "a roll is due"
        if isinstance(move, Step):
            return _step_problem(state, move, state.points)
        return "nothing forbids ending the turn now"

    def to_move(self, state: BlockadeState) -> int | None:
        """Returns the player to act, or None once the game is over."""
        return None if state.result is not None else state.player

    def ply(self, state: BlockadeState) -> int:
        """Returns how many moves have been applied since the set-up."""
        return state.moves

    def outcome(self, state: BlockadeState) -> Outcome | None:
        """Returns how the game ended, or None while it goes on."""
        return state.result

    def scores(self, state: BlockadeState) -> dict[str, Any]:
        """Returns the towers standing per colour, grouped by the side that owns it."""
        return {
            str(side): {c.word: _tower_count(state.towers, c) for c in colours}
            for side, colours in SIDES.items()
        }

    def counters(self, state: BlockadeState) -> dict[str, int]:
        """Returns each player's completed turns."""
        return {"1": state.turns[0], "2": state.turns[1]}

    def max_plies(self) -> int:
        """Returns a true bound: every turn is a roll, at most 12 piece moves, and `end`."""
        return 2 * CAP * (1 + MOST_STEPS_PER_TURN + 1)

    def board(self, state: BlockadeState) -> dict[str, Any]:
        """Returns the position: every stack bottom first, the black supply and the points."""
        return {"size": SIZE, "cells": _cells(state), "off": _off(state)}
