"""Tuned: donkeys, dogs and cats stacked on a 3x3 board until three tops make a line."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any, ClassVar, Literal, TypeVar

from rules.core import (
    Game,
    InvalidMoveError,
    Outcome,
    other,
    parse_square,
    square_name,
)

SIZE = 3
DONKEY, DOG, CAT = 0, 1, 2
ANIMALS: tuple[str, ...] = ("donkey", "dog", "cat")
START_HAND: tuple[int, ...] = (2, 2, 2)
CAP = 200
SQUARES: tuple[int, ...] = tuple(range(SIZE * SIZE))

Action = Literal["add", "move"]
Stack = tuple[int, ...]
T = TypeVar("T")

_ADD_TEXT = re.compile(r"\+(donkey|dog|cat)@([a-z][0-9]+)")
_MOVE_TEXT = re.compile(r"([a-z][0-9]+)-([a-z][0-9]+)(?:/([23]))?")
_NOTATION_HELP = "expected +donkey@a1, +dog@a1, +cat@a1, a1-b2, a1-b2/2 or a1-b2/3"


def _square_index(file: int, rank: int) -> int:
    """Returns the board index of a 0-based (file, rank) square."""
    return rank * SIZE + file


def _name(square: int) -> str:
    """Returns the notation name of a board index."""
    return square_name(square % SIZE, square // SIZE)


def _lines() -> tuple[tuple[int, ...], ...]:
    """Returns the board indices of the three rows, three columns and two diagonals."""
    steps = range(SIZE)
    rows = [tuple(_square_index(f, r) for f in steps) for r in steps]
    columns = [tuple(_square_index(f, r) for r in steps) for f in steps]
    diagonals = [
        tuple(_square_index(i, i) for i in steps),
        tuple(_square_index(i, SIZE - 1 - i) for i in steps),
    ]
    return tuple(rows + columns + diagonals)


LINES: tuple[tuple[int, ...], ...] = _lines()
TARGETS: tuple[tuple[int, ...], ...] = tuple(
    tuple(t for t in SQUARES if t != s) for s in SQUARES
)


def _replaced(items: tuple[T, ...], index: int, value: T) -> tuple[T, ...]:
    """Returns a copy of a tuple with one item replaced."""
    return items[:index] + (value,) + items[index + 1 :]


def _plural(count: int, noun: str) -> str:
    """Returns a count with its noun, in the plural when needed."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


# -- moves -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class AddAnimal:
    """An Add: one animal from the mover's hand placed on a square."""

    animal: int
    square: int

    def __str__(self) -> str:
        return f"+{ANIMALS[self.animal]}@{_name(self.square)}"


@dataclass(frozen=True, slots=True)
class MoveAnimals:
    """A Move: the top `count` animals of one square carried, in order, to another square."""

    source: int
    target: int
    count: int = 1

    def __str__(self) -> str:
        suffix = "" if self.count == 1 else f"/{self.count}"
        return f"{_name(self.source)}-{_name(self.target)}{suffix}"

    def reversed(self) -> MoveAnimals:
        """Returns the move that would carry the same animals straight back."""
        return MoveAnimals(self.target, self.source, self.count)


TunedMove = AddAnimal | MoveAnimals


def _parse_square(text: str, whole: str) -> int:
    """Returns the board index of a square name inside a move text, or raises."""
    file, rank = parse_square(text, SIZE, whole)
    return _square_index(file, rank)


def _parse_add(match: re.Match[str], text: str) -> AddAnimal:
    """Returns the Add a matched `+animal@square` text names."""
    return AddAnimal(ANIMALS.index(match.group(1)), _parse_square(match.group(2), text))


def _parse_move(match: re.Match[str], text: str) -> MoveAnimals:
    """Returns the Move a matched `from-to[/k]` text names, or raises."""
    source = _parse_square(match.group(1), text)
    target = _parse_square(match.group(2), text)
    if source == target:
        raise InvalidMoveError(text, "a move must end on another square")
    count = 1 if match.group(3) is None else int(match.group(3))
    return MoveAnimals(source, target, count)


def parse_move(text: object) -> TunedMove:
    """Returns the typed move for a canonical Tuned move text, or raises InvalidMoveError."""
    if not isinstance(text, str):
        raise InvalidMoveError(repr(text), "a move must be a text")
    added = _ADD_TEXT.fullmatch(text)
    if added is not None:
        return _parse_add(added, text)
    moved = _MOVE_TEXT.fullmatch(text)
    if moved is not None:
        return _parse_move(moved, text)
    raise InvalidMoveError(text, _NOTATION_HELP)


# -- state -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TunedState:
    """A Tuned position: stacks (bottom first), hands, roosters, turn and what just happened."""

    board: tuple[Stack, ...] = tuple(() for _ in SQUARES)
    hands: tuple[tuple[int, ...], ...] = (START_HAND, START_HAND)
    rooster: tuple[Action, ...] = ("move", "move")
    player: int = 1
    actions: tuple[int, ...] = (0, 0)
    last_move: MoveAnimals | None = None
    result: Outcome | None = None


def _accepts(stack: Stack, animal: int) -> bool:
    """Tells whether an animal (alone or under a moved part) may go onto a stack."""
    return not stack or stack[-1] == animal - 1


def _placement_error(stack: Stack, animal: int, square: int) -> str:
    """Returns why an animal may not go onto a stack (the placement rule it breaks)."""
    allowed = "" if animal == DONKEY else f" or onto a {ANIMALS[animal - 1]}"
    return (
        f"a {ANIMALS[animal]} goes only on an empty square{allowed}, "
        f"and {_name(square)} has a {ANIMALS[stack[-1]]} on top"
    )


def _allowed_actions(state: TunedState) -> tuple[Action, ...]:
    """Returns the actions the player to move may take (the rooster rule)."""
    index = state.player - 1
    if not any(state.hands[index]):
        return ("move",)
    if state.rooster[index] == "move":
        return ("add",)
    return ("add", "move")


def _adds(state: TunedState) -> list[TunedMove]:
    """Returns every Add the player to move could make, ignoring the rooster."""
    hand = state.hands[state.player - 1]
    return [
        AddAnimal(animal, square)
        for animal in range(len(ANIMALS))
        if hand[animal]
        for square in SQUARES
        if _accepts(state.board[square], animal)
    ]


def _moves_from(state: TunedState, source: int) -> list[TunedMove]:
    """Returns every Move of animals from one square, the no-undo rule applied."""
    stack = state.board[source]
    forbidden = None if state.last_move is None else state.last_move.reversed()
    return [
        move
        for count in range(1, len(stack) + 1)
        for target in TARGETS[source]
        if _accepts(state.board[target], stack[-count])
        and (move := MoveAnimals(source, target, count)) != forbidden
    ]


def _options(state: TunedState) -> list[TunedMove]:
    """Returns the legal moves of the player to move, whether or not the game is over."""
    allowed = _allowed_actions(state)
    options = _adds(state) if "add" in allowed else []
    if "move" in allowed:
        for source in SQUARES:
            options.extend(_moves_from(state, source))
    return options


def _has_line(board: tuple[Stack, ...]) -> bool:
    """Tells whether some row, column or diagonal shows three top animals of one kind."""
    tops = [stack[-1] if stack else None for stack in board]
    return any(
        tops[a] is not None and tops[a] == tops[b] == tops[c] for a, b, c in LINES
    )


def _judge(state: TunedState, actor: int) -> Outcome | None:
    """Returns how the game ends after the actor's action (line, no-move, cap), if it does."""
    if _has_line(state.board):
        return Outcome(actor, "line")
    if not _options(state):
        return Outcome(actor, "no-move")
    if all(count >= CAP for count in state.actions):
        return Outcome(None, "cap")
    return None


def _placed(state: TunedState, move: AddAnimal) -> TunedState:
    """Returns the state after an Add, before the ending is judged."""
    index = state.player - 1
    hand = _replaced(state.hands[index], move.animal, state.hands[index][move.animal] - 1)
    stack = state.board[move.square] + (move.animal,)
    return TunedState(
        board=_replaced(state.board, move.square, stack),
        hands=_replaced(state.hands, index, hand),
        rooster=_replaced(state.rooster, index, "add"),
        player=other(state.player),
        actions=_replaced(state.actions, index, state.actions[index] + 1),
    )


def _carried(state: TunedState, move: MoveAnimals) -> TunedState:
    """Returns the state after a Move, before the ending is judged."""
    index = state.player - 1
    stack = state.board[move.source]
    board = _replaced(state.board, move.source, stack[: -move.count])
    board = _replaced(board, move.target, board[move.target] + stack[-move.count :])
    return TunedState(
        board=board,
        hands=state.hands,
        rooster=_replaced(state.rooster, index, "move"),
        player=other(state.player),
        actions=_replaced(state.actions, index, state.actions[index] + 1),
        last_move=move,
    )


# -- explanations ------------------------------------------------------------------------


def _add_error(state: TunedState, move: AddAnimal) -> str | None:
    """Returns the rule an Add breaks, or None."""
    hand = state.hands[state.player - 1]
    if "add" not in _allowed_actions(state):
        return "you have no animals left in hand, so you must Move"
    if not hand[move.animal]:
        return f"you have no {ANIMALS[move.animal]} left in hand"
    stack = state.board[move.square]
    if not _accepts(stack, move.animal):
        return _placement_error(stack, move.animal, move.square)
    return None


def _rooster_error(state: TunedState) -> str:
    """Returns why the player to move may not Move now (the rooster covers Move)."""
    if state.actions[state.player - 1] == 0:
        return "your first action must be an Add (the rooster starts on Move)"
    return "you Moved on your last turn and still hold animals, so you must Add"


def _carry_error(state: TunedState, move: MoveAnimals) -> str | None:
    """Returns the rule a Move breaks, or None."""
    if "move" not in _allowed_actions(state):
        return _rooster_error(state)
    stack = state.board[move.source]
    if move.source == move.target:
        return "a move must end on another square"
    if not stack:
        return f"{_name(move.source)} is empty"
    if not 1 <= move.count <= len(stack):
        return f"{_name(move.source)} holds only {_plural(len(stack), 'animal')}"
    target = state.board[move.target]
    if not _accepts(target, stack[-move.count]):
        return _placement_error(target, stack[-move.count], move.target)
    if state.last_move is not None and move == state.last_move.reversed():
        return f"{move} would undo the opponent's last move {state.last_move}"
    return None


# -- the game ----------------------------------------------------------------------------


class Tuned(Game[TunedState, TunedMove]):
    """The rules of Tuned (RULES.md section 4)."""

    name: ClassVar[str] = "tuned"
    house_rules: ClassVar[tuple[str, ...]] = (
        "The first action is always an Add; after an Add a player holding animals may Add or "
        "Move; after a Move a player holding animals must Add; a player with no animals Moves.",
        "A player who must Add and cannot place any animal loses (no-move); Moving instead is "
        "not allowed.",
        "A player with no legal action at all loses (no-move), including one whose only Move "
        "is forbidden by the no-undo rule.",
        "No-undo: only the action just before counts; after x-y/k the move y-x/k (same k) is "
        "illegal for one turn, and any Add in between lifts it.",
        "After every action any row, column or diagonal of three top animals of one kind wins "
        "for the player who acted (line), also a line revealed by uncovering an animal.",
        "A Move is written from-to (source square first), not with its squares sorted; a Move "
        "to its own square is not a move.",
        "Cap: when both players have taken 200 actions the game is a draw (cap); a line or "
        "no-move on that same action wins over it.",
    )
    scores_doc: ClassVar[str] = (
        '"1", "2": the number of animals still in that player\'s hand (0 to 6)'
    )
    counters_doc: ClassVar[str] = '"1", "2": actions (Adds and Moves) each player has taken'

    def initial_state(self) -> TunedState:
        """Returns the empty board with both players holding all six animals."""
        return TunedState()

    def parse(self, text: str) -> TunedMove:
        """Returns the typed move for a canonical move text, or raises InvalidMoveError."""
        return parse_move(text)

    def generate(self, state: TunedState) -> list[TunedMove]:
        """Returns every legal move of the player to move (none once the game is over)."""
        return [] if state.result is not None else _options(state)

    def play(self, state: TunedState, move: TunedMove) -> TunedState:
        """Returns the state after a legal move, with the ending judged."""
        if isinstance(move, AddAnimal):
            after = _placed(state, move)
        else:
            after = _carried(state, move)
        result = _judge(after, state.player)
        return after if result is None else replace(after, result=result)

    def explain(self, state: TunedState, move: TunedMove) -> str:
        """Returns the rule that a move which is not legal in the state breaks."""
        if state.result is not None:
            return "the game is over"
        if isinstance(move, AddAnimal):
            reason = _add_error(state, move)
        else:
            reason = _carry_error(state, move)
        return reason or f"{move} is not a legal move here"

    def to_move(self, state: TunedState) -> int | None:
        """Returns the player to act, or None once the game is over."""
        return None if state.result is not None else state.player

    def ply(self, state: TunedState) -> int:
        """Returns how many actions both players have taken."""
        return sum(state.actions)

    def outcome(self, state: TunedState) -> Outcome | None:
        """Returns how the game ended, or None while it goes on."""
        return state.result

    def scores(self, state: TunedState) -> dict[str, Any]:
        """Returns how many animals each player still holds."""
        return {str(p + 1): sum(hand) for p, hand in enumerate(state.hands)}

    def counters(self, state: TunedState) -> dict[str, int]:
        """Returns how many actions each player has taken."""
        return {str(p + 1): count for p, count in enumerate(state.actions)}

    def max_plies(self) -> int:
        """Returns the most actions a game can last: both players' caps."""
        return 2 * CAP

    def board(self, state: TunedState) -> dict[str, Any]:
        """Returns the position: stacks bottom first, hands, and each player's last action."""
        cells = {
            _name(square): [{"kind": ANIMALS[animal]} for animal in stack]
            for square, stack in enumerate(state.board)
            if stack
        }
        players = range(len(state.hands))
        hand = {str(p + 1): dict(zip(ANIMALS, state.hands[p])) for p in players}
        last = {str(p + 1): state.rooster[p] if state.actions[p] else None for p in players}
        return {"size": SIZE, "cells": cells, "off": {"hand": hand, "rooster": last}}

