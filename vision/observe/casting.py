"""Rays against solids for the analysis-by-synthesis engine (vision.observe.synthesis): where a
ray from a mat point to the camera leaves a box or an upright cylinder and by which face, which
cells' rays may pass over a box at all, and how a cell's jittered casts and a variant's shapes
settle the surface each ray shows.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from vision.pose import CameraPlace

FloatArray = NDArray[np.float64]
Array32 = NDArray[np.float32]
IntArray = NDArray[np.int16]
FaceArray = NDArray[np.uint8]
ShapeKey = tuple[tuple[float, float, float], tuple[float, float, float], bool]
FACES = 5  # a surface is seen by a part's top (0) or a side facing +x, -x, +y or -y (1 to 4)
CONTEXT_REACH = 2  # cells around a cell whose solids may cross its rays
MISS = -np.inf


def box_exits(origins: Array32, directions: Array32, lo: Array32, hi: Array32) -> tuple[Array32, FaceArray]:
    """Returns where rays (origin + t * direction, t in [0, 1]) leave a box, MISS if they miss,
    and the face they leave it by (FACES)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        first = (lo - origins) / directions
        second = (hi - origins) / directions
    near, far = np.minimum(first, second), np.maximum(first, second)
    enter = np.maximum(np.maximum(near[..., 0], near[..., 1]), near[..., 2])
    leave = np.minimum(np.minimum(far[..., 0], far[..., 1]), far[..., 2])
    hit = (leave >= enter) & (leave > 0) & (enter < 1)
    across_x = far[..., 0] <= np.minimum(far[..., 1], far[..., 2])
    across_y = ~across_x & (far[..., 1] <= far[..., 2])
    face = np.where(across_x, np.where(directions[..., 0] > 0, 1, 2),
                    np.where(across_y, np.where(directions[..., 1] > 0, 3, 4), 0))
    return np.where(hit, np.minimum(leave, 1.0), MISS).astype(np.float32), face.astype(np.uint8)


def cylinder_exits(origins: Array32, directions: Array32, lo: Array32, hi: Array32) -> tuple[Array32, FaceArray]:
    """Returns where rays leave the upright cylinder inscribed in a box (as box_exits; a side is
    named by the way it mostly faces)."""
    offset_x = origins[..., 0] - (lo[..., 0] + hi[..., 0]) / 2
    offset_y = origins[..., 1] - (lo[..., 1] + hi[..., 1]) / 2
    radius = (hi[..., 0] - lo[..., 0]) / 2
    a = directions[..., 0] ** 2 + directions[..., 1] ** 2 + 1e-12
    b = 2 * (offset_x * directions[..., 0] + offset_y * directions[..., 1])
    c = offset_x ** 2 + offset_y ** 2 - radius ** 2
    disc = b * b - 4 * a * c
    root = np.sqrt(np.maximum(disc, 0.0))
    low, high = (-b - root) / (2 * a), (-b + root) / (2 * a)
    bottom, lid = lo[..., 2] / directions[..., 2], hi[..., 2] / directions[..., 2]
    enter, leave = np.maximum(low, bottom), np.minimum(high, lid)
    hit = (disc >= 0) & (leave >= enter) & (leave > 0) & (enter < 1)
    out_x, out_y = offset_x + high * directions[..., 0], offset_y + high * directions[..., 1]
    side = np.where(np.abs(out_x) >= np.abs(out_y), np.where(out_x > 0, 1, 2), np.where(out_y > 0, 3, 4))
    face = np.where(lid <= high + 1e-6, 0, side)
    return np.where(hit, np.minimum(leave, 1.0), MISS).astype(np.float32), face.astype(np.uint8)


def shape_exits(origins: Array32, directions: Array32, centres: FloatArray,
                geometry: ShapeKey) -> tuple[Array32, FaceArray]:
    """Returns where the rays of cells (k x ...) leave one shape placed on each cell's centre."""
    lo3, hi3, rounded = geometry
    at = np.column_stack([centres, np.zeros(len(centres))]).astype(np.float32)
    spread = (slice(None),) + (None,) * (origins.ndim - 2) + (slice(None),)
    lo = (at + np.array(lo3, np.float32))[spread]
    hi = (at + np.array(hi3, np.float32))[spread]
    return (cylinder_exits if rounded else box_exits)(origins, directions, lo, hi)


def passes_over(low: FloatArray, high: FloatArray, lo: Array32, hi: Array32,
                camera: tuple[float, float, float]) -> NDArray[np.bool_]:
    """Returns which cells' rays to the camera may pass over a box (corners lo, hi) no higher
    than its top, given the bounds of each cell's ground points (low, high: N x 2). Up to the
    top, a ray's footprint runs from its ground point a share hi_z / C_z of the way to the
    camera; that map is affine, so the footprints of a cell lie between the maps of its bounds."""
    share = min(max(float(hi[2]), 0.0) / camera[2], 1.0)
    above = np.array(camera[:2])
    start, stop = np.minimum(low, low + share * (above - low)), np.maximum(high, high + share * (above - high))
    inside = (start <= hi[:2]) & (stop >= lo[:2])
    return np.asarray(inside[:, 0] & inside[:, 1], np.bool_)


def spans(origins: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Returns the least and the greatest x and y (k x 2 each) of each cell's ground points (k x ... x 2)."""
    across = np.ascontiguousarray(origins.reshape(len(origins), -1, 2).transpose(0, 2, 1))
    return across.min(axis=2), across.max(axis=2)


def directions_to(place: CameraPlace, origins: FloatArray) -> tuple[Array32, Array32]:
    """Returns the rays' 3D origins (z = 0) and their directions to the camera, as float32."""
    origin3 = np.concatenate([origins, np.zeros(origins.shape[:-1] + (1,))], axis=-1).astype(np.float32)
    direction = np.asarray(place.centre, np.float32) - origin3
    direction[..., :2] = np.where(np.abs(direction[..., :2]) < 1e-6, 1e-6, direction[..., :2])
    return origin3, direction


def surface_code(part: int, face: FaceArray | int) -> NDArray[np.int_]:
    """Returns the code of a part seen by one of its faces (FACES of them per part)."""
    return np.asarray(FACES * part + np.asarray(face, np.int_), np.int_)


def split_casts(code: NDArray[np.integer[Any]]) -> tuple[IntArray, IntArray]:
    """Returns, per ray, the surface of the central cast and another one a jittered cast meets
    (the same when every cast agrees)."""
    primary = code[..., 0].astype(np.int16)
    secondary = primary.copy()
    for cast in range(code.shape[-1] - 1, 0, -1):  # the first cast that differs wins
        np.copyto(secondary, code[..., cast], where=code[..., cast] != primary, casting="unsafe")
    return primary, secondary


@dataclass(frozen=True, slots=True)
class Outline:
    """Where rays first meet a variant's solids (or the context's) regardless of their colours:
    per ray the index of the winning shape in the variant (-1: the context's), the face it shows,
    and whether the ray meets nothing (the printed mat shows)."""

    winner: IntArray
    face: IntArray
    missed: NDArray[np.bool_]

    def paint(self, palette: IntArray, seen: IntArray, ground: IntArray) -> IntArray:
        """Returns the surface code of every ray (m x ...) for each of m ways to give the shapes
        parts (palette: m x shapes + 1, each shape's FACES * part, then 0), the context's codes
        seen, the mat's ground."""
        code = palette.take(self.winner, axis=1)  # -1 (the context's): the palette's last column, 0
        code += self.face
        np.copyto(code, seen, where=self.winner < 0)
        np.copyto(code, ground, where=self.missed)
        return np.asarray(code, np.int16)


def outline(shapes: tuple[int, ...], exits: Array32, faces: FaceArray, seen_t: Array32) -> Outline:
    """Returns where rays leave a variant's shapes (indices into exits and faces, S x ...) when
    the context lets them out at seen_t: the latest exit wins; of equal ones, the earlier shape."""
    t = seen_t.copy()
    winner, face = np.full(t.shape, -1, np.int16), np.zeros(t.shape, np.int16)
    for index, s in enumerate(shapes):
        closer = exits[s] > t
        np.copyto(winner, index, where=closer)
        np.copyto(face, faces[s], where=closer)
        np.maximum(t, exits[s], out=t)
    return Outline(winner, face, t == MISS)


def within_reach(marks: NDArray[np.int_], grid: NDArray[np.int_], include_self: bool) -> NDArray[np.bool_]:
    """Returns which cells (their files and ranks: grid, k x 2) lie within CONTEXT_REACH of each
    of some squares (marks, n x 2), the square itself if asked (n x k)."""
    near = np.maximum(np.abs(marks[:, None, 0] - grid[None, :, 0]), np.abs(marks[:, None, 1] - grid[None, :, 1]))
    return np.asarray((near >= (0 if include_self else 1)) & (near <= CONTEXT_REACH), np.bool_)
