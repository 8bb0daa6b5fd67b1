"""Blockade's pixel observer: nested Looney pyramids, read by the frustum engine
(vision.observe.stacks).

A pyramid is a frustum narrowing to its apex, nested on those below as deep as a 1.5 mm wall
lets it (vision.render.pieces.nest_base: the renderer's default set). A cell's candidate stacks
come from its current stack: as it is, with its top one or two pieces gone, then with a new
Medium, Small, or Medium and Small of any mover's colour on top, and a black cap on any stack
that would complete a tower; each is scored for every colour of its new pieces, and each label
(vision/observation.py) takes the best score of the stacks that show it.

What no overhead camera can tell apart: a piece nested on a piece of its own colour (a red
Small on a red Large) shows the same faces, at the same slope and in the same shade, as the
Large alone; only the apex rises a few mm. Labels are therefore grouped by their look (from the
top, each run of one colour and the size where it ends): a look's labels share its score, and
the current label takes most of it, so such a cell reads its current label, doubtfully, and the
inference (vision/infer.py) explains the change with the legal moves. A clear Large shows the
mat through a tinted shell, close to an empty square's colour, so its outline carries much of
the evidence.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from itertools import product
from typing import Any, Hashable, Mapping, Sequence

import numpy as np
from numpy.typing import NDArray

from vision.expect import visible
from vision.kit import Kit, Mat
from vision.observation import EMPTY, CellSeen, Observation
from vision.observe.colours import ColourMemory
from vision.observe.context import Scene
from vision.observe.stack_colours import Colours, FloatArray, IntArray
from vision.observe.stacks import (
    COLOUR, CellModel, CellPlan, Patch, StackGame, StackMemory, StackScores, Stacks, block,
    grouped_reading, observe_stacks, stack_memory,
)
from vision.render.pieces import nest_base

NAMES = ("red", "yellow", "green", "blue", "black", "clear")
COLOURS = Colours(NAMES, (0, 1, 2, 3), frozenset({"clear"}))
MOVERS = range(4)  # the colours a piece that moves may have (indices in NAMES)
BLACK, CLEAR = NAMES.index("black"), NAMES.index("clear")
SIZES = {"L": "large", "M": "medium", "S": "small"}
RANK = {"S": 1, "M": 2, "L": 3}
WALL_MM = 1.5  # the pyramids' wall: how deep they nest (the renderer's default set)
STEP_MM = 2.5
REACH_MM = 60.0
REMOVED = 2  # top pieces a turn may take off one square, at most
EMPTY_PRIOR = 3.0  # nats against an empty square: every square holds a Large that never moves
Layer = tuple[int, str]  # colour index (-1: any mover's colour) and size letter
Stack = tuple[Layer, ...]
Look = tuple[Layer, ...]


def new_memory(kit: Kit) -> StackMemory:
    """Returns a fresh memory for Blockade: the colour of each colour's four faces and of the
    mat, and room for the cells' ray geometry."""
    return stack_memory(kit, "blockade", COLOURS)


@lru_cache(maxsize=None)
def nest_heights(sizes: tuple[tuple[float, float], ...]) -> tuple[float, ...]:
    """Returns the base height of each pyramid (base, height) of a stack, bottom first."""
    below: list[tuple[float, float, float]] = []
    for base, height in sizes:
        below.append((nest_base(below, base, height, WALL_MM), base, height))
    return tuple(z for z, _, _ in below)


def stack_blocks(scene: Scene, square: str, layers: Stack) -> FloatArray:
    """Returns the pyramids of a stack (bottom first) nested on a square (colour -1 as 0)."""
    return _stack_blocks(scene.kit, scene.mat, square, layers)


@lru_cache(maxsize=4096)
def _stack_blocks(kit: Kit, mat: Mat, square: str, layers: Stack) -> FloatArray:
    """Returns (and keeps, read-only) the pyramids of a stack nested on a square of a mat."""
    pieces = kit.pieces["blockade"]
    sizes = [pieces[SIZES[size]].size_mm for _, size in layers]
    heights = nest_heights(tuple((size[0], size[2]) for size in sizes))
    x, y = mat.cell_centre(ord(square[0]) - ord("a"), int(square[1:]) - 1)
    rows = [block(x, y, z, size, True, max(colour, 0))
            for z, size, (colour, _) in zip(heights, sizes, layers)]
    table = np.array(rows).reshape(-1, 7)
    table.flags.writeable = False
    return table


def current_layers(pieces: Sequence[Mapping[str, Any]]) -> Stack:
    """Returns a square's pyramids from the position, bottom first."""
    return tuple((NAMES.index(piece["colour"]), piece["size"]) for piece in pieces)


@lru_cache(maxsize=4096)
def candidates(current: Stack) -> tuple[Stack, ...]:
    """Returns the stacks a square may show: the current one first, then with top pieces gone,
    new pieces on top and black caps on completed towers, then the empty square."""
    found = [current]
    for removed in range(min(REMOVED, len(current) - 1) + 1):
        base = current[:len(current) - removed]
        for added in _additions(base[-1][1]):
            grown = base + added
            found.extend([grown] + [grown + ((BLACK, size),) for size in "LMS" if _tower(grown)])
    found.append(())
    return tuple(dict.fromkeys(found))


def _additions(top: str) -> list[Stack]:
    """Returns the new pieces (any mover's colour) that may come to rest on a top piece."""
    mediums: list[Stack] = [((-1, "M"),), ((-1, "M"), (-1, "S"))] if RANK[top] >= RANK["M"] else []
    return [(), ((-1, "S"),), *mediums]


def _tower(layers: Stack) -> bool:
    """Tells whether a stack is a Large, Medium and Small that could be of one mover's colour."""
    if [size for _, size in layers] != ["L", "M", "S"]:
        return False
    colours = {colour for colour, _ in layers} - {-1}
    return len(colours) <= 1 and not colours & {BLACK, CLEAR}


def shown_rows(layers: Sequence[Layer]) -> list[int]:
    """Returns the indices of the layers seen from above, top first (vision.expect.visible's rule)."""
    named = [(str(index), RANK[size]) for index, (_, size) in enumerate(layers)]
    return [int(index) for index in visible(named)]


def shown(layers: Sequence[Layer]) -> list[Layer]:
    """Returns the layers seen from above, top first."""
    return [layers[index] for index in shown_rows(layers)]


def label_of(layers: Sequence[Layer]) -> str:
    """Returns the label of a stack whose colours are all chosen."""
    return "/".join(f"{NAMES[colour]}-{size}" for colour, size in shown(layers)) or EMPTY


def look_of(layers: Sequence[Layer]) -> Look:
    """Returns what of a stack the camera can tell apart: from the top, each run of one colour
    and the size of its largest visible piece (a red Small on a red Large looks like the Large)."""
    runs: list[Layer] = []
    for colour, size in shown(layers):
        if runs and runs[-1][0] == colour:
            runs[-1] = (colour, size)
        else:
            runs.append((colour, size))
    return tuple(runs)


def label_look(label: str) -> Look:
    """Returns the look of a label of the vocabulary (what the camera can tell apart of it)."""
    if label == EMPTY:
        return ()
    pairs = (layer.rsplit("-", 1) for layer in label.split("/"))
    layers = [(NAMES.index(colour), size) for colour, size in pairs]
    return look_of(layers[::-1])


@dataclass(frozen=True, slots=True)
class Paintings:
    """Every way to colour the new pieces of a square's candidate stacks, as rows: the stack,
    each layer's colour (R x K, 0 past the stack's top) and whether the layer is there, the
    label shown, and each label's look."""

    stack: IntArray
    colours: IntArray
    present: NDArray[np.bool_]
    label: IntArray
    labels: tuple[str, ...]
    looks: tuple[Look, ...]


def painted(stack: Stack, choice: Sequence[int]) -> list[Layer]:
    """Returns a stack with its new pieces (colour -1), bottom first, painted the chosen colours."""
    colours = iter(choice)
    return [(next(colours) if colour < 0 else colour, size) for colour, size in stack]


@lru_cache(maxsize=1024)
def paintings(stacks: tuple[Stack, ...]) -> Paintings:
    """Returns the colourings of a square's candidate stacks (see Paintings)."""
    depth = max(len(stack) for stack in stacks)
    rows: list[tuple[int, list[int], int]] = []
    labels: dict[str, int] = {}
    looks: dict[str, Look] = {}
    for t, stack in enumerate(stacks):
        for choice in product(MOVERS, repeat=sum(colour < 0 for colour, _ in stack)):
            layers = painted(stack, choice)
            label = label_of(layers)
            if label not in labels:
                labels[label], looks[label] = len(labels), look_of(layers)
            rows.append((t, [colour for colour, _ in layers] + [-1] * (depth - len(layers)), labels[label]))
    table = np.array([colours for _, colours, _ in rows]).reshape(-1, depth)
    return Paintings(np.array([row[0] for row in rows]), table.clip(min=0), table >= 0,
                     np.array([row[2] for row in rows]), tuple(labels), tuple(looks.values()))


def _model_rows(scene: Scene, square: str, stacks: tuple[Stack, ...]) -> tuple[FloatArray, IntArray]:
    """Returns the distinct pyramids of a square's candidate stacks and each stack's rows of them."""
    return _candidate_rows(scene.kit, scene.mat, square, stacks)


@lru_cache(maxsize=1024)
def _candidate_rows(kit: Kit, mat: Mat, square: str,
                    stacks: tuple[Stack, ...]) -> tuple[FloatArray, IntArray]:
    """Returns (and keeps) the distinct pyramids of candidate stacks on a square of a mat."""
    keys: dict[tuple[float, ...], int] = {}
    rows: list[FloatArray] = []
    table = np.full((len(stacks), max(len(stack) for stack in stacks)), -1, np.int64)
    for t, stack in enumerate(stacks):
        for k, row in enumerate(_stack_blocks(kit, mat, square, stack)):
            key = tuple(np.round(row[:COLOUR], 3))
            if key not in keys:
                keys[key] = len(rows)
                rows.append(row)
            table[t, k] = keys[key]
    blocks = np.array(rows).reshape(-1, 7)
    blocks.flags.writeable = table.flags.writeable = False
    return blocks, table


def _neighbours(scene: Scene, patch: Patch, stacks: Mapping[str, Stack]) -> FloatArray:
    """Returns the pyramids around a square that may lean into its samples, each stack's pieces
    seen from above (a nested piece that shows nowhere is left out)."""
    rows = [stack_blocks(scene, other, layers)[shown_rows(layers)]
            for other, layers in _near(patch.square, stacks).items()]
    return np.vstack(rows) if rows else np.zeros((0, 7))


def _stacks(board: Mapping[str, Any]) -> dict[str, Stack]:
    """Returns each occupied square's pyramids, bottom first."""
    return {square: current_layers(pieces) for square, pieces in board["cells"].items() if pieces}


def _near(square: str, stacks: Mapping[str, Stack]) -> dict[str, Stack]:
    """Returns the stacks on the squares around one (only they lean into its samples)."""
    file, rank = ord(square[0]), int(square[1:])
    return {other: layers for other, layers in stacks.items()
            if other != square and abs(ord(other[0]) - file) <= 1 and abs(int(other[1:]) - rank) <= 1}


def _key(square: str, stacks: Stacks) -> Hashable:
    """Returns what a cell's model depends on: its stack and those around it."""
    return square, stacks.get(square, ()), tuple(sorted(_near(square, stacks).items()))


def _plan(scene: Scene, patch: Patch, stacks: Stacks, view: Mapping[str, str]) -> CellPlan:
    """Returns a cell's candidate stacks, the neighbours as they stand."""
    options = candidates(stacks.get(patch.square, ()))
    blocks, rows = _model_rows(scene, patch.square, options)
    return CellPlan(patch, blocks, rows, (0, view[patch.square]), _neighbours(scene, patch, stacks), options)


def _read(model: CellModel, scores: StackScores) -> CellSeen:
    """Returns a cell's reading: each label's best score over its stacks and their colours."""
    table = paintings(model.kinds)
    depth = table.colours.shape[1]
    layer = scores.layers[table.stack[:, None], np.arange(depth)[None, :], table.colours]
    totals = scores.backdrop[table.stack] + np.where(table.present, layer, 0.0).sum(axis=1)
    best = np.full(len(table.labels), -np.inf)
    np.maximum.at(best, table.label, totals)
    scores_by_label = {label: float(value) for label, value in zip(table.labels, best)}
    return grouped_reading(scores_by_label, dict(zip(table.labels, table.looks)), model.label,
                           {EMPTY: -EMPTY_PRIOR})


BLOCKADE = StackGame("blockade", COLOURS, STEP_MM, REACH_MM, _stacks, _plan, _key, _read)


def observe(scene: Scene, board: Mapping[str, Any], memory: ColourMemory | None = None,
            frame: int | None = None) -> Observation:
    """Returns what a still frame shows on every Blockade cell, given the referee's current
    position (for colour calibration, hidden pieces and the neighbours' stacks); a memory from
    new_memory keeps the learnt colours between frames and is updated."""
    return observe_stacks(BLOCKADE, scene, board, memory, new_memory, frame)
