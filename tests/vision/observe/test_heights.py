"""Tests of tracking a pyramid's top between two frames (vision.observe.heights) on synthetic
pictures: a known shift is found, an edge's texture is tracked across it, what a candidate
predicts is what tracking would measure, the frame's noise is read from the cells, and the
geometry of rises and of the rays that may meet a stack matches a pyramid's."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from vision.observe.heights import (
    MOST_PX, SCALES, STILL_SPREAD, Picture, Shift, calibrated, heights_at, most_shift, passes_over, predict,
    predict_all, seen_at, shift_of, template, track, track_all,
)
from vision.observe.stacks import block, cast

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
    found = track(template(ridges(), spots()), ridges(shift))
    assert found is not None
    assert found.delta == pytest.approx(shift, abs=0.05)


def test_too_few_samples_or_a_lost_track_give_nothing() -> None:
    assert track(template(ridges(), spots()[:5]), ridges()) is None
    assert track(template(ridges(), spots()), ridges((9.0, 0.0))) is None


@pytest.mark.parametrize("wall_mm, found", [(0.8, False), (1.5, False), (3.0, True)])
def test_thicker_pyramids_rise_further_so_a_longer_shift_is_still_followed(wall_mm: float, found: bool) -> None:
    assert most_shift(wall_mm) == MOST_PX * max(1.0, wall_mm / 1.5)
    shifted = replace(ridges((5.0, 0.0)), most_px=most_shift(wall_mm))
    tracked = track(template(ridges(), spots()), shifted)
    assert (tracked is not None) == found
    assert tracked is None or tracked.delta == pytest.approx([5.0, 0.0], abs=0.05)


def test_templates_tracked_together_each_get_their_own_shift_and_a_lost_one_spoils_none() -> None:
    after = ridges((0.4, -0.3), noise=1.0, seed=3)  # noisy: each fit's residual sets its covariance
    pixels = spots()
    firsts = [template(ridges(), pixels[:200]), template(ridges(), pixels[:5]), template(ridges((-4.5, 0.0)), pixels),
              template(ridges(), pixels[100:]), template(ridges((0.4, -0.3), noise=1.0, seed=4), pixels)]
    found = track_all(firsts, after)
    assert found[1] is None and found[2] is None  # too few samples; moved too far to follow
    for index, shift in ((0, (0.4, -0.3)), (3, (0.4, -0.3)), (4, (0.0, 0.0))):
        alone = track(firsts[index], after)
        together = found[index]
        assert together is not None and alone is not None
        assert together.delta == pytest.approx(shift, abs=0.05)
        assert together.delta == pytest.approx(alone.delta, abs=1e-9)
        assert together.covariance == pytest.approx(alone.covariance, rel=1e-9)


def test_predictions_made_together_are_those_made_one_template_at_a_time() -> None:
    pixels = spots()
    mine, other = template(ridges(), pixels), template(ridges((1.0, 0.5)), pixels[50:])
    first = [np.tile([0.5, 0.0], (len(pixels), 1)), None, np.zeros((len(pixels), 2))]
    second = [np.tile([-0.4, 0.8], (len(pixels) - 50, 1)), np.tile([0.5, 0.0], (len(pixels) - 50, 1))]
    together = predict_all([(mine, ridges(), first), (other, ridges((1.0, 0.5)), second)])
    alone = [predict(mine, ridges(), first), predict(other, ridges((1.0, 0.5)), second)]
    assert together[0][1] is None and together[0][2] == pytest.approx([0.0, 0.0])
    assert together[0][0] == pytest.approx([0.5, 0.0], abs=0.03)
    assert together[1][0] == pytest.approx([-0.4, 0.8], abs=0.05)
    for mine_together, mine_alone in zip(together, alone):
        for a, b in zip(mine_together, mine_alone):
            assert (a is None and b is None) or a == pytest.approx(b, abs=1e-9)


def stripes(size: int) -> Picture:
    """Returns a picture of strong stripes that all run one way (diagonally): an edge's texture."""
    ys, xs = np.mgrid[0:size, 0:size].astype(np.float64)
    return Picture(np.asarray(50.0 + 50.0 * np.sin(xs + ys), np.float32))


@pytest.mark.parametrize("size", [64, 256])
def test_a_texture_that_runs_one_way_is_tracked_across_it_and_left_to_the_prior_along_it(size: int) -> None:
    pixels = np.column_stack([axis.ravel() for axis in np.mgrid[20:size - 20, 20:size - 20][::-1]]).astype(float)
    found = track(template(stripes(size), pixels), stripes(size))
    assert found is not None and found.delta == pytest.approx([0.0, 0.0], abs=0.05)
    spreads = np.linalg.eigvalsh(found.covariance)
    assert 0.0 < spreads[0] and spreads[1] <= MOST_PX ** 2 * 1.01
    cells = calibrated({f"c{index}": [shift_of(found, [np.zeros(2)])] for index in range(6)})
    assert all(np.isfinite(shift.log_likelihood(0)) for bands in cells.values() for shift in bands if shift)


def test_a_uniform_motion_predicts_itself_and_none_predicts_no_shift() -> None:
    pixels = spots()
    still, small, large, unasked = predict(template(ridges(), pixels), ridges(), [
        np.zeros((len(pixels), 2)), np.tile([0.3, -0.2], (len(pixels), 1)),
        np.tile([1.5, -1.0], (len(pixels), 1)), None])
    assert still == pytest.approx([0.0, 0.0]) and unasked is None
    assert small == pytest.approx([0.3, -0.2], abs=0.03)
    assert large == pytest.approx([1.5, -1.0], abs=0.05)


def test_a_motion_of_part_of_the_top_predicts_less_than_that_motion() -> None:
    pixels = spots()
    near = np.hypot(pixels[:, 0] - 32.0, pixels[:, 1] - 30.0) < 6.0
    motion = np.where(near[:, None], [1.6, 0.0], [0.0, 0.0])
    predicted = predict(template(ridges(), pixels), ridges(), [motion])[0]
    assert predicted is not None and 0.1 < predicted[0] < 1.6 and abs(predicted[1]) < 0.2


def test_the_likelihood_prefers_the_candidate_that_predicts_the_shift() -> None:
    found = track(template(ridges(noise=1.0, seed=1), spots()), ridges((0.6, 0.0), noise=1.0, seed=2))
    assert found is not None
    shift = shift_of(found, [np.zeros(2), np.array([0.6, 0.0]), np.array([-0.6, 0.0]), None])
    scores = [shift.log_likelihood(index) for index in range(4)]
    assert scores[1] > scores[0] > scores[2] and scores[3] == 0.0


def test_a_prediction_is_scaled_to_the_shift_within_bounds_and_no_shift_stays_none() -> None:
    predicted = np.array([[0.0, 0.0], [1.0, 0.0], [-1.0, 0.0], [0.5, 0.0], [np.nan, np.nan]])
    shift = Shift(np.array([0.8, 0.1]), np.eye(2) * 0.01, predicted)
    scaled = shift.scaled()
    assert scaled[0] == pytest.approx([0.0, 0.0]) and scaled[1] == pytest.approx([0.8, 0.0])
    assert scaled[2] == pytest.approx([-SCALES[0], 0.0]) and scaled[3] == pytest.approx([0.5 * SCALES[1], 0.0])
    assert np.isnan(scaled[4]).all()
    scores = shift.log_likelihoods()
    assert scores[1] > scores[3] > scores[0] > scores[2] and scores[4] == 0.0


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


def test_a_ray_that_meets_pyramids_above_its_own_height_passes_over_them_and_most_others_do_not() -> None:
    stack = np.array([block(40.0, 30.0, 0.0, (25.0, 25.0, 44.0), True, 0),
                      block(40.0, 30.0, 20.0, (19.0, 19.0, 34.0), True, 1)])
    rng = np.random.default_rng(5)
    points = rng.uniform(-20.0, 100.0, (4000, 2))
    low = rng.uniform(0.0, 50.0, len(points))
    camera = (100.0, 100.0, 600.0)
    hits = cast(stack, points, camera)
    meets = (hits.hit & (hits.z > low[None, :])).any(axis=0)
    passing = passes_over(points, camera, low, stack)
    assert meets.any() and not (meets & ~passing).any()
    assert passing.mean() < 0.2



def test_a_picture_is_read_at_any_number_of_pixels_none_included() -> None:
    picture = Picture(np.arange(100, dtype=np.float32).reshape(10, 10), origin=(2, 3))
    assert picture.at(np.array([[4.0, 5.0], [2.5, 3.0]])) == pytest.approx([22.0, 0.5])
    assert picture.at(np.zeros((0, 2))).shape == (0,)
