"""Tuned's pixel observer: stacks of flat-topped animals, read by the frustum engine
(vision.observe.stacks).

An animal is a box of the kit's size (donkey 50 x 50 x 30, dog 38 x 38 x 24, cat 28 x 28 x 20),
stacked larger below and centred on its cell. Every cell is scored under each stack of the
vocabulary, `cat/donkey` included (the rules never allow it, but the camera can report it);
each animal has its own colour, so every label looks different from the others.
"""

from __future__ import annotations

from dataclasses import replace
from functools import partial
from typing import Any, Hashable, Mapping, Sequence

import numpy as np
from numpy.typing import NDArray

from vision.kit import Kit
from vision.observation import EMPTY, CellSeen, Observation
from vision.observe.colours import ColourMemory
from vision.observe.context import Scene
from vision.observe.stack_colours import Colours, FACES, FloatArray, IntArray
from vision.observe.stacks import (
    COLOUR, CellModel, CellPlan, Patch, StackGame, StackMemory, StackScores, Stacks, block,
    anticipate_stacks, grouped_reading, observe_stacks, patch_for, stack_memory,
)
from vision.observe.casting import passes_over
from vision.observe.synthesis import BOUNDS_PAD_MM

SECOND_LOOK = False  # no second look under trial positions: the observer takes their hidden pieces as seen
ANIMALS = ("donkey", "dog", "cat")
COLOURS = Colours(ANIMALS, tuple(range(len(FACES))))
CANDIDATES = (("donkey", "dog", "cat"), ("dog", "cat"), ("cat",), ("donkey", "cat"))
LAYERS: dict[str, tuple[int, ...]] = {  # each label's rows among the candidates' boxes, bottom first
    EMPTY: (), "donkey": (0,), "dog/donkey": (0, 1), "cat/dog/donkey": (0, 1, 2), "dog": (3,),
    "cat/dog": (3, 4), "cat": (5,), "cat/donkey": (0, 7),
}
STEP_MM = 3.0  # the spacing of a cell's samples
REACH_MM = 80.0  # the tallest stack (74 mm) and some room


class TunedMemory(StackMemory):
    """Tuned's memory: a StackMemory that also keeps, for the last camera place, which squares'
    stacks may stand in each cell's rays."""

    def __init__(self, nominal: Mapping[str, tuple[float, float, float]], **settings: Any) -> None:
        super().__init__(nominal, **settings)
        self.crossing: tuple[Hashable, dict[str, tuple[str, ...]]] | None = None


def new_memory(kit: Kit) -> StackMemory:
    """Returns a fresh memory for Tuned: the colours of each animal's top and sides and of the mat,
    and room for the cells' ray geometry."""
    return stack_memory(kit, "tuned", COLOURS, TunedMemory)


class Crossing:
    """Which other squares' stacks may stand in each cell's rays in one scene (the tallest stack
    on each, as a padded box: a stack elsewhere can never change what a cell's samples show),
    worked out when first asked and kept in a TunedMemory for its camera place."""

    def __init__(self, scene: Scene, memory: ColourMemory | None) -> None:
        self.scene, self.memory = scene, memory
        self.found: dict[str, tuple[str, ...]] | None = None

    def __getitem__(self, square: str) -> tuple[str, ...]:
        """Returns the squares whose stacks may stand in a square's rays."""
        if self.found is None:
            self.found = self.kept() or crossing(self.scene)
            if isinstance(self.memory, TunedMemory):
                self.memory.crossing = (self.key(), self.found)
        return self.found[square]

    def key(self) -> Hashable:
        """Returns what the squares found depend on: the mat and the camera place."""
        return self.scene.mat, self.scene.place.centre

    def kept(self) -> dict[str, tuple[str, ...]] | None:
        """Returns the squares a TunedMemory keeps for this scene's camera place, if any."""
        kept = self.memory.crossing if isinstance(self.memory, TunedMemory) else None
        return kept[1] if kept is not None and kept[0] == self.key() else None


def crossing(scene: Scene) -> dict[str, tuple[str, ...]]:
    """Returns, per square, the other squares whose tallest stack may stand in its rays."""
    half = max(piece.size_mm[0] for piece in scene.kit.pieces["tuned"].values()) / 2 + BOUNDS_PAD_MM
    found = {}
    for square in scene.squares():
        points = patch_for(scene, square, TUNED).points
        low, high = points.min(axis=0)[None], points.max(axis=0)[None]
        found[square] = tuple(other for other in scene.squares() if other != square and passes_over(
            low, high, *tallest(scene, other, half), scene.place.centre)[0])
    return found


def tallest(scene: Scene, square: str, half: float) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
    """Returns the corners of a box holding any stack on a square (half: its padded half width)."""
    x, y = scene.cell_centre(square)
    lo, hi = np.array([x - half, y - half, 0.0], np.float32), np.array([x + half, y + half, REACH_MM], np.float32)
    return lo, hi


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
LOOKS = {label: label for label in LAYERS}  # every label looks different from the others

def _stacks(board: Mapping[str, Any]) -> dict[str, tuple[str, ...]]:
    """Returns each occupied square's animals, bottom first."""
    return {square: tuple(piece["kind"] for piece in pieces)
            for square, pieces in board["cells"].items() if pieces}


def _key(square: str, stacks: Stacks, near: Crossing | None = None) -> Hashable:
    """Returns what a cell's model depends on: its stack and those that may stand in its rays
    (every other stack, unless which those are is given)."""
    others = [(other, animals) for other, animals in stacks.items()
              if other != square and (near is None or other in near[square])]
    return square, stacks.get(square), tuple(sorted(others))


def _plan(scene: Scene, patch: Patch, stacks: Stacks, view: Mapping[str, str],
          near: Crossing | None = None) -> CellPlan:
    """Returns a cell's candidates: each stack of the vocabulary, the others as they stand (those
    that may stand in its rays, if which those are is given)."""
    blocks = np.vstack([animal_blocks(scene, patch.square, animals) for animals in CANDIDATES])
    others = [animal_blocks(scene, square, animals) for square, animals in stacks.items()
              if square != patch.square and (near is None or square in near[patch.square])]
    neighbours = np.vstack(others) if others else np.zeros((0, 7))
    current = view[patch.square]
    return CellPlan(patch, blocks, STACK_ROWS, (list(LAYERS).index(current), current), neighbours)


def _read(model: CellModel, scores: StackScores) -> CellSeen:
    """Returns a cell's reading: each stack scored with its animals' own colours."""
    rows, depth = model.stacks.shape
    colour = model.blocks[model.stacks.clip(min=0), COLOUR].astype(np.int64)
    painted = scores.layers[np.arange(rows)[:, None], np.arange(depth)[None, :], colour]
    own = np.where(model.stacks >= 0, painted, 0.0).sum(axis=1)  # each stack's own layers, bottom first
    totals = dict(zip(LAYERS, (scores.backdrop + own).tolist()))
    return grouped_reading(totals, LOOKS, model.label)


TUNED = StackGame("tuned", COLOURS, STEP_MM, REACH_MM, _stacks, _plan, _key, _read)


def tuned_for(scene: Scene, memory: ColourMemory | None) -> StackGame:
    """Returns Tuned's engine terms for a scene: each cell's plan and key name only the squares
    whose stacks may stand in its rays."""
    near = Crossing(scene, memory)
    return replace(TUNED, plan=partial(_plan, near=near), key=partial(_key, near=near))


def observe(scene: Scene, board: Mapping[str, Any], memory: ColourMemory | None = None,
            frame: int | None = None) -> Observation:
    """Returns what a still frame shows on every Tuned cell, given the referee's current position
    (for colour calibration and the neighbours' stacks); a memory from new_memory keeps the
    learnt colours and the cells' geometry between frames and is updated."""
    return observe_stacks(tuned_for(scene, memory), scene, board, memory, new_memory, frame)


def anticipate(scene: Scene, board: Mapping[str, Any], memory: ColourMemory) -> bool:
    """Readies the memory to read a still scene's camera under a new position (the referee's,
    after a move), so that the next still frame reads quicker; tells whether it could."""
    return anticipate_stacks(tuned_for(scene, memory), scene, board, memory)
