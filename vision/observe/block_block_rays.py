"""BLOCK.BLOCK's ray geometry: where each camera ray meets each column of cubes (parallax).

Rays run from the camera centre C through a jittered grid of mat points g. The ray's point at
height z lies over g + z u, u = (C - g) / C_z, so it runs inside a column's square footprint
for z in one interval [low, high] (empty when it misses): a column of height h shows the ray
its top when low < h <= high, the side the ray comes in by (at height high) when h > high, and
nothing when h <= low. A column's rays are looked for only inside the box its footprint and the
footprint's image at the column's reach span (seen from C, the footprint grows away from the
nadir), so only nearby (ray, column) pairs are ever computed. The pairs are also laid out per
ray (`table`), so the first and second surfaces each ray meets under a guess of every column's
height are row maxima.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from vision.pose import CameraPlace

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]
BoolArray = NDArray[np.bool_]

RAY_JITTER = 0.35  # the grid's seeded jitter, as a share of its step
EDGE_MM = 1.0  # rays this close to a top's edge (across the ray) may show the top or the side
EDGE_HEIGHT_MM = 5.0  # ... if the top lies this close in height to where the ray meets that side
SIDES = (1, 2, 3, 4)  # a side facing +x, -x, +y, -y (vision.observe.synthesis.FACES' order)


@dataclass(frozen=True, slots=True)
class Grid:
    """The rays' mat points: a jittered grid (rows x columns, row-major) over a region."""

    ground: FloatArray
    xs: FloatArray
    ys: FloatArray
    step: float

    @property
    def shape(self) -> tuple[int, int]:
        """Returns the grid's rows and columns."""
        return len(self.ys), len(self.xs)


@dataclass(frozen=True, slots=True)
class Rays:
    """A grid's rays from one camera centre and the (ray, column) pairs they may meet: per pair
    its ray and column, the heights between which the ray runs inside the column's footprint, the
    side it comes in by at the top of that stretch and how far (mm, across the ray) the ray passes
    from that side's top edge per mm the top lies below or above `high` (inf: no such side).
    `table` lists each meeting ray's pairs (row r: ray `rows[r]`, -1 padded; `row_of` a ray's
    row, -1 for none)."""

    grid: Grid
    place: CameraPlace
    ray: IntArray
    col: IntArray
    low: FloatArray
    high: FloatArray
    face: IntArray
    rate: FloatArray
    table: IntArray
    rows: IntArray
    row_of: IntArray

    @property
    def count(self) -> int:
        """Returns how many rays there are."""
        return len(self.grid.ground)

    def steps(self, ray: IntArray) -> FloatArray:
        """Returns some rays' steps: how far each runs sideways (x, y) per mm it rises."""
        return steps_of(self.place, self.grid.ground[ray])


def ray_grid(region: FloatArray, spacing_mm: float, most: int) -> Grid:
    """Returns a seeded jittered grid over a region (x0, x1, y0, y1), at least spacing_mm apart
    and of at most about `most` points."""
    area = (region[1] - region[0] + 2) * (region[3] - region[2] + 2)
    step = max(spacing_mm, math.sqrt(area / most))
    xs = np.arange(region[0] - 1, region[1] + 1 + 1e-9, step)
    ys = np.arange(region[2] - 1, region[3] + 1 + 1e-9, step)
    gx, gy = np.meshgrid(xs, ys)
    jitter = np.random.default_rng(0).uniform(-RAY_JITTER, RAY_JITTER, (gx.size, 2)) * step
    return Grid(np.column_stack([gx.ravel(), gy.ravel()]) + jitter, xs, ys, float(step))


def ray_region(boxes: FloatArray, places: list[CameraPlace], reach_mm: float) -> FloatArray:
    """Returns the mat-plane box (x0, x1, y0, y1) where any column up to a reach could appear
    from any of some camera places."""
    corners = np.array([[b[i], b[j], reach_mm] for b in boxes for i in (0, 1) for j in (2, 3)])
    seen = np.vstack([place.to_mat(corners) for place in places] + [corners[:, :2]])
    return np.array([seen[:, 0].min(), seen[:, 0].max(), seen[:, 1].min(), seen[:, 1].max()])


def candidates(grid: Grid, boxes: FloatArray, place: CameraPlace,
               reach_mm: FloatArray) -> tuple[IntArray, IntArray]:
    """Returns the (ray, column) pairs whose ray may pass over the column's footprint (x0, x1,
    y0, y1) below its reach: the grid points inside the box the footprint and its image at the
    reach span, a jitter step padded (column by column, each column's rows in grid order)."""
    if not len(boxes):
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    centre = np.array(place.centre[:2])
    stretch = (place.centre[2] / np.maximum(place.centre[2] - reach_mm, 1.0))[:, None]
    pad = grid.step * (RAY_JITTER + 1e-6)
    far_x, far_y = centre[0] + (boxes[:, :2] - centre[0]) * stretch, centre[1] + (boxes[:, 2:] - centre[1]) * stretch
    x_from = np.searchsorted(grid.xs, np.minimum(boxes[:, 0], far_x.min(axis=1)) - pad, "left")
    x_to = np.searchsorted(grid.xs, np.maximum(boxes[:, 1], far_x.max(axis=1)) + pad, "right")
    y_from = np.searchsorted(grid.ys, np.minimum(boxes[:, 2], far_y.min(axis=1)) - pad, "left")
    y_to = np.searchsorted(grid.ys, np.maximum(boxes[:, 3], far_y.max(axis=1)) + pad, "right")
    width, height = np.maximum(x_to - x_from, 0), np.maximum(y_to - y_from, 0)
    sizes = width * height
    col = np.repeat(np.arange(len(boxes), dtype=np.int64), sizes)
    within = np.arange(int(sizes.sum()), dtype=np.int64) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    row = y_from[col] + within // np.maximum(width[col], 1)
    return (row * len(grid.xs) + x_from[col] + within % np.maximum(width[col], 1)).astype(np.int64), col


def axis_interval(start: FloatArray, slope: FloatArray, low: FloatArray,
                  high: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Returns the heights between which start + slope * z lies in [low, high] (per pair)."""
    flat = np.abs(slope) < 1e-12
    if not flat.any():
        first, second = (low - start) / slope, (high - start) / slope
        return np.minimum(first, second), np.maximum(first, second)
    safe = np.where(flat, 1.0, slope)
    first, second = (low - start) / safe, (high - start) / safe
    inside = (start >= low) & (start <= high)
    lo = np.where(flat, np.where(inside, -np.inf, np.inf), np.minimum(first, second))
    hi = np.where(flat, np.where(inside, np.inf, -np.inf), np.maximum(first, second))
    return lo, hi


def meet(ground: FloatArray, step: FloatArray, boxes: FloatArray,
         ceiling: float) -> tuple[FloatArray, FloatArray, IntArray, FloatArray]:
    """Returns per pair (a ray's ground point and step, a footprint) the heights between which
    the ray runs inside the footprint, the side it comes in by at the top of that stretch and
    the ray's edge rate there (Rays.rate)."""
    lo_x, hi_x = axis_interval(ground[:, 0], step[:, 0], boxes[:, 0], boxes[:, 1])
    lo_y, hi_y = axis_interval(ground[:, 1], step[:, 1], boxes[:, 2], boxes[:, 3])
    low, high = np.maximum(np.maximum(lo_x, lo_y), 0.0), np.minimum(np.minimum(hi_x, hi_y), ceiling)
    by_x = hi_x <= hi_y
    face = np.where(by_x, np.where(step[:, 0] > 0, SIDES[0], SIDES[1]), np.where(step[:, 1] > 0, SIDES[2], SIDES[3]))
    across = np.abs(np.where(by_x, step[:, 0], step[:, 1]))
    rate = np.where(high < ceiling, across / np.sqrt(1.0 + across * across), np.inf)
    return low, high, face.astype(np.int64), np.asarray(rate, np.float64)


def per_ray_table(ray: IntArray, count: int) -> tuple[IntArray, IntArray, IntArray]:
    """Returns the pairs laid out per ray (rows of pair indices, -1 padded), each row's ray and
    each ray's row (-1: none)."""
    order = np.argsort(ray, kind="stable")
    ordered = ray[order]
    starts = np.flatnonzero(np.concatenate([[True], ordered[1:] != ordered[:-1]])) if len(ordered) else order
    rows, sizes = ordered[starts], np.diff(np.append(starts, len(ordered)))
    width = int(sizes.max()) if len(sizes) else 1
    table = np.full((len(rows), width), -1, np.int64)
    within = np.arange(len(order)) - np.repeat(starts, sizes)
    table[np.repeat(np.arange(len(rows)), sizes), within] = order
    row_of = np.full(count, -1, np.int64)
    row_of[rows] = np.arange(len(rows))
    return table, rows.astype(np.int64), row_of


def steps_of(place: CameraPlace, ground: FloatArray) -> FloatArray:
    """Returns the steps of rays from a camera place through mat points: (C - g) / C_z."""
    cx, cy, cz = place.centre
    return np.asarray((np.array([cx, cy]) - ground) / cz, np.float64)


def cast(grid: Grid, boxes: FloatArray, place: CameraPlace, reach_mm: FloatArray) -> Rays:
    """Returns a grid's rays from a camera place and the pairs they make with every column
    (footprints x0, x1, y0, y1) met below its reach."""
    ray, col = candidates(grid, boxes, place, reach_mm)
    ground = np.take(grid.ground, ray, axis=0)  # np.take: the same rows as indexing, faster
    low, high, face, rate = meet(ground, steps_of(place, ground), np.take(boxes, col, axis=0), place.centre[2] - 1.0)
    keep = np.flatnonzero((low < high) & (low < np.take(reach_mm, col)))
    ray = np.take(ray, keep)
    return Rays(grid, place, ray, np.take(col, keep), np.take(low, keep), np.take(high, keep), np.take(face, keep),
                np.take(rate, keep), *per_ray_table(ray, len(grid.ground)))


def within(rays: Rays, reach_mm: FloatArray) -> Rays:
    """Returns the rays with only the pairs whose column is met below its reach."""
    keep = rays.low < reach_mm[rays.col]
    return Rays(rays.grid, rays.place, rays.ray[keep], rays.col[keep], rays.low[keep], rays.high[keep],
                rays.face[keep], rays.rate[keep], *per_ray_table(rays.ray[keep], rays.count))


@dataclass(frozen=True, slots=True)
class Hits:
    """Per ray under a guess of every column: the first surface's pair (-1: the mat), height
    and log-likelihood, and the second's height and log-likelihood (what the ray shows without
    its first column)."""

    pair: IntArray
    z: FloatArray
    ll: FloatArray
    second_z: FloatArray
    second_ll: FloatArray

    def column(self, rays: Rays) -> IntArray:
        """Returns the column each ray first meets (-1: none)."""
        return np.where(self.pair >= 0, rays.col[np.maximum(self.pair, 0)], -1)


def pair_heights(rays: Rays, heights_mm: FloatArray) -> tuple[FloatArray, BoolArray]:
    """Returns per pair where the ray first meets the column under a guess (-1: not at all) and
    whether it is the top there."""
    height = np.take(heights_mm, rays.col)
    return np.where(rays.low < height, np.minimum(rays.high, height), -1.0), rays.high >= height


def near_edge(rate: FloatArray, high: FloatArray, height: FloatArray) -> BoolArray:
    """Tells which pairs' rays pass within EDGE_MM of their side's top edge (rate, high: Rays')
    when the column is of some height (mm): there a bevel and the blur show top or side alike;
    but only within EDGE_HEIGHT_MM of that height, so that a steep ray's edge band never spans
    the heights it tells apart (near the nadir the thin side by a top's edge is all there is)."""
    gap = np.abs(height - high)
    return np.asarray((gap * rate < EDGE_MM) & (gap < EDGE_HEIGHT_MM), np.bool_)


def first_hits(rays: Rays, pair_ll: FloatArray, mat_ll: FloatArray, z: FloatArray) -> Hits:
    """Returns each ray's first and second surfaces given every pair's meeting height and
    log-likelihood (height -1 where the ray misses) and the mat's log-likelihood per ray."""
    count = rays.count
    pair, at, ll = np.full(count, -1, np.int64), np.zeros(count), np.array(mat_ll, np.float64)
    second_z, second_ll = np.zeros(count), np.array(mat_ll, np.float64)
    if not len(rays.rows):
        return Hits(pair, at, ll, second_z, second_ll)
    heights = np.take(np.append(z, -1.0), rays.table)  # a padding index (-1) takes the appended -1
    rows = np.arange(len(heights))
    first = np.argmax(heights, axis=1)
    top = heights[rows, first]
    met = np.flatnonzero(top > 0)
    chosen = rays.table[met, first[met]]
    pair[rays.rows[met]], at[rays.rows[met]], ll[rays.rows[met]] = chosen, top[met], pair_ll[chosen]
    heights[rows, first] = -1.0
    second = np.argmax(heights, axis=1)
    below = np.flatnonzero(heights[rows, second] > 0)
    second_z[rays.rows[below]] = heights[below, second[below]]
    second_ll[rays.rows[below]] = pair_ll[rays.table[below, second[below]]]
    return Hits(pair, at, ll, second_z, second_ll)
