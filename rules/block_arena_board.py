"""Block Arena geometry: neighbour and block-move tables per board size, and meeple reach."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Mapping

from rules.block_arena_moves import Block, Square

DIRECTIONS: tuple[Square, ...] = ((1, 0), (-1, 0), (0, 1), (0, -1))


def step(square: Square, direction: Square, times: int = 1) -> Square:
    """Returns the square reached from a square by moving times steps in a direction."""
    return (square[0] + times * direction[0], square[1] + times * direction[1])


@dataclass(frozen=True, slots=True)
class Target:
    """Where a block can go in one move: its new squares, and the slide direction (None: flip)."""

    squares: Block
    slide: Square | None


def slides(block: Block) -> list[Target]:
    """Returns the block shifted one square in each direction, same orientation."""
    return [Target(tuple(step(s, d) for s in block), d) for d in DIRECTIONS]


def flips(block: Block) -> list[Target]:
    """Returns the block tipped over each edge it may flip across (never its long axis)."""
    if len(block) == 1:
        (x,) = block
        return [Target(tuple(sorted((step(x, d), step(x, d, 2)))), None) for d in DIRECTIONS]
    low, high = block
    axis = (high[0] - low[0], high[1] - low[1])
    return [Target((step(low, axis, -1),), None), Target((step(high, axis),), None)]


class Geometry:
    """The precomputed tables of one board size: neighbours and block targets on the board."""

    def __init__(self, size: int) -> None:
        self.size = size
        squares = [(f, r) for f in range(size) for r in range(size)]
        self.neighbours: dict[Square, tuple[Square, ...]] = {
            s: tuple(n for n in (step(s, d) for d in DIRECTIONS) if self.on_board(n))
            for s in squares
        }
        blocks = [(s,) for s in squares] + [
            (s, n) for s in squares for n in self.neighbours[s] if n > s
        ]
        self.targets: dict[Block, tuple[Target, ...]] = {
            b: tuple(t for t in slides(b) + flips(b) if all(map(self.on_board, t.squares)))
            for b in blocks
        }

    def on_board(self, square: Square) -> bool:
        """Tells whether a square lies on the board."""
        return 0 <= square[0] < self.size and 0 <= square[1] < self.size


@lru_cache(maxsize=None)
def geometry(size: int) -> Geometry:
    """Returns the shared tables of a board size."""
    return Geometry(size)


def own_region(
    start: Square, colours: Mapping[Square, int], player: int, geo: Geometry
) -> set[Square]:
    """Returns the own-colour squares connected to start through own-colour squares."""
    region = {start}
    frontier = [start]
    while frontier:
        for n in geo.neighbours[frontier.pop()]:
            if n not in region and colours.get(n) == player:
                region.add(n)
                frontier.append(n)
    return region


def meeple_reach(
    start: Square, colours: Mapping[Square, int], player: int, geo: Geometry
) -> set[Square]:
    """Returns every square a player's meeple on start can end one meeple move on."""
    if colours[start] != player:
        return {n for n in geo.neighbours[start] if n in colours}
    region = own_region(start, colours, player, geo)
    opponent = {
        n for s in region for n in geo.neighbours[s] if colours.get(n, player) != player
    }
    return (region | opponent) - {start}
