"""Block Arena's pixel observer (both variants): blocks upright or lying, meeples on top.

Each label is drawn as solids for the analysis-by-synthesis engine (vision.observe.synthesis):
an upright block is a 30 x 30 x 62 box, a lying one the 30 mm tall half of its brick that lies
over the cell (which way the other half lies does not change what this cell shows), a meeple a
few boxes (legs, body, arms, head) standing 8 mm thick in the middle of the block's top, and two
meeples side by side along the files, either one on the left (KIT.md's sizes, read from the kit).
The rays look at the ground, at both block tops and across the meeples' faces at both heights,
so a light meeple on a light block is told by what shows at the meeple's height and by its
faces, not by a colour that hardly differs. Blocks cast long, deep shadows, so the ground in
shadow is more likely here than in other games; a block's top hardly ever is (only a taller
piece beside it can shade it), so a dark meeple on a dark block is not taken for a shaded top.
Oiled wood shows a faint white gloss, most on the tops facing the lamps, that lifts and greys
the dark walnut (a dark top then reads lighter than its nominal colour, never yellower like a
maple top in shadow), so every surface may show a little of it (vision.observe.sheen). Right
under the camera an upright block and a lying one look alike; a lying block has its other half
next to it, so a cell reads lying only as far as a neighbour may show a lying block of its colour.
"""

from __future__ import annotations

from functools import cache
from typing import Any, Mapping

import numpy as np
from numpy.typing import NDArray

from vision.kit import Kit
from vision.observation import EMPTY, Observation
from vision.observe.calibrate import ground_parts
from vision.observe.colours import ColourMemory
from vision.observe.context import Scene
from vision.observe.reading import anticipate as anticipate_model, observe_model
from vision.observe.synthesis import (Model, Shape, SynthMemory, Variant, box, grid_points, memory_for,
                                      piece_colour, piece_size)

SECOND_LOOK = True  # a frame read as illegal is read again under the nearest legal moves (pi.pipeline)
SECOND_LOOK_ASKS = True  # so is a question, under each candidate's position (a meeple leans over
# the other cell of its lying block, which only the position with the meeple drawn there explains)
GAME = "block-arena"
COLOURS = ("light", "dark")
MEEPLE_SPACING = 0.45  # two meeples on a square stand this many meeple widths apart
# A meeple's outline as boxes: (half width, bottom, top) of its legs, body, arms and head, as
# fractions of its width and height (KIT.md's classic meeple, 22 wide and 24 tall).
MEEPLE_PARTS = ((0.5, 0.0, 0.3), (0.27, 0.25, 0.67), (0.5, 0.44, 0.65), (0.2, 0.62, 1.0))
LIFT = (0.5, 0.83)  # heights on a meeple (fractions) where its faces are looked at
SHADOW = (0.3, 0.45, 0.15)  # the darkest shadow a top may lie in, the share of the ground's tops
# in one, and of the pieces' tops (measured: under 5 % of block tops, rendered or realistic)
SHEEN = (0.02, 0.04)  # the white gloss oiled wood may show (shares of white light, linear)


def meeple(kit: Kit, height: float, part: str, shift: float) -> tuple[Shape, ...]:
    """Returns a meeple standing on a top at a height, shifted along the files."""
    width, thickness, tall = piece_size(kit, GAME, "meeple")
    return tuple(box(half * width, thickness / 2, height + low * tall, height + high * tall, part, shift)
                 for half, low, high in MEEPLE_PARTS)


def block(kit: Kit, colour: str, orientation: str) -> tuple[Shape, float]:
    """Returns a block's solid over one cell and the height of its top."""
    width, _, length = piece_size(kit, GAME, "block")
    if orientation == "upright":
        return box(width / 2, width / 2, 0.0, length, f"{colour}-block"), length
    half = (length / 2 + width) / 4  # the lying brick's part over this cell: about square
    return box(half, half, 0.0, width, f"{colour}-block"), width


def block_labels(kit: Kit, colour: str, orientation: str) -> dict[str, tuple[Variant, ...]]:
    """Returns the labels of one block: bare, with either meeple, with both (either on the left)."""
    solid, top = block(kit, colour, orientation)
    base = f"{colour}-block-{orientation}"
    apart = MEEPLE_SPACING * piece_size(kit, GAME, "meeple")[0] / 2
    labels: dict[str, tuple[Variant, ...]] = {base: ((solid,),)}
    for meeple_colour in COLOURS:
        labels[f"{meeple_colour}-meeple/{base}"] = ((solid, *meeple(kit, top, f"{meeple_colour}-meeple", 0.0)),)
    labels[f"both-meeples/{base}"] = tuple(
        (solid, *meeple(kit, top, f"{left}-meeple", -apart), *meeple(kit, top, f"{right}-meeple", apart))
        for left, right in (COLOURS, COLOURS[::-1]))
    return labels


def samples(kit: Kit) -> NDArray[np.float64]:
    """Returns where a cell is looked at: the ground, both block tops, the meeples' faces."""
    width, _, length = piece_size(kit, GAME, "block")
    meeple_w, thickness, tall = piece_size(kit, GAME, "meeple")
    grids = [grid_points(0.0, 13.0, 13.0, 6, 6), grid_points(width, 12.0, 12.0, 4, 4),
             grid_points(length, 12.0, 12.0, 4, 4)]
    for top in (width, length):
        grids += [grid_points(top + lift * tall, meeple_w * 0.45, thickness / 4, 4, 2) for lift in LIFT]
    return np.vstack(grids)


@cache
def arena_model(kit: Kit) -> Model:
    """Returns Block Arena's model at a kit's sizes and colours (ObserveError if it lacks them)."""
    labels: dict[str, tuple[Variant, ...]] = {EMPTY: ((),)}
    for colour in COLOURS:
        for orientation in ("upright", "lying"):
            labels.update(block_labels(kit, colour, orientation))
    names = [f"{colour}-{kind}" for kind in ("block", "meeple") for colour in COLOURS]
    parts = {**ground_parts(kit), **{name: piece_colour(kit, GAME, name) for name in names}}
    halves = {label: label.split("/")[-1] for label in labels if label.endswith("-lying")}
    return Model(GAME, labels, samples(kit), parts, shadow=SHADOW[0], shadowed=SHADOW[1],
                 raised_shadowed=SHADOW[2], sheen=SHEEN, halves=halves)


def new_memory(kit: Kit) -> SynthMemory:
    """Returns an empty memory for Block Arena observations with a kit."""
    return memory_for(arena_model(kit))


def observe(scene: Scene, board: Mapping[str, Any], memory: ColourMemory | None = None,
            frame: int | None = None) -> Observation:
    """Returns what a still frame shows on every Block Arena cell (9x9 or 7x7, as the scene's mat),
    given the referee's current position (the context: what hides what, the colours to learn); a
    memory from new_memory keeps the colours, the camera place and the geometry between frames
    (and is updated)."""
    return observe_model(arena_model(scene.kit), scene, board, memory, frame)


def anticipate(scene: Scene, board: Mapping[str, Any], memory: ColourMemory) -> bool:
    """Readies the memory to read the board fix of a still scene under a new position (the
    referee's, after a move), so that the next still frame reads quicker; tells whether it could
    (see vision.observe.reading.anticipate)."""
    return anticipate_model(arena_model(scene.kit), scene, board, memory)
