"""BLOCK.BLOCK (RULES.md section 2): place 3D blocks in turn; the top view decides."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Iterator

from rules.block_block_set import (
    BlockSet,
    Cell,
    Cells,
    SetFileError,
    Shape,
    is_upright,
    load_set,
    normalize,
)
from rules.core import Game, InvalidMoveError, Outcome, other, parse_square, square_name

__all__ = ["BlockBlock", "BlockBlockState", "Placement", "SetFileError"]

COLOURS = {1: "brown", 2: "white"}
_MOVE = re.compile(r"([a-z][a-z0-9]*):((?:[a-z][1-9][0-9]?\.(?:0|[1-9][0-9]{0,5}))+)")
_CELL = re.compile(r"([a-z][1-9][0-9]?)\.(0|[1-9][0-9]{0,5})")


@lru_cache(maxsize=4096)
def cell_name(cell: Cell) -> str:
    """Returns a cell as `<file><rank>.<level>`."""
    return f"{square_name(cell[0], cell[1])}.{cell[2]}"


@lru_cache(maxsize=4096)
def _square(text: str, board: int) -> tuple[int, int]:
    """Returns parse_square's answer, remembered (only valid squares are ever cached)."""
    return parse_square(text, board)


def cells_text(cells: Cells) -> str:
    """Returns cells in notation, in the order given."""
    return "".join(cell_name(cell) for cell in cells)


def lift(cells: Cells, levels: int) -> Cells:
    """Returns the cells moved up by a number of levels."""
    return tuple((x, y, z + levels) for x, y, z in cells)


def height(cells: Cells) -> int:
    """Returns how many levels a block spans."""
    levels = [z for _, _, z in cells]
    return max(levels) - min(levels) + 1


@dataclass(frozen=True, slots=True)
class Placement:
    """A move: a shape and the cells its cubes fill, sorted by file, rank and level."""

    shape: str
    cells: Cells

    def __str__(self) -> str:
        return f"{self.shape}:{cells_text(self.cells)}"


@dataclass(frozen=True, slots=True)
class BlockBlockState:
    """The blocks placed so far, in order (brown first), and each column's height."""

    blocks: tuple[Placement, ...]
    heights: tuple[int, ...]


class BlockBlock(Game[BlockBlockState, Placement]):
    """The BLOCK.BLOCK referee for one set (default: rules/sets/default.toml)."""

    name = "block-block"
    variants = ("default",)
    house_rules = (
        "The published board and blocks are not available: the default set "
        "(rules/sets/default.toml) is a 5x5 board and, per player, bar2 1x1x2 x3, bar3 1x1x3 x1, "
        "bar4 1x1x4 x1, slab 2x2x1 x1, ell (L-tromino) x2, tee (T-tetromino) x1, "
        "ess (S-tetromino) x1, plus brown's half 1x1x1.",
        "Blocks are placed in any of the 24 rotations; mirror images are the same shape "
        "(an S and a Z are both `ess`).",
        "No empty space underneath: every cube is on the board, on a cube of its own block, or "
        "on the top of a column; a cube may overhang onto another block's top but never empty "
        "space or the board's edge, so the board is always a height map with no holes.",
        "No exact copy on top: a block may not fill exactly the cells of an earlier block of the "
        "same shape lifted by that block's height, whatever the colours.",
        "Same shape: you may not place the shape your opponent just placed unless no block of "
        "another shape in your hand has a legal placement.",
        "A player with no legal placement loses at once (reason no-move).",
        "Brown places half only as the 21st and last action, after white's 10th block; it "
        "follows the same placement rules.",
        "Scoring looks down each column: the top cube's block scores 1 for its owner; an upright "
        "bar3 or bar4 shows its end face and scores 1 for the opponent (a lying one's ends face "
        "sideways and are not seen); half scores 0.5 for brown.",
        "Equal scores are a draw (reason score); with the default set this cannot happen.",
        "Levels in a move are bounded by the set's total number of cubes; a higher level is not "
        "a move.",
    )
    scores_doc = (
        '"1": brown\'s and "2": white\'s top-view points now (floats): 1 per column whose top '
        "cube shows that colour (an upright bar3/bar4 shows the opponent's), 0.5 for half."
    )
    counters_doc = "BLOCK.BLOCK has no action counters: {}."

    def __init__(self, variant: str | None = None, *, block_set: BlockSet | None = None) -> None:
        """Loads the named set file, or takes an already parsed set (its name is the variant)."""
        super().__init__(variant if block_set is None else None)
        if block_set is None:
            block_set = load_set(self.variant or self.variants[0])
        else:
            self.variant = block_set.name
        self.block_set = block_set

    # -- notation --------------------------------------------------------------------------

    def parse(self, text: str) -> Placement:
        """Returns the placement for a canonical move text, or raises InvalidMoveError."""
        found = _MOVE.fullmatch(text)
        if found is None:
            raise InvalidMoveError(text, "a move is shape:cells, like bar2:a1.0a2.0")
        shape = self.block_set.by_name.get(found.group(1))
        if shape is None:
            raise InvalidMoveError(text, f"there is no shape {found.group(1)!r} in this set")
        cells = self._parse_cells(text, found.group(2), len(shape.cubes))
        if normalize(cells) not in shape.orientations:
            raise InvalidMoveError(text, f"the cells do not form a {shape.name}")
        return Placement(shape.name, cells)

    def _parse_cells(self, text: str, body: str, count: int) -> Cells:
        """Returns the sorted cells of a move body, or raises InvalidMoveError."""
        pairs = _CELL.findall(body)
        if len(pairs) != count:
            raise InvalidMoveError(text, f"the shape has {count} cubes, not {len(pairs)}")
        cells = tuple(self._parse_cell(text, square, level) for square, level in pairs)
        if any(a >= b for a, b in zip(cells, cells[1:])):
            raise InvalidMoveError(text, "cells must be distinct and sorted by file, rank, level")
        return cells

    def _parse_cell(self, text: str, square: str, level: str) -> Cell:
        """Returns one cell, or raises InvalidMoveError when it cannot exist."""
        file, rank = _square(square, self.block_set.board)
        number = int(level)
        if number > self.block_set.max_level:
            raise InvalidMoveError(text, f"level {level} is above any possible stack")
        return (file, rank, number)

    # -- turns and hands -------------------------------------------------------------------

    def _final_ply(self) -> int:
        """Returns the ply at which brown places the extra block."""
        return 2 * self.block_set.blocks_each

    def _mover(self, state: BlockBlockState) -> int:
        """Returns whose action it is by turn order alone (brown also places the extra)."""
        return 1 + len(state.blocks) % 2

    def _remaining(self, state: BlockBlockState) -> dict[str, int]:
        """Returns how many of each shape the player to move may still place now."""
        if len(state.blocks) >= self._final_ply():
            return {self.block_set.extra.name: int(len(state.blocks) == self._final_ply())}
        placed = Counter(block.shape for block in state.blocks[len(state.blocks) % 2 :: 2])
        return {shape.name: shape.count - placed[shape.name] for shape in self.block_set.shapes}

    def _hand(self, state: BlockBlockState) -> list[Shape]:
        """Returns the shapes the player to move may place now."""
        left = self._remaining(state).items()
        return [self.block_set.by_name[name] for name, count in left if count > 0]

    # -- placements ------------------------------------------------------------------------

    def _copies(self, state: BlockBlockState, shape: Shape) -> set[Cells]:
        """Returns the cells an exact copy on top of each same-shape block would fill."""
        same = (block.cells for block in state.blocks if block.shape == shape.name)
        return {lift(cells, height(cells)) for cells in same}

    def _placements(self, state: BlockBlockState, shape: Shape) -> Iterator[Cells]:
        """Yields every placement of a shape that rests properly and is no exact copy."""
        heights, copies = state.heights, self._copies(state, shape)
        for candidate in shape.candidates:
            level = heights[candidate.first] - candidate.first_low
            if all(heights[column] - low == level for column, low in candidate.rest):
                cells = lift(candidate.cells, level)
                if cells not in copies:
                    yield cells

    def _fits(self, state: BlockBlockState, shape: Shape) -> bool:
        """Tells whether a shape has at least one placement."""
        return next(self._placements(state, shape), None) is not None

    def _banned(self, state: BlockBlockState, hand: list[Shape]) -> str | None:
        """Returns the opponent's last shape if another shape in hand fits, else None."""
        if not state.blocks:
            return None
        last = state.blocks[-1].shape
        if not any(shape.name == last for shape in hand):
            return None
        others = (shape for shape in hand if shape.name != last)
        return last if any(self._fits(state, shape) for shape in others) else None

    def generate(self, state: BlockBlockState) -> list[Placement]:
        """Returns every legal placement for the player to move."""
        hand = self._hand(state)
        banned = self._banned(state, hand)
        return [
            Placement(shape.name, cells)
            for shape in hand
            if shape.name != banned
            for cells in self._placements(state, shape)
        ]

    def play(self, state: BlockBlockState, move: Placement) -> BlockBlockState:
        """Returns the state after a placement already known to be legal."""
        heights = list(state.heights)
        for x, y, z in move.cells:
            index = x * self.block_set.board + y
            heights[index] = max(heights[index], z + 1)
        return BlockBlockState(state.blocks + (move,), tuple(heights))

    # -- reasons ---------------------------------------------------------------------------

    def explain(self, state: BlockBlockState, move: Placement) -> str:
        """Returns the rule that a placement which is not legal in the state breaks."""
        if self.outcome(state) is not None:
            return "the game is over"
        reasons = (
            self._form_fault,
            self._hand_fault,
            self._rest_fault,
            self._copy_fault,
            self._shape_fault,
        )
        for check in reasons:
            reason = check(state, move)
            if reason is not None:
                return reason
        return f"{move} is not a legal placement here"

    def _form_fault(self, state: BlockBlockState, move: Placement) -> str | None:
        """Returns why a typed move is not a placement of this set at all, or None."""
        try:
            if self.parse(str(move)) == move:
                return None
        except InvalidMoveError as error:
            return error.reason
        return f"{move} is not written in canonical form"

    def _hand_fault(self, state: BlockBlockState, move: Placement) -> str | None:
        """Returns why the block is not in the mover's hand now, or None."""
        extra = self.block_set.extra.name
        if len(state.blocks) == self._final_ply() and move.shape != extra:
            return f"only {extra} is left to place: brown's last action places it"
        if move.shape == extra and len(state.blocks) != self._final_ply():
            return f"{extra} is placed only as the last action, after white's last block"
        if self._remaining(state).get(move.shape, 0) <= 0:
            return f"{COLOURS[self._mover(state)]} has no {move.shape} left"
        return None

    def _rest_fault(self, state: BlockBlockState, move: Placement) -> str | None:
        """Returns which cube overlaps or has empty space underneath, or None."""
        board, cells = self.block_set.board, set(move.cells)
        for x, y, z in move.cells:
            if z < state.heights[x * board + y]:
                return f"{cell_name((x, y, z))} is occupied"
        for x, y, z in move.cells:
            if z > state.heights[x * board + y] and (x, y, z - 1) not in cells:
                return f"{cell_name((x, y, z))} has empty space underneath"
        return None

    def _copy_fault(self, state: BlockBlockState, move: Placement) -> str | None:
        """Returns which same-shape block the move would copy exactly on top, or None."""
        for block in state.blocks:
            if block.shape == move.shape and lift(block.cells, height(block.cells)) == move.cells:
                return (
                    f"a {move.shape} may not sit exactly on the {move.shape} at "
                    f"{cells_text(block.cells)} in the same orientation and position"
                )
        return None

    def _shape_fault(self, state: BlockBlockState, move: Placement) -> str | None:
        """Returns the same-shape rule if the move breaks it, or None."""
        if self._banned(state, self._hand(state)) != move.shape:
            return None
        opponent = COLOURS[other(self._mover(state))]
        return (
            f"{opponent} just placed a {move.shape}: you may place one only when no block "
            "of another shape fits"
        )

    # -- turn, end and scores --------------------------------------------------------------

    def initial_state(self) -> BlockBlockState:
        """Returns the empty board before brown's first block."""
        return BlockBlockState((), (0,) * self.block_set.board**2)

    def ply(self, state: BlockBlockState) -> int:
        """Returns how many blocks have been placed."""
        return len(state.blocks)

    def to_move(self, state: BlockBlockState) -> int | None:
        """Returns the player to place a block, or None once the game is over."""
        return None if self.outcome(state) is not None else self._mover(state)

    def outcome(self, state: BlockBlockState) -> Outcome | None:
        """Returns the score result after the extra block, a no-move loss, or None."""
        if len(state.blocks) > self._final_ply():
            points = self.scores(state)
            if points["1"] == points["2"]:
                return Outcome(None, "score")
            return Outcome(1 if points["1"] > points["2"] else 2, "score")
        if not any(self._fits(state, shape) for shape in self._hand(state)):
            return Outcome(other(self._mover(state)), "no-move")
        return None

    def _top_blocks(self, state: BlockBlockState) -> dict[tuple[int, int], int]:
        """Returns, per covered column, the index of the block whose cube is on top."""
        tops: dict[tuple[int, int], int] = {}
        for index, block in enumerate(state.blocks):
            for x, y, _ in block.cells:
                tops[(x, y)] = index
        return tops

    def _column_points(self, block: Placement, index: int) -> tuple[int, float]:
        """Returns who scores a column topped by a block, and how much."""
        owner = 1 + index % 2
        shape = self.block_set.by_name[block.shape]
        if shape is self.block_set.extra:
            return owner, self.block_set.extra_points
        if shape.opponent_ends and is_upright(block.cells):
            return other(owner), 1.0
        return owner, 1.0

    def scores(self, state: BlockBlockState) -> dict[str, Any]:
        """Returns each player's current top-view points as floats."""
        points = {1: 0.0, 2: 0.0}
        for index in self._top_blocks(state).values():
            player, value = self._column_points(state.blocks[index], index)
            points[player] += value
        return {"1": points[1], "2": points[2]}

    def counters(self, state: BlockBlockState) -> dict[str, int]:
        """Returns the counters: BLOCK.BLOCK has none."""
        return {}

    def max_plies(self) -> int:
        """Returns the number of blocks in the game: every ordinary block and the extra."""
        return self._final_ply() + 1

    # -- the position ----------------------------------------------------------------------

    def board(self, state: BlockBlockState) -> dict[str, Any]:
        """Returns the position: each column's cubes, level 0 first, and both hands."""
        cells: dict[str, list[dict[str, Any]]] = {}
        for index, block in enumerate(state.blocks):  # in play order: every column grows upward
            for cell in block.cells:
                column = cells.setdefault(square_name(cell[0], cell[1]), [])
                column.append(self._cube(block, index, cell))
        return {"size": self.block_set.board, "cells": cells, "off": {"hand": self._hands(state)}}

    def _cube(self, block: Placement, index: int, cell: Cell) -> dict[str, Any]:
        """Returns one cube of the index-th block in the shared board format."""
        owner = 1 + index % 2
        return {
            "kind": "cube",
            "owner": owner,
            "colour": COLOURS[owner],
            "shape": block.shape,
            "block": index,
            "top": self._top_face(block, index, cell),
        }

    def _top_face(self, block: Placement, index: int, cell: Cell) -> str:
        """Returns a cube's upward colour: its owner's under its own block, else what scores."""
        x, y, z = cell
        if (x, y, z + 1) in block.cells:
            return COLOURS[1 + index % 2]
        if self.block_set.by_name[block.shape] is self.block_set.extra:
            return "half"
        return COLOURS[self._column_points(block, index)[0]]

    def _hands(self, state: BlockBlockState) -> dict[str, dict[str, int]]:
        """Returns how many of each shape each player has not placed yet (brown's extra too)."""
        hands: dict[str, dict[str, int]] = {}
        for player in (1, 2):
            placed = Counter(block.shape for block in state.blocks[player - 1 :: 2])
            extra = (self.block_set.extra,) if player == 1 else ()
            shapes = self.block_set.shapes + extra
            hands[str(player)] = {s.name: s.count - placed[s.name] for s in shapes}
        return hands
