"""BLOCK.BLOCK's camera place: where the camera centre is, from the position's parallax.

A homography of the mat seen from nearly straight above leaves the focal length and the camera's
height tied: every focal length gives a camera centre that explains it (vision.pose.
place_for_focal), higher for a longer lens. The position's columns, whose heights the referee
knows, choose along that family: the family is scored across KIT.md's fields of view (a little
beyond), then the best centre is searched for around it (a simplex search: the lens's
distortion puts the true centre a little off the family, on a narrow curved ridge of the
score), and the spread of the tempered scores along the family gives the doubt, in log focal
length, that the reading averages over. Each view's fits are averaged, weighted by their
precision, the doubt widened where they disagree (merged, block_block.remember_place). With no
cube on the board the place is the one the homography alone implies where the camera leans
enough off straight down for it to tell the focal length (vision.pose.homography_focal), doubted
by how far the markers' misfit moves it, else the family's middle doubting the whole envelope;
the fits on pieces do not weigh it in (pulled towards it, the fits read realistic renders worse:
they make up for the reading model's own leanings, so the truer place is not the better one for
later reads). A lens calibration fixes the place outright; so, nearly, does a homography made
through the distortion the markers tell (block_block.LENS_NEEDS_FOCAL) once it tells the focal
length (vision.pose.focal_told): the place is its, doubted by its spread, and never fitted on pieces.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

from vision.board import BoardView
from vision.observe.block_block_rays import FloatArray
from vision.pose import CameraPlace, focal_from_hfov, focal_spread, homography_focal, place_for_focal, told_focal

FAMILY_HFOV = (75.0, 45.0)  # the fields of view the lens is looked for between (KIT.md: 50-70)
FAMILY_SAMPLES = 9
XY_SIGMA_MM = 30.0  # how far sideways of the family the place may lie (lens distortion, noise)
SIMPLEX_MM, SIMPLEX_ROUNDS = (20.0, 20.0, 40.0), 25  # the centre search's first steps (x, y, z), rounds
DOUBT = (0.02, 0.3)  # the least and most doubt, in log focal length
PLACE_TEMPERATURE = 15.0  # rays per independent look when scoring places
LENS_DOUBT = 0.05  # the doubt (log focal length) of the focal length the homography implies, over
                   # how far its corners' misfit moves it (vision.pose.focal_spread): lens
                   # distortion biases it (realistic renders across KIT.md's envelope: within 8 %)


@dataclass(frozen=True, slots=True)
class Placing:
    """A camera place on a view's focal family: the log focal length (over the homography's
    own), the sideways offset in mm, and the doubt in log focal length."""

    focal: float
    offset: tuple[float, float]
    doubt: float


def family_place(view: BoardView, anchor: CameraPlace, focal: float, offset: tuple[float, float]) -> CameraPlace:
    """Returns the place on the view's family at a log focal length over the anchor's, moved sideways."""
    if view.lens_known:
        return anchor
    base = place_for_focal(view, anchor.focal_px * math.exp(focal))
    return CameraPlace((base.centre[0] + offset[0], base.centre[1] + offset[1], base.centre[2]), base.focal_px)


def placed(view: BoardView, anchor: CameraPlace, placing: Placing, shift: float = 0.0) -> CameraPlace:
    """Returns a placing's camera place, its focal length moved by a share of its doubt."""
    return family_place(view, anchor, placing.focal + shift * placing.doubt, placing.offset)


def family_range(view: BoardView, anchor: CameraPlace) -> tuple[float, float]:
    """Returns the log focal lengths (over the anchor's) the family spans."""
    width = view.frame_size[0]
    return (math.log(focal_from_hfov(width, FAMILY_HFOV[0]) / anchor.focal_px),
            math.log(focal_from_hfov(width, FAMILY_HFOV[1]) / anchor.focal_px))


def lens_prior(view: BoardView, anchor: CameraPlace) -> tuple[float, float] | None:
    """Returns the log focal length (over the anchor's) the homography implies and its doubt,
    or None when it does not tell (a lens calibration given, a view too nearly straight down)."""
    focal = homography_focal(view) if not view.lens_known else None
    if focal is None:
        return None
    doubt = math.hypot(LENS_DOUBT, focal_spread(view))
    return (math.log(focal / anchor.focal_px), doubt) if doubt < DOUBT[1] else None


def told(view: BoardView, anchor: CameraPlace) -> Placing | None:
    """Returns the placing the homography tells through the lens the markers tell (its focal
    length, doubted by its spread), or None when there is no such lens or it does not tell."""
    focal = told_focal(view) if view.calibration is not None and not view.lens_known else None
    return None if focal is None else Placing(math.log(focal / anchor.focal_px), (0.0, 0.0),
                                              max(focal_spread(view), DOUBT[0]))


def unknown(view: BoardView, anchor: CameraPlace) -> Placing:
    """Returns the placing before any piece was seen: the one told through the markers' lens,
    the lens prior, or else the middle of the family, doubting it all."""
    if view.lens_known:
        return Placing(0.0, (0.0, 0.0), DOUBT[0])
    placing = told(view, anchor)
    if placing is not None:
        return placing
    prior = lens_prior(view, anchor)
    if prior is not None:
        return Placing(prior[0], (0.0, 0.0), max(prior[1], DOUBT[0]))
    low, high = family_range(view, anchor)
    return Placing((low + high) / 2, (0.0, 0.0), DOUBT[1])


def fit(view: BoardView, anchor: CameraPlace, score: Callable[[CameraPlace], float]) -> Placing:
    """Returns the placing whose camera place scores best (score: log-likelihood of the rays):
    the best of the family, then the best centre around it; its doubt the spread of the tempered
    scores along the family; the placing told through the markers' lens, when there is one."""
    if view.lens_known:
        return Placing(0.0, (0.0, 0.0), DOUBT[0])
    placing = told(view, anchor)
    if placing is not None:
        return placing
    low, high = family_range(view, anchor)
    grid = np.linspace(low, high, FAMILY_SAMPLES)
    curve = np.array([score(family_place(view, anchor, float(g), (0.0, 0.0))) for g in grid])
    best = float(grid[int(np.argmax(curve))])
    origin = np.array(family_place(view, anchor, best, (0.0, 0.0)).centre)

    def cost(centre: FloatArray) -> float:
        """Returns how badly a camera centre fits (nats, tempered), its sideways prior included."""
        prior = float(((centre[:2] - origin[:2]) ** 2).sum()) / (2 * XY_SIGMA_MM ** 2)
        return prior - score(CameraPlace((float(centre[0]), float(centre[1]), float(centre[2])),
                                         anchor.focal_px)) / PLACE_TEMPERATURE

    found = nelder_mead(cost, origin, np.array(SIMPLEX_MM), SIMPLEX_ROUNDS)
    focal = best + math.log(found[2] / origin[2])
    back = family_place(view, anchor, focal, (0.0, 0.0)).centre
    return Placing(focal, (float(found[0] - back[0]), float(found[1] - back[1])), spread(grid, curve))


def merged(kept: Placing | None, precision: float, placing: Placing) -> tuple[Placing, float]:
    """Returns a view's placings merged and their precision: the mean of the kept one (of a
    precision, the sum of its fits') and a new one weighted by precision (1 / doubt squared, so a
    fit on a few flat cubes barely moves a surer one), its doubt the new one's widened by how far
    the new one lies from the mean (fits that disagree leave the place in doubt)."""
    own = 1.0 / placing.doubt ** 2
    if kept is None:
        return placing, own
    share = own / (own + precision)
    offset = tuple(float(a + share * (b - a)) for a, b in zip(kept.offset, placing.offset))
    focal = kept.focal + share * (placing.focal - kept.focal)
    doubt = min(math.hypot(placing.doubt, placing.focal - focal), DOUBT[1])
    return Placing(focal, (offset[0], offset[1]), doubt), precision + own


def nelder_mead(cost: Callable[[FloatArray], float], start: FloatArray, size: FloatArray, rounds: int) -> FloatArray:
    """Returns the point near a start where a cost is least, by Nelder and Mead's simplex search
    (it follows the narrow curved ridge a camera centre's fit makes, where a search along the
    axes stalls)."""
    points = [start] + [start + size * np.eye(len(start))[axis] for axis in range(len(start))]
    values = [cost(point) for point in points]
    for _ in range(rounds):
        order = np.argsort(values)
        points, values = simplex_step(cost, [points[i] for i in order], [values[i] for i in order])
    return np.asarray(points[int(np.argmin(values))], np.float64)


def simplex_step(cost: Callable[[FloatArray], float], points: list[FloatArray],
                 values: list[float]) -> tuple[list[FloatArray], list[float]]:
    """Returns a simplex (best first) after one step: its worst point reflected, expanded or
    contracted through the others' middle, or the whole simplex shrunk towards its best."""
    middle = np.mean(points[:-1], axis=0)
    reflected = middle + (middle - points[-1])
    value = cost(reflected)
    if value < values[0]:
        expanded = middle + 2.0 * (middle - points[-1])
        grown = cost(expanded)
        return points[:-1] + [expanded if grown < value else reflected], values[:-1] + [min(grown, value)]
    if value < values[-2]:
        return points[:-1] + [reflected], values[:-1] + [value]
    inner = middle + 0.5 * (points[-1] - middle)
    shrunk = cost(inner)
    if shrunk < values[-1]:
        return points[:-1] + [inner], values[:-1] + [shrunk]
    moved = [points[0] + 0.5 * (point - points[0]) for point in points]
    return moved, [values[0]] + [cost(point) for point in moved[1:]]


def spread(grid: FloatArray, curve: FloatArray) -> float:
    """Returns the standard deviation of log focal length under the tempered scores, bounded."""
    weights = np.exp((curve - curve.max()) / PLACE_TEMPERATURE)
    weights /= weights.sum()
    mean = float(weights @ grid)
    return float(np.clip(math.sqrt(float(weights @ (grid - mean) ** 2)), *DOUBT))
