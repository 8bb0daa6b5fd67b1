"""Blockade board: pyramids, the set-up, king-step paths, landing and tower rules."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum, IntEnum

from rules.core import square_name

SIZE = 5
SQUARES: tuple[int, ...] = tuple(range(SIZE * SIZE))
FAR = SIZE * SIZE  # longer than any detour: a search limit that never cuts a path


class Colour(IntEnum):
    """The colour of a pyramid (an int enum: cheap to hash in every stack)."""

    RED = 1
    YELLOW = 2
    GREEN = 3
    BLUE = 4
    BLACK = 5
    CLEAR = 6

    @property
    def word(self) -> str:
        """Returns the colour as written in reasons and scores ("red", "green", ...)."""
        return self.name.lower()


class Size(IntEnum):
    """The size of a pyramid, ordered so that a larger pyramid compares greater."""

    SMALL = 1
    MEDIUM = 2
    LARGE = 3

    @property
    def title(self) -> str:
        """Returns the size as written in reasons ("Small", "Medium", "Large")."""
        return self.name.capitalize()


@dataclass(frozen=True, slots=True)
class Piece:
    """One pyramid: a colour and a size."""

    colour: Colour
    size: Size

    def __str__(self) -> str:
        return f"{self.colour.word} {self.size.title}"


@dataclass(frozen=True, slots=True)
class Tower:
    """A completed tower: its colour, and whether a black piece caps it (a blockade)."""

    colour: Colour
    capped: bool

    @property
    def locked(self) -> int:
        """Returns how many pieces from the bottom of its square never move again."""
        return 4 if self.capped else 3


Stack = tuple[Piece, ...]
Towers = tuple[Tower | None, ...]

SIDES: dict[int, tuple[Colour, Colour]] = {
    1: (Colour.BLUE, Colour.GREEN),
    2: (Colour.RED, Colour.YELLOW),
}
SIDE_NAMES: dict[int, str] = {1: "cool", 2: "warm"}
OWNER: dict[Colour, int] = {c: side for side, pair in SIDES.items() for c in pair}
BLACK_SUPPLY: tuple[Size, ...] = (Size.LARGE,) * 5 + (Size.MEDIUM,) * 5 + (Size.SMALL,) * 5

_LARGES = ("CBBBC", "RRRBY", "RGCBY", "RGYYY", "CGGGC")  # as printed: rank 5 first, files a..e
_CORNER_MEDIUMS: dict[str, Colour] = {
    "a5": Colour.GREEN,
    "e5": Colour.RED,
    "a1": Colour.YELLOW,
    "e1": Colour.BLUE,
}
_LETTER: dict[str, Colour] = {
    "R": Colour.RED,
    "Y": Colour.YELLOW,
    "G": Colour.GREEN,
    "B": Colour.BLUE,
    "C": Colour.CLEAR,
}


def index(file: int, rank: int) -> int:
    """Returns the board index of a 0-based (file, rank) square."""
    return rank * SIZE + file


def name(square: int) -> str:
    """Returns the notation name of a board index."""
    return square_name(square % SIZE, square // SIZE)


def _neighbours(square: int) -> tuple[int, ...]:
    """Returns the squares one king step away from a square."""
    file, rank = square % SIZE, square // SIZE
    return tuple(
        index(f, r)
        for f in range(max(file - 1, 0), min(file + 2, SIZE))
        for r in range(max(rank - 1, 0), min(rank + 2, SIZE))
        if (f, r) != (file, rank)
    )


NEIGHBOURS: tuple[tuple[int, ...], ...] = tuple(_neighbours(s) for s in SQUARES)


def _start_stack(square: int) -> Stack:
    """Returns the pieces a square holds at set-up, bottom first."""
    colour = _LETTER[_LARGES[SIZE - 1 - square // SIZE][square % SIZE]]
    large = Piece(colour, Size.LARGE)
    if colour is not Colour.CLEAR:
        return (large, Piece(colour, Size.SMALL))
    corner = _CORNER_MEDIUMS.get(name(square))
    if corner is None:
        return (large,)
    return (large,) + (Piece(corner, Size.MEDIUM),) * 5


START: tuple[Stack, ...] = tuple(_start_stack(s) for s in SQUARES)


# -- paths -------------------------------------------------------------------------------


def blockades_against(towers: Towers, player: int) -> frozenset[int]:
    """Returns the squares a player's pieces may not pass over: the opponent's blockades."""
    return frozenset(
        square
        for square, tower in enumerate(towers)
        if tower is not None and tower.capped and OWNER[tower.colour] != player
    )


def distances(source: int, blocked: frozenset[int], limit: int = FAR) -> dict[int, int]:
    """Returns the cheapest king-step cost (up to limit) from source to each square it reaches."""
    # A blocked square may end a path but is never stepped through.
    cost = {source: 0}
    frontier = [source]
    for steps in range(1, limit + 1):
        reached: list[int] = []
        for square in frontier:
            for n in NEIGHBOURS[square]:
                if n not in cost:
                    cost[n] = steps
                    if n not in blocked:
                        reached.append(n)
        if not reached:
            break
        frontier = reached
    return cost


# -- sources and landings ----------------------------------------------------------------


class Source(Enum):
    """Whether the top piece of a square may move for a player, or why not."""

    FREE = "free"
    LARGE = "{square}'s top piece is a Large and never moves"
    BLACK = "{square}'s top piece is black and never moves"
    FOREIGN = "{square}'s top piece is a {piece}, not one of your colours"
    LOCKED = "{square}'s top piece is part of a locked tower and never moves"


def source_check(stack: Stack, tower: Tower | None, player: int) -> Source:
    """Returns whether the top piece of a stack may move for a player, or why not."""
    top = stack[-1]
    if top.colour is Colour.BLACK:
        return Source.BLACK
    if top.size is Size.LARGE:
        return Source.LARGE
    if OWNER.get(top.colour) != player:
        return Source.FOREIGN
    if tower is not None and len(stack) <= tower.locked:
        return Source.LOCKED
    return Source.FREE


class Landing(Enum):
    """Whether a piece may land on a stack, or the landing rule it breaks."""

    OK = "ok"
    SMALLER = "a {piece} cannot land on a smaller {top}"
    NO_TOWER = "a {piece} may land on black only where it caps a {colour} tower"
    BLACK_TOO_SMALL = "a {piece} cannot land on a {top}: the black must be larger"
    FOREIGN = "a {piece} cannot land on a {top}"


def landing_check(piece: Piece, stack: Stack, tower: Tower | None) -> Landing:
    """Returns whether a moving piece may land on top of a stack, or why not."""
    top = stack[-1]
    if top.colour is Colour.CLEAR:
        return Landing.OK
    if top.colour is piece.colour:
        return Landing.OK if top.size >= piece.size else Landing.SMALLER
    if top.colour is not Colour.BLACK:
        return Landing.FOREIGN
    if tower is None or tower.colour is not piece.colour:  # a black only ever caps a tower
        return Landing.NO_TOWER
    return Landing.OK if top.size > piece.size else Landing.BLACK_TOO_SMALL


def reason(rule: Source | Landing, **details: object) -> str:
    """Returns the text of a broken rule with its details filled in."""
    return str(rule.value).format(**details)


def completed_tower(stack: Stack) -> Colour | None:
    """Returns the colour of a stack that is exactly Large, Medium, Small of one colour."""
    colour = stack[0].colour
    expected = tuple(Piece(colour, size) for size in (Size.LARGE, Size.MEDIUM, Size.SMALL))
    return colour if stack == expected and colour in OWNER else None
