"""What BLOCK.BLOCK's rays look like: each ray's log-likelihood of showing the mat, a top or a side.

A ray's Lab colour (balanced against the mat's margin, brought to the mat's nominal exposure)
is compared with a lit prototype that a shadow may dim (Student-t errors, with a floor under
the noise: the model is rough), learnt where the referee's position surely shows it: the mat
(tile by tile), the brown and the white tops. A side may have any shade of its colour: the
position's where a cube stands there (a bar3 or bar4's end faces show the other colour, half's
either), else either colour. The ground where markers are printed (within a pose error) is
unknown: any colour costs the same there.

What did not change since the last still frame looks as it did then: a ray whose surface the
position already showed there (the mat, a side or a top of the same height and colour) is also
compared with its colour in that frame, which a new shadow may dim, with the frame's own noise.
That frame is used only from the same view, and only on rays whose old colour the position
explains and that meet no column it was read to show otherwise than the position holds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Mapping

import numpy as np
from numpy.typing import NDArray

from vision.kit import Kit
from vision.observe.calibrate import printed
from vision.observe.colours import ColourMemory
from vision.observe.context import ObserveError, Scene
from vision.observe.synthesis import JITTER, piece_colour
from vision.observe.block_block_place import Placing
from vision.observe.block_block_rays import Hits, Rays, SIDES

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]
BoolArray = NDArray[np.bool_]

GAME, TOPS = "block-block", ("brown", "white")
EITHER = len(TOPS)  # a side of a cube whose colour the position does not tell
ENDS = ("bar3", "bar4")  # their end faces show the other colour
NU, MAX_D2 = 4.0, 16.0  # Student-t degrees of freedom; no ray costs more (edges, gaps)
SHADE_D2, TOP_SHADE_D2, MIN_SHADE = 4.0, 12.0, 0.2  # cost of the deepest shadow on mat, on a top
UNKNOWN_D2 = 4.0  # a ray over ground that is no plain mat (markers, off the page)
SIDE_D2 = 2.0  # a side's shading is unknown: it costs this more than the colour it has
NOISE_FLOOR = (8.0, 4.0)  # the least (lightness, chroma) sigmas against prototypes, Lab units
SAME_FLOOR = (2.5, 2.0)  # the least sigmas against the last still frame's colour
SAME_SHADE = (0.3, 1.05, 2.0)  # a new shadow's least and most shade there, and its cost at the least
TRUSTED_D2 = 9.0  # the last frame is trusted where the position explains its colour this well
GROUND = 0  # the kind of surface the ground is (a top's is 1 + its colour)
LIT_QUANTILE, MAT_TILE_MM, INTERIOR_STEPS, MIN_RAYS = 75.0, 40.0, 2, 12


class BlockBlockMemory(ColourMemory):
    """The observer's state between frames: prototypes, the camera place fitted per view, the
    ray geometries kept, and the last still frame with what it was read to show."""

    def __init__(self, kit: Kit) -> None:
        super().__init__({"mat": kit.mat_rgb, **{name: piece_colour(kit, GAME, name) for name in TOPS}})
        self.placing: Placing | None = None  # fitted for place_corners' view, on place_cubes cubes
        self.place_corners: FloatArray | None = None
        self.place_cubes, self.place_weight = 0, 0.0  # cubes of the last fit; every fit's precision
        self.geometry: dict[tuple[float, ...], Rays] = {}
        self.last: tuple[Scene, tuple[str, ...]] | None = None
        self.trimmed: dict[tuple[float, ...], tuple[Rays, Rays]] = {}  # geometries kept, and trimmed to a reach
        self.sampled: list[tuple[Scene, FloatArray, FloatArray]] = []  # recent scenes' ray colours
        self.plain: tuple[FloatArray, BoolArray] | None = None  # the last grid's plain mat
        self.dips: tuple[Scene, FloatArray] | None = None  # a scene's grid lines (block_block_lines.dips)
        self.surfaced: tuple[Rays, tuple[str, ...], Surfaces] | None = None  # the last rays' surfaces under a position

    def line_dips(self, scene: Scene, measure: Callable[[], FloatArray]) -> FloatArray:
        """Returns a scene's grid-line dips, measured once and kept for the last scene asked."""
        if self.dips is None or self.dips[0] is not scene:
            self.dips = (scene, measure())
        return self.dips[1]


def check_kit(kit: Kit) -> None:
    """Raises ObserveError when a kit lacks BLOCK.BLOCK's colours."""
    for name in TOPS:
        piece_colour(kit, GAME, name)


def require_memory(memory: ColourMemory | None, kit: Kit) -> BlockBlockMemory:
    """Returns the observer's memory (a fresh one if none), or raises for another kind."""
    if memory is None:
        return BlockBlockMemory(kit)
    if not isinstance(memory, BlockBlockMemory):
        raise ObserveError(f"a {GAME} observer keeps its own memory (make one with new_memory(kit)),"
                           f" not a {type(memory).__name__}")
    return memory


# -- the position's side colours ---------------------------------------------------------------


def side_colours(board: Mapping[str, Any], squares: list[str], levels: int) -> IntArray:
    """Returns the colour (0 brown, 1 white, EITHER) each column's cube at each level shows on
    each side (+x, -x, +y, -y): columns x levels x 4, EITHER above the position's cubes."""
    found = np.full((len(squares), levels, len(SIDES)), EITHER, np.int64)
    index = {square: i for i, square in enumerate(squares)}
    size = int(board["size"])
    for square, stack in board["cells"].items():
        f, r = ord(square[0]) - ord("a"), int(square[1:]) - 1
        for level, cube in enumerate(stack[:levels]):
            found[index[square], level] = cube_sides(board, cube, (f, r, level), size)
    return found


def cube_sides(board: Mapping[str, Any], cube: Mapping[str, Any], at: tuple[int, int, int],
               size: int) -> list[int]:
    """Returns the colour each side of one cube shows (+x, -x, +y, -y)."""
    if cube.get("top") == "half" or cube.get("colour") not in TOPS:
        return [EITHER] * len(SIDES)
    own = TOPS.index(str(cube["colour"]))
    colours = []
    for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
        behind = neighbour_cube(board, (at[0] - dx, at[1] - dy, at[2]), size)
        end = cube.get("shape") in ENDS and behind is not None and behind.get("block") == cube.get("block")
        colours.append(1 - own if end else own)
    return colours


def neighbour_cube(board: Mapping[str, Any], at: tuple[int, int, int], size: int) -> Mapping[str, Any] | None:
    """Returns the cube at (file, rank, level), or None."""
    f, r, level = at
    if not (0 <= f < size and 0 <= r < size):
        return None
    stack = board["cells"].get(f"{chr(ord('a') + f)}{r + 1}", [])
    return stack[level] if level < len(stack) else None


# -- colour likelihoods ------------------------------------------------------------------------


def loglik(d2: FloatArray | float, sigma: tuple[float, float], cap: float = MAX_D2) -> FloatArray:
    """Returns the Student-t log-density (up to a constant) of errors d2 sigma-squared, sigmas given."""
    capped = np.minimum(np.asarray(d2, np.float64), cap)
    return np.asarray(-(NU + 3.0) / 2.0 * np.log1p(capped / NU) - math.log(sigma[0] * sigma[1] ** 2), np.float64)


def shaded_d2(colours: FloatArray, lab: FloatArray, sigma: tuple[float, float],
              shade: tuple[float, float, float]) -> FloatArray:
    """Returns colours' squared error from lit prototypes (one, or one per colour) that shadow may
    dim, chroma with lightness: shade is the least and most share of the light and the cost at
    the least."""
    least, most, cost = shade
    protos = np.broadcast_to(np.asarray(lab, np.float64), colours.shape)
    k = np.clip(colours[:, 0] / np.maximum(protos[:, 0], 1.0), least, most)
    error = np.maximum(np.abs(colours[:, 0] - k * protos[:, 0]), 0.0) / sigma[0]
    chroma = colours[:, 1:] - protos[:, 1:] * k[:, None]
    dimming = cost * np.clip(1.0 - k, 0.0, None) / (1.0 - least)
    return np.asarray(error ** 2 + (chroma ** 2).sum(axis=1) / sigma[1] ** 2 + dimming, np.float64)


def lit(cost: float) -> tuple[float, float, float]:
    """Returns the shade range of a lit prototype whose deepest shadow costs so much."""
    return MIN_SHADE, 1.0, cost * (1.0 - MIN_SHADE)


@dataclass(frozen=True, slots=True)
class Looks:
    """Per-ray log-likelihoods: the ground; each top (brown, white, either); a side of each
    colour (brown, white, either); and what the ray showed in the last still frame (None: no
    such frame; NaN where it cannot be trusted), with the kind of surface it was there (GROUND,
    or 1 + the top colour; -1 a side)."""

    ground: FloatArray
    top: FloatArray
    side: FloatArray
    same: FloatArray | None = None
    before: IntArray | None = None

    def pair_side(self, rays: Rays, colours: IntArray, start_mm: FloatArray, cube: float) -> FloatArray:
        """Returns each pair's log-likelihood of the side it comes in by: the column's colour at
        that height; as in the last frame where the position had it."""
        level = np.clip((rays.high / cube).astype(np.int64), 0, colours.shape[1] - 1)
        colour = colours[rays.col, level, rays.face - 1]
        side = np.asarray(self.side[colour, rays.ray], np.float64)
        return self.kept(side, rays.ray, rays.high < start_mm[rays.col])

    def pair_top(self, rays: Rays, tops: IntArray) -> FloatArray:
        """Returns each pair's log-likelihood of its column's top, given each column's top colour."""
        return self.tops(tops[rays.col], rays.ray)

    def tops(self, colour: IntArray | int, ray: IntArray) -> FloatArray:
        """Returns rays' log-likelihoods of tops of some colours (as in the last frame where a top
        of that colour showed there)."""
        return self.kept(np.asarray(self.top[colour, ray], np.float64), ray, self.was(ray, 1 + np.asarray(colour)))

    def mat(self) -> FloatArray:
        """Returns each ray's log-likelihood of showing the ground (as in the last frame where it did)."""
        every = np.arange(len(self.ground))
        return self.kept(self.ground, every, self.was(every, np.asarray(GROUND)))

    def was(self, ray: IntArray, kind: IntArray) -> BoolArray:
        """Tells which rays showed a surface of this kind in the last frame."""
        if self.before is None:
            return np.zeros(np.broadcast(ray, kind).shape, np.bool_)
        return np.asarray(self.before[ray] == kind, np.bool_)

    def kept(self, fresh: FloatArray, ray: IntArray, old: BoolArray) -> FloatArray:
        """Returns log-likelihoods: the last frame's where the surface looks as it did and that
        frame is trusted there, else the fresh ones."""
        if self.same is None:
            return fresh
        same = self.same[ray]
        return np.asarray(np.where(old & np.isfinite(same), same, fresh), np.float64)


def student_looks(memory: BlockBlockMemory, colours: FloatArray, plain: BoolArray, noise: tuple[float, float],
                  same: FloatArray | None, before: IntArray | None) -> Looks:
    """Returns the looks: the mat (lit or shadowed), each top, each side colour at any shade."""
    mat = np.where(plain, loglik(shaded_d2(colours, memory.lab("mat"), noise, lit(SHADE_D2)), noise),
                   loglik(UNKNOWN_D2, noise))
    top = np.vstack([loglik(shaded_d2(colours, memory.lab(name), noise, lit(TOP_SHADE_D2)), noise) for name in TOPS])
    side = np.vstack([loglik(shaded_d2(colours, memory.lab(name), noise, (MIN_SHADE, 1.0, 0.0)) + SIDE_D2, noise)
                      for name in TOPS])
    return Looks(np.asarray(mat, np.float64), np.vstack([top, top.max(axis=0)]), np.vstack([side, side.max(axis=0)]),
                 same, before)


def kinds(seen: Surfaces, tops: list[str]) -> IntArray:
    """Returns the kind of surface each ray shows under the position (GROUND, 1 + a top colour,
    -1 a side or half's top)."""
    colour = np.array([1 + TOPS.index(top) if top in TOPS else -1 for top in tops] + [-1], np.int64)
    column = np.where((seen.code >= 100) & (seen.code < 1000), seen.code - 100, len(tops))
    return np.asarray(np.where(seen.code < 0, GROUND, colour[column]), np.int64)


def same_looks(now: FloatArray, before: FloatArray, trusted: BoolArray, noise: tuple[float, float]) -> FloatArray:
    """Returns each ray's log-likelihood of showing what it showed in the last frame (a new
    shadow may dim it), NaN where that frame is not trusted. Its tighter density keeps the
    prototypes' floor (their least log-likelihood), so a colour that changed costs no less than
    against a prototype it does not match."""
    sigma = (max(SAME_FLOOR[0], math.sqrt(2) * noise[0]), max(SAME_FLOOR[1], math.sqrt(2) * noise[1]))
    found = np.maximum(loglik(shaded_d2(now, before, sigma, SAME_SHADE), sigma, math.inf),
                       loglik(MAX_D2, floored(noise)))
    return np.asarray(np.where(trusted, found, np.nan), np.float64)


# -- calibration -------------------------------------------------------------------------------


def plain_ground(scene: Scene, ground: FloatArray, tolerance_mm: float) -> BoolArray:
    """Tells which rays meet plain printed mat (no marker, grid line allowed) within a pose error."""
    points = ground[:, None, :] + JITTER[None, :, :] * tolerance_mm
    found = printed(scene.kit, scene.mat).at(points.reshape(-1, 2)).reshape(len(ground), len(JITTER))
    return np.asarray(np.all(found <= 1, axis=1), np.bool_)


def ray_colours(scene: Scene, ground: FloatArray) -> FloatArray:
    """Returns the Lab colours where rays meet the mat (balanced against the mat's margin)."""
    return scene.lab_at(scene.view.to_image(ground))


@dataclass(frozen=True, slots=True)
class Surfaces:
    """What each ray shows under the position: -1 the plain mat, -2 other ground, 100 + c the
    top of column c, 1000 + c its side; and whether it surely does (away from the footprints'
    and the printed parts' edges)."""

    code: IntArray
    sure: BoolArray


def surfaces(rays: Rays, hits: Hits, plain: BoolArray) -> Surfaces:
    """Returns the surfaces the position shows (hits: under the position)."""
    found = np.where(plain, -1, -2)
    met = np.nonzero(hits.pair >= 0)[0]
    pair = hits.pair[met]
    found[met] = np.where(rays.high[pair] >= hits.z[met] + 1e-9, 100, 1000) + rays.col[pair]
    return Surfaces(found, interior(found, rays.grid.shape, INTERIOR_STEPS))


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
    """Returns the noise sigmas (lightness, chroma) from differences between neighbouring mat
    rays (0 when too few)."""
    grid, inside = colours.reshape(*shape, 3), mat.reshape(shape)
    both = inside[:, 1:] & inside[:, :-1]
    if int(both.sum()) < MIN_RAYS:
        return (0.0, 0.0)
    spread = 1.4826 / math.sqrt(2.0) * np.median(np.abs(grid[:, 1:] - grid[:, :-1])[both], axis=0)
    return (float(spread[0]), float(spread[1:].mean()))


def per_group(colours: FloatArray, groups: IntArray, least: int = 4) -> FloatArray:
    """Returns each big enough group's median colour, all at the lightness of the brighter groups."""
    order = np.argsort(groups, kind="stable")
    _, starts, counts = np.unique(groups[order], return_index=True, return_counts=True)
    medians = [np.median(chunk, axis=0) for chunk, count in zip(np.split(colours[order], starts[1:]), counts)
               if count >= least]
    found = np.asarray(medians, np.float64).reshape(-1, 3)
    if len(found):
        found[:, 0] = np.percentile(found[:, 0], LIT_QUANTILE)
    return found


def exposure(memory: BlockBlockMemory, colours: FloatArray, mat: BoolArray) -> float:
    """Returns the factor that brings the lit mat (an upper quantile) to its nominal lightness."""
    if int(mat.sum()) < MIN_RAYS:
        return 1.0
    found = float(np.percentile(colours[mat, 0], LIT_QUANTILE))
    return float(np.clip(memory.nominal["mat"][0] / max(found, 1.0), 0.5, 2.0))


def calibrate(memory: BlockBlockMemory, rays: Rays, seen: Surfaces, colours: FloatArray,
              tops: list[str]) -> tuple[float, tuple[float, float]]:
    """Returns the exposure factor and the noise of the colours; learns prototypes inside known
    surfaces (tops: each column's top colour), a top's only from rays its prototype explains
    (a neighbour's cube or side seen over it would pull it towards another colour)."""
    inner = seen.sure
    mat = inner & (seen.code == -1)
    factor = exposure(memory, colours, mat)
    colours = colours * factor
    tiles = np.floor(rays.grid.ground[mat] / MAT_TILE_MM).astype(np.int64) @ np.array([1, 100003])
    memory.learn("mat", per_group(colours[mat], tiles))
    noise = noise_sigma(colours, mat, rays.grid.shape)
    for name in TOPS:
        chosen = inner & np.isin(seen.code, [100 + c for c, top in enumerate(tops) if top == name])
        chosen &= shaded_d2(colours, memory.lab(name), floored(noise), lit(TOP_SHADE_D2)) <= TRUSTED_D2
        memory.learn(name, per_group(colours[chosen], seen.code[chosen]))
    return factor, noise


def floored(noise: tuple[float, float]) -> tuple[float, float]:
    """Returns noise sigmas raised to the floor the prototypes need."""
    return (max(NOISE_FLOOR[0], noise[0]), max(NOISE_FLOOR[1], noise[1]))


def trusted(memory: BlockBlockMemory, rays: Rays, before: FloatArray, seen: Surfaces, tops: list[str],
            noise: tuple[float, float]) -> BoolArray:
    """Tells which rays' colours in the last frame the position explains (well inside its
    surface: a side, a marker, or the mat or a top, lit or shadowed, within TRUSTED_D2), so a
    change the reading missed is never taken for part of the scene."""
    lab = np.tile(memory.lab("mat"), (len(before), 1))
    for column, top in enumerate(tops):
        if top in TOPS:
            lab[seen.code == 100 + column] = memory.lab(top)
    explained = shaded_d2(before, lab, noise, lit(TOP_SHADE_D2)) <= TRUSTED_D2
    return np.asarray(seen.sure & ((seen.code >= 1000) | (seen.code == -2) | explained), np.bool_)
