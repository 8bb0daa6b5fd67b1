"""A still frame prepared for observing: white-balanced from the mat, in Lab, sampled in 3D.

Colours are normalised against the printed mat itself: the off-white margin around the grid
(away from the markers) is sampled on every still frame and per-channel gains map its median to
the mat's nominal colour, so warm or cool light, dim or bright, reads the same. Samples are
taken at 3D board points (mm, z up) through the camera place, so a piece's top is read where it
really appears rather than over its cell.

Only the sampled pixels are ever converted: the frame stays as it came (BGR, uint8) and each
sample's 2 x 2 neighbourhood is balanced and turned into Lab before being interpolated, so the
result is what bilinear sampling (cv2.remap, BORDER_REPLICATE) of the whole frame converted to
Lab gives, to float32 rounding, without converting a million pixels per still frame.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Callable

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.board import BoardView
from vision.frames import Image, require_image
from vision.kit import Kit, Mat
from vision.pose import CameraPlace, image_points

FloatArray = NDArray[np.float64]
Taps = tuple[NDArray[np.intp], FloatArray]  # bilinear sampling: 4 x N flat pixel indices and weights
MAT_RGB = (235.0, 232.0, 225.0)
MARGIN_BAND_MM = (14.0, 48.0)
MARKER_CLEARANCE_MM = 6.0
MIN_MARGIN_SAMPLES = 12


class ObserveError(ValueError):
    """Raised when a frame cannot be observed (no mat visible to balance against, bad input)."""


@dataclass(frozen=True, slots=True)
class Scene:
    """One still frame ready to sample: the BGR frame and its gains, board fix, camera place, mat."""

    frame: Image
    view: BoardView
    place: CameraPlace
    kit: Kit
    mat: Mat
    gains: tuple[float, float, float]

    def sample(self, points: FloatArray) -> FloatArray:
        """Returns the Lab colour (N x 3) seen at 3D board points (N x 3, mm), bilinear."""
        pixels = image_points(self.view, self.place, np.asarray(points, np.float64).reshape(-1, 3))
        return self.lab_at(pixels)

    def lab_at(self, pixels: FloatArray) -> FloatArray:
        """Returns the balanced Lab colour (N x 3) at frame pixels (N x 2), bilinear."""
        return self.lab_tapped(taps(self.frame.shape[:2], pixels))

    def lab_tapped(self, where: Taps) -> FloatArray:
        """Returns the balanced Lab colour (N x 3) at frame pixels given by their taps (see taps)."""
        return tapped(self.frame, where, lambda patch: balanced_lab(patch, self.gains))

    def top_grid(self, centre: tuple[float, float], height_mm: float, half_mm: float,
                 steps: int = 5) -> FloatArray:
        """Returns Lab samples on a steps x steps grid of a horizontal square at a height."""
        offsets = np.linspace(-half_mm, half_mm, steps)
        xs, ys = np.meshgrid(centre[0] + offsets, centre[1] + offsets)
        points = np.column_stack([xs.ravel(), ys.ravel(), np.full(xs.size, height_mm)])
        return self.sample(points)

    def cell_centre(self, square: str) -> tuple[float, float]:
        """Returns the board mm centre of a square named in RULES.md notation."""
        return self.mat.cell_centre(ord(square[0]) - ord("a"), int(square[1:]) - 1)

    def squares(self) -> list[str]:
        """Returns every square of the grid, a1 first, by file then rank."""
        size = self.mat.cells
        return [f"{chr(ord('a') + f)}{r + 1}" for f in range(size) for r in range(size)]


def bilinear(image: Image, pixels: FloatArray,
             convert: Callable[[NDArray[np.float32]], NDArray[np.float32]] | None = None) -> FloatArray:
    """Returns the image's values at sub-pixel positions (N x 2), clamped to the border, after
    an optional per-pixel conversion: only each position's 2 x 2 neighbours are converted."""
    return tapped(image, taps(image.shape[:2], pixels), convert)


def tapped(image: Image, where: Taps,
           convert: Callable[[NDArray[np.float32]], NDArray[np.float32]] | None = None) -> FloatArray:
    """Returns the image's values at positions given by their taps (see taps), after an optional
    per-pixel conversion of the taps' pixels."""
    index, weights = where
    height, width = image.shape[:2]
    corners = np.asarray(image.reshape(height * width, -1).take(index, axis=0), np.float32)
    values = corners if convert is None else convert(corners)
    return np.asarray((weights[:, :, None] * values).sum(axis=0), np.float64)


def taps(size: tuple[int, int], pixels: FloatArray) -> Taps:
    """Returns the pixels (flat indices into an image of size height x width) of each position's
    four neighbours (4 x N: top left, top right, bottom left, bottom right), clamped to the
    border, and their bilinear weights (4 x N).

    Positions are first rounded to float32, as cv2.remap's maps would be."""
    pts = np.asarray(pixels, np.float32).reshape(-1, 2)
    low = np.floor(pts)
    fx, fy = (pts - low).astype(np.float64).T
    height, width = size
    xs = np.clip(np.stack([low[:, 0], low[:, 0] + 1]).astype(np.intp), 0, width - 1)
    ys = np.clip(np.stack([low[:, 1], low[:, 1] + 1]).astype(np.intp), 0, height - 1) * width
    weights = np.stack([(1 - fx) * (1 - fy), fx * (1 - fy), (1 - fx) * fy, fx * fy])
    return ys[[0, 0, 1, 1]] + xs[[0, 1, 0, 1]], weights


def balanced_lab(patch: NDArray[np.float32], gains: tuple[float, float, float]) -> NDArray[np.float32]:
    """Returns BGR pixels (0-255) scaled by the white-balance gains and converted to Lab."""
    balanced = patch * np.array(gains, np.float32)
    np.clip(balanced, 0, 255, out=balanced)
    balanced /= np.float32(255.0)
    return converted(balanced, cv2.COLOR_BGR2LAB)


@cache
def margin_points(kit: Kit, mat: Mat, spacing_mm: float = 6.0) -> FloatArray:
    """Returns board points in the mat's margin band, clear of every marker and the grid
    (computed once per kit and mat, read-only)."""
    side = mat.side_mm
    low, high = MARGIN_BAND_MM
    ticks = np.arange(-high, side + high + 1e-9, spacing_mm)
    xs, ys = np.meshgrid(ticks, ticks)
    points = np.column_stack([xs.ravel(), ys.ravel()])
    outside = np.maximum(np.maximum(-points[:, 0], points[:, 0] - side),
                         np.maximum(-points[:, 1], points[:, 1] - side))
    keep = (outside >= low) & (outside <= high)
    for corners in kit.marker_corners(mat).values():
        lo = corners.min(axis=0) - MARKER_CLEARANCE_MM - kit_quiet_zone(kit)
        hi = corners.max(axis=0) + MARKER_CLEARANCE_MM + kit_quiet_zone(kit)
        keep &= ~np.all((points >= lo) & (points <= hi), axis=1)
    kept = np.asarray(points[keep], np.float64)
    kept.setflags(write=False)
    return kept


def kit_quiet_zone(kit: Kit) -> float:
    """Returns the kit's white quiet zone around each marker, in mm (5 by default)."""
    return float(kit.quiet_zone_mm)


def mat_gains(frame: Image, view: BoardView, kit: Kit) -> tuple[float, float, float]:
    """Returns per-channel (B, G, R) gains that bring the visible mat margin to its nominal colour."""
    pixels = view.to_image(margin_points(kit, view.mat))
    height, width = frame.shape[:2]
    inside = (pixels[:, 0] >= 0) & (pixels[:, 0] < width - 1) & (pixels[:, 1] >= 0) & (pixels[:, 1] < height - 1)
    if int(inside.sum()) < MIN_MARGIN_SAMPLES:
        raise ObserveError("too little of the mat's margin is in view to balance the colours")
    seen = bilinear(frame, pixels[inside])
    median = np.median(seen, axis=0)
    if np.any(median < 8.0):
        raise ObserveError("the mat's margin is too dark to balance the colours")
    nominal = np.array(MAT_RGB[::-1])
    gains = nominal / median
    return (float(gains[0]), float(gains[1]), float(gains[2]))


def prepare(frame: Image, view: BoardView, place: CameraPlace, kit: Kit) -> Scene:
    """Returns the frame with its white balance against the mat, ready to sample in Lab."""
    image = require_image(frame)
    if image.ndim != 3 or image.shape[2] != 3:
        raise ObserveError("a colour (BGR) frame is needed to observe the pieces")
    return Scene(image, view, place, kit, view.mat, mat_gains(image, view, kit))


def converted(pixels: NDArray[np.float32], code: int) -> NDArray[np.float32]:
    """Returns float pixels (any shape ending in 3 channels) converted by an OpenCV colour code;
    none for none (OpenCV refuses an empty image)."""
    if not pixels.size:
        return np.zeros(pixels.shape, np.float32)
    return np.asarray(cv2.cvtColor(pixels, code), np.float32)


def rgb_to_lab(rgb: tuple[float, float, float]) -> FloatArray:
    """Returns the Lab colour (OpenCV float scale: L 0-100) of an sRGB triple 0-255."""
    pixel = np.array([[[rgb[2] / 255.0, rgb[1] / 255.0, rgb[0] / 255.0]]], np.float32)
    return np.asarray(cv2.cvtColor(pixel, cv2.COLOR_BGR2LAB)[0, 0], np.float64)
