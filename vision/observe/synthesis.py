"""Analysis by synthesis: the pixel observers' engine (Block (PT), Block Arena).

A cell is read by predicting, for every label, what each of a fixed set of camera rays should
show, and scoring the frame's colours along those rays against the predictions
(vision.observe.reading runs it on a frame):

- A game's `Model` lists each label's solids on a cell (boxes and upright cylinders relative
  to the cell's centre, each with a colour part), in one or more variants (two meeples: which
  stands left), the sample points on every candidate surface (the ground, each top height),
  and the parts' nominal colours, the printed mat's (vision.observe.calibrate) first.
- For every cell, rays go from the camera place through those sample points (so a tall top is
  looked at where it really appears). Per label, each ray is followed to the first surface it
  meets among the label's solids and the context's solids on the nearby cells (the referee's
  current position; a ray that meets no solid shows what is printed on the mat there), giving
  the surface's part and face (the top, or a side facing one of four ways). Each ray is also
  cast a pose error away to each side; where those disagree the ray may show either surface.
  This `Geometry` depends only on the position and the camera, so the memory keeps it.
- Per frame the rays' Lab colours are sampled once (registered and brightness-flattened
  against the printed mat) and `shade_costs` scores each (ray, surface) pair the predictions
  use. In Lab weighted as `calibrate.weighted`, a change of light scales a colour, so a colour
  is split into its shade k along the part's prototype and what is left across it (noise and
  colour error, Gaussian, the model's floor plus the frame's measured noise). A top is lit (k
  near 1) or lies in a shadow (k uniform from the model's darkest shadow to 1, a `shadowed`
  share of the time); the sides facing one way share a shade learnt on the position's pieces
  (any shade in the model's range while unknown, and a share of the time anyway). A ray that
  fits nothing costs `outlier_cost` (a hand, glare), one meeting the markers `unknown_cost`.
  A label's cost is the sum over its rays (each the cheaper of its two surfaces), scaled to a
  few independent looks (`looks`); probabilities are the softmax over labels.
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass, field
from functools import cache
from typing import Any, Mapping, Sequence

import numpy as np
from numpy.typing import NDArray

from rules.core import parse_square
from vision.kit import Kit
from vision.observation import EMPTY
from vision.observe.calibrate import Lighting, Registration, flatten, ground_parts, printed, weighted
from vision.observe.colours import ColourMemory
from vision.observe.context import ObserveError, Scene
from vision.pose import CameraPlace

FloatArray = NDArray[np.float64]
Array32 = NDArray[np.float32]
IntArray = NDArray[np.int16]
FaceArray = NDArray[np.uint8]
Pairs = NDArray[np.int32]  # indices into a geometry's list of (ray, surface) pairs
FACES = 5  # a surface is seen by a part's top (0) or a side facing +x, -x, +y or -y (1 to 4)
JITTER = np.array([[0.0, 0.0], [1.0, 0.0], [-1.0, 0.0], [0.0, 1.0], [0.0, -1.0]])
CONTEXT_REACH = 2  # cells around a cell whose solids may cross its rays
MISS = -np.inf
LIT_SPREAD = 0.06  # how much a lit top's shade varies (uneven light, a tilt)
SIDE_SPREAD = 0.1  # how much the shade of sides facing one way varies
BOUNDS_PAD_MM = 1.0  # how far a bounding box reaches beyond the shapes it holds (rounding)
ODD_SIDES = 0.3  # the share of sides off their usual shade (in a shadow, another material)


# -- models ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Shape:
    """A solid on a cell, relative to the cell's centre (mm, z up): a box, or the upright
    cylinder inscribed in it (`round`), whose faces show a colour part."""

    lo: tuple[float, float, float]
    hi: tuple[float, float, float]
    part: str
    round: bool = False

    @property
    def geometry(self) -> ShapeKey:
        """Returns the shape without its colour (labels of other colours share it)."""
        return (self.lo, self.hi, self.round)


Variant = tuple[Shape, ...]
ShapeKey = tuple[tuple[float, float, float], tuple[float, float, float], bool]


@dataclass(frozen=True, slots=True, eq=False)
class Model:
    """What a game's cells may show: each label's solid variants, where to look, the colours."""

    game: str
    labels: Mapping[str, tuple[Variant, ...]]
    samples: FloatArray  # R x 3 points relative to a cell's centre, on every candidate surface
    parts: Mapping[str, tuple[int, int, int]]  # colour part -> nominal sRGB; "mat" among them
    shadow: float = 0.5  # the darkest shadow a top may lie in (a share of full light)
    shadowed: float = 0.15  # the share of tops lying in some shadow
    side_shade: tuple[float, float] = (0.15, 1.35)  # the shades a side may have
    sigma: float = 3.0  # the spread of a ray's weighted Lab colour about its prediction, noise apart
    outlier_cost: float = 9.0  # the most a single ray can cost, in nats (hands, glare)
    unknown_cost: float = 3.0  # a ray meeting the markers costs this under any label
    looks: float = 12.0  # independent looks a cell's rays are worth
    stay: float = 0.7  # nats in favour of what the position holds: decides only what the camera
    # cannot tell apart (a block upright or lying right under the camera), never a clear change
    jitter_mm: float = 1.5
    fit_place: bool = True  # whether the pieces refine the camera place (too low, and they mislead)
    halves: Mapping[str, str] = field(default_factory=dict)  # label -> a kind of piece that lies over
    # two cells: a cell shows it only if a neighbour may show the other half (the same kind)

    @property
    def part_names(self) -> tuple[str, ...]:
        """Returns the colour parts in a fixed order."""
        return tuple(self.parts)

    def variants(self) -> list[tuple[str, Variant]]:
        """Returns every (label, variant) pair in order."""
        return [(label, variant) for label, variants in self.labels.items() for variant in variants]

    def shapes(self) -> list[ShapeKey]:
        """Returns the distinct geometries used by any label, in first-use order."""
        return list(dict.fromkeys(shape.geometry for _, variant in self.variants() for shape in variant))


def piece_size(kit: Kit, game: str, name: str) -> tuple[float, float, float]:
    """Returns a piece's size in a kit, or raises ObserveError naming what the kit lacks."""
    piece = kit.pieces.get(game, {}).get(name)
    if piece is None:
        raise ObserveError(f"kit {kit.name!r} has no {game} piece {name!r} to observe")
    return piece.size_mm


def piece_colour(kit: Kit, game: str, name: str) -> tuple[int, int, int]:
    """Returns a colour of a game in a kit, or raises ObserveError naming what the kit lacks."""
    rgb = kit.colours.get(game, {}).get(name)
    if rgb is None:
        raise ObserveError(f"kit {kit.name!r} has no {game} colour {name!r} to observe")
    return rgb


def grid_points(height: float, half_x: float, half_y: float, steps_x: int, steps_y: int) -> FloatArray:
    """Returns a steps_x x steps_y grid of points on a horizontal rectangle about a cell's centre."""
    xs, ys = np.meshgrid(np.linspace(-half_x, half_x, steps_x), np.linspace(-half_y, half_y, steps_y))
    return np.column_stack([xs.ravel(), ys.ravel(), np.full(xs.size, float(height))])


def box(half_x: float, half_y: float, z0: float, z1: float, part: str, shift: float = 0.0) -> Shape:
    """Returns a box centred on the cell (shifted along x), from height z0 to z1."""
    return Shape((shift - half_x, -half_y, z0), (shift + half_x, half_y, z1), part)


def cylinder(radius: float, z0: float, z1: float, part: str) -> Shape:
    """Returns an upright cylinder in the middle of the cell, from height z0 to z1."""
    return Shape((-radius, -radius, z0), (radius, radius, z1), part, round=True)


# -- memory ------------------------------------------------------------------------------------


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

    def pair_up(self, surfaces: int) -> None:
        """Lists the distinct (ray, surface) pairs the predictions use, so that a frame scores
        each once; `surfaces` is how many surface codes there are."""
        keys = self.pair_keys(surfaces)
        used = np.zeros(self.primary.shape[1] * self.primary.shape[2] * surfaces, np.bool_)
        used[keys] = True
        unique = np.flatnonzero(used)  # sorted, as extend_pairs needs
        self.pair_ray, self.pair_code, self.shared = unique // surfaces, unique % surfaces, 0
        rank = np.zeros(len(used), np.int32)
        rank[unique] = np.arange(len(unique), dtype=np.int32)
        self.primary_pair, self.secondary_pair = rank[keys]

    def pair_keys(self, surfaces: int, cells: NDArray[np.int_] | None = None) -> Pairs:
        """Returns the (ray, surface) key of every prediction (2 x V x C x R), or of some cells'."""
        count = self.primary.shape[1] * self.primary.shape[2]
        rays = (np.arange(count, dtype=np.int32) * np.int32(surfaces)).reshape(self.primary.shape[1:])
        keys = np.stack([rays[None] + self.primary, rays[None] + self.secondary])
        return np.asarray(keys if cells is None else keys[:, :, cells], np.int32)

    def extend_pairs(self, base: Geometry, cells: NDArray[np.int_], surfaces: int) -> None:
        """Lists the pairs of a copy of a base geometry predicted again on some cells: the base's
        pairs first (their costs carry over, see Scorer), then the new ones."""
        known = base.pair_ray * surfaces + base.pair_code
        keys = self.pair_keys(surfaces, cells)
        where = np.minimum(np.searchsorted(known, keys), len(known) - 1)
        found = known[where] == keys
        new = np.unique(keys[~found])
        where[~found] = len(known) + np.searchsorted(new, keys[~found])
        every = np.concatenate([known, new])
        self.pair_ray, self.pair_code, self.shared = every // surfaces, every % surfaces, len(known)
        self.primary_pair, self.secondary_pair = base.primary_pair.copy(), base.secondary_pair.copy()
        self.primary_pair[:, cells], self.secondary_pair[:, cells] = where


@dataclass(frozen=True, slots=True)
class Placed:
    """A camera place refined for one board fix, and how many occupied cells it was fitted on."""

    view: bytes
    place: CameraPlace
    pieces: int


class SynthMemory(ColourMemory):
    """A game's colour prototypes plus what is kept between frames: the mat's registration, the
    refined camera place and the ray geometry of the last positions (and of their re-reads)."""

    def __init__(self, nominal: Mapping[str, tuple[float, float, float]], **settings: Any) -> None:
        super().__init__(nominal, **settings)
        self.registered: tuple[bytes, Registration] | None = None
        self.placed: Placed | None = None
        self.geometries: dict[tuple[Any, ...], Geometry] = {}


def memory_for(model: Model) -> SynthMemory:
    """Returns a fresh memory for a model's colour parts."""
    nominal = {name: (float(r), float(g), float(b)) for name, (r, g, b) in model.parts.items()}
    return SynthMemory(nominal)


# -- ray casting -------------------------------------------------------------------------------


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


def bounds(shapes: Variant, centre: FloatArray) -> tuple[Array32, Array32]:
    """Returns the corners of a box holding some shapes placed on a cell's centre, padded by
    BOUNDS_PAD_MM so that every ray that meets a shape surely meets the box."""
    low, high = extent(shapes)
    at = np.array([centre[0], centre[1], 0.0])
    return (at + low).astype(np.float32), (at + high).astype(np.float32)


@cache
def extent(shapes: Variant) -> tuple[FloatArray, FloatArray]:
    """Returns the corners of the padded box holding some shapes about their cell's centre."""
    low, high = np.min([shape.lo for shape in shapes], axis=0), np.max([shape.hi for shape in shapes], axis=0)
    return np.asarray(low - BOUNDS_PAD_MM, np.float64), np.asarray(high + BOUNDS_PAD_MM, np.float64)


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

    def paint(self, parts: Sequence[int], seen: IntArray, ground: IntArray) -> IntArray:
        """Returns the surface code of every ray once the shapes have their parts (the context's
        codes seen, the mat's ground)."""
        codes = np.array([FACES * part for part in parts] + [0], np.int16)
        code = codes[self.winner] + self.face
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


class Synthesis:
    """One model's rays and predictions for a scene seen from a camera place."""

    def __init__(self, model: Model, frame: Frame, place: CameraPlace) -> None:
        self.model, self.frame, self.place = model, frame, place
        scene = self.scene = frame.scene
        self.squares = scene.squares()
        self.index = {square: i for i, square in enumerate(self.squares)}
        self.grid = np.array([parse_square(square, scene.mat.cells) for square in self.squares])
        self.centres = np.array([scene.cell_centre(square) for square in self.squares], np.float64)
        self.shape_index = {geometry: i for i, geometry in enumerate(model.shapes())}
        self.variants = model.variants()
        self.parts = {name: i for i, name in enumerate(model.part_names)}
        self.unknown = FACES * len(self.parts)
        self.ground = ground_parts(scene.kit)
        if list(self.parts)[:len(self.ground)] != list(self.ground):
            raise ObserveError(f"a {model.game} model must list the printed mat's parts first")

    def moved(self, place: CameraPlace) -> Synthesis:
        """Returns the same synthesis seen from another camera place."""
        other = copy.copy(self)
        other.place = place
        return other

    def origins(self, cells: NDArray[np.int_], jitter: bool = True) -> FloatArray:
        """Returns the ground points (k x R x J x 2) of some cells' rays and their jittered casts."""
        samples = self.model.samples
        points = np.concatenate([self.centres[cells][:, None, :] + samples[None, :, :2],
                                 np.broadcast_to(samples[None, :, 2:], (len(cells), len(samples), 1))], axis=-1)
        ground = self.place.to_mat(points.reshape(-1, 3)).reshape(len(cells), len(samples), 1, 2)
        offsets = JITTER if jitter else JITTER[:1]
        return np.asarray(ground + offsets[None, None] * self.model.jitter_mm, np.float64)

    def build(self, context: Mapping[str, str], key: tuple[Any, ...]) -> Geometry:
        """Returns the whole board's geometry with a context position."""
        cells = np.arange(len(self.squares))
        origins = self.origins(cells)
        origin3, direction = directions_to(self.place, origins)
        shapes = [shape_exits(origin3, direction, self.centres, geometry) for geometry in self.shape_index]
        blank = np.zeros((len(self.variants),) + origins.shape[:2], np.int16)
        geometry = Geometry(key, dict(context), origins, np.stack([t for t, _ in shapes]),
                            np.stack([face for _, face in shapes]),
                            blank, blank.copy(), self.frame.pixels(origins[:, :, 0]))
        self.predict(geometry, context, cells)
        geometry.pair_up(self.unknown + 1)
        return geometry

    def predict(self, geometry: Geometry, context: Mapping[str, str], cells: NDArray[np.int_]) -> None:
        """Fills in every variant's predictions on some cells under a context position (variants
        alike but for their colours share one outline)."""
        origins = geometry.origins[cells]
        seen_t, seen_code = self.context_hits(context, cells, origins, include_self=False)
        seen, ground = seen_code.astype(np.int16), self.ground_code(origins).astype(np.int16)
        exits, faces = geometry.exits[:, cells], geometry.faces[:, cells]
        outlines: dict[tuple[int, ...], Outline] = {}
        for v, (_, variant) in enumerate(self.variants):
            shapes = tuple(self.shape_index[shape.geometry] for shape in variant)
            if shapes not in outlines:
                outlines[shapes] = outline(shapes, exits, faces, seen_t)
            code = outlines[shapes].paint([self.parts[shape.part] for shape in variant], seen, ground)
            geometry.primary[v, cells], geometry.secondary[v, cells] = split_casts(code)

    def ground_code(self, origins: FloatArray) -> NDArray[np.int_]:
        """Returns what the printed mat shows from above where rays meet it (unknown off the mat)."""
        found = printed(self.scene.kit, self.scene.mat).at(origins).reshape(origins.shape[:-1])
        codes = np.append(FACES * np.arange(len(self.ground)), self.unknown)
        return np.asarray(codes[np.minimum(found, len(self.ground))], np.int_)

    def context_hits(self, context: Mapping[str, str], cells: NDArray[np.int_], origins: FloatArray,
                     include_self: bool) -> tuple[Array32, NDArray[np.int_]]:
        """Returns, for the rays of some cells, where the nearest context solid lets them out and
        the surface it shows (MISS and 0 where none); a cell's own solids count if asked. Only
        the cells whose rays may pass over a solid's padded bounding box, and of those only the
        rays that meet it, are cast at its shapes."""
        origin3, direction = directions_to(self.place, origins)
        flat = origins.reshape(len(origins), -1, 2)
        low, high = flat.min(axis=1), flat.max(axis=1)
        rays, grid = (origin3.reshape(-1, 3), direction.reshape(-1, 3)), self.grid[cells]
        hits = (np.full(len(rays[0]), MISS, np.float32), np.zeros(len(rays[0]), np.int_))
        for square, label in context.items():
            shapes = () if label == EMPTY else self.model.labels[label][0]
            if not shapes:
                continue
            centre = self.centres[self.index[square]]
            lo, hi = bounds(shapes, centre)
            rows = self.context_rows(square, grid, include_self)
            rows = rows[passes_over(low[rows], high[rows], lo, hi, self.place.centre)]
            if len(rows):
                every = (rows[:, None] * flat.shape[1] + np.arange(flat.shape[1])).ravel()
                self.cast_context(shapes, centre, every[box_exits(rays[0][every], rays[1][every], lo, hi)[0] > MISS],
                                  rays, hits)
        return hits[0].reshape(origins.shape[:-1]), hits[1].reshape(origins.shape[:-1])

    def context_rows(self, square: str, grid: NDArray[np.int_], include_self: bool) -> NDArray[np.int_]:
        """Returns the rows of those cells (their file and rank: grid) within CONTEXT_REACH of a
        square (itself if asked)."""
        file, rank = self.grid[self.index[square]]
        near = np.maximum(np.abs(grid[:, 0] - file), np.abs(grid[:, 1] - rank))
        return np.nonzero((near >= (0 if include_self else 1)) & (near <= CONTEXT_REACH))[0]

    def cast_context(self, shapes: Variant, centre: FloatArray, rays: NDArray[np.int_],
                     cast: tuple[Array32, Array32], hits: tuple[Array32, NDArray[np.int_]]) -> None:
        """Casts some rays (indices into cast's origins and directions) at one context square's
        shapes, keeping in hits the nearest exit and surface of each ray so far."""
        origin3, direction = cast
        ray_t, ray_code, ray_origin, ray_direction = hits[0][rays], hits[1][rays], origin3[rays], direction[rays]
        for shape in shapes:
            exit_t, face = shape_exits(ray_origin, ray_direction, centre[None], shape.geometry)
            np.copyto(ray_code, surface_code(self.parts[shape.part], face), where=exit_t > ray_t)
            np.maximum(ray_t, exit_t, out=ray_t)
        hits[0][rays], hits[1][rays] = ray_t, ray_code

    def context_codes(self, context: Mapping[str, str], cells: NDArray[np.int_],
                      origins: FloatArray) -> NDArray[np.int_]:
        """Returns the surface each ray shows when the whole board is the context position."""
        t, code = self.context_hits(context, cells, origins, include_self=True)
        return np.where(t == MISS, self.ground_code(origins), code)


# -- colours and costs -------------------------------------------------------------------------


def smooth_step(x: Array32) -> Array32:
    """Returns the standard normal distribution function (a close tanh approximation)."""
    return np.asarray(0.5 * (1.0 + np.tanh(np.float32(0.7978846) * x * (1.0 + np.float32(0.044715) * x * x))),
                      np.float32)


def blurred_box(k: Array32, low: float, high: float, spread: Array32) -> Array32:
    """Returns the density at k of a shade uniform on [low, high], blurred by the noise."""
    return np.asarray((smooth_step((high - k) / spread) - smooth_step((low - k) / spread)) / (high - low), np.float32)


def shade_costs(model: Model, colours: FloatArray, prototypes: FloatArray, noise: float,
                sides: FloatArray | None, rays: NDArray[np.integer[Any]], codes: NDArray[np.integer[Any]]) -> Array32:
    """Returns the cost (nats: minus the log-likelihood, up to a constant) of each ray (an index
    into colours) showing the surface a code names: see the module docstring."""
    known = codes < FACES * len(prototypes)
    part, face = np.where(known, codes // FACES, 0), np.where(known, codes % FACES, 0)
    seen, proto = weighted(colours).astype(np.float32)[rays].T, weighted(prototypes).astype(np.float32)[part].T
    variance = np.float32(model.sigma ** 2 + noise ** 2)
    dot = seen[0] * proto[0] + seen[1] * proto[1] + seen[2] * proto[2]
    norm = proto[0] * proto[0] + proto[1] * proto[1] + proto[2] * proto[2]
    shade = dot / norm
    energy = seen[0] * seen[0] + seen[1] * seen[1] + seen[2] * seen[2]
    across = np.maximum(energy - dot * shade, 0.0) / (2 * variance)
    density = shade_density(model, shade, np.sqrt(variance / norm), face, sides)
    cost = np.minimum(across - np.log(np.maximum(density, 1e-30)) + 0.5 * np.log(norm), model.outlier_cost)
    return np.asarray(np.where(known, cost, model.unknown_cost), np.float32)


def shade_density(model: Model, shade: Array32, spread: Array32, face: NDArray[np.integer[Any]],
                  sides: FloatArray | None) -> Array32:
    """Returns how likely each shade is for the face it is seen on (see shade_costs)."""
    anywhere = blurred_box(shade, *model.side_shade, spread)
    lit = (1 - model.shadowed) * bell(shade, np.float32(1.0), np.sqrt(LIT_SPREAD ** 2 + spread ** 2))
    density = np.where(face == 0, lit + model.shadowed * blurred_box(shade, model.shadow, 1.0, spread), anywhere)
    usual = np.full(FACES, np.nan, np.float32)
    if sides is not None:
        usual[1:] = sides
    k = usual[face]
    learnt = (face > 0) & ~np.isnan(k)
    if np.any(learnt):
        bump = bell(shade[learnt], k[learnt], np.sqrt(SIDE_SPREAD ** 2 + spread[learnt] ** 2))
        density[learnt] = (1 - ODD_SIDES) * bump + ODD_SIDES * anywhere[learnt]
    return np.asarray(density, np.float32)


def bell(x: Array32, centre: Array32 | np.float32, spread: Array32) -> Array32:
    """Returns the normal density at x."""
    return np.asarray(np.exp(-0.5 * ((x - centre) / spread) ** 2) / (spread * math.sqrt(2 * math.pi)), np.float32)


@dataclass(frozen=True, slots=True, eq=False)
class Scorer:
    """One frame's ray colours and what they are compared with, to score geometries' pairs."""

    model: Model
    colours: FloatArray
    prototypes: FloatArray
    noise: float
    sides: FloatArray | None

    def costs(self, geometry: Geometry, base: Array32 | None = None) -> Array32:
        """Returns the cost of each of a geometry's pairs, taking those it shares with the
        geometry it was copied from from that one's costs (base)."""
        start = 0 if base is None else geometry.shared
        fresh = shade_costs(self.model, self.colours, self.prototypes, self.noise, self.sides,
                            geometry.pair_ray[start:], geometry.pair_code[start:])
        return fresh if base is None else np.concatenate([base[:start], fresh])


def variant_costs(geometry: Geometry, costs: Array32, cells: NDArray[np.int_]) -> Array32:
    """Returns every variant's summed ray cost on some cells (V x cells), a ray costing what the
    cheaper of its two surfaces costs (costs: one per entry of the geometry's pairs)."""
    primary = costs[geometry.primary_pair[:, cells]]
    secondary = costs[geometry.secondary_pair[:, cells]]
    return np.asarray(np.minimum(primary, secondary).sum(axis=2), np.float32)


@dataclass(frozen=True, slots=True)
class Frame:
    """What a still frame is read with: the scene, its mat registration and its lighting."""

    scene: Scene
    registration: Registration
    lighting: Lighting | None

    @property
    def noise(self) -> float:
        """Returns the frame's colour noise (0 when the mat could not be read)."""
        return 0.0 if self.lighting is None else self.lighting.noise

    def pixels(self, origins: FloatArray) -> FloatArray:
        """Returns the frame pixels (N x 2) where rays with these ground points (... x 2) meet the mat."""
        return self.scene.view.to_image(self.registration.shift(origins.reshape(-1, 2)))

    def colours(self, origins: FloatArray, pixels: FloatArray | None = None) -> FloatArray:
        """Returns the Lab colours (N x 3) where rays with these ground points (... x 2) meet the
        mat (at these pixels, if known), at nominal brightness."""
        flat = origins.reshape(-1, 2)
        where = self.pixels(flat) if pixels is None else pixels
        return flatten(self.scene.lab_at(where), flat, self.lighting, where)


def prototypes_of(model: Model, memory: ColourMemory) -> FloatArray:
    """Returns the memory's Lab prototype of each of the model's parts, in order."""
    return np.array([memory.lab(name) for name in model.part_names])
