"""Block (PT)'s pixel observer: cream and charcoal tiles, red and blue pawns, a pawn on a tile.

Each label is drawn as solids for the analysis-by-synthesis engine (vision.observe.synthesis):
a tile is a 28 x 28 x 8 box, a pawn an 18 mm cylinder whose round top is counted as a flat lid
a little below its crown, standing on the mat or in the middle of a tile (KIT.md's sizes, read
from the kit). The rays look at the ground, at the tiles' top and at both pawn heights, so a
cream tile is told from the off-white mat by its colour over the whole tile and by the sides
it shows, and a pawn by its colour where its top really appears. The pieces are too low to
refine the camera place (their tops hardly move with it), so the lens fitted on the printed grid
places the camera.
"""

from __future__ import annotations

from functools import cache
from typing import Any, Mapping

import numpy as np

from vision.kit import Kit
from vision.observation import EMPTY, Observation
from vision.observe.calibrate import ground_parts
from vision.observe.colours import ColourMemory
from vision.observe.context import Scene
from vision.observe.reading import anticipate as anticipate_model, observe_model
from vision.observe.synthesis import (Model, SynthMemory, Variant, box, cylinder, grid_points, memory_for,
                                      piece_colour, piece_size)

SECOND_LOOK = True  # a frame read as illegal is read again under the nearest legal moves (pi.pipeline)
SECOND_LOOK_ASKS = True  # so is a question, under each candidate's position
GAME = "block-pt"
TILES = {"cream-tile": "M", "charcoal-tile": "N"}  # label -> the kit's colour name
PAWNS = {"red-pawn": "X", "blue-pawn": "Y"}
DOME_SHARE = 0.65  # the pawn's round top is counted as a flat lid at this share of its radius


@cache
def pt_model(kit: Kit) -> Model:
    """Returns Block (PT)'s model at a kit's sizes and colours (ObserveError if it lacks them)."""
    tile_w, tile_d, tile_h = piece_size(kit, GAME, "tile")
    pawn_w, _, pawn_h = piece_size(kit, GAME, "pawn")
    lid = pawn_h - (1 - DOME_SHARE) * pawn_w / 2
    labels: dict[str, tuple[Variant, ...]] = {EMPTY: ((),)}
    for tile, colour in TILES.items():
        labels[tile] = ((box(tile_w / 2, tile_d / 2, 0.0, tile_h, colour),),)
    for pawn, colour in PAWNS.items():
        labels[pawn] = ((cylinder(pawn_w / 2, 0.0, lid, colour),),)
        for tile, under in TILES.items():
            labels[f"{pawn}/{tile}"] = ((box(tile_w / 2, tile_d / 2, 0.0, tile_h, under),
                                         cylinder(pawn_w / 2, tile_h, tile_h + lid, colour)),)
    samples = np.vstack([grid_points(0.0, 13.0, 13.0, 6, 6), grid_points(tile_h, 12.0, 12.0, 4, 4),
                         grid_points(lid - 2, 5.0, 5.0, 3, 3), grid_points(tile_h + lid - 2, 5.0, 5.0, 3, 3)])
    names = [*TILES.values(), *PAWNS.values()]
    parts = {**ground_parts(kit), **{name: piece_colour(kit, GAME, name) for name in names}}
    return Model(GAME, labels, samples, parts, shadow=0.25, fit_place=False)


def new_memory(kit: Kit) -> SynthMemory:
    """Returns an empty memory for Block (PT) observations with a kit."""
    return memory_for(pt_model(kit))


def observe(scene: Scene, board: Mapping[str, Any], memory: ColourMemory | None = None,
            frame: int | None = None) -> Observation:
    """Returns what a still frame shows on every Block (PT) cell, given the referee's current
    position (the context: what hides what, the colours to learn); a memory from new_memory
    keeps the colours, the camera place and the geometry between frames (and is updated)."""
    return observe_model(pt_model(scene.kit), scene, board, memory, frame)


def anticipate(scene: Scene, board: Mapping[str, Any], memory: ColourMemory) -> bool:
    """Readies the memory to read the board fix of a still scene under a new position (the
    referee's, after a move), so that the next still frame reads quicker; tells whether it could
    (see vision.observe.reading.anticipate)."""
    return anticipate_model(pt_model(scene.kit), scene, board, memory)
