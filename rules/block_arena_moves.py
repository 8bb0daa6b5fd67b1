"""Block Arena moves: squares and blocks, the five typed moves and their canonical notation."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TypeAlias

from rules.core import InvalidMoveError, parse_square, square_name

Square: TypeAlias = tuple[int, int]
"""A 0-based (file, rank) pair; (0, 0) is a1."""

Block: TypeAlias = tuple[Square, ...]
"""The squares a block covers, sorted by file then rank: one upright, two lying."""


def block_name(block: Block) -> str:
    """Returns the canonical text of a block's squares, e.g. 'c3c4'."""
    return "".join(square_name(*square) for square in block)


@dataclass(frozen=True, slots=True)
class PlaceBlock:
    """A set-up placement of one block on the mover's base rank: `+c1` or `+c1d1`."""

    squares: Block

    def __str__(self) -> str:
        """Returns the move in canonical notation."""
        return "+" + block_name(self.squares)


@dataclass(frozen=True, slots=True)
class PlaceMeeple:
    """A set-up placement of the mover's meeple on one of its blocks: `M+c1`."""

    square: Square

    def __str__(self) -> str:
        """Returns the move in canonical notation."""
        return "M+" + square_name(*self.square)


@dataclass(frozen=True, slots=True)
class MeepleMove:
    """A move of the mover's meeple from its square to a destination: `Mc3-c6`."""

    start: Square
    end: Square

    def __str__(self) -> str:
        """Returns the move in canonical notation."""
        return f"M{square_name(*self.start)}-{square_name(*self.end)}"


@dataclass(frozen=True, slots=True)
class BlockMove:
    """A slide or flip of one of the mover's blocks: `c3-c4c5`, `c3c4-d3d4`."""

    start: Block
    end: Block

    def __str__(self) -> str:
        """Returns the move in canonical notation."""
        return f"{block_name(self.start)}-{block_name(self.end)}"


@dataclass(frozen=True, slots=True)
class Pass:
    """The mover does nothing but spends an action: `pass`."""

    def __str__(self) -> str:
        """Returns the move in canonical notation."""
        return "pass"


PASS = Pass()

ArenaMove: TypeAlias = PlaceBlock | PlaceMeeple | MeepleMove | BlockMove | Pass

_SQ = r"([a-z][1-9][0-9]?)"
_PLACE_BLOCK = re.compile(rf"\+{_SQ}{_SQ}?")
_PLACE_MEEPLE = re.compile(rf"M\+{_SQ}")
_MEEPLE_MOVE = re.compile(rf"M{_SQ}-{_SQ}")
_BLOCK_MOVE = re.compile(rf"{_SQ}{_SQ}?-{_SQ}{_SQ}?")


def _square(text: str, name: str, size: int) -> Square:
    """Returns the square a name denotes on the board, or raises InvalidMoveError for text."""
    try:
        return parse_square(name, size)
    except InvalidMoveError as error:
        raise InvalidMoveError(text, error.reason) from None


def _block(text: str, names: tuple[str | None, str | None], size: int) -> Block:
    """Returns the block that one or two square names denote, checking its canonical shape."""
    squares = tuple(_square(text, name, size) for name in names if name is not None)
    if len(squares) == 2:
        (f1, r1), (f2, r2) = squares
        if (f2 - f1, r2 - r1) not in ((1, 0), (0, 1)):
            raise InvalidMoveError(
                text, "a lying block covers two adjacent squares, sorted by file then rank"
            )
    return squares


def parse_move(text: str, size: int) -> ArenaMove:
    """Returns the typed move for canonical Block Arena text on a size x size board, or raises."""
    if text == "pass":
        return PASS
    if found := _PLACE_BLOCK.fullmatch(text):
        return PlaceBlock(_block(text, (found[1], found[2]), size))
    if found := _PLACE_MEEPLE.fullmatch(text):
        return PlaceMeeple(_square(text, found[1], size))
    if found := _MEEPLE_MOVE.fullmatch(text):
        return MeepleMove(_square(text, found[1], size), _square(text, found[2], size))
    if found := _BLOCK_MOVE.fullmatch(text):
        start = _block(text, (found[1], found[2]), size)
        return BlockMove(start, _block(text, (found[3], found[4]), size))
    raise InvalidMoveError(text)
