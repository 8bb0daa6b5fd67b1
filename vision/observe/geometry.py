"""The ray geometry of the analysis-by-synthesis engine (vision.observe.synthesis) for one
position and camera, and the distinct (ray, surface) pairs its predictions use, so that a frame
scores each pair once: listed afresh, or, once some cells are predicted again (a move), only
those cells' pairs sorted out again; and each variant's cost on a cell, summed over its rays.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from typing import Any, Mapping

import numpy as np
from numpy.typing import NDArray

from vision.observe.casting import FACES, Array32, FaceArray, FloatArray, IntArray
from vision.observe.context import Taps

Pairs = NDArray[np.int32]  # indices into a geometry's list of (ray, surface) pairs


@dataclass(frozen=True, slots=True)
class Sampling:
    """Where a geometry's central rays are read in every frame: the pixels' bilinear taps, and
    the terms of the light field there (vision.observe.calibrate.light_basis)."""

    taps: Taps
    light: FloatArray


@dataclass(frozen=True, slots=True)
class Seen:
    """What a context position shows every cast of every cell's rays (C x R x J): where its
    nearest solid lets the ray out (MISS: none), that surface, and the printed mat's surface."""

    exit: Array32
    code: NDArray[np.int16]
    ground: NDArray[np.int16]

    def changed(self, cells: NDArray[np.int_], exit: Array32, code: NDArray[np.int16]) -> NDArray[np.bool_]:
        """Tells which rays of some cells (k x R) a context showing them exit and code (k x R x J)
        shows otherwise than this one did."""
        return np.asarray(((exit != self.exit[cells]) | (code != self.code[cells])).any(axis=-1), np.bool_)

    def updated(self, cells: NDArray[np.int_], exit: Array32, code: NDArray[np.int16]) -> Seen:
        """Returns a copy that some cells' rays are shown exit and code (k x R x J) in."""
        exits, codes = self.exit.copy(), self.code.copy()
        exits[cells], codes[cells] = exit, code
        return Seen(exits, codes, self.ground)


@dataclass(slots=True, eq=False)
class Geometry:
    """The rays of every cell and what each label predicts along them, for one position and camera."""

    key: tuple[Any, ...]
    context: Mapping[str, str]  # the position the predictions were made under
    origins: FloatArray  # C x R x J x 2 ground points of the rays (J: the jittered casts)
    exits: Array32  # S x C x R x J: where each own shape lets a ray out (MISS if it misses)
    faces: FaceArray  # S x C x R x J: the face it leaves by (FACES)
    primary: IntArray  # V x C x R: the surface each variant predicts on each ray
    secondary: IntArray  # V x C x R: the other surface a ray may show (== primary when sure)
    pixels: FloatArray  # (C * R) x 2: where the central rays meet the mat in the frame
    pair_ray: NDArray[np.int_] = field(default_factory=lambda: np.zeros(0, np.int_))  # the distinct
    pair_code: NDArray[np.int_] = field(default_factory=lambda: np.zeros(0, np.int_))  # (ray, surface)
    primary_pair: Pairs = field(default_factory=lambda: np.zeros((0, 0, 0), np.int32))  # V x C x R
    secondary_pair: Pairs = field(default_factory=lambda: np.zeros((0, 0, 0), np.int32))
    shared: int = 0  # how many leading pairs are its base's (a re-read copy)
    sampling: Sampling | None = None  # how the central rays are read in a frame, once known
    scoring: tuple[int, int, PairPlan] | None = None  # the plan of its pairs from some on, once known
    seen: Seen | None = None  # what the context showed every ray when last predicted, once known

    def plan_from(self, start: int, parts: int) -> PairPlan:
        """Returns the plan of its pairs from start on against parts prototypes (kept once made)."""
        if self.scoring is None or self.scoring[:2] != (start, parts):
            self.scoring = (start, parts, pair_plan(self.pair_ray[start:], self.pair_code[start:], parts))
        return self.scoring[2]

    def pair_up(self, surfaces: int) -> None:
        """Lists the distinct (ray, surface) pairs the predictions use, so that a frame scores
        each once; `surfaces` is how many surface codes there are."""
        keys = self.pair_keys(surfaces)
        used = np.zeros(self.primary.shape[1] * self.primary.shape[2] * surfaces, np.bool_)
        used[keys] = True
        unique = np.flatnonzero(used)  # sorted, as extend_pairs needs
        self.pair_ray, self.pair_code, self.shared, self.scoring = unique // surfaces, unique % surfaces, 0, None
        rank = np.zeros(len(used), np.int32)
        rank[unique] = np.arange(len(unique), dtype=np.int32)
        self.primary_pair, self.secondary_pair = rank[keys]

    def pair_keys(self, surfaces: int, cells: NDArray[np.int_] | None = None) -> Pairs:
        """Returns the (ray, surface) key of every prediction (2 x V x C x R), or of some cells'."""
        rows = np.arange(self.primary.shape[1]) if cells is None else np.asarray(cells)
        length = self.primary.shape[2]
        rays = (rows[:, None] * length + np.arange(length)[None]).astype(np.int32) * np.int32(surfaces)
        chosen = (slice(None), slice(None) if cells is None else rows)
        return np.stack([rays[None] + self.primary[chosen], rays[None] + self.secondary[chosen]]).astype(np.int32)

    def extend_pairs(self, base: Geometry, cells: NDArray[np.int_], surfaces: int) -> None:
        """Lists the pairs of a copy of a base geometry predicted again on some cells: the base's
        pairs first (their costs carry over, see Scorer), then the new ones."""
        known = base.pair_ray * surfaces + base.pair_code
        keys = self.pair_keys(surfaces, cells)
        where = ranks_in(known, keys)
        found = where >= 0
        new = np.unique(keys[~found])
        where[~found] = len(known) + np.searchsorted(new, keys[~found])
        every = np.concatenate([known, new])
        self.pair_ray, self.pair_code, self.shared = every // surfaces, every % surfaces, len(known)
        self.scoring = None
        self.primary_pair, self.secondary_pair = base.primary_pair.copy(), base.secondary_pair.copy()
        self.primary_pair[:, cells], self.secondary_pair[:, cells] = where

    def pair_again(self, base: Geometry, cells: NDArray[np.int_], surfaces: int) -> None:
        """Lists the pairs as pair_up would once some cells (sorted) of a copy of a base geometry
        (paired up) were predicted again: only those cells' keys are sorted out afresh, the other
        cells' pairs are the base's, moved along (a cell's pairs lie together, cells in order)."""
        count, length = self.primary.shape[1], self.primary.shape[2]
        rows = np.asarray(cells, np.int_)
        fresh, rank, local = fresh_pairs(self, rows, surfaces)
        added = np.bincount(fresh // (length * surfaces), minlength=len(rows))
        ends = np.searchsorted(base.pair_ray, np.arange(count + 1) * length)
        resized = np.diff(ends)
        resized[rows] = added
        start = np.concatenate([[0], np.cumsum(resized)])
        self.primary_pair, self.secondary_pair = np.empty_like(base.primary_pair), np.empty_like(base.secondary_pair)
        self.pair_ray, self.pair_code = np.empty(int(start[-1]), np.int_), np.empty(int(start[-1]), np.int_)
        self.shared, self.scoring = 0, None
        edges = np.concatenate([[-1], rows, [count]])
        for low, high in zip(edges[:-1] + 1, edges[1:]):  # the runs of cells kept as they were
            self.keep_pairs(base, (int(low), int(high)), (int(ends[low]), int(ends[high])), int(start[low]))
        first = (start[rows] - (np.cumsum(added) - added)).astype(np.int32)
        self.primary_pair[:, rows], self.secondary_pair[:, rows] = rank[local] + first[None, None, :, None]
        at = np.arange(len(fresh)) + np.repeat(first, added)
        self.pair_ray[at], self.pair_code[at] = np.divmod(fresh, surfaces)
        self.pair_ray[at] += np.repeat((rows - np.arange(len(rows))) * length, added)

    def keep_pairs(self, base: Geometry, cells: tuple[int, int], pairs: tuple[int, int], start: int) -> None:
        """Copies a run of cells' pairs (cells and pairs: first and past last) from a base
        geometry, the run's pairs now beginning at start."""
        (low, high), (first, last) = cells, pairs
        if low >= high:
            return
        shift = np.int32(start - first)
        self.primary_pair[:, low:high] = base.primary_pair[:, low:high] + shift
        self.secondary_pair[:, low:high] = base.secondary_pair[:, low:high] + shift
        self.pair_ray[start:start + last - first] = base.pair_ray[first:last]
        self.pair_code[start:start + last - first] = base.pair_code[first:last]


def ranks_in(known: NDArray[np.int_], keys: Pairs) -> NDArray[np.int_]:
    """Returns where each key stands in some distinct keys (-1 where it is not there): a table
    over the keys' range, quicker than a binary search for the tens of thousands asked each time."""
    table = np.full(int(known.max(initial=-1)) + 2, -1, np.int_)  # its last entry stays -1 for keys out of range
    table[known] = np.arange(len(known))
    return np.asarray(table[np.clip(keys, -1, len(table) - 1)], np.int_)


def fresh_pairs(geometry: Geometry, rows: NDArray[np.int_], surfaces: int) -> tuple[NDArray[np.int_], Pairs, Pairs]:
    """Returns the distinct keys of some cells' predictions, counted as if those cells were the
    only ones (sorted), each key's rank among them, and the predictions' keys so counted."""
    span = geometry.primary.shape[2] * surfaces
    local = geometry.pair_keys(surfaces, rows) + ((np.arange(len(rows)) - rows) * span).astype(np.int32)[None, None, :, None]
    used = np.zeros(len(rows) * span, np.bool_)
    used[local] = True
    fresh = np.flatnonzero(used)
    rank = np.zeros(len(used), np.int32)
    rank[fresh] = np.arange(len(fresh), dtype=np.int32)
    return fresh, rank, local


def variant_costs(geometry: Geometry, costs: Array32, cells: NDArray[np.int_]) -> Array32:
    """Returns every variant's summed ray cost on some cells (V x cells), a ray costing what the
    cheaper of its two surfaces costs (costs: one per entry of the geometry's pairs); every
    variant at once (each cell's rays summed along the last axis, as one variant's alone are)."""
    whole = np.array_equal(cells, np.arange(geometry.primary_pair.shape[1]))
    primary, secondary = geometry.primary_pair, geometry.secondary_pair
    chosen = costs.take(primary if whole else primary[:, cells])
    np.minimum(chosen, costs.take(secondary if whole else secondary[:, cells]), out=chosen)
    return np.asarray(chosen.sum(axis=2), np.float32)


@dataclass(frozen=True, slots=True)
class PairPlan:
    """What scoring some (ray, surface code) pairs needs besides a frame, worked out once for
    them: how many pairs, which are known surfaces (None: all), and for those their rays, parts,
    keys into a table of rays by parts, and faces (0: a top, else the way a side faces)."""

    count: int
    known: NDArray[np.intp] | None
    rays: NDArray[np.intp]
    part: NDArray[np.intp]
    keys: NDArray[np.intp]
    face: NDArray[np.intp]
    subsets: dict[bytes, tuple[NDArray[np.intp], PairPlan]] = field(default_factory=dict)

    def subset(self, parts: NDArray[np.bool_], rays: NDArray[np.integer[Any]],
               codes: NDArray[np.integer[Any]]) -> tuple[NDArray[np.intp], PairPlan]:
        """Returns which of the pairs (these rays and codes) show one of some parts (a mask) and
        their own plan, kept for the next time the same parts are asked for."""
        key = parts.tobytes()
        if key not in self.subsets:
            shown = np.append(parts, False).take(code_parts(len(parts)))  # per code; past the last: none
            pick = np.flatnonzero(shown.take(codes, mode="clip"))
            self.subsets[key] = (pick, pair_plan(rays[pick], codes[pick], len(parts)))
        return self.subsets[key]


def pair_plan(rays: NDArray[np.integer[Any]], codes: NDArray[np.integer[Any]], parts: int) -> PairPlan:
    """Returns the plan of some pairs (rays and surface codes) scored against parts prototypes."""
    known = codes < FACES * parts
    index = None if bool(known.all()) else np.flatnonzero(known)
    chosen = np.asarray(rays if index is None else rays.take(index), np.intp)
    known_codes = codes if index is None else codes.take(index)
    part, face = code_parts(parts).take(known_codes), code_faces(parts).take(known_codes)
    return PairPlan(len(codes), index, chosen, part, chosen * parts + part, face)


@cache
def code_parts(parts: int) -> NDArray[np.intp]:
    """Returns the part of every surface code of parts prototypes, the unknown code's `parts`
    (a lookup is quicker than dividing each pair's code; read only)."""
    found = np.minimum(np.arange(FACES * parts + 1, dtype=np.intp) // FACES, parts)
    found.setflags(write=False)
    return found


@cache
def code_faces(parts: int) -> NDArray[np.intp]:
    """Returns the face of every surface code of parts prototypes (read only)."""
    found = np.arange(FACES * parts + 1, dtype=np.intp) % FACES
    found.setflags(write=False)
    return found
