"""Tests of tracking a pyramid's top between two frames (vision.observe.heights) on synthetic
pictures: a known shift is found, what a candidate predicts is what tracking would measure, the
frame's noise is read from the cells, and the geometry of rises matches a pyramid's."""

from __future__ import annotations

import numpy as np
import pytest

from vision.observe.heights import (
    STILL_SPREAD, Picture, Shift, calibrated, heights_at, predict, seen_at, shift_of, track,
)
from vision.observe.stacks import block

SIZE = 64


def ridges(shift: tuple[float, float] = (0.0, 0.0), noise: float = 0.0, seed: int = 0) -> Picture:
    """Returns a picture of soft ridges crossing at a point (as a pyramid's seen from above),
    moved by a shift, with some noise."""
    ys, xs = np.mgrid[0:SIZE, 0:SIZE].astype(np.float64)
    x, y = xs - 32.0 - shift[0], ys - 30.0 - shift[1]
    lightness = 50.0 + 12.0 * np.tanh((x + y) / 2.0) + 8.0 * np.tanh((x - y) / 2.0) + 5.0 * np.tanh(x / 3.0)
    rng = np.random.default_rng(seed)
    return Picture(np.asarray(lightness + noise * rng.standard_normal(lightness.shape), np.float32))


def spots() -> np.ndarray:
    """Returns pixels over the middle of the pictures."""
    ys, xs = np.mgrid[20:44:0.7, 20:44:0.7]
    return np.column_stack([xs.ravel(), ys.ravel()])


@pytest.mark.parametrize("shift", [(0.0, 0.0), (0.3, -0.2), (-1.2, 0.8)])
def test_a_known_shift_is_tracked(shift: tuple[float, float]) -> None:
    found = track(ridges(), ridges(shift), spots())
    assert found is not None
    assert found.delta == pytest.approx(shift, abs=0.05)


def test_too_few_samples_or_a_lost_track_give_nothing() -> None:
    assert track(ridges(), ridges(), spots()[:5]) is None
    assert track(ridges(), ridges((9.0, 0.0)), spots()) is None


def test_a_uniform_motion_predicts_itself_and_none_predicts_no_shift() -> None:
    pixels = spots()
    still, small, large, unasked = predict(ridges(), pixels, [
        np.zeros((len(pixels), 2)), np.tile([0.3, -0.2], (len(pixels), 1)),
        np.tile([1.5, -1.0], (len(pixels), 1)), None])
    assert still == pytest.approx([0.0, 0.0]) and unasked is None
    assert small == pytest.approx([0.3, -0.2], abs=0.03)
    assert large == pytest.approx([1.5, -1.0], abs=0.05)


def test_a_motion_of_part_of_the_top_predicts_less_than_that_motion() -> None:
    pixels = spots()
    near = np.hypot(pixels[:, 0] - 32.0, pixels[:, 1] - 30.0) < 6.0
    motion = np.where(near[:, None], [1.6, 0.0], [0.0, 0.0])
    predicted = predict(ridges(), pixels, [motion])[0]
    assert predicted is not None and 0.1 < predicted[0] < 1.6 and abs(predicted[1]) < 0.2


def test_the_likelihood_prefers_the_candidate_that_predicts_the_shift() -> None:
    found = track(ridges(noise=1.0, seed=1), ridges((0.6, 0.0), noise=1.0, seed=2), spots())
    assert found is not None
    shift = shift_of(found, [np.zeros(2), np.array([0.6, 0.0]), np.array([-0.6, 0.0]), None])
    scores = [shift.log_likelihood(index) for index in range(4)]
    assert scores[1] > scores[0] > scores[2] and scores[3] == 0.0


def test_the_frame_noise_scales_every_cell_up_never_down() -> None:
    still = Shift(np.array([0.3, 0.0]), np.eye(2) * 0.01, np.zeros((1, 2)))
    cells = {f"c{index}": [still] for index in range(6)}
    scaled = calibrated(cells)
    spread = 0.3 ** 2 / 0.01 / STILL_SPREAD
    assert scaled["c0"][0] is not None and scaled["c0"][0].covariance == pytest.approx(np.eye(2) * 0.01 * spread)
    quiet = {key: [Shift(np.zeros(2), np.eye(2), np.zeros((1, 2)))] for key in cells}
    kept = calibrated(quiet)["c0"][0]
    assert kept is not None and kept.covariance == pytest.approx(np.eye(2))
    alone = calibrated({"a1": [still]})["a1"][0]  # too few cells to measure the noise
    assert alone is not None and alone.covariance == pytest.approx(still.covariance)


def test_a_pyramids_surface_and_the_point_a_ray_sees() -> None:
    pyramid = block(20.0, 20.0, 0.0, (25.0, 25.0, 44.0), True, 0)[None, :]
    spots_mm = np.array([[20.0, 20.0], [26.25, 20.0], [40.0, 20.0]])
    assert heights_at(pyramid, spots_mm) == pytest.approx([44.0, 22.0, 0.0])
    seen = seen_at(np.array([[0.0, 0.0]]), np.array([50.0]), (100.0, 0.0, 500.0))
    assert seen[0] == pytest.approx([10.0, 0.0])
