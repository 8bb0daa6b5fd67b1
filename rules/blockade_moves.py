"""Blockade moves: rolls, piece moves and `end`, their notation, and movement points."""

from __future__ import annotations

import re
from dataclasses import dataclass

from rules.blockade_board import SIZE, index, name
from rules.core import InvalidMoveError, parse_square

PIPS: tuple[int, ...] = (1, 2, 3, 4, 5, 6)
ROLL_LETTERS: dict[int, tuple[str, str]] = {1: ("b", "g"), 2: ("r", "y")}
SUM_LIMIT = 3  # both dice at most this: their sum may go on one colour

Allocation = tuple[int, int]  # points left for the side's first and second colour

_ROLL_TEXT = re.compile(r"roll:([a-z])([0-9])([a-z])([0-9])")
_STEP_TEXT = re.compile(r"([a-z][0-9]{1,2})-([a-z][0-9]{1,2})")
_NOTATION_HELP = "expected roll:bXgY, roll:rXyY, a piece move like b1-d3, or end"


@dataclass(frozen=True, slots=True)
class Roll:
    """A roll of one side's two dice: pips for its first and second colour."""

    side: int
    first: int
    second: int

    def __str__(self) -> str:
        one, two = ROLL_LETTERS[self.side]
        return f"roll:{one}{self.first}{two}{self.second}"


@dataclass(frozen=True, slots=True)
class Step:
    """A piece move: the top piece of source goes to target along a cheapest passable path."""

    source: int
    target: int

    def __str__(self) -> str:
        return f"{name(self.source)}-{name(self.target)}"


@dataclass(frozen=True, slots=True)
class End:
    """The end of the turn: unused points are lost."""

    def __str__(self) -> str:
        return "end"


BlockadeMove = Roll | Step | End


def _parse_roll(match: re.Match[str], text: str) -> Roll:
    """Returns the Roll a matched `roll:` text names, or raises."""
    letters = (match.group(1), match.group(3))
    sides = [side for side, pair in ROLL_LETTERS.items() if pair == letters]
    if not sides:
        raise InvalidMoveError(text, "a roll names b then g (cool) or r then y (warm)")
    first, second = int(match.group(2)), int(match.group(4))
    if first not in PIPS or second not in PIPS:
        raise InvalidMoveError(text, "a die shows 1 to 6 pips")
    return Roll(sides[0], first, second)


def _parse_square(text: str, whole: str) -> int:
    """Returns the board index of a square name inside a move text, or raises."""
    file, rank = parse_square(text, SIZE, whole)
    return index(file, rank)


def _parse_step(match: re.Match[str], text: str) -> Step:
    """Returns the Step a matched `from-to` text names, or raises."""
    source = _parse_square(match.group(1), text)
    target = _parse_square(match.group(2), text)
    if source == target:
        raise InvalidMoveError(text, "a piece move must end on another square")
    return Step(source, target)


def parse_move(text: object) -> BlockadeMove:
    """Returns the typed move for a canonical Blockade move text, or raises InvalidMoveError."""
    if not isinstance(text, str):
        raise InvalidMoveError(repr(text), "a move must be a text")
    if text == "end":
        return End()
    rolled = _ROLL_TEXT.fullmatch(text)
    if rolled is not None:
        return _parse_roll(rolled, text)
    stepped = _STEP_TEXT.fullmatch(text)
    if stepped is not None:
        return _parse_step(stepped, text)
    raise InvalidMoveError(text, _NOTATION_HELP)


def all_rolls(side: int) -> list[Roll]:
    """Returns the 36 rolls a side can make."""
    return [Roll(side, first, second) for first in PIPS for second in PIPS]


def allocations(roll: Roll) -> frozenset[Allocation]:
    """Returns the ways a roll's points may be shared between the two colours."""
    split = {(roll.first, roll.second)}
    if roll.first <= SUM_LIMIT and roll.second <= SUM_LIMIT:
        total = roll.first + roll.second
        split |= {(total, 0), (0, total)}
    return frozenset(split)


def points_left(open_allocations: frozenset[Allocation], colour: int) -> int:
    """Returns the most points any open allocation still has for a colour (0 first, 1 second)."""
    return max(allocation[colour] for allocation in open_allocations)


def spend(open_allocations: frozenset[Allocation], colour: int, cost: int) -> frozenset[Allocation]:
    """Returns the open allocations left after a colour spends cost points."""
    return frozenset(
        (a[0] - cost, a[1]) if colour == 0 else (a[0], a[1] - cost)
        for a in open_allocations
        if a[colour] >= cost
    )
