"""Tuned's pixel observer: stacks of flat-topped animals, read by the frustum engine
(vision.observe.stacks).

An animal is a box of the kit's size (donkey 50 x 50 x 30, dog 38 x 38 x 24, cat 28 x 28 x 20),
stacked larger below and centred on its cell. Every cell is scored under each stack of the
vocabulary, `cat/donkey` included (the rules never allow it, but the camera can report it);
each animal has its own colour, so every label looks different from the others.
"""

from __future__ import annotations

from typing import Any, Hashable, Mapping, Sequence

import numpy as np

from vision.kit import Kit
from vision.observation import EMPTY, CellSeen, Observation
from vision.observe.colours import ColourMemory
from vision.observe.context import Scene
from vision.observe.stack_colours import Colours, FACES, FloatArray, IntArray
from vision.observe.stacks import (
    COLOUR, CellModel, CellPlan, Patch, StackGame, StackMemory, StackScores, Stacks, block,
    grouped_reading, observe_stacks, stack_memory,
)

ANIMALS = ("donkey", "dog", "cat")
COLOURS = Colours(ANIMALS, tuple(range(len(FACES))))
CANDIDATES = (("donkey", "dog", "cat"), ("dog", "cat"), ("cat",), ("donkey", "cat"))
LAYERS: dict[str, tuple[int, ...]] = {  # each label's rows among the candidates' boxes, bottom first
    EMPTY: (), "donkey": (0,), "dog/donkey": (0, 1), "cat/dog/donkey": (0, 1, 2), "dog": (3,),
    "cat/dog": (3, 4), "cat": (5,), "cat/donkey": (0, 7),
}
STEP_MM = 3.0  # the spacing of a cell's samples
REACH_MM = 80.0  # the tallest stack (74 mm) and some room


def new_memory(kit: Kit) -> StackMemory:
    """Returns a fresh memory for Tuned: the colours of each animal's top and sides and of the mat,
    and room for the cells' ray geometry."""
    return stack_memory(kit, "tuned", COLOURS)


def animal_blocks(scene: Scene, square: str, animals: Sequence[str]) -> FloatArray:
    """Returns the boxes of a stack of animals (bottom first) standing on a square."""
    x, y = scene.cell_centre(square)
    rows, z = [], 0.0
    for name in animals:
        size = scene.kit.pieces["tuned"][name].size_mm
        rows.append(block(x, y, z, size, False, ANIMALS.index(name)))
        z += size[2]
    return np.array(rows).reshape(-1, 7)


def _stack_rows() -> IntArray:
    """Returns each label's boxes as a row of indices (-1 padding)."""
    rows = np.full((len(LAYERS), len(ANIMALS)), -1, np.int64)
    for row, layers in enumerate(LAYERS.values()):
        rows[row, :len(layers)] = layers
    return rows


STACK_ROWS = _stack_rows()

def _stacks(board: Mapping[str, Any]) -> dict[str, tuple[str, ...]]:
    """Returns each occupied square's animals, bottom first."""
    return {square: tuple(piece["kind"] for piece in pieces)
            for square, pieces in board["cells"].items() if pieces}


def _key(square: str, stacks: Stacks) -> Hashable:
    """Returns what a cell's model depends on: every stack (all lean into each other's cells)."""
    return square, tuple(sorted(stacks.items()))


def _plan(scene: Scene, patch: Patch, stacks: Stacks, view: Mapping[str, str]) -> CellPlan:
    """Returns a cell's candidates: each stack of the vocabulary, the others as they stand."""
    blocks = np.vstack([animal_blocks(scene, patch.square, animals) for animals in CANDIDATES])
    others = [animal_blocks(scene, square, animals) for square, animals in stacks.items()
              if square != patch.square]
    neighbours = np.vstack(others) if others else np.zeros((0, 7))
    current = view[patch.square]
    return CellPlan(patch, blocks, STACK_ROWS, (list(LAYERS).index(current), current), neighbours)


def _read(model: CellModel, scores: StackScores) -> CellSeen:
    """Returns a cell's reading: each stack scored with its animals' own colours."""
    totals = {}
    for row, label in enumerate(LAYERS):
        own = sum(scores.layers[row, k, int(model.blocks[index, COLOUR])]
                  for k, index in enumerate(model.stacks[row]) if index >= 0)
        totals[label] = float(scores.backdrop[row] + own)
    return grouped_reading(totals, {label: label for label in totals}, model.label)


TUNED = StackGame("tuned", COLOURS, STEP_MM, REACH_MM, _stacks, _plan, _key, _read)


def observe(scene: Scene, board: Mapping[str, Any], memory: ColourMemory | None = None,
            frame: int | None = None) -> Observation:
    """Returns what a still frame shows on every Tuned cell, given the referee's current position
    (for colour calibration and the neighbours' stacks); a memory from new_memory keeps the
    learnt colours between frames and is updated."""
    return observe_stacks(TUNED, scene, board, memory, new_memory, frame)
