"""A lens's barrel distortion from one frame of the mat's markers, for a camera without a calibration.

Uncorrected, KIT.md's barrel distortion (k1 down to -0.25) moves the frame's corners several
pixels; a homography absorbs most of that on the mat itself but not above it, so a tall piece's
top appears off where the pinhole says (an upright block right under the camera then reads as a
lying one). The markers' twenty corners pin the distortion down: they are fitted with a
homography and one radial term about the frame's middle, x_d = x_u (1 + strength r^2 / w^2) in
pixels (w the frame's width: the same for every focal length, so the focal length stays free),
with each detected marker a little smaller or larger than printed (the detector's corners sit
about 1 % inside the true ones, a bias the strength would otherwise soak up; `distorted` is
OpenCV's five-coefficient model, which the board fix's Calibration uses too). The fit's spread
and a prior across the envelope (PRIOR) give the strength's posterior mean: a mat small in the
frame tells little and is held near the prior, a large one decides alone.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from vision.markers import FloatArray, Markers

PRIOR = (-0.12, 0.12)  # the strength's prior mean and spread (KIT.md: k1 0 to -0.25 at 50-70 degrees
# of horizontal field is a strength of 0 to -0.49; most lenses sit in the first half)
MIN_MARKERS = 4  # markers needed to fit the strength (fewer leave it undetermined)
ITERATIONS = 30
PARAMETERS = 10  # eight of the homography, the strength, the markers' scale
STEP = 1e-6  # the relative step of the numeric derivatives
WORST_PX = 2.0  # a corner off the fitted model by more than this is misread (rendered frames: under 1)
PLAUSIBLE = (-0.8, 0.3)  # a strength told outside these is no lens a mat is seen through (a bad fit)


@dataclass(frozen=True, slots=True)
class Radial:
    """A radial distortion's strength (k1 on a frame-width focal length) and its doubt."""

    strength: float
    doubt: float


def distorted(normalised: FloatArray, coeffs: FloatArray) -> FloatArray:
    """Returns normalised image points (N x 2) moved by OpenCV's radial (k1, k2, k3) and tangential
    (p1, p2) distortion: what cv2.projectPoints does for those five, without its overhead (it
    costs some 40 times a homography's projection)."""
    k1, k2, p1, p2 = (float(value) for value in coeffs[:4])
    k3 = float(coeffs[4]) if len(coeffs) > 4 else 0.0
    x, y = normalised[:, 0], normalised[:, 1]
    r2 = x * x + y * y
    radial = 1.0 + r2 * (k1 + r2 * (k2 + r2 * k3))
    xy = x * y
    return np.column_stack([x * radial + 2.0 * p1 * xy + p2 * (r2 + 2.0 * x * x),
                            y * radial + p1 * (r2 + 2.0 * y * y) + 2.0 * p2 * xy])


def predicted(params: FloatArray, board: FloatArray, centre: FloatArray, width: int) -> FloatArray:
    """Returns where the model with these parameters puts the markers' corners (N x 2) in the frame."""
    homography = np.append(params[:8], 1.0).reshape(3, 3)
    quads = board.reshape(-1, 4, 2)
    middles = quads.mean(axis=1, keepdims=True)
    scaled = (middles + (quads - middles) * (1.0 + params[9])).reshape(-1, 2)
    mapped = np.column_stack([scaled, np.ones(len(scaled))]) @ homography.T
    ideal = (mapped[:, :2] / mapped[:, 2:] - centre) / width
    return np.asarray(centre + distorted(ideal, np.array([params[8], 0.0, 0.0, 0.0])) * width, np.float64)


def linearised(params: FloatArray, board: FloatArray, centre: FloatArray, width: int) -> tuple[FloatArray, FloatArray]:
    """Returns where the model puts the corners (N x 2) and the derivatives of those places
    (flattened) by each parameter (numeric)."""
    base = predicted(params, board, centre, width)
    columns = []
    for index in range(PARAMETERS):
        step = STEP * max(abs(float(params[index])), 1e-3)
        moved = params.copy()
        moved[index] += step
        columns.append((predicted(moved, board, centre, width).ravel() - base.ravel()) / step)
    return base, np.column_stack(columns)


def fit_strength(board: FloatArray, seen: FloatArray, homography: FloatArray,
                 size: tuple[int, int]) -> tuple[float, float, float] | None:
    """Returns the least-squares strength, its standard error and the worst corner's misfit
    (pixels; Levenberg-Marquardt from a homography of the corners), or None when degenerate."""
    width, height = size
    centre = np.array([(width - 1) / 2.0, (height - 1) / 2.0])
    params = np.concatenate([(homography / homography[2, 2]).ravel()[:8], [0.0, 0.0]])
    damping = 1e-3
    places, slopes = linearised(params, board, centre, width)
    error = float(((places - seen) ** 2).sum())
    for _ in range(ITERATIONS):
        normal = slopes.T @ slopes
        try:
            step = np.linalg.solve(normal + damping * np.diag(np.diag(normal)), -slopes.T @ (places - seen).ravel())
        except np.linalg.LinAlgError:
            return None
        trial = float(((predicted(params + step, board, centre, width) - seen) ** 2).sum())
        if trial < error:
            params, error, damping = params + step, trial, damping / 3
            places, slopes = linearised(params, board, centre, width)  # a refused step leaves both as they are
        else:
            damping *= 5
    spread = spread_of(slopes, error, float(params[8]))
    worst = float(np.sqrt(((places - seen) ** 2).sum(axis=1).max()))
    return None if spread is None else (*spread, worst)


def spread_of(slopes: FloatArray, error: float, strength: float) -> tuple[float, float] | None:
    """Returns the strength and its standard error from the fit's derivatives and squared misfit."""
    free = slopes.shape[0] - PARAMETERS
    try:
        covariance = np.linalg.inv(slopes.T @ slopes) * error / free
    except np.linalg.LinAlgError:
        return None
    variance = float(covariance[8, 8])
    if not (math.isfinite(strength) and math.isfinite(variance) and variance > 0):
        return None
    return strength, math.sqrt(variance)


def estimate_radial(board: Markers, seen: Markers, homography: FloatArray,
                    size: tuple[int, int]) -> Radial | None:
    """Returns the distortion the seen markers' corners tell (the posterior over PRIOR), given the
    board's corners (mm) and a homography of them; None when too few markers are seen, a corner
    misses the fitted model by more than WORST_PX (a misread marker) or the fit is implausible."""
    used = sorted(set(board) & set(seen))
    if len(used) < MIN_MARKERS:
        return None
    found = fit_strength(np.vstack([board[key] for key in used]), np.vstack([seen[key] for key in used]),
                         homography, size)
    if found is None or found[2] > WORST_PX:
        return None
    strength, error, _ = found
    weight, prior_weight = 1.0 / error ** 2, 1.0 / PRIOR[1] ** 2
    mean = (strength * weight + PRIOR[0] * prior_weight) / (weight + prior_weight)
    if not PLAUSIBLE[0] <= mean <= PLAUSIBLE[1]:
        return None
    return Radial(mean, 1.0 / math.sqrt(weight + prior_weight))
