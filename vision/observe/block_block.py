"""BLOCK.BLOCK's pixel observer: each column's top colour and height, read by analysis by synthesis.

The board is a height map of 25 mm cubes. Sample rays run from the camera centre through a
jittered grid of mat points; under a guess of every column (height, top colour) each ray's first
hit is a column's top face, one of its side faces or the mat, and the guess is scored by how well
the colours seen along the rays match those surfaces (Student-t likelihoods in Lab against
prototypes calibrated on the referee's current position: tops and mat as lit colours that shadows
may darken, each side direction's own shading). Parallax makes a taller top appear larger and
farther from the camera's nadir and shows more of its sides, so the height comes out of the same
comparison. From the current position, every cell's candidates (empty, each top colour at each
height up to LEVELS_AHEAD above its column, half as one more cube) are scored with the other
cells held; the best-gaining changes that do not share rays are taken and the cells they reach
rescored until nothing gains. A cell's probabilities are the softmax of its candidates' tempered
log-likelihoods (neighbouring rays are not independent) plus a prior: most cells do not change,
and a column only ever grows in a legal game. The camera centre is refitted on the current
position (the homography alone leaves it loose, its height most of all) and kept, with the colour
prototypes, in a BlockBlockMemory between observations.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Mapping

import numpy as np
from numpy.typing import NDArray

from vision.board import BoardView
from vision.expect import ViewError, expected_view
from vision.kit import Kit
from vision.observation import EMPTY, CellSeen, Observation
from vision.observe.colours import ColourMemory, probabilities
from vision.observe.context import ObserveError, Scene
from vision.pose import CameraPlace

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]
BoolArray = NDArray[np.bool_]

GAME = "block-block"
TOPS = ("brown", "white")  # top colours with a prototype; "half" is split between them
FACES = 4  # side faces facing +x, -x, +y, -y
LEVELS_AHEAD = 4  # a bar4 stood upright adds four cubes to one column
HALF_SIDE_MM = 12.75  # half a cube's footprint: cubes of one block join, others leave a gap
RAY_SPACING_MM = 3.0
RAY_JITTER = 0.35  # share of the spacing each ray is moved at random (seeded), against aliasing
MAX_RAYS = 12000
NU = 4.0  # Student-t degrees of freedom of one ray's colour error
MAX_D2 = 16.0  # no ray costs more than this (an edge a pixel off, the gaps between blocks)
SHADE_D2 = 4.0  # cost (sigma squared) of the mat seen in the deepest shadow
TOP_SHADE_D2 = 12.0  # the same for a top: only taller columns shade it
MIN_SHADE = 0.2  # the darkest a shadow makes a surface
UNKNOWN_D2 = 4.0  # a ray over ground that is no plain mat (markers, off the page)
SIDE_UNKNOWN_D2 = 2.0  # a side of unlearnt shading costs this more than the colour it has
SIDE_FLOOR_D2 = 16.0
NOISE_FLOOR = (3.0, 2.0)  # lightness and chroma sigma floors (Lab units)
SIDE_SIGMA = (9.0, 5.0)  # the extra spread of side faces
LIT_QUANTILE = 90.0  # a lit surface's lightness: this percentile of its rays (shadows darken)
TEMPERATURE = 3.0  # rays per independent piece of evidence
CHANGE_NATS = 2.0  # prior cost of a column growing (a move changes a few cells)
REMOVAL_NATS = 9.0  # prior cost of a column losing cubes or its top changing in place
MAX_ROUNDS = 12
GEOMETRIES = 4  # ray sets a memory keeps (the place and its doubtful neighbours)
PLACE_DOUBT = 0.03  # the camera height is read as uncertain by this share, either way
UNFITTED_TEMPERING = 3.0  # evidence counts this much less before the camera place is fitted
MAT_GROUPS = 8  # the mat's rays are learnt as this many interleaved groups
REGION_LEVELS = 3  # the ray region grows in steps of this many cubes
MIN_LISTED = 1e-6  # labels less probable than this are not listed
INTERIOR_STEPS = 2  # ray spacings a calibration ray keeps from its surface's edges
MIN_RAYS = 12  # rays needed to learn a side's colour or the exposure
SIDE_SHADE = 0.6  # the first guess of a side's brightness
SIDE_IDS, MAX_LEVELS = 1000, 64  # surface numbering for calibration
PLACE_SIGMA = (60.0, 60.0, 0.1)  # how far the homography's camera centre may be off (mm, mm,
PLACE_SCALES = (0.7, 0.8, 0.9, 1.0, 1.12, 1.25)  # share of its height); heights tried first
PLACE_TEMPERATURE = 10.0  # rays per independent piece of evidence about the camera place
PLACE_STEPS = (32.0, 32.0, 64.0)  # first steps of the place search, mm
PLACE_PRECISION = 2.0  # mm
SAME_VIEW_PX = 2.0  # a view this close to the remembered one keeps its camera place
MIN_PRECISION = 1e-4  # the least precision (per mm squared) a fit of the place is given
REFIT_CUBES = 2  # cubes on the board before the place is fitted


class BlockBlockMemory(ColourMemory):
    """The observer's state between frames: mat and top prototypes, each side direction's
    prototype per colour, and the camera place fitted for one view."""

    def __init__(self, kit: Kit) -> None:
        colours = kit.colours.get(GAME, {})
        if not set(TOPS) <= set(colours):
            raise ObserveError(f"kit {kit.name!r} lacks the colours {', '.join(TOPS)} of {GAME}")
        tops = {name: (float(colours[name][0]), float(colours[name][1]), float(colours[name][2]))
                for name in TOPS}
        mat = (float(kit.mat_rgb[0]), float(kit.mat_rgb[1]), float(kit.mat_rgb[2]))
        super().__init__({"mat": mat, **tops})
        shaded = {f"{name}-side-{face}": (rgb[0] * SIDE_SHADE, rgb[1] * SIDE_SHADE, rgb[2] * SIDE_SHADE)
                  for name, rgb in tops.items() for face in range(FACES)}
        self.sides = ColourMemory(shaded, max_shift=1000.0)
        self.learnt_sides: set[str] = set()
        self.place: CameraPlace | None = None
        self.place_corners: FloatArray | None = None
        self.place_cubes = 0
        self.place_precision = np.zeros(3)
        self.geometry: dict[tuple[float, ...], Rays] = {}


@dataclass(frozen=True, slots=True)
class Column:
    """The referee's column on a square: height in cubes, the top's colour, cube colours."""

    height: int
    top: str
    colours: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Rays:
    """Sample rays (mat points on a ny x nx grid, row-major) and, for every ray and column that
    it can meet at a height tried, the pair's heights of entry and exit and the side entered."""

    ground: FloatArray
    shape: tuple[int, int]
    known: BoolArray
    step: FloatArray  # per ray, the mat-plane shift per mm of height
    ray: IntArray
    col: IntArray
    low: FloatArray
    high: FloatArray
    face: IntArray


@dataclass(frozen=True, slots=True)
class Looks:
    """Per-ray log-likelihoods of each surface: the mat, each top (brown, white, either), each
    side direction."""

    mat: FloatArray
    top: FloatArray
    side: FloatArray


@dataclass(frozen=True, slots=True)
class Hits:
    """Per ray under one guess: the first surface's column (-1: the ground), height, whether a
    top, side face and log-likelihood; the second surface's height and log-likelihood."""

    column: IntArray
    z: FloatArray
    top: BoolArray
    face: IntArray
    ll: FloatArray
    second_z: FloatArray
    second_ll: FloatArray


@dataclass(frozen=True, slots=True)
class Cell:
    """One cell's search: its column's pairs, heights tried, centre, column, and its candidate
    labels in score order (empty, brown by height, white by height, halves) with their priors."""

    index: int
    pairs: IntArray
    levels: int
    half_levels: tuple[int, ...]
    centre: tuple[float, float]
    start: Column
    labels: tuple[str, ...]
    prior: FloatArray


# -- the referee's position ------------------------------------------------------------------


def read_columns(board: Mapping[str, Any], squares: list[str]) -> list[Column]:
    """Returns every square's column from a position, or raises ObserveError for a bad one."""
    try:
        expected_view(GAME, board)
    except ViewError as error:
        raise ObserveError(f"bad {GAME} position: {error}") from None
    if board["size"] ** 2 != len(squares):
        raise ObserveError(f"the position is {board['size']}x{board['size']} but the mat has "
                           f"{len(squares)} cells")
    return [column_of(board["cells"].get(square, [])) for square in squares]


def column_of(pieces: list[Mapping[str, Any]]) -> Column:
    """Returns one square's column from its cubes, bottom first."""
    if not pieces:
        return Column(0, EMPTY, ())
    return Column(len(pieces), str(pieces[-1]["top"]),
                  tuple(str(piece.get("colour", EMPTY)) for piece in pieces))


def parse_label(label: str) -> tuple[int, str]:
    """Returns the height and top colour of a label ("empty": 0)."""
    if label == EMPTY:
        return 0, EMPTY
    top, height = label.split("@")
    return int(height), top


def label_of(column: Column) -> str:
    """Returns the label a column shows."""
    return EMPTY if column.height == 0 else f"{column.top}@{column.height}"


# -- geometry: rays through the columns -------------------------------------------------------


def footprints(scene: Scene) -> FloatArray:
    """Returns each cell's cube footprint (x0, x1, y0, y1) in board mm, cells in Scene order."""
    centres = np.array([scene.cell_centre(square) for square in scene.squares()])
    return np.column_stack([centres[:, 0] - HALF_SIDE_MM, centres[:, 0] + HALF_SIDE_MM,
                            centres[:, 1] - HALF_SIDE_MM, centres[:, 1] + HALF_SIDE_MM])


def cube_mm(kit: Kit) -> float:
    """Returns the height of one cube in mm (the kit's, else KIT.md's 25)."""
    pieces = kit.pieces.get(GAME, {})
    return float(pieces["cube"].size_mm[2]) if "cube" in pieces else 25.0


def lowered(place: CameraPlace, share: float) -> CameraPlace:
    """Returns a camera place at a share of the height, straight below."""
    return CameraPlace((place.centre[0], place.centre[1], place.centre[2] * share), place.focal_px)


def ray_region(boxes: FloatArray, places: list[CameraPlace], reach_mm: FloatArray) -> FloatArray:
    """Returns the mat-plane box (x0, x1, y0, y1) where any column could appear from any place."""
    corners = np.array([[b[i], b[j], z] for b, z in zip(boxes, reach_mm) for i in (0, 1)
                        for j in (2, 3)], np.float64)
    seen = np.vstack([place.to_mat(corners) for place in places] + [corners[:, :2]])
    return np.array([seen[:, 0].min(), seen[:, 0].max(), seen[:, 1].min(), seen[:, 1].max()])


def ray_grid(region: FloatArray, scene: Scene) -> tuple[FloatArray, tuple[int, int], BoolArray]:
    """Returns the rays' mat points on a jittered grid over a region, the grid's shape, and
    which points show plain mat."""
    area = (region[1] - region[0] + 2) * (region[3] - region[2] + 2)
    step = max(RAY_SPACING_MM, math.sqrt(area / MAX_RAYS))
    xs = np.arange(region[0] - 1, region[1] + 1 + 1e-9, step)
    ys = np.arange(region[2] - 1, region[3] + 1 + 1e-9, step)
    gx, gy = np.meshgrid(xs, ys)
    jitter = np.random.default_rng(0).uniform(-RAY_JITTER, RAY_JITTER, (gx.size, 2)) * step
    ground = np.column_stack([gx.ravel(), gy.ravel()]) + jitter
    return ground, (len(ys), len(xs)), known_ground(ground, scene)


def known_ground(ground: FloatArray, scene: Scene) -> BoolArray:
    """Tells which mat points show plain mat: on the printed page, off every marker."""
    kit, side = scene.kit, scene.mat.side_mm
    known = np.all((ground >= -kit.mat_margin_mm) & (ground <= side + kit.mat_margin_mm), axis=1)
    for corners in kit.marker_corners(scene.mat).values():
        low = corners.min(axis=0) - kit.quiet_zone_mm
        high = corners.max(axis=0) + kit.quiet_zone_mm
        known &= ~np.all((ground >= low) & (ground <= high), axis=1)
    return np.asarray(known, np.bool_)


def axis_interval(start: FloatArray, slope: FloatArray, low: FloatArray,
                  high: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Returns the heights (N x C) between which start + slope * z lies in [low, high]."""
    with np.errstate(divide="ignore", invalid="ignore"):
        first = (low[None, :] - start[:, None]) / slope[:, None]
        second = (high[None, :] - start[:, None]) / slope[:, None]
    flat = np.abs(slope)[:, None] < 1e-12
    inside = (start[:, None] >= low[None, :]) & (start[:, None] <= high[None, :])
    lo = np.where(flat, np.where(inside, -np.inf, np.inf), np.minimum(first, second))
    hi = np.where(flat, np.where(inside, np.inf, -np.inf), np.maximum(first, second))
    return lo, hi


def cast(ground: FloatArray, shape: tuple[int, int], known: BoolArray, boxes: FloatArray,
         place: CameraPlace, reach_mm: FloatArray) -> Rays:
    """Returns the rays from the camera centre through mat points, paired with every column
    they can meet below its reach."""
    cx, cy, cz = place.centre
    step = (np.array([cx, cy]) - ground) / cz
    lo_x, hi_x = axis_interval(ground[:, 0], step[:, 0], boxes[:, 0], boxes[:, 1])
    lo_y, hi_y = axis_interval(ground[:, 1], step[:, 1], boxes[:, 2], boxes[:, 3])
    low = np.maximum(np.maximum(lo_x, lo_y), 0.0)
    high = np.minimum(np.minimum(hi_x, hi_y), cz - 1.0)
    ray, col = np.nonzero((low < high) & (low < reach_mm[None, :]))
    x_face = np.where(step[ray, 0] > 0, 0, 1)
    face = np.where(hi_x[ray, col] < hi_y[ray, col], x_face, np.where(step[ray, 1] > 0, 2, 3))
    return Rays(ground, shape, known, step, ray.astype(np.int64), col.astype(np.int64),
                low[ray, col], high[ray, col], face.astype(np.int64))


def subset(rays: Rays, keep: BoolArray, columns: IntArray) -> Rays:
    """Returns the rays kept, with the pairs of some columns only (renumbered in that order)."""
    number = np.full(len(rays.ground), -1)
    number[keep] = np.arange(int(keep.sum()))
    renumber = np.full(int(rays.col.max(initial=0)) + 1, -1)
    renumber[columns] = np.arange(len(columns))
    pairs = (number[rays.ray] >= 0) & (renumber[rays.col] >= 0)
    return Rays(rays.ground[keep], (int(keep.sum()), 1), rays.known[keep], rays.step[keep],
                number[rays.ray[pairs]], renumber[rays.col[pairs]], rays.low[pairs],
                rays.high[pairs], rays.face[pairs])


def within(rays: Rays, reach_mm: FloatArray) -> Rays:
    """Returns the rays with only the pairs whose column is met below its reach."""
    keep = rays.low < reach_mm[rays.col]
    return Rays(rays.ground, rays.shape, rays.known, rays.step, rays.ray[keep], rays.col[keep],
                rays.low[keep], rays.high[keep], rays.face[keep])


def region_reach(columns: list[Column], cube: float) -> float:
    """Returns the height the ray region allows every column: the tallest column tried, rounded
    up to REGION_LEVELS cubes so that the region (and the rays kept) last several moves."""
    tallest = max(column.height for column in columns) + LEVELS_AHEAD
    return REGION_LEVELS * math.ceil(tallest / REGION_LEVELS) * cube


def cached_rays(memory: ColourMemory, scene: Scene, region: FloatArray, place: CameraPlace,
                reach_mm: float) -> Rays:
    """Returns the rays over a region from a place, every column allowed a reach, kept in a
    BlockBlockMemory for the next observation from the same place."""
    key = (*np.round(region, 3), *np.round(place.centre, 3), reach_mm)
    kept = memory.geometry if isinstance(memory, BlockBlockMemory) else {}
    if key not in kept:
        ground, shape, known = ray_grid(region, scene)
        boxes = footprints(scene)
        rays = cast(ground, shape, known, boxes, place, np.full(len(boxes), reach_mm))
        kept = {**dict(list(kept.items())[-(GEOMETRIES - 1):]), key: rays}
        if isinstance(memory, BlockBlockMemory):
            memory.geometry = kept
    return kept[key]


# -- colours: per-ray likelihoods of each surface ---------------------------------------------


def loglik(d2: FloatArray | float) -> FloatArray:
    """Returns the Student-t log-likelihood (up to a constant) of errors d2 sigma-squared,
    capped at MAX_D2."""
    capped = np.minimum(np.asarray(d2, np.float64), MAX_D2)
    return np.asarray(-(NU + 3.0) / 2.0 * np.log1p(capped / NU), np.float64)


def plain_d2(colours: FloatArray, lab: FloatArray, sigma: tuple[float, float]) -> FloatArray:
    """Returns the squared error of colours from a prototype, in sigmas (lightness, chroma)."""
    delta = colours - lab
    return np.asarray((delta[:, 0] / sigma[0]) ** 2
                      + (delta[:, 1] ** 2 + delta[:, 2] ** 2) / sigma[1] ** 2, np.float64)


def shaded_d2(colours: FloatArray, lab: FloatArray, sigma: tuple[float, float],
              shade_d2: float) -> FloatArray:
    """Returns the squared error of colours from a lit prototype that shading may darken: a
    darker sample is the prototype dimmed (its chroma shrinking with its lightness) at a cost
    growing to shade_d2 at MIN_SHADE; a lighter one is measured as usual."""
    shade = np.clip(colours[:, 0] / max(float(lab[0]), 1.0), MIN_SHADE, 1.0)
    lighter = np.maximum(colours[:, 0] - lab[0], 0.0) / sigma[0]
    darker = np.maximum(MIN_SHADE * lab[0] - colours[:, 0], 0.0) / sigma[0]
    chroma = colours[:, 1:] - lab[None, 1:] * shade[:, None]
    return np.asarray(lighter ** 2 + darker ** 2 + (chroma ** 2).sum(axis=1) / sigma[1] ** 2
                      + shade_d2 * (1.0 - shade), np.float64)


def looks(colours: FloatArray, rays: Rays, memory: ColourMemory, sides: ColourMemory,
          learnt: set[str], noise: tuple[float, float]) -> Looks:
    """Returns every ray's log-likelihood of showing the mat, each top colour, each side."""
    lab = {name: memory.lab(name) for name in ("mat", *TOPS)}
    mat = np.where(rays.known, loglik(shaded_d2(colours, lab["mat"], noise, SHADE_D2)),
                   loglik(UNKNOWN_D2))
    top = np.vstack([loglik(shaded_d2(colours, lab[name], noise, TOP_SHADE_D2)) for name in TOPS])
    side_sigma = (math.hypot(noise[0], SIDE_SIGMA[0]), math.hypot(noise[1], SIDE_SIGMA[1]))
    unknown = np.minimum.reduce([shaded_d2(colours, lab[name], noise, 0.0) for name in TOPS])
    side = np.tile(loglik(np.minimum(unknown + SIDE_UNKNOWN_D2, SIDE_FLOOR_D2)), (FACES, 1))
    for face in range(FACES):
        for name in TOPS:
            if f"{name}-side-{face}" in learnt:
                seen = loglik(plain_d2(colours, sides.lab(f"{name}-side-{face}"), side_sigma))
                side[face] = np.maximum(side[face], seen)
    return Looks(np.asarray(mat, np.float64), np.vstack([top, top.max(axis=0)]), side)


# -- hits: what each ray sees under a guess ---------------------------------------------------


def first_hits(look: Looks, rays: Rays, heights_mm: FloatArray, tops: IntArray) -> Hits:
    """Returns each ray's first and second surfaces under a guess of every column's height
    (mm) and top (0 brown, 1 white, 2 half)."""
    height = heights_mm[rays.col]
    z = np.where(rays.low < height, np.minimum(rays.high, height), -1.0)
    top = rays.high >= height
    ll = np.where(top, look.top[tops[rays.col], rays.ray], look.side[rays.face, rays.ray])
    order = np.lexsort((-z, rays.ray))
    ordered = rays.ray[order]
    first = np.ones(len(order), np.bool_)
    first[1:] = ordered[1:] != ordered[:-1]
    second = np.zeros(len(order), np.bool_)
    second[1:] = ~first[1:] & first[:-1]
    count = len(rays.ground)
    column, at, lit = np.full(count, -1), np.zeros(count), look.mat.copy()
    on_top, face = np.zeros(count, np.bool_), np.zeros(count, np.int64)
    pick = order[first][z[order[first]] > 0]
    column[rays.ray[pick]], at[rays.ray[pick]], lit[rays.ray[pick]] = rays.col[pick], z[pick], ll[pick]
    on_top[rays.ray[pick]], face[rays.ray[pick]] = top[pick], rays.face[pick]
    second_z, second_ll = np.zeros(count), look.mat.copy()
    pick = order[second][z[order[second]] > 0]
    second_z[rays.ray[pick]], second_ll[rays.ray[pick]] = z[pick], ll[pick]
    return Hits(column, at, on_top, face, lit, second_z, second_ll)


def guess_arrays(labels: list[str], cube: float) -> tuple[FloatArray, IntArray]:
    """Returns the heights (mm) and top indices of a guess given as labels."""
    guess = [parse_label(label) for label in labels]
    tops = [("brown", "white", "half").index(top) if top != EMPTY else 0 for _, top in guess]
    return np.array([height * cube for height, _ in guess]), np.array(tops, np.int64)


# -- scoring one cell's candidates ------------------------------------------------------------


def cell_scores(look: Looks, rays: Rays, hits: Hits, cell: Cell, cube: float,
                temperature: float) -> FloatArray:
    """Returns the log-posterior (unnormalised, nats) of each of a cell's candidate labels, the
    others held: its rays' log-likelihood tempered, plus the label's prior."""
    pick, ray = cell.pairs, rays.ray[cell.pairs]
    mine = hits.column[ray] == cell.index
    other_z = np.where(mine, hits.second_z[ray], hits.z[ray])
    other_ll = np.where(mine, hits.second_ll[ray], hits.ll[ray])
    levels_mm = np.arange(1, cell.levels + 1)[:, None] * cube
    low, high = rays.low[pick][None, :], rays.high[pick][None, :]
    wins = (low < levels_mm) & (np.minimum(high, levels_mm) > other_z[None, :])
    top = wins & (high >= levels_mm)
    side_gain = (wins & ~top) @ (look.side[rays.face[pick], ray] - other_ll)
    gains = top @ (look.top[:2, ray] - other_ll[None, :]).T + side_gain[:, None]
    halves = [float(((half_ll(look, rays, ray, cell.centre, level * cube) - other_ll[None, :])
                     @ top[level - 1]).max() + side_gain[level - 1]) for level in cell.half_levels]
    ll = float(other_ll.sum()) + np.concatenate([[0.0], gains[:, 0], gains[:, 1], halves])
    return np.asarray(ll / temperature + cell.prior, np.float64)


def half_ll(look: Looks, rays: Rays, ray: IntArray, centre: tuple[float, float],
            level_mm: float) -> FloatArray:
    """Returns the log-likelihood (4 x R) of a top split along a diagonal at a height, per split."""
    points = rays.ground[ray] + rays.step[ray] * level_mm
    u, v = points[:, 0] - centre[0], points[:, 1] - centre[1]
    brown, white = look.top[0, ray], look.top[1, ray]
    return np.asarray([np.where(split > 0, brown, white) for split in (u + v, -u - v, u - v, v - u)],
                      np.float64)


def log_prior(heights: IntArray, labels: tuple[str, ...], start: Column) -> FloatArray:
    """Returns the prior log-probability of labels (of those heights) given the referee's
    column: most cells do not change, a move only adds cubes, a legal game never removes any."""
    prior = np.where(heights > start.height, -CHANGE_NATS, -REMOVAL_NATS)
    prior[labels.index(label_of(start))] = 0.0
    return np.asarray(prior, np.float64)


def search_cells(rays: Rays, start: list[Column], scene: Scene) -> list[Cell]:
    """Returns each cell's search: heights up to LEVELS_AHEAD above its column, half only as
    one more cube (or where it already is)."""
    order = np.argsort(rays.col, kind="stable")
    bounds = np.searchsorted(rays.col[order], np.arange(len(start) + 1))
    cells = []
    for index, (square, column) in enumerate(zip(scene.squares(), start)):
        levels = column.height + LEVELS_AHEAD
        halves = (column.height + 1,) + ((column.height,) if column.top == "half" else ())
        labels = (EMPTY, *(f"{name}@{k}" for name in TOPS for k in range(1, levels + 1)),
                  *(f"half@{k}" for k in halves))
        heights = np.array([0, *range(1, levels + 1), *range(1, levels + 1), *halves], np.int64)
        prior = log_prior(heights, labels, column)
        cells.append(Cell(index, order[bounds[index]:bounds[index + 1]], levels, halves,
                          scene.cell_centre(square), column, labels, prior))
    return cells


def solve(look: Looks, rays: Rays, cells: list[Cell], cube: float,
          temperature: float) -> tuple[list[str], list[FloatArray]]:
    """Returns the settled guess of every cell and every cell's candidate log-posteriors: from
    the position, each round takes the best-gaining changes whose rays do not overlap, then
    rescores the cells those rays reach, until no cell gains."""
    chosen = [cell.labels.index(label_of(cell.start)) for cell in cells]
    scores: list[FloatArray] = [np.zeros(0) for _ in cells]
    stale = list(range(len(cells)))
    for _ in range(MAX_ROUNDS):
        hits = first_hits(look, rays, *guess_arrays(guess(cells, chosen), cube))
        for index in stale:
            scores[index] = cell_scores(look, rays, hits, cells[index], cube, temperature)
        taken = accept(rays, cells, scores, chosen, cube)
        if not taken.any():
            break
        stale = [cell.index for cell in cells if taken[rays.ray[cell.pairs]].any()]
    return guess(cells, chosen), scores


def guess(cells: list[Cell], chosen: list[int]) -> list[str]:
    """Returns the label each cell has chosen."""
    return [cell.labels[choice] for cell, choice in zip(cells, chosen)]


def rescore(look: Looks, rays: Rays, cells: list[Cell], labels: list[str], cube: float,
            temperature: float) -> list[FloatArray]:
    """Returns every cell's candidate log-posteriors with the others at a guess."""
    hits = first_hits(look, rays, *guess_arrays(labels, cube))
    return [cell_scores(look, rays, hits, cell, cube, temperature) for cell in cells]


def accept(rays: Rays, cells: list[Cell], scores: list[FloatArray], chosen: list[int],
           cube: float) -> BoolArray:
    """Moves the best-gaining cells whose rays do not overlap to their best labels; returns the
    rays the changes touch."""
    gains = [(float(score.max() - score[chosen[cell.index]]), cell.index)
             for cell, score in zip(cells, scores)]
    taken = np.zeros(len(rays.ground), np.bool_)
    for gain, index in sorted(gains, reverse=True):
        cell, best = cells[index], int(np.argmax(scores[index]))
        if gain <= 1e-9:
            break
        heights = (parse_label(cell.labels[best])[0], parse_label(cell.labels[chosen[index]])[0])
        reach = rays.ray[cell.pairs[rays.low[cell.pairs] < max(heights) * cube]]
        if len(reach) and not taken[reach].any():
            taken[reach] = True
            chosen[index] = best
    return taken


# -- calibration: exposure, noise and prototypes from the current position --------------------


def surface_ids(hits: Hits, known: BoolArray, cube: float) -> IntArray:
    """Returns each ray's surface: -1 unknown ground, -2 mat, 100 + c the top of column c,
    SIDE_IDS + 4 * (MAX_LEVELS * c + level) + face one side of one cube."""
    level = np.clip((hits.z // cube).astype(np.int64), 0, MAX_LEVELS - 1)
    side = SIDE_IDS + 4 * (MAX_LEVELS * hits.column + level) + hits.face
    ground = np.where(known, -2, -1)
    surface = np.where(hits.top, 100 + hits.column, side)
    return np.asarray(np.where(hits.column >= 0, surface, ground), np.int64)


def interior(ids: IntArray, shape: tuple[int, int], steps: int) -> BoolArray:
    """Tells which rays have the same surface as every ray up to `steps` grid steps around."""
    grid = ids.reshape(shape)
    keep = np.ones(shape, np.bool_)
    for dy, dx in ((1, 0), (-1, 0), (0, 1), (0, -1)):
        for reach in range(1, steps + 1):
            keep &= np.roll(grid, (dy * reach, dx * reach), axis=(0, 1)) == grid
    keep[:steps, :] = keep[-steps:, :] = False
    keep[:, :steps] = keep[:, -steps:] = False
    return np.asarray(keep.ravel(), np.bool_)


def calibrate(memory: ColourMemory, sides: ColourMemory, learnt: set[str], colours: FloatArray,
              rays: Rays, columns: list[Column], cube: float) -> tuple[FloatArray, tuple[float, float]]:
    """Returns the colours brought to the nominal exposure and the noise sigmas, and learns the
    prototypes from rays well inside the position's surfaces."""
    plain = Looks(np.zeros(len(colours)), np.zeros((3, len(colours))), np.zeros((FACES, len(colours))))
    heights, tops = guess_arrays([label_of(column) for column in columns], cube)
    ids = surface_ids(first_hits(plain, rays, heights, tops), rays.known, cube)
    inner = interior(ids, rays.shape, INTERIOR_STEPS)
    mat = inner & (ids == -2)
    colours = exposed(colours, colours[mat, 0], float(memory.nominal["mat"][0]))
    noise = noise_sigma(colours, mat, rays.shape)
    memory.learn("mat", per_group(colours[mat], np.arange(int(mat.sum())) % MAT_GROUPS))
    for name in TOPS:
        chosen = inner & np.isin(ids, [100 + c for c, col in enumerate(columns) if col.top == name])
        memory.learn(name, per_group(colours[chosen], ids[chosen]))
    edges = interior(ids, rays.shape, 1)
    learn_sides(sides, learnt, colours[edges], ids[edges], columns)
    return colours, noise


def exposed(colours: FloatArray, mat_lightness: FloatArray, nominal: float) -> FloatArray:
    """Returns the colours scaled (lightness and chroma alike, as a change of light does) so
    that the lit mat has its nominal lightness."""
    if len(mat_lightness) < MIN_RAYS:
        return colours
    lit = float(np.percentile(mat_lightness, LIT_QUANTILE))
    return np.asarray(colours * float(np.clip(nominal / max(lit, 1.0), 0.5, 2.0)), np.float64)


def noise_sigma(colours: FloatArray, mat: BoolArray, shape: tuple[int, int]) -> tuple[float, float]:
    """Returns the lightness and chroma sigmas of the noise: the spread of the differences
    between neighbouring mat rays."""
    grid, inside = colours.reshape(*shape, 3), mat.reshape(shape)
    both = inside[:, 1:] & inside[:, :-1]
    if int(both.sum()) < MIN_RAYS:
        return NOISE_FLOOR
    spread = 1.4826 / math.sqrt(2.0) * np.median(np.abs(grid[:, 1:] - grid[:, :-1])[both], axis=0)
    return (max(NOISE_FLOOR[0], float(spread[0])), max(NOISE_FLOOR[1], float(spread[1:].mean())))


def learn_sides(sides: ColourMemory, learnt: set[str], colours: FloatArray, ids: IntArray,
                columns: list[Column]) -> None:
    """Learns each side direction's prototype per cube colour from the position's side faces."""
    chosen = ids >= SIDE_IDS
    code = ids[chosen] - SIDE_IDS
    cubes = code // 4
    owner = np.array([colour_at(columns[c // MAX_LEVELS], c % MAX_LEVELS) for c in cubes], str)
    for face in range(FACES):
        for name in TOPS:
            pick = (code % 4 == face) & (owner == name)
            found = per_group(colours[chosen][pick], cubes[pick] // MAX_LEVELS, lit=False)
            if int(pick.sum()) >= MIN_RAYS and sides.learn(f"{name}-side-{face}", found):
                learnt.add(f"{name}-side-{face}")


def colour_at(column: Column, level: int) -> str:
    """Returns the colour of a column's cube at a level (its sides' colour)."""
    return column.colours[level] if level < len(column.colours) else EMPTY


def per_group(colours: FloatArray, groups: IntArray, lit: bool = True, least: int = 4) -> FloatArray:
    """Returns each group's median colour (G x 3), groups of fewer than `least` rays left out;
    for a lit surface the lightness is a high percentile over all rays (shadows only darken)."""
    medians = [np.median(colours[groups == g], axis=0) for g in np.unique(groups)
               if int((groups == g).sum()) >= least]
    found = np.asarray(medians, np.float64).reshape(-1, 3)
    if lit and len(found):
        found[:, 0] = np.percentile(colours[:, 0], LIT_QUANTILE)
    return found


# -- the camera place -------------------------------------------------------------------------


def fit_place(look: Looks, rays: Rays, columns: list[Column], cube: float, start: CameraPlace,
              anchor: CameraPlace, cast_from: Callable[[CameraPlace], Rays]) -> tuple[FloatArray, FloatArray]:
    """Returns the camera centre under which the current position explains the rays best (a
    pattern search from the start, first along its height, pulled gently towards the
    homography's own estimate) and the score's curvature there along each axis: how sharply
    this position pins the centre."""
    standing = np.array([i for i, column in enumerate(columns) if column.height > 0], np.int64)
    heights, tops = guess_arrays([label_of(columns[i]) for i in standing], cube)
    near = np.zeros(len(rays.ground), np.bool_)
    for place in (start, lowered(start, PLACE_SCALES[0])):
        near[cast_from(place).ray] = True
    origin, middle = np.array(start.centre), np.array(anchor.centre)
    sigma = np.array(PLACE_SIGMA) * [1.0, 1.0, middle[2]]
    seen = Looks(look.mat[near], look.top[:, near], look.side[:, near])

    def score(centre: FloatArray) -> float:
        """Returns the tempered log-likelihood of the rays from a centre, with its prior."""
        place = CameraPlace((float(centre[0]), float(centre[1]), float(centre[2])), start.focal_px)
        kept = subset(cast_from(place), near, standing)
        ll = float(first_hits(seen, kept, heights, tops).ll.sum())
        return ll / PLACE_TEMPERATURE - 0.5 * float((((centre - middle) / sigma) ** 2).sum())

    first = max((origin * [1.0, 1.0, scale] for scale in PLACE_SCALES), key=score)
    best = pattern_search(score, first, np.array(PLACE_STEPS))
    return best, curvature(score, best, np.array(PLACE_STEPS) / 4.0)


def curvature(score: Callable[[FloatArray], float], at: FloatArray, steps: FloatArray) -> FloatArray:
    """Returns minus the second difference of a score along each axis at a point (floored)."""
    centre, bends = score(at), []
    for axis, step in enumerate(steps):
        shift = np.eye(len(at))[axis] * step
        bends.append((2.0 * centre - score(at + shift) - score(at - shift)) / step ** 2)
    return np.asarray(np.maximum(np.array(bends), MIN_PRECISION), np.float64)


def pattern_search(score: Callable[[FloatArray], float], start: FloatArray,
                   steps: FloatArray) -> FloatArray:
    """Returns a local maximum of a score: moves along each axis while that improves it,
    halving the steps when no move does, down to PLACE_PRECISION."""
    best, value = start.copy(), score(start)
    while steps.max() > PLACE_PRECISION:
        moved = False
        for axis in range(len(best)):
            for sign in (1.0, -1.0):
                trial = best.copy()
                trial[axis] += sign * steps[axis]
                trial_value = score(trial)
                if trial_value > value:
                    best, value, moved = trial, trial_value, True
                    break
        if not moved:
            steps = steps / 2.0
    return best


def starting_place(scene: Scene, memory: ColourMemory, cubes: int) -> tuple[CameraPlace, bool]:
    """Returns the camera place to start from and whether to refit it on this position: a
    remembered place serves while the view holds and the board has not grown by half."""
    if not isinstance(memory, BlockBlockMemory) or memory.place is None or \
            not same_view(scene.view, memory.place_corners):
        return scene.place, cubes > 0
    return memory.place, cubes >= max(REFIT_CUBES, int(1.5 * memory.place_cubes))


def same_view(view: BoardView, corners: FloatArray | None) -> bool:
    """Tells whether a view puts the grid's corners within SAME_VIEW_PX of earlier ones."""
    if corners is None:
        return False
    return float(np.abs(view.to_image(view.mat.grid_corners()) - corners).max()) <= SAME_VIEW_PX


def remember_place(memory: ColourMemory, scene: Scene, place: CameraPlace, fit: FloatArray,
                   precision: FloatArray, cubes: int) -> CameraPlace:
    """Returns the camera place that combines a fit with the remembered one (each weighted by
    its precision, as adding their log-likelihoods would) and keeps it in a BlockBlockMemory."""
    if not isinstance(memory, BlockBlockMemory):
        return CameraPlace((float(fit[0]), float(fit[1]), float(fit[2])), place.focal_px)
    if memory.place is not None and same_view(scene.view, memory.place_corners):
        total = memory.place_precision + precision
        fit = (memory.place_precision * np.array(memory.place.centre) + precision * fit) / total
        precision = total
    memory.place = CameraPlace((float(fit[0]), float(fit[1]), float(fit[2])), place.focal_px)
    memory.place_precision, memory.place_cubes = precision, cubes
    memory.place_corners = scene.view.to_image(scene.view.mat.grid_corners())
    return memory.place


# -- the observer -----------------------------------------------------------------------------


def new_memory(kit: Kit) -> BlockBlockMemory:
    """Returns a fresh memory for observing BLOCK.BLOCK with a kit."""
    return BlockBlockMemory(kit)


def checked_memory(memory: ColourMemory | None, kit: Kit) -> ColourMemory:
    """Returns the memory to use (a new one for None), or raises if it lacks our colours."""
    if memory is None:
        return BlockBlockMemory(kit)
    if not isinstance(memory, ColourMemory) or not {"mat", *TOPS} <= set(memory.names):
        raise ObserveError(f"a {GAME} observer needs a memory with the colours mat, brown and "
                           "white (make one with new_memory(kit))")
    return memory


def side_memory(memory: ColourMemory, kit: Kit) -> tuple[ColourMemory, set[str]]:
    """Returns the side prototypes and the names learnt: kept in a BlockBlockMemory, else new."""
    keeper = memory if isinstance(memory, BlockBlockMemory) else BlockBlockMemory(kit)
    return keeper.sides, keeper.learnt_sides


def cell_seen(scores: Mapping[str, float]) -> CellSeen:
    """Returns a cell's reading: the softmax of its candidates' log-posteriors, leaving out the
    labels below MIN_LISTED (unlisted labels count as very unlikely)."""
    probs = probabilities({label: -score for label, score in scores.items()})
    return CellSeen.from_probs({label: p for label, p in probs.items() if p >= MIN_LISTED})


def observe(scene: Scene, board: Mapping[str, Any], memory: ColourMemory | None = None,
            frame: int | None = None) -> Observation:
    """Returns what the camera sees on every cell (top colour and height, with probabilities).

    `board` is the referee's current position, before the move being read: it calibrates the
    colours and the camera place and starts the search, but every cell is read from the pixels.
    `memory` (new_memory(kit)) carries what was learnt to the next observation of the game.
    """
    if scene.mat.game != GAME:
        raise ObserveError(f"this scene shows the {scene.mat.label} mat, not {GAME}'s")
    columns = read_columns(board, scene.squares())
    memory = checked_memory(memory, scene.kit)
    sides, learnt = side_memory(memory, scene.kit)
    cube, boxes = cube_mm(scene.kit), footprints(scene)
    cubes = sum(column.height for column in columns)
    place, refit = starting_place(scene, memory, cubes)
    reach = np.array([(column.height + LEVELS_AHEAD) * cube for column in columns])
    spread = [place, lowered(place, PLACE_SCALES[0])] if refit else [place]
    widest = region_reach(columns, cube)
    region = ray_region(boxes, spread, np.full(len(boxes), widest))
    rays = within(cached_rays(memory, scene, region, place, widest), reach)

    def cast_from(origin: CameraPlace) -> Rays:
        """Returns this observation's rays as seen from another camera place."""
        return cast(rays.ground, rays.shape, rays.known, boxes, origin, reach)

    seen = scene.sample(np.column_stack([rays.ground, np.zeros(len(rays.ground))]))
    colours, noise = calibrate(memory, sides, learnt, seen, rays, columns, cube)
    look = looks(colours, rays, memory, sides, learnt, noise)
    if refit:
        fit, precision = fit_place(look, rays, columns, cube, place, scene.place, cast_from)
        place = remember_place(memory, scene, place, fit, precision, cubes)
        rays = within(cached_rays(memory, scene, region, place, widest), reach)
    fitted = refit or (isinstance(memory, BlockBlockMemory) and memory.place is not None)
    temperature = TEMPERATURE * (1.0 if fitted else UNFITTED_TEMPERING)
    cells = search_cells(rays, columns, scene)
    labels, scores = solve(look, rays, cells, cube, temperature)
    for share in (1.0 - PLACE_DOUBT, 1.0 + PLACE_DOUBT):
        doubt = within(cached_rays(memory, scene, region, lowered(place, share), widest), reach)
        others = rescore(look, doubt, search_cells(doubt, columns, scene), labels, cube, temperature)
        scores = [np.logaddexp(mine, other) for mine, other in zip(scores, others)]
    return Observation(GAME, {square: cell_seen(dict(zip(cell.labels, score.tolist())))
                              for square, cell, score in zip(scene.squares(), cells, scores)},
                       frame)
