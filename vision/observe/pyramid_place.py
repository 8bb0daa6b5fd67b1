"""Where the camera stands, chosen on the pyramids the referee's position holds.

The board fix gives the camera's place only roughly when the camera looks nearly straight down
(its focal length and height are then tied) or through a distorting lens, yet the parallax of a
pyramid's top (vision.observe.heights) needs it to within a few cm. The lens calibrated on the
printed grid (vision.observe.calibrate.lens_places) gives places for several fields of view; a
pyramid's faces are flat and evenly lit, so seen from the right place the samples inside each
cell's top fall into faces of even lightness: of the fix's own place and those, the one with the
least spread of lightness within faces is taken.
"""

from __future__ import annotations

from typing import Mapping

import numpy as np

from vision.observe.calibrate import lens_places, register
from vision.observe.context import Scene
from vision.observe.heights import Picture, pixels_of
from vision.observe.stack_colours import FloatArray, IntArray
from vision.observe.stacks import COLOUR, HALF, cast, patch_points, pixels_per_mm
from vision.pose import CameraPlace

STEP_PX = 1.5  # the samples are this far apart in the frame
MARGIN_MM = 3.0  # ... and cover each stack's footprint narrowed by this (its outline moves)
FACE_NOISE = 2.0  # the lightness noise of a sample (L): the spread's scale
REACH_MM = 60.0  # how tall a stack leans into the band sampled round a cell
Cell = tuple[FloatArray, FloatArray, FloatArray]  # a cell's pyramids, sample points, lightness


def refined_place(scene: Scene, picture: Picture, stacks: Mapping[str, FloatArray], opaque: Mapping[str, bool]
                  ) -> CameraPlace:
    """Returns the camera place from which the cells' stacks (pyramids per square; those marked
    opaque judged) best explain a frame's lightness."""
    cells = [_cell(scene, picture, square, blocks) for square, blocks in stacks.items() if opaque[square]]
    cells = [cell for cell in cells if len(cell[1])]
    if not cells:
        return scene.place
    focal = scene.place.focal_px

    def cost(centre: FloatArray) -> float:
        """Returns how unevenly lit the faces are, seen from one camera centre (nats)."""
        camera = (float(centre[0]), float(centre[1]), float(centre[2]))
        return sum(_spread(blocks, points, light, camera) for blocks, points, light in cells) / (2 * FACE_NOISE ** 2)

    starts = [np.array(place.centre, np.float64) for place in [scene.place, *lens_places(scene, register(scene))]]
    found = starts[int(np.argmin([cost(start) for start in starts]))]
    return CameraPlace((float(found[0]), float(found[1]), float(found[2])), focal)


def _cell(scene: Scene, picture: Picture, square: str, blocks: FloatArray) -> Cell:
    """Returns a cell's pyramids, the mat points sampled round them and their lightness."""
    step = STEP_PX / pixels_per_mm(scene, square)
    points, _ = patch_points(scene, square, step, REACH_MM)
    inner = blocks.copy()
    inner[:, HALF] -= MARGIN_MM
    near = cast(inner, points, scene.place.centre).hit.any(axis=0)
    points = np.asarray(points[near], np.float64)
    return blocks, points, picture.at(pixels_of(scene, points))


def _spread(blocks: FloatArray, points: FloatArray, light: FloatArray, camera: tuple[float, float, float]) -> float:
    """Returns the squared spread of lightness within the faces the samples show from a camera
    centre (a face: a colour and side of the stack; the samples off the stack are one more)."""
    hits = cast(blocks, points, camera)
    heights = np.where(hits.hit, hits.z, -np.inf)
    first = heights.argmax(axis=0)
    columns = np.arange(len(points))
    shown = np.isfinite(heights[first, columns])
    group: IntArray = np.where(shown, blocks[first, COLOUR].astype(np.int64) * 8 + hits.face[first, columns], -1) + 1
    counts = np.bincount(group)
    sums = np.bincount(group, weights=light)
    squares = np.bincount(group, weights=light * light)
    return float(np.sum(squares - np.divide(sums ** 2, counts, out=np.zeros_like(sums), where=counts > 0)))
