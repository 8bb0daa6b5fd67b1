"""Blockade's pyramids as the observer sees them: stacks, their geometry and their labels.

A stack is a square's pyramids bottom first, each a colour (an index in NAMES; -1 for a new
piece of any mover's colour) and a size. A pyramid is a frustum narrowing to its apex, nested on
those below as deep as the kit's wall lets it (vision.render.pieces.nest_base, as the renderer
nests them). A cell's candidate stacks come from its current stack: as it is, with its top one
or two pieces gone, then with a new Medium, Small, or Medium and Small of any mover's colour on
top, and a black cap on a stack one new piece completes to a tower (a black comes only with the
piece that completes it). A stack's label follows
vision/expect.py; its look is what colour alone tells of it (from the top, each run of one
colour and the size where it ends): a red Small on a red Large looks like the Large alone.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Mapping, Sequence

import numpy as np

from vision.expect import visible_rows
from vision.kit import Kit, Mat
from vision.observation import EMPTY, king_step
from vision.observe.context import Scene
from vision.observe.stack_colours import Colours, FloatArray
from vision.observe.stacks import HEIGHT, Z0, block
from vision.render.pieces import nest_base

NAMES = ("red", "yellow", "green", "blue", "black", "clear")
COLOURS = Colours(NAMES, (0, 1, 2, 3), frozenset({"clear"}), frozenset({"black"}))
MOVERS = range(4)  # the colours a piece that moves may have (indices in NAMES)
BLACK, CLEAR = NAMES.index("black"), NAMES.index("clear")
SIZES = {"L": "large", "M": "medium", "S": "small"}
RANK = {"S": 1, "M": 2, "L": 3}
REMOVED = 2  # top pieces a turn may take off one square, at most
Layer = tuple[int, str]  # colour index (-1: any mover's colour) and size letter
Stack = tuple[Layer, ...]
Look = tuple[Layer, ...]


@lru_cache(maxsize=None)
def nest_heights(sizes: tuple[tuple[float, float], ...], wall_mm: float) -> tuple[float, ...]:
    """Returns the base height of each pyramid (base, height) of a stack, bottom first, nested
    as a wall lets them."""
    below: list[tuple[float, float, float]] = []
    for base, height in sizes:
        below.append((nest_base(below, base, height, wall_mm), base, height))
    return tuple(z for z, _, _ in below)


def stack_blocks(scene: Scene, square: str, layers: Stack) -> FloatArray:
    """Returns the pyramids of a stack (bottom first) nested on a square (colour -1 as 0)."""
    return blocks_on(scene.kit, scene.mat, square, layers)


@lru_cache(maxsize=4096)
def blocks_on(kit: Kit, mat: Mat, square: str, layers: Stack) -> FloatArray:
    """Returns (and keeps, read-only) the pyramids of a stack nested on a square of a mat."""
    pieces = kit.pieces["blockade"]
    sizes = [pieces[SIZES[size]].size_mm for _, size in layers]
    heights = nest_heights(tuple((size[0], size[2]) for size in sizes), kit.pyramid_wall_mm)
    x, y = mat.cell_centre(ord(square[0]) - ord("a"), int(square[1:]) - 1)
    rows = [block(x, y, z, size, True, max(colour, 0))
            for z, size, (colour, _) in zip(heights, sizes, layers)]
    table = np.array(rows).reshape(-1, 7)
    table.flags.writeable = False
    return table


def apex_of(blocks: FloatArray) -> float:
    """Returns the height of the highest apex among some pyramids (0 for none)."""
    return float((blocks[:, Z0] + blocks[:, HEIGHT]).max(initial=0.0))


def current_layers(pieces: Sequence[Mapping[str, Any]]) -> Stack:
    """Returns a square's pyramids from the position, bottom first."""
    return tuple((NAMES.index(piece["colour"]), piece["size"]) for piece in pieces)


def stacks_of(board: Mapping[str, Any]) -> dict[str, Stack]:
    """Returns each occupied square's pyramids, bottom first."""
    return {square: current_layers(pieces) for square, pieces in board["cells"].items() if pieces}


def near(square: str, stacks: Mapping[str, Stack]) -> dict[str, Stack]:
    """Returns the stacks on the squares around one (only they lean into its samples)."""
    return {other: layers for other, layers in stacks.items() if king_step(square, other)}


@lru_cache(maxsize=4096)
def candidates(current: Stack) -> tuple[Stack, ...]:
    """Returns the stacks a square may show: the current one first, then with top pieces gone,
    new pieces on top and black caps on towers the new pieces complete, then the empty square."""
    found = [current]
    for removed in range(min(REMOVED, len(current) - 1) + 1):
        base = current[:len(current) - removed]
        for added in _additions(base[-1][1]):
            grown = base + added
            capped = _tower(grown) and not removed and len(added) > 0
            found.extend([grown] + [grown + ((BLACK, size),) for size in "LMS" if capped])
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


def moved(current: Stack, other: Stack) -> int:
    """Returns how many pieces must leave or reach a square to turn one stack into another."""
    common = 0
    while common < min(len(current), len(other)) and current[common] == other[common]:
        common += 1
    return len(current) + len(other) - 2 * common


def painted(stack: Stack, choice: Sequence[int]) -> list[Layer]:
    """Returns a stack with its new pieces (colour -1), bottom first, painted the chosen colours."""
    colours = iter(choice)
    return [(next(colours) if colour < 0 else colour, size) for colour, size in stack]


def shown_rows(layers: Sequence[Layer]) -> list[int]:
    """Returns the indices of the layers seen from above, top first (vision.expect's rule)."""
    return visible_rows([(f"{colour}-{size}", RANK[size]) for colour, size in layers], nested=True)


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


@lru_cache(maxsize=16384)
def same_look(current: Stack, option: Stack) -> bool:
    """Tells whether a candidate stack, its new pieces of the current top's colour, looks like
    the current stack to colour alone (new pieces are of a mover's colour: on a clear or black
    top they always show)."""
    top = current[-1][0] if current else -1
    if top not in MOVERS and any(colour < 0 for colour, _ in option):
        return False
    return look_of(current) == look_of(painted(option, [top] * len(option)))
