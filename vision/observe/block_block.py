"""BLOCK.BLOCK's pixel observer: each column's top colour and height, by analysis by synthesis.

Rays run from the camera centre through a jittered grid of mat points. Under a guess of every
column (height, top colour) each ray first meets a top, a side or the mat; the guess is scored by
Student-t likelihoods of the colours along the rays against prototypes learnt on the referee's
position (lit tops and mat that shadows may darken; sides of either colour at any shade), so
parallax (a taller top shows larger, farther out, over more side) gives the height. From the
position, the best non-overlapping cell changes are taken until none gains, then single changes
are undone where the whole guess gains. Probabilities: tempered likelihoods plus a prior (few
cells change, legal moves only add cubes), averaged over the fitted camera place and a doubtful
one either side. The camera centre is fitted on the position's pieces and kept, with the
prototypes and rays, in the memory (new_memory) between observations.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np
from numpy.typing import NDArray

from vision.board import BoardView
from vision.expect import ViewError, expected_view
from vision.kit import Kit
from vision.observation import EMPTY, CellSeen, Observation
from vision.observe.colours import ColourMemory
from vision.observe.context import ObserveError, Scene
from vision.observe.reading import pattern_search
from vision.pose import CameraPlace

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]
BoolArray = NDArray[np.bool_]

GAME, TOPS = "block-block", ("brown", "white")
LEVELS_AHEAD = 4  # a bar4 stood upright adds four cubes to one column
HALF_SIDE_MM = 12.75  # half a footprint: cubes of one block join, others leave a 1 mm gap
RAY_SPACING_MM, RAY_JITTER, MAX_RAYS = 3.0, 0.35, 30000  # jitter: share of a step, seeded
REGION_LEVELS = 3  # the ray region grows in steps of this many cubes (so it lasts a few moves)
NU, MAX_D2 = 4.0, 16.0  # Student-t degrees of freedom; no ray costs more (edges, gaps)
SHADE_D2, TOP_SHADE_D2, MIN_SHADE = 4.0, 12.0, 0.2  # cost of the deepest shadow on mat, on a top
UNKNOWN_D2 = 4.0  # a ray over ground that is no plain mat (markers, off the page)
SIDE_D2 = 2.0  # a side's shading is unknown: it costs this more than the colour it has
NOISE_FLOOR = (3.0, 2.0)  # the least (lightness, chroma) noise sigmas, Lab units
LIT_QUANTILE = 75.0  # a lit surface's lightness: this percentile over its groups
MAT_TILE_MM, INTERIOR_STEPS, MIN_RAYS = 40.0, 2, 12  # calibration: mat groups, edge clearance
TEMPERATURE, UNFITTED_TEMPERING = 3.0, 3.0  # rays per independent look; more, place unfitted
CHANGE_NATS, REMOVAL_NATS = 2.0, 15.0  # prior cost of a column growing; shrinking or recoloured
MAX_ROUNDS, MIN_LISTED, GEOMETRIES = 12, 1e-6, 4  # search rounds; least listed p; ray sets kept
PLACE_SIGMA = (60.0, 60.0, 0.15)  # the homography's camera centre: mm, mm, share of its height
PLACE_SCALES = (0.7, 0.8, 0.9, 1.0, 1.12, 1.25)  # distances tried first, as shares
PLACE_SCALE_COST = 10.0  # reading.pattern_search takes gains of PLACE_GAIN: count in tenths of a nat
PLACE_STEPS = ((16.0, 0.08), (8.0, 0.04), (4.0, 0.02), (2.0, 0.01), (1.0, 0.005))  # mm, share
PLACE_TEMPERATURE, SAME_VIEW_PX, REFIT_CUBES = 5.0, 2.0, 2
PLACE_DOUBT = (0.03, 0.25, 0.15)  # height doubt: least, at one cube (falls as 1/sqrt), most


class BlockBlockMemory(ColourMemory):
    """The observer's state between frames: prototypes, the camera place fitted per view, rays."""

    def __init__(self, kit: Kit) -> None:
        colours = kit.colours.get(GAME, {})
        if not set(TOPS) <= set(colours):
            raise ObserveError(f"kit {kit.name!r} lacks the colours {', '.join(TOPS)} of {GAME}")
        super().__init__({"mat": kit.mat_rgb, **{name: colours[name] for name in TOPS}})
        self.place: CameraPlace | None = None
        self.place_corners: FloatArray | None = None
        self.place_cubes, self.place_sum, self.place_weight = 0, np.zeros(3), 0.0
        self.geometry: dict[tuple[float, ...], Rays] = {}


@dataclass(frozen=True, slots=True)
class Column:
    """The referee's column on a square: its height in cubes and its top's colour."""

    height: int
    top: str


@dataclass(frozen=True, slots=True)
class Rays:
    """Rays through a grid of mat points and the (ray, column) pairs they can meet, entry/exit heights."""

    ground: FloatArray
    shape: tuple[int, int]
    known: BoolArray
    step: FloatArray
    ray: IntArray
    col: IntArray
    low: FloatArray
    high: FloatArray


@dataclass(frozen=True, slots=True)
class Looks:
    """Per-ray log-likelihoods: the mat, each top (brown, white, either), a side."""

    mat: FloatArray
    top: FloatArray
    side: FloatArray


@dataclass(frozen=True, slots=True)
class Hits:
    """Per ray under a guess: first surface (column or -1, height, top?, log-lik), second (height, log-lik)."""

    column: IntArray
    z: FloatArray
    top: BoolArray
    ll: FloatArray
    second_z: FloatArray
    second_ll: FloatArray


@dataclass(frozen=True, slots=True)
class Cell:
    """One cell's search: its pairs, heights tried, centre, column, candidates and priors."""

    index: int
    pairs: IntArray
    levels: int
    half_levels: tuple[int, ...]
    centre: tuple[float, float]
    start: Column
    labels: tuple[str, ...]
    prior: FloatArray



def read_columns(board: Mapping[str, Any], squares: list[str]) -> list[Column]:
    """Returns every square's column from a position, or raises ObserveError for a bad one."""
    try:
        expected_view(GAME, board)
    except ViewError as error:
        raise ObserveError(f"bad {GAME} position: {error}") from None
    side = math.isqrt(len(squares))
    if board["size"] != side:
        raise ObserveError(f"the position is {board['size']}x{board['size']} but the {GAME} mat "
                           f"is {side}x{side}")
    stacks = [board["cells"].get(square, []) for square in squares]
    return [Column(len(cubes), str(cubes[-1]["top"]) if cubes else EMPTY) for cubes in stacks]


def parse_label(label: str) -> tuple[int, str]:
    """Returns the height and top colour of a label ("empty": 0)."""
    top, _, height = label.partition("@")
    return (int(height), top) if height else (0, EMPTY)


def label_of(column: Column) -> str:
    """Returns the label a column shows."""
    return EMPTY if column.height == 0 else f"{column.top}@{column.height}"



def cube_mm(kit: Kit) -> float:
    """Returns the height of one cube in mm (the kit's, else KIT.md's 25)."""
    pieces = kit.pieces.get(GAME, {})
    return float(pieces["cube"].size_mm[2]) if "cube" in pieces else 25.0


def footprints(scene: Scene) -> FloatArray:
    """Returns each cell's cube footprint (x0, x1, y0, y1) in board mm, cells in Scene order."""
    centres = np.array([scene.cell_centre(square) for square in scene.squares()])
    return np.column_stack([centres[:, 0] - HALF_SIDE_MM, centres[:, 0] + HALF_SIDE_MM,
                            centres[:, 1] - HALF_SIDE_MM, centres[:, 1] + HALF_SIDE_MM])


def lowered(place: CameraPlace, share: float) -> CameraPlace:
    """Returns a camera place at a share of the height, straight below."""
    return CameraPlace((place.centre[0], place.centre[1], place.centre[2] * share), place.focal_px)


def ray_region(boxes: FloatArray, places: list[CameraPlace], reach_mm: float) -> FloatArray:
    """Returns the mat-plane box (x0, x1, y0, y1) where any column could appear from any place."""
    corners = np.array([[b[i], b[j], reach_mm] for b in boxes for i in (0, 1) for j in (2, 3)])
    seen = np.vstack([place.to_mat(corners) for place in places] + [corners[:, :2]])
    return np.array([seen[:, 0].min(), seen[:, 0].max(), seen[:, 1].min(), seen[:, 1].max()])


def ray_grid(region: FloatArray, scene: Scene) -> tuple[FloatArray, tuple[int, int], BoolArray]:
    """Returns the rays' mat points (a jittered grid over a region), its shape, where plain mat shows."""
    area = (region[1] - region[0] + 2) * (region[3] - region[2] + 2)
    step = max(RAY_SPACING_MM, math.sqrt(area / MAX_RAYS))
    xs = np.arange(region[0] - 1, region[1] + 1 + 1e-9, step)
    ys = np.arange(region[2] - 1, region[3] + 1 + 1e-9, step)
    gx, gy = np.meshgrid(xs, ys)
    jitter = np.random.default_rng(0).uniform(-RAY_JITTER, RAY_JITTER, (gx.size, 2)) * step
    ground = np.column_stack([gx.ravel(), gy.ravel()]) + jitter
    kit, side = scene.kit, scene.mat.side_mm
    known = np.all((ground >= -kit.mat_margin_mm) & (ground <= side + kit.mat_margin_mm), axis=1)
    for corners in kit.marker_corners(scene.mat).values():
        pad = kit.quiet_zone_mm
        known &= ~np.all((ground >= corners.min(axis=0) - pad) & (ground <= corners.max(axis=0) + pad), axis=1)
    return ground, (len(ys), len(xs)), known


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
    """Returns the rays from the camera centre through mat points, paired with the columns they meet."""
    cx, cy, cz = place.centre
    step = (np.array([cx, cy]) - ground) / cz
    lo_x, hi_x = axis_interval(ground[:, 0], step[:, 0], boxes[:, 0], boxes[:, 1])
    lo_y, hi_y = axis_interval(ground[:, 1], step[:, 1], boxes[:, 2], boxes[:, 3])
    low = np.maximum(np.maximum(lo_x, lo_y), 0.0)
    high = np.minimum(np.minimum(hi_x, hi_y), cz - 1.0)
    ray, col = np.nonzero((low < high) & (low < reach_mm[None, :]))
    return Rays(ground, shape, known, step, ray.astype(np.int64), col.astype(np.int64),
                low[ray, col], high[ray, col])


def within(rays: Rays, reach_mm: FloatArray) -> Rays:
    """Returns the rays with only the pairs whose column is met below its reach."""
    keep = rays.low < reach_mm[rays.col]
    return Rays(rays.ground, rays.shape, rays.known, rays.step, rays.ray[keep], rays.col[keep],
                rays.low[keep], rays.high[keep])


def cached_rays(memory: BlockBlockMemory, scene: Scene, region: FloatArray, place: CameraPlace,
                reach_mm: float) -> Rays:
    """Returns the rays over a region from a place, every column up to a reach, kept in the memory."""
    key = (*np.round(region, 3), *np.round(place.centre, 3), reach_mm)
    if key not in memory.geometry:
        ground, shape, known = ray_grid(region, scene)
        boxes = footprints(scene)
        rays = cast(ground, shape, known, boxes, place, np.full(len(boxes), reach_mm))
        memory.geometry = {**dict(list(memory.geometry.items())[1 - GEOMETRIES:]), key: rays}
    return memory.geometry[key]



def loglik(d2: FloatArray | float) -> FloatArray:
    """Returns the Student-t log-likelihood (up to a constant) of errors d2 sigma-squared."""
    capped = np.minimum(np.asarray(d2, np.float64), MAX_D2)
    return np.asarray(-(NU + 3.0) / 2.0 * np.log1p(capped / NU), np.float64)


def shaded_d2(colours: FloatArray, lab: FloatArray, sigma: tuple[float, float],
              shade_d2: float) -> FloatArray:
    """Returns colours' squared error from a lit prototype that shadow may dim (chroma with lightness)."""
    shade = np.clip(colours[:, 0] / max(float(lab[0]), 1.0), MIN_SHADE, 1.0)
    lighter = np.maximum(colours[:, 0] - lab[0], 0.0) / sigma[0]
    darker = np.maximum(MIN_SHADE * lab[0] - colours[:, 0], 0.0) / sigma[0]
    chroma = colours[:, 1:] - lab[None, 1:] * shade[:, None]
    return np.asarray(lighter ** 2 + darker ** 2 + (chroma ** 2).sum(axis=1) / sigma[1] ** 2
                      + shade_d2 * (1.0 - shade), np.float64)


def looks(colours: FloatArray, noise: tuple[float, float], rays: Rays,
          memory: BlockBlockMemory) -> Looks:
    """Returns every ray's log-likelihood of showing the mat, each top, a side (any colour and shade)."""
    lab = {name: memory.lab(name) for name in ("mat", *TOPS)}
    mat = np.where(rays.known, loglik(shaded_d2(colours, lab["mat"], noise, SHADE_D2)),
                   loglik(UNKNOWN_D2))
    top = np.vstack([loglik(shaded_d2(colours, lab[name], noise, TOP_SHADE_D2)) for name in TOPS])
    unknown = np.minimum.reduce([shaded_d2(colours, lab[name], noise, 0.0) for name in TOPS])
    side = loglik(unknown + SIDE_D2)
    return Looks(np.asarray(mat, np.float64), np.vstack([top, top.max(axis=0)]), side)



def first_hits(look: Looks, rays: Rays, heights_mm: FloatArray, tops: IntArray) -> Hits:
    """Returns each ray's first and second surfaces under a guess of heights (mm) and tops (0, 1, 2)."""
    height = heights_mm[rays.col]
    z = np.where(rays.low < height, np.minimum(rays.high, height), -1.0)
    top = rays.high >= height
    ll = np.where(top, look.top[tops[rays.col], rays.ray], look.side[rays.ray])
    order = np.lexsort((-z, rays.ray))
    ordered = rays.ray[order]
    first = np.ones(len(order), np.bool_)
    first[1:] = ordered[1:] != ordered[:-1]
    second = np.zeros(len(order), np.bool_)
    second[1:] = ~first[1:] & first[:-1]
    count = len(rays.ground)
    column, at, lit, on_top = np.full(count, -1), np.zeros(count), look.mat.copy(), np.zeros(count, np.bool_)
    pick = order[first][z[order[first]] > 0]
    hit = rays.ray[pick]
    column[hit], at[hit], lit[hit], on_top[hit] = rays.col[pick], z[pick], ll[pick], top[pick]
    second_z, second_ll = np.zeros(count), look.mat.copy()
    pick = order[second][z[order[second]] > 0]
    second_z[rays.ray[pick]], second_ll[rays.ray[pick]] = z[pick], ll[pick]
    return Hits(column, at, on_top, lit, second_z, second_ll)


def guess_arrays(labels: list[str], cube: float) -> tuple[FloatArray, IntArray]:
    """Returns the heights (mm) and top indices of a guess given as labels."""
    guess = [parse_label(label) for label in labels]
    tops = [(*TOPS, "half").index(top) if top != EMPTY else 0 for _, top in guess]
    return np.array([height * cube for height, _ in guess]), np.array(tops, np.int64)



def cell_scores(look: Looks, rays: Rays, hits: Hits, cell: Cell, cube: float,
                temperature: float) -> FloatArray:
    """Returns the log-posteriors of a cell's candidates, the others held: tempered rays plus prior."""
    pick, ray = cell.pairs, rays.ray[cell.pairs]
    mine = hits.column[ray] == cell.index
    other_z = np.where(mine, hits.second_z[ray], hits.z[ray])
    other_ll = np.where(mine, hits.second_ll[ray], hits.ll[ray])
    levels_mm = np.arange(1, cell.levels + 1)[:, None] * cube
    low, high = rays.low[pick][None, :], rays.high[pick][None, :]
    wins = (low < levels_mm) & (np.minimum(high, levels_mm) > other_z[None, :])
    top = wins & (high >= levels_mm)
    side_gain = (wins & ~top) @ (look.side[ray] - other_ll)
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
    return np.asarray([np.where(split > 0, brown, white) for split in (u + v, -u - v, u - v, v - u)])


def search_cells(rays: Rays, start: list[Column], scene: Scene) -> list[Cell]:
    """Returns each cell's search: heights to LEVELS_AHEAD above its column, half as one more cube."""
    order = np.argsort(rays.col, kind="stable")
    bounds = np.searchsorted(rays.col[order], np.arange(len(start) + 1))
    cells = []
    for index, (square, column) in enumerate(zip(scene.squares(), start)):
        levels = column.height + LEVELS_AHEAD
        halves = (column.height + 1,) + ((column.height,) if column.top == "half" else ())
        labels = (EMPTY, *(f"{name}@{k}" for name in TOPS for k in range(1, levels + 1)),
                  *(f"half@{k}" for k in halves))
        heights = np.array([0, *range(1, levels + 1), *range(1, levels + 1), *halves])
        prior = np.where(heights > column.height, -CHANGE_NATS, -REMOVAL_NATS)
        prior[labels.index(label_of(column))] = 0.0
        cells.append(Cell(index, order[bounds[index]:bounds[index + 1]], levels, halves,
                          scene.cell_centre(square), column, labels, prior))
    return cells


def guess(cells: list[Cell], chosen: list[int]) -> list[str]:
    """Returns the label each cell has chosen."""
    return [cell.labels[choice] for cell, choice in zip(cells, chosen)]


def solve(look: Looks, rays: Rays, cells: list[Cell], cube: float, temperature: float,
          chosen: list[int] | None = None, frozen: int = -1,
          known: tuple[list[FloatArray], list[int]] | None = None) -> tuple[list[int], list[FloatArray]]:
    """Returns every cell's settled choice and candidate log-posteriors, taking non-overlapping gains."""
    chosen = list(chosen) if chosen is not None else [c.labels.index(label_of(c.start)) for c in cells]
    scores, stale = (list(known[0]), known[1]) if known else ([np.zeros(0)] * len(cells),
                                                              list(range(len(cells))))
    for _ in range(MAX_ROUNDS):
        hits = first_hits(look, rays, *guess_arrays(guess(cells, chosen), cube))
        for index in stale:
            scores[index] = cell_scores(look, rays, hits, cells[index], cube, temperature)
        taken = accept(rays, cells, scores, chosen, cube, frozen)
        if not taken.any():
            break
        stale = reached(rays, cells, taken)
    return chosen, scores


def accept(rays: Rays, cells: list[Cell], scores: list[FloatArray], chosen: list[int],
           cube: float, frozen: int) -> BoolArray:
    """Moves the best-gaining cells (but the frozen one) whose rays do not overlap; returns their rays."""
    gains = [(float(score.max() - score[chosen[cell.index]]), cell.index)
             for cell, score in zip(cells, scores) if cell.index != frozen]
    taken = np.zeros(len(rays.ground), np.bool_)
    for gain, index in sorted(gains, reverse=True):
        if gain <= 1e-9:
            break
        cell, best = cells[index], int(np.argmax(scores[index]))
        tallest = max(parse_label(cell.labels[best])[0], parse_label(cell.labels[chosen[index]])[0])
        reach = rays.ray[cell.pairs[rays.low[cell.pairs] < tallest * cube]]
        if len(reach) and not taken[reach].any():
            taken[reach] = True
            chosen[index] = best
    return taken


def reached(rays: Rays, cells: list[Cell], taken: BoolArray) -> list[int]:
    """Returns the cells whose rays include any of some rays."""
    return [cell.index for cell in cells if taken[rays.ray[cell.pairs]].any()]


def polish(look: Looks, rays: Rays, cells: list[Cell], cube: float, temperature: float,
           found: tuple[list[int], list[FloatArray]]) -> tuple[list[int], list[FloatArray]]:
    """Returns the settled choice with single changes undone wherever the whole guess gains."""
    best, best_value = found, posterior(look, rays, cells, found[0], cube, temperature)
    for cell in cells:
        own = cell.labels.index(label_of(cell.start))
        if best[0][cell.index] == own:
            continue
        trial, touched = list(best[0]), np.zeros(len(rays.ground), np.bool_)
        trial[cell.index], touched[rays.ray[cell.pairs]] = own, True
        settled = solve(look, rays, cells, cube, temperature, trial, cell.index,
                        (best[1], reached(rays, cells, touched)))[0]
        again = solve(look, rays, cells, cube, temperature, settled)
        value = posterior(look, rays, cells, again[0], cube, temperature)
        if value > best_value + 1e-6:
            best, best_value = again, value
    return best


def posterior(look: Looks, rays: Rays, cells: list[Cell], chosen: list[int], cube: float,
              temperature: float) -> float:
    """Returns the log-posterior (unnormalised) of a whole guess: rays and priors."""
    hits = first_hits(look, rays, *guess_arrays(guess(cells, chosen), cube))
    return float(hits.ll.sum()) / temperature + sum(float(c.prior[k]) for c, k in zip(cells, chosen))



def calibrate(memory: BlockBlockMemory, colours: FloatArray, rays: Rays, columns: list[Column],
              cube: float) -> tuple[FloatArray, tuple[float, float]]:
    """Returns the colours at nominal exposure and the noise; learns prototypes inside known surfaces."""
    blank = Looks(np.zeros(len(colours)), np.zeros((3, len(colours))), np.zeros(len(colours)))
    hits = first_hits(blank, rays, *guess_arrays([label_of(column) for column in columns], cube))
    surface = np.where(hits.top, 100 + hits.column, 1000 + hits.column)
    ids = np.where(hits.column >= 0, surface, np.where(rays.known, -2, -1))
    inner = interior(ids, rays.shape, INTERIOR_STEPS)
    mat = inner & (ids == -2)
    if int(mat.sum()) >= MIN_RAYS:
        lit = float(np.percentile(colours[mat, 0], LIT_QUANTILE))
        colours = colours * float(np.clip(memory.nominal["mat"][0] / max(lit, 1.0), 0.5, 2.0))
    tiles = np.floor(rays.ground[mat] / MAT_TILE_MM).astype(np.int64) @ np.array([1, 100003])
    memory.learn("mat", per_group(colours[mat], tiles))
    for name in TOPS:
        chosen = inner & np.isin(ids, [100 + c for c, col in enumerate(columns) if col.top == name])
        memory.learn(name, per_group(colours[chosen], ids[chosen]))
    return colours, noise_sigma(colours, mat, rays.shape)


def interior(ids: IntArray, shape: tuple[int, int], steps: int) -> BoolArray:
    """Tells which rays have the same surface as every ray up to `steps` grid steps around."""
    grid = ids.reshape(shape)
    keep = np.ones(shape, np.bool_)
    for dy, dx in ((1, 0), (-1, 0), (0, 1), (0, -1)):
        for reach in range(1, steps + 1):
            keep &= np.roll(grid, (dy * reach, dx * reach), axis=(0, 1)) == grid
    keep[:steps, :] = keep[-steps:, :] = keep[:, :steps] = keep[:, -steps:] = False
    return np.asarray(keep.ravel(), np.bool_)


def noise_sigma(colours: FloatArray, mat: BoolArray, shape: tuple[int, int]) -> tuple[float, float]:
    """Returns the noise sigmas (lightness, chroma) from differences between neighbouring mat rays."""
    grid, inside = colours.reshape(*shape, 3), mat.reshape(shape)
    both = inside[:, 1:] & inside[:, :-1]
    if int(both.sum()) < MIN_RAYS:
        return NOISE_FLOOR
    spread = 1.4826 / math.sqrt(2.0) * np.median(np.abs(grid[:, 1:] - grid[:, :-1])[both], axis=0)
    return (max(NOISE_FLOOR[0], float(spread[0])), max(NOISE_FLOOR[1], float(spread[1:].mean())))


def per_group(colours: FloatArray, groups: IntArray, least: int = 4) -> FloatArray:
    """Returns each big enough group's median colour, all at the lightness of the brighter groups."""
    medians = [np.median(colours[groups == g], axis=0) for g in np.unique(groups)
               if int((groups == g).sum()) >= least]
    found = np.asarray(medians, np.float64).reshape(-1, 3)
    if len(found):
        found[:, 0] = np.percentile(found[:, 0], LIT_QUANTILE)
    return found



def fit_place(look: Looks, rays: Rays, columns: list[Column], cube: float, start: CameraPlace,
              anchor: CameraPlace, boxes: FloatArray, reach: FloatArray) -> FloatArray:
    """Returns the camera centre under which the position fits the rays best, near the homography's."""
    standing = np.array([i for i, column in enumerate(columns) if column.height > 0], np.int64)
    heights, tops = guess_arrays([label_of(columns[i]) for i in standing], cube)
    near = np.zeros(len(rays.ground), np.bool_)
    near[rays.ray] = True
    near[cast(rays.ground, rays.shape, rays.known, boxes, lowered(start, PLACE_SCALES[0]), reach).ray] = True
    ground, known = rays.ground[near], rays.known[near]
    seen = Looks(look.mat[near], look.top[:, near], look.side[near])
    middle = np.array([*(boxes[:, 0].min() + boxes[:, 1].max(), boxes[:, 2].min() + boxes[:, 3].max())]) / 2
    base, away = np.array([*middle, 0.0]), np.array(start.centre) - [*middle, 0.0]
    sigma = np.array(PLACE_SIGMA) * [1.0, 1.0, anchor.centre[2]]

    def centre(move: FloatArray) -> FloatArray:
        """Returns the centre of a move: (sideways x, sideways y, share of the distance)."""
        return np.asarray(base + move[2] * away + [move[0], move[1], 0.0], np.float64)

    def cost(move: FloatArray) -> float:
        """Returns how badly the rays fit from a move's centre, its prior included (nats)."""
        at = centre(move)
        place = CameraPlace((float(at[0]), float(at[1]), float(at[2])), start.focal_px)
        seen_rays = cast(ground, (len(ground), 1), known, boxes[standing], place, heights + cube)
        ll = float(first_hits(seen, seen_rays, heights, tops).ll.sum())
        return PLACE_SCALE_COST * (PLACE_TEMPERATURE * float((((at - anchor.centre) / sigma) ** 2).sum()) / 2 - ll)

    first = min((np.array([0.0, 0.0, share]) for share in PLACE_SCALES), key=cost)
    return centre(pattern_search(cost, first, cost(first), PLACE_STEPS))


def same_view(memory: BlockBlockMemory, view: BoardView) -> bool:
    """Tells whether the memory's place was fitted for this view (grid corners within SAME_VIEW_PX)."""
    corners = memory.place_corners
    return corners is not None and float(np.abs(view.to_image(view.mat.grid_corners())
                                                 - corners).max()) <= SAME_VIEW_PX


def remember_place(memory: BlockBlockMemory, scene: Scene, fit: FloatArray, focal: float,
                   cubes: int) -> CameraPlace:
    """Returns the mean of this view's place fits, each weighted by its cubes, kept in the memory."""
    if not same_view(memory, scene.view):
        memory.place_sum, memory.place_weight = np.zeros(3), 0.0
    memory.place_sum, memory.place_weight = memory.place_sum + cubes * fit, memory.place_weight + cubes
    mean = memory.place_sum / memory.place_weight
    memory.place = CameraPlace((float(mean[0]), float(mean[1]), float(mean[2])), focal)
    memory.place_cubes = cubes
    memory.place_corners = scene.view.to_image(scene.view.mat.grid_corners())
    return memory.place





def new_memory(kit: Kit) -> BlockBlockMemory:
    """Returns a fresh memory for observing BLOCK.BLOCK with a kit."""
    return BlockBlockMemory(kit)


def marginal(look: Looks, views: list[tuple[Rays, list[FloatArray]]], cells: list[Cell],
             labels: list[str], cube: float) -> list[FloatArray]:
    """Returns each cell's probabilities averaged over the fitted place and a doubtful one either side."""
    heights, tops = guess_arrays(labels, cube)
    fits = np.array([float(first_hits(look, rays, heights, tops).ll.sum()) for rays, _ in views])
    weights = np.array([2.0, 1.0, 1.0]) * np.exp((fits - fits.max()) / PLACE_TEMPERATURE)
    weights /= weights.sum()
    probs = []
    for cell in cells:
        each = [np.exp(scores[cell.index] - scores[cell.index].max()) for _, scores in views]
        probs.append(sum(weight * p / p.sum() for weight, p in zip(weights, each)))
    return probs


def observe(scene: Scene, board: Mapping[str, Any], memory: ColourMemory | None = None,
            frame: int | None = None) -> Observation:
    """Returns what the camera sees on every cell (top colour and height, with probabilities).

    `board` is the referee's current position, before the move being read: it calibrates the
    colours and the camera place and starts the search, but every cell is read from the pixels.
    `memory` (new_memory(kit)) carries what was learnt to the next observation of the game.
    """
    if not isinstance(scene, Scene):
        raise ObserveError(f"a Scene (vision.observe.context.prepare) is needed, not {type(scene).__name__}")
    if scene.mat.game != GAME:
        raise ObserveError(f"this scene shows the {scene.mat.label} mat, not {GAME}'s")
    columns = read_columns(board, scene.squares())
    if memory is not None and not isinstance(memory, BlockBlockMemory):
        raise ObserveError(f"a {GAME} observer keeps its own memory (make one with new_memory(kit)),"
                           f" not a {type(memory).__name__}")
    sight = look_at(scene, columns, memory or BlockBlockMemory(scene.kit))
    probs = read_cells(sight, columns)  # labels left out count as very unlikely
    return Observation(GAME, {square: CellSeen.from_probs(
        {label: min(p, 1.0 - MIN_LISTED) for label, p in zip(cell.labels, chance.tolist()) if p >= MIN_LISTED})
        for square, cell, chance in zip(scene.squares(), sight.cells, probs)}, frame)


@dataclass(frozen=True, slots=True)
class Sight:
    """A frame made ready to read: rays from the camera place, their looks, the cells' searches."""

    scene: Scene
    memory: BlockBlockMemory
    place: CameraPlace
    region: tuple[FloatArray, float, FloatArray]  # the ray region, its reach, each column's reach
    rays: Rays
    look: Looks
    cells: list[Cell]
    temperature: float


def look_at(scene: Scene, columns: list[Column], memory: BlockBlockMemory) -> Sight:
    """Returns the frame ready to read: colours calibrated, the camera place fitted when due."""
    cube, boxes = cube_mm(scene.kit), footprints(scene)
    cubes = sum(column.height for column in columns)
    fitted = memory.place is not None and same_view(memory, scene.view)
    place = memory.place if fitted and memory.place is not None else scene.place
    refit = cubes >= (max(REFIT_CUBES, int(1.5 * memory.place_cubes)) if fitted else 1)
    reach = np.array([(column.height + LEVELS_AHEAD) * cube for column in columns])
    widest = REGION_LEVELS * math.ceil((max(c.height for c in columns) + LEVELS_AHEAD) / REGION_LEVELS) * cube
    region = ray_region(boxes, [place, lowered(place, PLACE_SCALES[0])] if refit else [place], widest)
    rays = within(cached_rays(memory, scene, region, place, widest), reach)
    seen = scene.sample(np.column_stack([rays.ground, np.zeros(len(rays.ground))]))
    look = looks(*calibrate(memory, seen, rays, columns, cube), rays, memory)
    if refit:
        fit = fit_place(look, rays, columns, cube, place, scene.place, boxes, reach)
        place = remember_place(memory, scene, fit, place.focal_px, cubes)
        rays = within(cached_rays(memory, scene, region, place, widest), reach)
    temperature = TEMPERATURE * (1.0 if fitted or refit else UNFITTED_TEMPERING)
    return Sight(scene, memory, place, (region, widest, reach), rays, look,
                 search_cells(rays, columns, scene), temperature)


def read_cells(sight: Sight, columns: list[Column]) -> list[FloatArray]:
    """Returns every cell's candidate probabilities: the settled guess, read from the fitted place
    and a doubtful one either side (less doubtful the more cubes the place was fitted on)."""
    look, rays, cells, temperature = sight.look, sight.rays, sight.cells, sight.temperature
    cube, (region, widest, reach) = cube_mm(sight.scene.kit), sight.region
    chosen, scores = polish(look, rays, cells, cube, temperature, solve(look, rays, cells, cube, temperature))
    least, scale, most = PLACE_DOUBT
    doubt = float(np.clip(scale / math.sqrt(max(sight.memory.place_cubes, 1)), least, most))
    labels, views = guess(cells, chosen), [(rays, scores)]
    for share in (1.0 - doubt, 1.0 + doubt):
        moved = within(cached_rays(sight.memory, sight.scene, region, lowered(sight.place, share), widest), reach)
        hits = first_hits(look, moved, *guess_arrays(labels, cube))
        views.append((moved, [cell_scores(look, moved, hits, cell, cube, temperature)
                              for cell in search_cells(moved, columns, sight.scene)]))
    return marginal(look, views, cells, labels, cube)
