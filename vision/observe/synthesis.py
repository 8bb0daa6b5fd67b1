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
  (any shade in the model's range while unknown, and a share of the time anyway); with the
  model's `sheen` levels a surface may also show its colour under a little white gloss, which
  lifts and greys dark colours (vision.observe.sheen); it costs what its likeliest look does.
  A ray that fits nothing costs `outlier_cost` (a hand, glare), one meeting the markers
  `unknown_cost`.
  A label's cost is the sum over its rays (each the cheaper of its two surfaces), scaled to a
  few independent looks (`looks`); probabilities are the softmax over labels.
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass, field
from functools import cache
from types import MappingProxyType
from typing import Any, Hashable, Mapping, Sequence

import numpy as np
from numpy.typing import NDArray

from rules.core import parse_square, square_name
from vision.kit import Kit, Mat
from vision.observation import EMPTY
from vision.observe.calibrate import (GROUND, Lighting, LightPlan, Registration, at_nominal, flatten, ground_parts,
                                      light_basis, printed, weighted)
from vision.observe.colours import ColourMemory, bell, blurred_box
from vision.observe.casting import (FACES, MISS, Array32, FloatArray, IntArray, ShapeKey, batch_rays, box_exits,
                                    directions_to, grouped_spans, outline, passes_over, rays_over, shape_exits,
                                    shapes_exits, spans, split_casts, surface_code, within_reach)
from vision.observe.context import ObserveError, Scene, taps
from vision.observe.geometry import Geometry, PairPlan, Sampling, Seen, pair_plan
from vision.observe.sheen import sheens
from vision.pose import CameraPlace

JITTER = np.array([[0.0, 0.0], [1.0, 0.0], [-1.0, 0.0], [0.0, 1.0], [0.0, -1.0]])
LIT_SPREAD = 0.06  # how much a lit top's shade varies (uneven light, a tilt)
SIDE_SPREAD = 0.1  # how much the shade of sides facing one way varies
BOUNDS_PAD_MM = 1.0  # how far a bounding box reaches beyond the shapes it holds (rounding)
ODD_SIDES = 0.3  # the share of sides off their usual shade (in a shadow, another material)
SHEEN_LEAST = 0.5  # a sheen that moves a prototype less than this many sigmas is not tried
PRUNE_NATS = 1.0  # a pair whose cost cannot come within this of outlier_cost, whatever its shade's
# density, is given outlier_cost unworked (a margin far beyond any rounding: the costs are exact)


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


@dataclass(frozen=True, slots=True, eq=False)
class Model:
    """What a game's cells may show: each label's solid variants, where to look, the colours."""

    game: str
    labels: Mapping[str, tuple[Variant, ...]]
    samples: FloatArray  # R x 3 points relative to a cell's centre, on every candidate surface
    parts: Mapping[str, tuple[int, int, int]]  # colour part -> nominal sRGB; "mat" among them
    shadow: float = 0.5  # the darkest shadow a top may lie in (a share of full light)
    shadowed: float = 0.15  # the share of tops lying in some shadow
    raised_shadowed: float | None = None  # the share of the pieces' tops in some shadow (None: shadowed);
    # only a taller piece beside one can shade a top, while the ground beside pieces often is
    side_shade: tuple[float, float] = (0.15, 1.35)  # the shades a side may have
    sigma: float = 3.0  # the spread of a ray's weighted Lab colour about its prediction, noise apart
    outlier_cost: float = 9.0  # the most a single ray can cost, in nats (hands, glare)
    unknown_cost: float = 3.0  # a ray meeting the markers costs this under any label
    looks: float = 12.0  # independent looks a cell's rays are worth
    stay: float = 0.7  # nats in favour of what the position holds: decides only what the camera
    # cannot tell apart (a block upright or lying right under the camera), never a clear change
    jitter_mm: float = 1.5
    fit_place: bool = True  # whether the pieces refine the camera place (too low, and they mislead)
    sheen: tuple[float, ...] = ()  # the sheens (shares of white light) a surface may show besides none
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


@dataclass(frozen=True, slots=True)
class Placed:
    """A camera place refined for one board fix, and how many occupied cells it was fitted on."""

    view: bytes
    place: CameraPlace
    pieces: int


class SynthMemory(ColourMemory):
    """A game's colour prototypes plus what is kept between frames: values kept per board fix
    (the mat's registration, the lens fits), the refined camera place and the ray geometry of the
    last positions (and of their re-reads)."""

    def __init__(self, nominal: Mapping[str, tuple[float, float, float]], **settings: Any) -> None:
        super().__init__(nominal, **settings)
        self.per_fix: dict[str, tuple[bytes, object]] = {}  # per_fix: a name's value with its board fix
        self.placed: Placed | None = None
        self.geometries: dict[tuple[Any, ...], Geometry] = {}
        self.lights: dict[Hashable, LightPlan] = {}


def memory_for(model: Model) -> SynthMemory:
    """Returns a fresh memory for a model's colour parts."""
    nominal = {name: (float(r), float(g), float(b)) for name, (r, g, b) in model.parts.items()}
    return SynthMemory(nominal)


# -- ray casting -------------------------------------------------------------------------------


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


@cache
def outlined(model: Model) -> dict[tuple[int, ...], tuple[NDArray[np.int_], IntArray]]:
    """Returns the model's variants grouped by their shapes (indices into model.shapes()): the
    variants alike but for their colours, and each one's palette (see Outline.paint)."""
    shape_index, _, parts = indexed(model)
    groups: dict[tuple[int, ...], list[tuple[int, list[int]]]] = {}
    for v, (_, variant) in enumerate(model.variants()):
        shapes = tuple(shape_index[shape.geometry] for shape in variant)
        groups.setdefault(shapes, []).append((v, [FACES * parts[shape.part] for shape in variant] + [0]))
    return {shapes: (np.array([v for v, _ in members]), np.array([row for _, row in members], np.int16))
            for shapes, members in groups.items()}


@cache
def layout(mat: Mat) -> tuple[tuple[str, ...], Mapping[str, int], NDArray[np.int_], FloatArray]:
    """Returns a mat's squares (a1 first, by file then rank), each one's index, file and rank,
    and centre in mm (worked out once per mat: read only)."""
    squares = tuple(square_name(f, r) for f in range(mat.cells) for r in range(mat.cells))
    grid = np.array([parse_square(square, mat.cells) for square in squares])
    centres = np.array([mat.cell_centre(int(f), int(r)) for f, r in grid], np.float64)
    grid.setflags(write=False)
    centres.setflags(write=False)
    return squares, MappingProxyType({square: i for i, square in enumerate(squares)}), grid, centres


@cache
def indexed(model: Model) -> tuple[Mapping[ShapeKey, int], tuple[tuple[str, Variant], ...], Mapping[str, int]]:
    """Returns a model's distinct shapes and colour parts, each with its index, and its variants
    in order (worked out once per model: read only)."""
    shapes = MappingProxyType({geometry: i for i, geometry in enumerate(model.shapes())})
    return shapes, tuple(model.variants()), MappingProxyType({name: i for i, name in enumerate(model.part_names)})


class Synthesis:
    """One model's rays and predictions for a scene seen from a camera place."""

    def __init__(self, model: Model, frame: Frame, place: CameraPlace) -> None:
        self.model, self.frame, self.place = model, frame, place
        scene = self.scene = frame.scene
        self.squares, self.index, self.grid, self.centres = layout(scene.mat)
        self.shape_index, self.variants, self.parts = indexed(model)
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
        exits, faces = shapes_exits(origin3, direction, self.centres, list(self.shape_index))
        blank = np.zeros((len(self.variants),) + origins.shape[:2], np.int16)
        geometry = Geometry(key, dict(context), origins, exits, faces, blank, blank.copy(),
                            self.frame.pixels(origins[:, :, 0]))
        self.predict(geometry, context, cells)
        geometry.pair_up(self.unknown + 1)
        return geometry

    def predict(self, geometry: Geometry, context: Mapping[str, str], cells: NDArray[np.int_]) -> None:
        """Fills in every variant's predictions on some cells under a context position (variants
        alike but for their colours share one outline): only on the rays the context shows
        otherwise than when they were last predicted (the others' predictions stand)."""
        before = geometry.seen or self.unseen(geometry.origins)
        rows = np.asarray(cells)
        seen_t, seen_code = self.context_hits(context, rows, geometry.origins[rows], include_self=False)
        seen = seen_code.astype(np.int16)
        ray_cells, rays = np.nonzero(before.changed(rows, seen_t, seen))
        geometry.seen = before.updated(rows, seen_t, seen)
        if not len(rays):
            return
        where = (rows[ray_cells], rays)
        exits, faces = geometry.exits[:, where[0], where[1]], geometry.faces[:, where[0], where[1]]
        shown_t, shown, ground = seen_t[ray_cells, rays], seen[ray_cells, rays], before.ground[where]
        for shapes, (members, palette) in outlined(self.model).items():
            code = outline(shapes, exits, faces, shown_t).paint(palette, shown, ground)
            chosen = (members[:, None], where[0][None, :], where[1][None, :])
            geometry.primary[chosen], geometry.secondary[chosen] = split_casts(code)

    def unseen(self, origins: FloatArray) -> Seen:
        """Returns what rays with these ground points (C x R x J x 2) showed before anything was
        predicted: no exit (NaN, unlike any) and the printed mat under each."""
        nothing = np.full(origins.shape[:-1], np.nan, np.float32)
        return Seen(nothing, np.zeros(nothing.shape, np.int16), self.ground_code(origins).astype(np.int16))

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
        return self.hits_from(context, cells, origins, include_self, (self.place,))[0]

    def hits_from(self, context: Mapping[str, str], cells: NDArray[np.int_], origins: FloatArray,
                  include_self: bool, places: Sequence[CameraPlace]) -> list[tuple[Array32, NDArray[np.int_]]]:
        """Returns context_hits as seen from each of some camera places, their rays cast together
        (each ray's sums are its own, so each place's hits are what it alone would give)."""
        count, per_cell = int(np.prod(origins.shape[:-1])), int(np.prod(origins.shape[1:-1]))
        rays = batch_rays(places, origins)
        spread, cameras = spans(origins), np.array([place.centre for place in places], np.float64)
        coarse = grouped_spans(cells, spread) if per_cell == 1 else None  # single rays: their cells first
        hits = (np.full(rays[0].shape[1], MISS, np.float32), np.zeros(rays[0].shape[1], np.int_))
        for square, shapes, rows in self.solids_near(context, cells, include_self):
            centre = self.centres[self.index[square]]
            box = bounds(shapes, centre)
            every = rays_over(rows, spread, box, cameras, (count, per_cell), coarse)
            if len(every):
                cast = (rays[0].take(every, axis=1), rays[1].take(every, axis=1))
                met = np.flatnonzero(box_exits(*cast, box[0][:, None], box[1][:, None])[0] > MISS)
                picked = (cast[0].take(met, axis=1), cast[1].take(met, axis=1))
                self.cast_context(shapes, centre, every.take(met), picked, hits)
        shape = origins.shape[:-1]
        return [(hits[0][b * count:(b + 1) * count].reshape(shape), hits[1][b * count:(b + 1) * count].reshape(shape))
                for b in range(len(places))]

    def solids_near(self, context: Mapping[str, str], cells: NDArray[np.int_],
                    include_self: bool) -> list[tuple[str, Variant, NDArray[np.int_]]]:
        """Returns the context's squares that hold solids, in order, each with its solids and the
        rows of those cells within CONTEXT_REACH of it (itself if asked), if any."""
        solid = [(square, self.model.labels[label][0]) for square, label in context.items() if label != EMPTY]
        solid = [(square, shapes) for square, shapes in solid if shapes]
        if not solid:
            return []
        within = within_reach(self.grid[[self.index[square] for square, _ in solid]], self.grid[cells], include_self)
        return [(square, shapes, np.flatnonzero(row)) for (square, shapes), row in zip(solid, within) if row.any()]

    def touched(self, before: Mapping[str, str], after: Mapping[str, str], origins: FloatArray) -> NDArray[np.int_]:
        """Returns the cells whose predictions a change of context position may change (origins:
        every cell's ground points): those whose rays may pass over a changed square's solids,
        before or after (a cell's own solids never enter its context)."""
        low, high = spans(origins)
        marked = np.zeros(len(origins), np.bool_)
        changed = [square for square, label in after.items() if before.get(square, EMPTY) != label]
        for square in changed:
            for shown in (before.get(square, EMPTY), after[square]):
                shapes = () if shown == EMPTY else self.model.labels[shown][0]
                if shapes:
                    lo, hi = bounds(shapes, self.centres[self.index[square]])
                    rows = self.context_rows(square, self.grid, False)
                    marked[rows[passes_over(low[rows], high[rows], lo, hi, self.place.centre)]] = True
        return np.flatnonzero(marked)

    def context_rows(self, square: str, grid: NDArray[np.int_], include_self: bool) -> NDArray[np.int_]:
        """Returns the rows of those cells (their file and rank: grid) within CONTEXT_REACH of a
        square (itself if asked)."""
        return np.flatnonzero(within_reach(self.grid[[self.index[square]]], grid, include_self)[0])

    def cast_context(self, shapes: Variant, centre: FloatArray, rays: NDArray[np.int_],
                     cast: tuple[Array32, Array32], hits: tuple[Array32, NDArray[np.int_]]) -> None:
        """Casts some rays (indices into hits; cast: their origins and directions) at one context
        square's shapes, keeping in hits the nearest exit and surface of each ray so far."""
        ray_origin, ray_direction = cast
        ray_t, ray_code = hits[0][rays], hits[1][rays]
        for shape in shapes:
            exit_t, face = shape_exits(ray_origin, ray_direction, centre[None], shape.geometry)
            np.copyto(ray_code, surface_code(self.parts[shape.part], face), where=exit_t > ray_t)
            np.maximum(ray_t, exit_t, out=ray_t)
        hits[0][rays], hits[1][rays] = ray_t, ray_code

    def context_codes(self, context: Mapping[str, str], cells: NDArray[np.int_], origins: FloatArray,
                      ground: NDArray[np.int_] | None = None) -> NDArray[np.int_]:
        """Returns the surface each ray shows when the whole board is the context position (ground:
        what the mat shows there, if known)."""
        return self.codes_from(context, cells, origins, (self.place,), ground)[0]

    def codes_from(self, context: Mapping[str, str], cells: NDArray[np.int_], origins: FloatArray,
                   places: Sequence[CameraPlace], ground: NDArray[np.int_] | None = None) -> list[NDArray[np.int_]]:
        """Returns context_codes as seen from each of some camera places (cast together)."""
        mat = self.ground_code(origins) if ground is None else ground
        return [np.where(t == MISS, mat, code) for t, code in self.hits_from(context, cells, origins, True, places)]


# -- colours and costs -------------------------------------------------------------------------


def shade_costs(model: Model, colours: FloatArray, prototypes: FloatArray, noise: float,
                sides: FloatArray | None, rays: NDArray[np.integer[Any]], codes: NDArray[np.integer[Any]],
                plan: PairPlan | None = None) -> Array32:
    """Returns the cost (nats: minus the log-likelihood, up to a constant) of each ray (an index
    into colours) showing the surface a code names: see the module docstring; with the model's
    sheens, the cheapest of the surface's looks (vision.observe.sheen). The pairs' plan, if
    given, saves working it out (pair_plan)."""
    plan = plan or pair_plan(rays, codes, len(prototypes))
    terms = ray_terms(colours)
    found = plan_costs(model, plan, colours, prototypes, noise, sides, terms)
    for glossy, moved in sheens(prototypes, model.sheen, SHEEN_LEAST * model.sigma):
        pick, glossed = plan.subset(moved, rays, codes)
        if len(pick):
            found[pick] = np.minimum(found[pick], plan_costs(model, glossed, colours, glossy, noise, sides, terms))
    return found


def matte_costs(model: Model, colours: FloatArray, prototypes: FloatArray, noise: float,
                sides: FloatArray | None, rays: NDArray[np.integer[Any]], codes: NDArray[np.integer[Any]]) -> Array32:
    """Returns each ray's cost as shade_costs does, the surfaces showing their prototypes as given."""
    return plan_costs(model, pair_plan(rays, codes, len(prototypes)), colours, prototypes, noise, sides)


def ray_terms(colours: FloatArray) -> tuple[Array32, Array32]:
    """Returns what plan_costs needs of the rays' colours alone: the weighted colours (float32)
    and their squared lengths."""
    seen = weighted(colours).astype(np.float32)
    return seen, seen[:, 0] * seen[:, 0] + seen[:, 1] * seen[:, 1] + seen[:, 2] * seen[:, 2]


def plan_costs(model: Model, plan: PairPlan, colours: FloatArray, prototypes: FloatArray, noise: float,
               sides: FloatArray | None, terms: tuple[Array32, Array32] | None = None) -> Array32:
    """Returns each planned pair's cost (see shade_costs), the surfaces showing their prototypes
    (terms: the colours' ray_terms, if worked out already)."""
    # Whatever depends on a ray alone or on a part alone is worked out once, then looked up.
    seen, energy = ray_terms(colours) if terms is None else terms
    proto = weighted(prototypes).astype(np.float32)
    dots = seen @ proto.T  # rays x parts (one matrix product: far quicker than three broadcasts)
    norms = proto[:, 0] * proto[:, 0] + proto[:, 1] * proto[:, 1] + proto[:, 2] * proto[:, 2]
    variance = np.float32(model.sigma ** 2 + noise ** 2)
    dot, norm = dots.ravel().take(plan.keys), norms.take(plan.part)
    shade = dot / norm
    across = energy.take(plan.rays)
    across -= dot * shade
    np.maximum(across, 0.0, out=across)
    across /= 2 * variance
    spread = np.sqrt(variance / norms)
    live = np.flatnonzero(across + headroom(model, norms, spread).take(plan.part) < model.outlier_cost + PRUNE_NATS)
    found = live_costs(model, plan, (shade, across), (norms, spread), live, sides)
    if plan.known is None:
        return np.asarray(found, np.float32)
    cost = np.full(plan.count, model.unknown_cost, np.float32)
    cost[plan.known] = found
    return cost


def live_costs(model: Model, plan: PairPlan, looks: tuple[Array32, Array32], parts: tuple[Array32, Array32],
               live: NDArray[np.intp], sides: FloatArray | None) -> Array32:
    """Returns the cost of each known pair of a plan from its shade and its cost across (looks),
    the parts' squared lengths and noise spreads (parts): only the live pairs' densities are
    worked out, the others cost outlier_cost whatever their shade (see headroom)."""
    shade, across = looks
    norms, spread = parts
    part, face, seen = plan.part.take(live), plan.face.take(live), shade.take(live)
    top = face == 0
    tops, sides_at = np.flatnonzero(top), np.flatnonzero(~top)
    density = np.empty(len(live), np.float32)
    density[tops] = top_density(model, seen.take(tops), spread, part.take(tops))
    density[sides_at] = side_density(model, seen.take(sides_at), spread, (part.take(sides_at), face.take(sides_at)),
                                     sides)
    np.maximum(density, 1e-30, out=density)
    np.log(density, out=density)
    cost = across.take(live)
    cost -= density
    cost += (0.5 * np.log(norms)).take(part)
    found = np.full(len(shade), model.outlier_cost, np.float32)
    found[live] = np.minimum(cost, model.outlier_cost, out=cost)
    return found


def headroom(model: Model, norms: Array32, spread: Array32) -> Array32:
    """Returns, per part, the least a pair's cost can add to its cost across: half the log of
    the part's squared length less the log of the densest any shade of a top or a side can be
    (a bell peaks at 1 / (spread sqrt(2 pi)); a blurred box at 1 / its width)."""
    wide = np.asarray(spread, np.float64)
    share, bell_peak = top_shadowed(model).astype(np.float64), math.sqrt(2 * math.pi)
    top = (1 - share) / (np.sqrt(LIT_SPREAD ** 2 + wide ** 2) * bell_peak) + share / (1.0 - model.shadow)
    box = 1.0 / (model.side_shade[1] - model.side_shade[0])
    side = np.maximum(box, (1 - ODD_SIDES) / (np.sqrt(SIDE_SPREAD ** 2 + wide ** 2) * bell_peak) + ODD_SIDES * box)
    return np.asarray(0.5 * np.log(np.asarray(norms, np.float64)) - np.log(np.maximum(top, side)), np.float32)


def top_density(model: Model, shade: Array32, spread: Array32, part: NDArray[np.intp]) -> Array32:
    """Returns how likely each shade of a top (of a part; spread: the noise's per part) is: lit,
    or lying in some shadow (as often as the ground's or the pieces' tops are)."""
    share = top_shadowed(model)
    lit = bell(shade, np.float32(1.0), np.sqrt(LIT_SPREAD ** 2 + spread ** 2).take(part))
    lit *= (1 - share).take(part)
    shadowed = blurred_box(shade, model.shadow, 1.0, spread.take(part))
    shadowed *= share.take(part)
    lit += shadowed
    return lit


@cache
def top_shadowed(model: Model) -> Array32:
    """Returns the share of tops in some shadow per part: the printed mat's first, then the pieces'."""
    raised = model.shadowed if model.raised_shadowed is None else model.raised_shadowed
    return np.array([model.shadowed if name in GROUND else raised for name in model.part_names], np.float32)


def side_density(model: Model, shade: Array32, spread: Array32,
                 faces: tuple[NDArray[np.intp], NDArray[np.integer[Any]]], sides: FloatArray | None) -> Array32:
    """Returns how likely each shade of a side (of a part, facing a way: faces; spread: the
    noise's per part) is: near the shade learnt for its face (when one is), else anywhere in
    the model's range."""
    part, face = faces
    anywhere = blurred_box(shade, *model.side_shade, spread.take(part))
    usual = np.full(FACES, np.nan, np.float32)
    if sides is not None:
        usual[1:] = sides
    k = usual.take(face)
    learnt = ~np.isnan(k)
    if np.any(learnt):
        bump = bell(shade, k, np.sqrt(SIDE_SPREAD ** 2 + spread ** 2).take(part))
        anywhere = np.where(learnt, (1 - ODD_SIDES) * bump + ODD_SIDES * anywhere, anywhere)
    return np.asarray(anywhere, np.float32)


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
        rays, codes = geometry.pair_ray[start:], geometry.pair_code[start:]
        plan = geometry.plan_from(start, len(self.prototypes))
        fresh = shade_costs(self.model, self.colours, self.prototypes, self.noise, self.sides, rays, codes, plan)
        return fresh if base is None else np.concatenate([base[:start], fresh])


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

    def ray_colours(self, geometry: Geometry) -> FloatArray:
        """Returns the Lab colours (N x 3) where a geometry's central rays meet the mat, at
        nominal brightness (as colours does; how the rays are read is kept with the geometry)."""
        sampling = self.sampling(geometry)
        lab = self.scene.lab_tapped(sampling.taps)
        return lab if self.lighting is None else at_nominal(lab, self.lighting.scale_on(sampling.light))

    def sampling(self, geometry: Geometry) -> Sampling:
        """Returns how a geometry's central rays are read in the frame (kept with the geometry)."""
        if geometry.sampling is None:
            pixels = geometry.pixels
            geometry.sampling = Sampling(taps(self.scene.frame.shape[:2], pixels),
                                         light_basis(self.scene.view, geometry.origins[:, :, 0].reshape(-1, 2), pixels))
        return geometry.sampling

    def colours(self, origins: FloatArray, pixels: FloatArray | None = None) -> FloatArray:
        """Returns the Lab colours (N x 3) where rays with these ground points (... x 2) meet the
        mat (at these pixels, if known), at nominal brightness."""
        flat = origins.reshape(-1, 2)
        where = self.pixels(flat) if pixels is None else pixels
        return flatten(self.scene.lab_at(where), flat, self.lighting, where)


def prototypes_of(model: Model, memory: ColourMemory) -> FloatArray:
    """Returns the memory's Lab prototype of each of the model's parts, in order."""
    return np.array([memory.lab(name) for name in model.part_names])
