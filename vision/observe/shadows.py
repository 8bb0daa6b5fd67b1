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
from dataclasses import dataclass, replace
from typing import Mapping, Sequence

import cv2
import numpy as np

from vision.observe.calibrate import cubic_basis
from vision.observe.stack_colours import FloatArray
from vision.observe.stacks import HALF, HEIGHT, X, Y, Z0

RASTER_MM = 1.5  # the shadows are drawn at this many mm per raster pixel
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


def window_around(points: FloatArray, margin_mm: float) -> Window:
    """Returns the window that holds some board points with a margin."""
    low = points.min(axis=0) - margin_mm
    high = points.max(axis=0) + margin_mm
    size = np.ceil((high - low) / RASTER_MM).astype(int) + 1
    return Window((float(low[0]), float(low[1])), (int(size[0]), int(size[1])))


def shade(casters: Casters, reach: tuple[float, float], softness_mm: float, window: Window,
          points: FloatArray) -> FloatArray:
    """Returns how much of one light each board point loses to the casters' shadows (0 to 1)."""
    mask = np.zeros((window.size[1], window.size[0]), np.float32)
    shift = np.array(reach, np.float64)
    for row, opacity in zip(casters.blocks, casters.opacity):
        corners = _corners(row)
        tops = np.vstack([corners[:, :2] + corners[:, 2:] * shift, [row[X], row[Y]] + (row[Z0] + row[HEIGHT]) * shift])
        hull = cv2.convexHull(window.pixels(tops).astype(np.float32)).reshape(-1, 2)
        cv2.fillConvexPoly(mask, np.round(hull * 16).astype(np.int32), float(opacity), cv2.LINE_AA, 4)
    blurred = cv2.GaussianBlur(mask, (0, 0), max(softness_mm / RASTER_MM, 0.5))
    spots = window.pixels(points).astype(np.float32).reshape(1, -1, 2)
    found = cv2.remap(blurred, spots[..., 0], spots[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
    return np.asarray(found.ravel(), np.float64)


def _corners(row: FloatArray) -> FloatArray:
    """Returns a pyramid's base corners (x, y, z)."""
    half = row[HALF]
    return np.array([[row[X] + sx * half, row[Y] + sy * half, row[Z0]] for sx in (-1, 1) for sy in (-1, 1)])


def darkening(lights: Sequence[Light], casters: Casters, window: Window, points: FloatArray) -> FloatArray:
    """Returns the lightness the lights' shadows take off the mat at board points."""
    total = np.zeros(len(points))
    for light in lights:
        total += light.depth * shade(casters, light.reach, light.softness_mm, window, points)
    return total


def fit_lights(points: FloatArray, lightness: FloatArray, casters: Casters, side_mm: float) -> tuple[Light, ...]:
    """Returns the lights (one or two) whose shadows of the casters best explain the mat's
    lightness at board points (none if no shadow shows)."""
    window = window_around(points, 0.0)
    field = cubic_basis(points, side_mm, FIELD_TERMS)
    first, misfit = _search(points, lightness, casters, window, field, [])
    if first is None:
        return ()
    second, better = _search(points, lightness, casters, window, field, [first])
    if second is None or better > misfit * (1 - SECOND_GAIN):
        return _depths(points, lightness, casters, window, field, [first])
    return _depths(points, lightness, casters, window, field, [first, second])


def _shades(points: FloatArray, casters: Casters, window: Window, lights: Sequence[Light]) -> list[FloatArray]:
    """Returns each light's shade at the points (its depth not applied)."""
    return [shade(casters, light.reach, light.softness_mm, window, points) for light in lights]


def _solve(design: FloatArray, lightness: FloatArray) -> tuple[FloatArray, float]:
    """Returns the least-squares coefficients of a design and the misfit left (sum of squares)."""
    normal = design.T @ design + 1e-9 * np.eye(design.shape[1])
    solution = np.asarray(np.linalg.solve(normal, design.T @ lightness), np.float64)
    return solution, float(np.sum((design @ solution - lightness) ** 2))


def _misfit(points: FloatArray, lightness: FloatArray, casters: Casters, window: Window, field: FloatArray,
            known: list[FloatArray], reach: tuple[float, float], softness: float) -> tuple[float, float]:
    """Returns how badly a light (with the ones known) explains the lightness, and its depth."""
    shaded = shade(casters, reach, softness, window, points)
    solution, misfit = _solve(np.column_stack([field, *known, -shaded]), lightness)
    return misfit, float(solution[-1])


def _search(points: FloatArray, lightness: FloatArray, casters: Casters, window: Window, field: FloatArray,
            known: list[Light]) -> tuple[Light | None, float]:
    """Returns the light that, with the known ones, best explains the lightness (its depth
    rough), and the misfit left; None when no light darkens the mat."""
    shades = [-shade for shade in _shades(points, casters, window, known)]
    tried = [((slope * math.cos(turn), slope * math.sin(turn)), softness)
             for turn in np.arange(TURNS) * 2 * math.pi / TURNS for slope in SLOPES for softness in SOFTNESS_MM]
    scores = [(*_misfit(points, lightness, casters, window, field, shades, reach, softness), reach, softness)
              for reach, softness in tried]
    misfit, depth, reach, softness = min((s for s in scores if s[1] > LEAST_DEPTH), default=(math.inf, 0.0, (0.0, 0.0), 0.0))
    if not math.isfinite(misfit):
        return None, math.inf
    for step in REFINE:
        for _ in range(4):
            trials = [((reach[0] + dx, reach[1] + dy), soft) for dx, dy in ((step, 0), (-step, 0), (0, step), (0, -step))
                      for soft in (softness,)] + [(reach, softness * 1.2), (reach, softness / 1.2)]
            found = [(*_misfit(points, lightness, casters, window, field, shades, r, s), r, s) for r, s in trials
                     if math.hypot(*r) <= REACH_LIMIT]
            best = min(found, default=(math.inf, 0.0, reach, softness))
            if best[0] >= misfit:
                break
            misfit, depth, reach, softness = best
    return Light(reach, softness, depth), misfit


def _depths(points: FloatArray, lightness: FloatArray, casters: Casters, window: Window, field: FloatArray,
            lights: list[Light]) -> tuple[Light, ...]:
    """Returns the lights with their depths fitted together."""
    shades = _shades(points, casters, window, lights)
    solution, _ = _solve(np.column_stack([field, *[-shade for shade in shades]]), lightness)
    return tuple(Light(light.reach, light.softness_mm, float(depth))
                 for light, depth in zip(lights, solution[field.shape[1]:]) if depth > LEAST_DEPTH)


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
        predicted = float(self.predicted[candidate])
        if math.isnan(predicted):
            return 0.0
        spread = self.spread ** 2 + (ROOM * predicted) ** 2 + FLOOR_MM ** 2
        miss = (self.seen - predicted) ** 2 / spread
        return -0.5 * (TAILS + 1) * math.log1p(miss / TAILS) - 0.5 * math.log(spread)


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
