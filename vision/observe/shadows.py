"""The shadows pyramids cast on the mat, and what a stack growing or shrinking does to them.

A taller stack casts a longer shadow: wherever the camera stands, even straight above a cell
(where no parallax shows), one more pyramid nested on a stack pushes its shadow's tip further
across the mat. The lights are read off the frame the referee's position explains: each light is
a direction (how far a shadow reaches per mm of its caster's height, across the board), a softness
(the blur of its shadows' edges) and a depth (the lightness a full shadow takes off the mat). A
light's shadows are the union of every pyramid's shadow (the hull of its base and apex pushed
along the light onto the mat; a translucent pyramid blocks a share of the light), blurred. The
mat's lit lightness is a smooth field; each light's direction and softness are searched on a
grid and refined, its depth and the field fitted by least squares; a second light is kept only
when it explains much more.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Mapping, Sequence

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.observe.calibrate import cubic_basis
from vision.observe.stack_colours import FloatArray, IntArray
from vision.observe.stacks import HALF, HEIGHT, X, Y, Z0

RASTER_MM = 1.5  # the shadows are drawn at this many mm per raster pixel
AA_MM = 2 * RASTER_MM  # a drawn outline's smoothed edge reaches this far
BLUR_REACH = 4.0  # a blur reaches this many sigmas (OpenCV's kernel for float images)
REACH_LIMIT = 2.0  # the longest shadow per mm of height (a light 27 degrees above the mat)
TURNS = 16  # light directions tried round the board ...
SLOPES = (0.1, 0.3, 0.5, 0.8, 1.2, 1.7)  # ... at these reaches (mm of shadow per mm of height)
SOFTNESS_MM = (2.0, 5.0, 9.0, 14.0)  # shadow blurs tried (sigma)
REFINE = (0.12, 0.06, 0.03)  # refinement steps of the reach (mm per mm)
FIELD_TERMS = 6  # the lit mat is a quadratic field
SECOND_GAIN = 0.15  # a second light must take this share off the first's misfit to be kept
LEAST_DEPTH = 2.0  # a light whose full shadow darkens the mat less than this (sRGB value) is no light
ROOM = 0.5  # a predicted rise may be off by this share of its size (the lights are fitted)
FLOOR_MM = 0.5  # the least spread of a rise read from a shadow (another cell's shadow changing)
TAILS = 3.0  # a rise is read with Student's t of this many degrees of freedom: the fitted lights
             # and shadows falling on pieces (not on the mat) make some cells' reading far off
CORRELATION = 2.0  # neighbouring mat samples share noise (blur, JPEG): each counts this much less
STILL_SPREAD = 0.455  # the median squared distance (in spreads) of a rise that is only noise
LEAST_CELLS = 5  # cells needed to measure the frame's noise from them
RIDGE = 1e-3  # keeps the joint fit of the cells' rises steady where a shadow barely shows


@dataclass(frozen=True, slots=True)
class Light:
    """One light as its shadows show it: how far (board mm, x and y) a shadow reaches per mm of
    its caster's height, the blur of its edges (sigma, mm) and the lightness it takes off the mat."""

    reach: tuple[float, float]
    softness_mm: float
    depth: float


@dataclass(frozen=True, slots=True)
class Casters:
    """The pyramids that cast shadows (rows as vision.observe.stacks' solids) and how much light
    each stops (1 opaque, less for a translucent one)."""

    blocks: FloatArray
    opacity: FloatArray


@dataclass(frozen=True, slots=True)
class Window:
    """A patch of the board the shadows are drawn on: its lower corner (mm) and size (pixels)."""

    corner: tuple[float, float]
    size: tuple[int, int]

    def pixels(self, points: FloatArray) -> FloatArray:
        """Returns the raster pixels (x, y) of board points."""
        return np.asarray((np.asarray(points, np.float64) - self.corner) / RASTER_MM, np.float64)


def window_around(points: FloatArray, margin_mm: float, snapped: bool = False) -> Window:
    """Returns the window that holds some board points with a margin (its corner on the board's
    raster lattice if snapped, so that any two such windows draw alike)."""
    low = points.min(axis=0) - margin_mm
    low = np.floor(low / RASTER_MM) * RASTER_MM if snapped else low
    high = points.max(axis=0) + margin_mm
    size = np.ceil((high - low) / RASTER_MM).astype(int) + 1
    return Window((float(low[0]), float(low[1])), (int(size[0]), int(size[1])))


def shade(casters: Casters, reach: tuple[float, float], softness_mm: float, window: Window,
          points: FloatArray) -> FloatArray:
    """Returns how much of one light each board point loses to the casters' shadows (0 to 1)."""
    return sampled(blurred(raster(casters, reach, window), softness_mm), window, points)


def raster(casters: Casters, reach: tuple[float, float], window: Window) -> NDArray[np.float32]:
    """Returns the casters' sharp shadows of one light drawn over a window (a pyramid over those
    drawn before it: the share of the light it stops)."""
    return _drawn(window.pixels(outlines_of(casters.blocks, reach)), casters.opacity, window)


def _drawn(outlines: FloatArray, opacity: FloatArray, window: Window) -> NDArray[np.float32]:
    """Returns shadow outlines (raster pixels) drawn over a window in turn, each its opacity."""
    mask = np.zeros((window.size[1], window.size[0]), np.float32)
    for outline, share in zip(np.round(outlines * 16).astype(np.int32), opacity.tolist()):
        cv2.fillConvexPoly(mask, outline, share, cv2.LINE_AA, 4)
    return mask


def blurred(mask: NDArray[np.float32], softness_mm: float) -> NDArray[np.float32]:
    """Returns a drawn shadow blurred as a light of some softness blurs it."""
    return np.asarray(cv2.GaussianBlur(mask, (0, 0), max(softness_mm / RASTER_MM, 0.5)), np.float32)


def sampled(shadow: NDArray[np.float32], window: Window, points: FloatArray) -> FloatArray:
    """Returns a drawn shadow at board points (bilinear; none outside the window)."""
    if not len(points):
        return np.zeros(0)  # OpenCV's remap refuses an empty map
    spots = window.pixels(points).astype(np.float32).reshape(1, -1, 2)
    found = cv2.remap(shadow, spots[..., 0], spots[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
    return np.asarray(found.ravel(), np.float64)


def overlapping(first: FloatArray, second: FloatArray) -> NDArray[np.bool_]:
    """Tells which of some shadow outlines (board mm) may touch which of others, once drawn
    (their boxes, widened by a drawn edge, overlap): F x S."""
    low, high = first.min(axis=1) - AA_MM, first.max(axis=1) + AA_MM
    over = (second.max(axis=1)[None] >= low[:, None]) & (second.min(axis=1)[None] <= high[:, None])
    return np.asarray(over[..., 0] & over[..., 1], np.bool_)


def within(points: FloatArray, low: FloatArray, high: FloatArray) -> IntArray:
    """Returns the indices of the board points inside a box (its lower and upper corners)."""
    x, y = points[:, 0], points[:, 1]
    return np.flatnonzero((x >= low[0]) & (x <= high[0]) & (y >= low[1]) & (y <= high[1]))


def outlines_of(blocks: FloatArray, reach: tuple[float, float]) -> FloatArray:
    """Returns the outline (5 board points in turn, some repeated) of each pyramid's shadow along
    a light: the hull of its base and apex pushed along the light onto the mat."""
    shift = np.asarray(reach, np.float64)
    half = blocks[:, HALF, None]
    centre = blocks[:, [X, Y]] + blocks[:, Z0, None] * shift
    apex = blocks[:, HEIGHT, None] * shift  # from the pushed base's centre
    signs = np.array([[-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, 1.0]])
    corners = signs[None, :, :] * half[:, :, None]
    hidden = ((signs[None, :, 0] * apex[:, None, 0] > half) & (signs[None, :, 1] * apex[:, None, 1] > half))
    corners = np.where(hidden[..., None], apex[:, None, :], corners)
    inside: NDArray[np.bool_] = np.all(np.abs(apex) <= half, axis=1)
    tip = np.where(inside[:, None], corners[:, 0], apex)
    around = np.concatenate([corners, tip[:, None, :]], axis=1)
    order = np.argsort(np.arctan2(around[..., 1], around[..., 0]), axis=1)
    return np.asarray(np.take_along_axis(around, order[..., None], axis=1) + centre[:, None, :], np.float64)


def darkening(lights: Sequence[Light], casters: Casters, window: Window, points: FloatArray) -> FloatArray:
    """Returns the lightness the lights' shadows take off the mat at board points."""
    total = np.zeros(len(points))
    for light in lights:
        total += light.depth * shade(casters, light.reach, light.softness_mm, window, points)
    return total


def added_shadow(lights: Sequence[Light], casters: Casters, added: int, points: FloatArray) -> FloatArray:
    """Returns how much more lightness the lights' shadows take off the mat at board points
    with one of the casters there than without it: drawn only where its sharp shadow falls,
    with the casters whose shadows meet it there, and blurred."""
    total = np.zeros(len(points))
    for light in lights:
        outlines = outlines_of(casters.blocks, light.reach)
        low, high = outlines[added].min(axis=0) - AA_MM, outlines[added].max(axis=0) + AA_MM
        meet = overlapping(outlines[added:added + 1], outlines)[0]
        meet[added] = False
        margin = BLUR_REACH * max(light.softness_mm, 0.5 * RASTER_MM) + AA_MM
        window = window_around(np.array([low, high]), margin, snapped=True)
        near = within(points, np.asarray(window.corner), high + margin)
        pixels = window.pixels(outlines)
        alone = _drawn(pixels[meet], casters.opacity[meet], window)
        meet[added] = True
        change = _drawn(pixels[meet], casters.opacity[meet], window) - alone
        total[near] += light.depth * sampled(blurred(change, light.softness_mm), window, points[near])
    return total


@dataclass(eq=False)
class Fitting:
    """What the lights are fitted to: board points, the mat's lightness there, the lit mat's
    field (basis), the casters, and each light's shade kept as it is drawn (a search tries a
    direction at several softnesses, and twice)."""

    points: FloatArray
    lightness: FloatArray
    basis: FloatArray
    casters: Casters
    window: Window
    rasters: dict[tuple[float, float], NDArray[np.float32]] = field(default_factory=dict)
    shades: dict[tuple[tuple[float, float], float], FloatArray] = field(default_factory=dict)

    def shade(self, reach: tuple[float, float], softness_mm: float) -> FloatArray:
        """Returns how much of one light each point loses to the casters' shadows (kept)."""
        key = (reach, softness_mm)
        if key not in self.shades:
            if reach not in self.rasters:
                self.rasters[reach] = raster(self.casters, reach, self.window)
            self.shades[key] = sampled(blurred(self.rasters[reach], softness_mm), self.window, self.points)
        return self.shades[key]


def fit_lights(points: FloatArray, lightness: FloatArray, casters: Casters, side_mm: float) -> tuple[Light, ...]:
    """Returns the lights (one or two) whose shadows of the casters best explain the mat's
    lightness at board points (none if no shadow shows)."""
    fitting = Fitting(points, lightness, cubic_basis(points, side_mm, FIELD_TERMS), casters, window_around(points, 0.0))
    first, misfit = _search(fitting, [])
    if first is None:
        return ()
    second, better = _search(fitting, [first])
    if second is None or better > misfit * (1 - SECOND_GAIN):
        return _depths(fitting, [first])
    return _depths(fitting, [first, second])


def _shades(fitting: Fitting, lights: Sequence[Light]) -> list[FloatArray]:
    """Returns each light's shade at the points (its depth not applied)."""
    return [fitting.shade(light.reach, light.softness_mm) for light in lights]


def _solve(fitting: Fitting, known: Sequence[FloatArray], trials: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Returns, for each trial column (rows of trials), the least-squares coefficients of the lit
    field, the known columns and it for the lightness (T x M), and the misfit left (T, sums of
    squares)."""
    fixed = np.column_stack([fitting.basis, *known])
    width, count = fixed.shape[1], len(trials)
    normal = np.empty((count, width + 1, width + 1))
    normal[:, :width, :width] = fixed.T @ fixed
    normal[:, :width, width] = normal[:, width, :width] = trials @ fixed
    normal[:, width, width] = np.einsum("tn,tn->t", trials, trials)
    target = np.empty((count, width + 1))
    target[:, :width] = fixed.T @ fitting.lightness
    target[:, width] = trials @ fitting.lightness
    solution = np.linalg.solve(normal + 1e-9 * np.eye(width + 1), target[..., None])[..., 0]
    misfit = (fitting.lightness @ fitting.lightness - 2.0 * np.einsum("tm,tm->t", solution, target)
              + np.einsum("tm,tmk,tk->t", solution, normal, solution))
    return np.asarray(solution, np.float64), np.asarray(np.maximum(misfit, 0.0), np.float64)


def _scored(fitting: Fitting, known: list[FloatArray], trials: Sequence[tuple[tuple[float, float], float]]
            ) -> list[tuple[float, float, tuple[float, float], float]]:
    """Returns how badly each trial light (reach, softness) with the known ones explains the
    lightness, its depth, and the light."""
    if not trials:
        return []
    solution, misfit = _solve(fitting, known, -np.array([fitting.shade(reach, soft) for reach, soft in trials]))
    return [(float(bad), float(depth), reach, soft)
            for bad, depth, (reach, soft) in zip(misfit, solution[:, -1], trials)]


def _search(fitting: Fitting, known: list[Light]) -> tuple[Light | None, float]:
    """Returns the light that, with the known ones, best explains the lightness (its depth
    rough), and the misfit left; None when no light darkens the mat."""
    shades = [-shade for shade in _shades(fitting, known)]
    tried = [((slope * math.cos(turn), slope * math.sin(turn)), softness)
             for turn in np.arange(TURNS) * 2 * math.pi / TURNS for slope in SLOPES for softness in SOFTNESS_MM]
    scores = _scored(fitting, shades, tried)
    misfit, depth, reach, softness = min((s for s in scores if s[1] > LEAST_DEPTH), default=(math.inf, 0.0, (0.0, 0.0), 0.0))
    if not math.isfinite(misfit):
        return None, math.inf
    for step in REFINE:
        for _ in range(4):
            trials = [((reach[0] + dx, reach[1] + dy), soft) for dx, dy in ((step, 0), (-step, 0), (0, step), (0, -step))
                      for soft in (softness,)] + [(reach, softness * 1.2), (reach, softness / 1.2)]
            found = _scored(fitting, shades, [(r, s) for r, s in trials if math.hypot(*r) <= REACH_LIMIT])
            best = min(found, default=(math.inf, 0.0, reach, softness))
            if best[0] >= misfit:
                break
            misfit, depth, reach, softness = best
    return Light(reach, softness, depth), misfit


def _depths(fitting: Fitting, lights: list[Light]) -> tuple[Light, ...]:
    """Returns the lights with their depths fitted together."""
    shades = [-shade for shade in _shades(fitting, lights)]
    solution, _ = _solve(fitting, shades[:-1], np.array(shades[-1:]))
    width = fitting.basis.shape[1]
    return tuple(Light(light.reach, light.softness_mm, float(depth))
                 for light, depth in zip(lights, solution[0, width:]) if depth > LEAST_DEPTH)


def brightness(lightness: FloatArray) -> FloatArray:
    """Returns the sRGB value (0-100) of a grey of some Lab lightness: a shadow takes a share of
    the light off, a share of this value (the camera's gamma keeps it a share)."""
    light = np.asarray(lightness, np.float64)
    linear = np.where(light > 8.0, ((light + 16.0) / 116.0) ** 3, light / 903.3)
    return np.asarray(100.0 * np.where(linear > 0.0031308, 1.055 * np.maximum(linear, 0.0) ** (1 / 2.4) - 0.055,
                                       12.92 * linear), np.float64)


@dataclass(frozen=True, slots=True)
class Darkening:
    """How much taller a cell's stack looks from its shadow (mm of rise: see joint_rises), its
    spread, and the rise of each candidate stack's apex (NaN for a candidate it does not judge)."""

    seen: float
    spread: float
    predicted: FloatArray

    def log_likelihood(self, candidate: int) -> float:
        """Returns the log-likelihood of the rise seen if a candidate stands there now (nats;
        0 for a candidate this does not judge)."""
        return float(self.log_likelihoods()[candidate])

    def log_likelihoods(self) -> FloatArray:
        """Returns the log-likelihood of the rise seen for every candidate (nats; 0 where not judged)."""
        spread = self.spread ** 2 + (ROOM * self.predicted) ** 2 + FLOOR_MM ** 2
        miss = (self.seen - self.predicted) ** 2 / spread
        found = -0.5 * (TAILS + 1) * np.log1p(miss / TAILS) - 0.5 * np.log(spread)
        return np.asarray(np.where(np.isnan(found), 0.0, found), np.float64)


def joint_rises(change: FloatArray, units: Mapping[str, FloatArray], noise: float) -> dict[str, tuple[float, float]]:
    """Returns, per cell, how many mm taller its stack looks and the spread of that, from a change
    of the mat's brightness at some points and the change one mm of rise of each cell's stack
    would make there: one least-squares fit of every cell's rise and an offset at once, so a
    change another cell's shadow explains is not taken for this one's."""
    squares = list(units)
    if not squares:
        return {}
    design = np.column_stack([units[square] for square in squares] + [np.ones(len(change))])
    gram = design.T @ design
    inverse = np.linalg.inv(gram + RIDGE * np.eye(len(squares) + 1))
    solution = inverse @ (design.T @ change)
    residual = change - design @ solution
    spread = max(float(1.4826 * np.median(np.abs(residual))), noise)
    deviations = spread * np.sqrt(np.maximum(np.diag(inverse), 0.0) * CORRELATION)
    return {square: (float(solution[index]), float(deviations[index])) for index, square in enumerate(squares)
            if gram[index, index] > 0.0}


def calibrated_rises(found: Mapping[str, Darkening]) -> dict[str, Darkening]:
    """Returns the rises with their spread scaled to the frame's real noise: most cells do not
    change, so the median of their squared rise in spreads is that of noise alone."""
    if len(found) < LEAST_CELLS:
        return dict(found)
    spread = float(np.median([(item.seen / item.spread) ** 2 for item in found.values()]))
    scale = math.sqrt(max(spread / STILL_SPREAD, 1.0))
    return {square: replace(item, spread=item.spread * scale) for square, item in found.items()}
