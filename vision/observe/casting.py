"""Rays against solids for the analysis-by-synthesis engine (vision.observe.synthesis): where a
ray from a mat point to the camera leaves a box or an upright cylinder and by which face, which
cells' rays may pass over a box at all (seen from one camera place or from several, as the
place fit asks), and how a cell's jittered casts and a variant's shapes settle the surface each
ray shows.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

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
    and the face they leave it by (FACES); every array holds x, y and z first (3 x ...: each
    component's values lie together, which is quicker to work through)."""
    near, far = slab(origins, directions, lo, hi)  # every axis at once
    return slab_exits(((near[0], far[0]), (near[1], far[1]), (near[2], far[2])), directions)


def slab(origins: Array32, directions: Array32, lo: Array32, hi: Array32) -> tuple[Array32, Array32]:
    """Returns where rays cross the two planes across an axis at lo and hi (the components along
    it of their origins, directions and the planes; or of every axis, first): the nearer and the
    farther crossing."""
    with np.errstate(divide="ignore", invalid="ignore"):
        first = (lo - origins) / directions
        second = (hi - origins) / directions
    return np.minimum(first, second), np.maximum(first, second)


def slab_exits(slabs: Sequence[tuple[Array32, Array32]], directions: Array32) -> tuple[Array32, FaceArray]:
    """Returns where rays leave a box and by which face (as box_exits), given its slabs along x,
    y and z."""
    (near_x, far_x), (near_y, far_y), (near_z, far_z) = slabs
    enter = np.maximum(np.maximum(near_x, near_y), near_z)
    leave = np.minimum(np.minimum(far_x, far_y), far_z)
    missed = (leave < enter) | (leave <= 0) | (enter >= 1)
    face = np.where(far_y <= far_z, np.subtract(4, directions[1] > 0, dtype=np.uint8), np.uint8(0))
    across_x = far_x <= np.minimum(far_y, far_z)
    np.copyto(face, np.subtract(2, directions[0] > 0, dtype=np.uint8), where=across_x)
    exit = np.minimum(leave, np.float32(1.0))
    exit[missed] = MISS
    return exit.astype(np.float32, copy=False), face


def cylinder_exits(origins: Array32, directions: Array32, lo: Array32, hi: Array32) -> tuple[Array32, FaceArray]:
    """Returns where rays leave the upright cylinder inscribed in a box (as box_exits; a side is
    named by the way it mostly faces; components first, as there)."""
    offset_x = origins[0] - (lo[0] + hi[0]) / 2
    offset_y = origins[1] - (lo[1] + hi[1]) / 2
    radius = (hi[0] - lo[0]) / 2
    a = directions[0] ** 2 + directions[1] ** 2 + 1e-12
    b = 2 * (offset_x * directions[0] + offset_y * directions[1])
    c = offset_x ** 2 + offset_y ** 2 - radius ** 2
    disc = b * b - 4 * a * c
    root = np.sqrt(np.maximum(disc, 0.0))
    low, high = (-b - root) / (2 * a), (-b + root) / (2 * a)
    bottom, lid = lo[2] / directions[2], hi[2] / directions[2]
    enter, leave = np.maximum(low, bottom), np.minimum(high, lid)
    hit = (disc >= 0) & (leave >= enter) & (leave > 0) & (enter < 1)
    out_x, out_y = offset_x + high * directions[0], offset_y + high * directions[1]
    side = np.where(np.abs(out_x) >= np.abs(out_y), np.where(out_x > 0, 1, 2), np.where(out_y > 0, 3, 4))
    face = np.where(lid <= high + 1e-6, 0, side)
    return np.where(hit, np.minimum(leave, 1.0), MISS).astype(np.float32), face.astype(np.uint8)


def shape_exits(origins: Array32, directions: Array32, centres: FloatArray,
                geometry: ShapeKey) -> tuple[Array32, FaceArray]:
    """Returns where the rays of cells (3 x k x ...) leave one shape placed on each cell's centre."""
    lo, hi = placed(centres, geometry, origins.ndim)
    return (cylinder_exits if geometry[2] else box_exits)(origins, directions, lo, hi)


def placed(centres: FloatArray, geometry: ShapeKey, dims: int) -> tuple[Array32, Array32]:
    """Returns the corners of a shape placed on each of some cells' centres, components first
    and shaped to meet the cells' rays (3 x k x 1 ..., dims axes in all)."""
    lo3, hi3, _ = geometry
    at = np.zeros((len(centres), 3), np.float32)
    at[:, :2] = centres
    spread = (slice(None), slice(None)) + (None,) * (dims - 2)
    return (at + np.array(lo3, np.float32)).T[spread], (at + np.array(hi3, np.float32)).T[spread]


def shapes_exits(origins: Array32, directions: Array32, centres: FloatArray,
                 geometries: Sequence[ShapeKey]) -> tuple[Array32, FaceArray]:
    """Returns where the rays of cells (3 x k x ...) leave each of some shapes placed on each
    cell's centre and by which face (S x k x ...), as shape_exits; a slab that boxes share
    along an axis (the meeples' parts are all as thick) is worked out once."""
    kept: dict[tuple[int, float, float], tuple[Array32, Array32]] = {}
    exits, faces = [], []
    for geometry in geometries:
        if geometry[2]:
            exit, face = shape_exits(origins, directions, centres, geometry)
        else:
            lo, hi = placed(centres, geometry, origins.ndim)
            for axis in range(3):
                key = (axis, geometry[0][axis], geometry[1][axis])
                if key not in kept:
                    kept[key] = slab(origins[axis], directions[axis], lo[axis], hi[axis])
            exit, face = slab_exits([kept[(axis, geometry[0][axis], geometry[1][axis])] for axis in range(3)],
                                    directions)
        exits.append(exit)
        faces.append(face)
    return np.stack(exits), np.stack(faces)


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


def passes_over_from(low: FloatArray, high: FloatArray, lo: Array32, hi: Array32,
                     cameras: FloatArray) -> NDArray[np.bool_]:
    """Returns passes_over for each of some camera centres (K x 3) at once (K x N): the same
    sums, each camera's share an array element instead of a float."""
    share = np.minimum(np.maximum(float(hi[2]), 0.0) / cameras[:, 2], 1.0)[:, None, None]
    above = cameras[:, None, :2]
    start = np.minimum(low[None], low[None] + share * (above - low[None]))
    stop = np.maximum(high[None], high[None] + share * (above - high[None]))
    inside = (start <= hi[:2]) & (stop >= lo[:2])
    return np.asarray(inside[:, :, 0] & inside[:, :, 1], np.bool_)


def spans(origins: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Returns the least and the greatest x and y (k x 2 each) of each cell's ground points (k x ... x 2)."""
    across = np.ascontiguousarray(origins.reshape(len(origins), -1, 2).transpose(0, 2, 1))
    return across.min(axis=2), across.max(axis=2)


def directions_to(place: CameraPlace, origins: FloatArray) -> tuple[Array32, Array32]:
    """Returns the rays' 3D origins (z = 0) and their directions to the camera, as float32,
    components first (3 x ...) as box_exits takes them."""
    origin3 = grounded(origins)
    return origin3, direction_from(place, origin3)


def grounded(origins: FloatArray) -> Array32:
    """Returns ground points (... x 2) as 3D points at z = 0, float32, components first (3 x ...)."""
    ground = np.moveaxis(np.asarray(origins, np.float64), -1, 0)
    return np.concatenate([ground, np.zeros((1,) + ground.shape[1:])]).astype(np.float32)


def direction_from(place: CameraPlace, origin3: Array32) -> Array32:
    """Returns the directions to the camera of rays from 3D points (3 x ..., float32), no
    component quite 0 across."""
    direction = np.asarray(place.centre, np.float32).reshape((3,) + (1,) * (origin3.ndim - 1)) - origin3
    direction[:2] = np.where(np.abs(direction[:2]) < 1e-6, 1e-6, direction[:2])
    return direction


def batch_rays(places: Sequence[CameraPlace], origins: FloatArray) -> tuple[Array32, Array32]:
    """Returns the 3D origins and directions (3 x N each, components first) of rays with these
    ground points (... x 2) to each of some camera places in turn."""
    origin3 = grounded(origins).reshape(3, -1)
    if len(places) == 1:
        return origin3, direction_from(places[0], origin3)
    cameras = np.array([place.centre for place in places], np.float32).T[:, :, None]  # 3 x K x 1
    direction = (cameras - origin3[:, None, :]).reshape(3, -1)  # as direction_from, every place at once
    direction[:2] = np.where(np.abs(direction[:2]) < 1e-6, 1e-6, direction[:2])
    return np.tile(origin3, len(places)), direction


def rays_over(rows: NDArray[np.int_], spread: tuple[FloatArray, FloatArray], box: tuple[Array32, Array32],
              cameras: FloatArray, sizes: tuple[int, int],
              coarse: tuple[NDArray[np.intp], tuple[FloatArray, FloatArray]] | None = None) -> NDArray[np.int_]:
    """Returns the rays (flat indices: each camera's count rays in turn, per_cell to a cell; sizes:
    count and per_cell) of those cells (rows; spread: every cell's ground bounds) whose rays to
    each of some cameras (K x 3) may pass over a box. With coarse (each row's group and the
    groups' bounds, see grouped_spans) the rows of groups none of whose rays may are dropped
    first: a quick test that keeps every ray the box's padding lets meet a shape."""
    low, high = spread
    count, per_cell = sizes
    if coarse is not None:
        group, (group_low, group_high) = coarse
        near = passes_over_from(group_low, group_high, box[0], box[1], cameras).any(axis=0)
        rows = rows[near.take(group.take(rows))]
    camera, kept = np.nonzero(passes_over_from(low[rows], high[rows], box[0], box[1], cameras))
    first = camera * count + rows.take(kept) * per_cell
    return np.asarray((first[:, None] + np.arange(per_cell)).ravel(), np.int_)


def grouped_spans(groups: NDArray[np.int_], spread: tuple[FloatArray, FloatArray]
                  ) -> tuple[NDArray[np.intp], tuple[FloatArray, FloatArray]]:
    """Returns each row's group (rows sharing a value of groups; numbered from 0) and the least
    and greatest x and y of each group's rows' bounds (spread)."""
    _, group = np.unique(groups, return_inverse=True)
    group = np.asarray(group, np.intp).reshape(-1)
    low = np.full((int(group.max(initial=-1)) + 1, 2), np.inf)
    high = np.full(low.shape, -np.inf)
    np.minimum.at(low, group, spread[0])
    np.maximum.at(high, group, spread[1])
    return group, (low, high)


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
