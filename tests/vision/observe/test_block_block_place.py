"""Tests of BLOCK.BLOCK's camera place: the simplex search, and the fit along the focal family
of a rendered view (the true camera lies on it, or near it with the lens's distortion)."""

from __future__ import annotations

import math

import numpy as np

from tests.vision.observe.stack_scenes import Camera
from tests.vision.test_pose import view_of
from vision.observe.block_block_place import (
    DOUBT, LENS_DOUBT, Placing, fit, lens_prior, merged, nelder_mead, placed, told, unknown,
)
from vision.board import BoardView, Calibration
from vision.pose import CameraPlace, focal_from_hfov, focal_spread, locate_camera
from vision.radial import Radial
from vision.render.camera import CameraSpec

LEANING = CameraSpec(height_mm=700, tilt_deg=14, azimuth_deg=20, roll_deg=-100, hfov_deg=54.0)


def test_the_simplex_search_follows_a_narrow_curved_ridge() -> None:
    def cost(point: np.ndarray) -> float:
        x, y, z = point
        return float(100.0 * (y - 0.3 * x - 0.002 * x * x) ** 2 + (x - 40.0) ** 2 / 50.0 + (z - 600.0) ** 2 / 400.0)

    found = nelder_mead(cost, np.array([0.0, 0.0, 700.0]), np.array([20.0, 20.0, 40.0]), 200)
    assert abs(found[0] - 40.0) < 2.0 and abs(found[2] - 600.0) < 5.0


def test_the_fit_finds_the_centre_that_scores_best_and_doubts_it_little() -> None:
    camera = Camera("block-block", "high-cool", 1)
    scene = camera.scene(camera.game.initial_state())
    true = np.array(camera.renderer.camera.centre)

    def score(place: CameraPlace) -> float:
        return -float(np.sum((np.array(place.centre) - true) ** 2)) / 4.0

    placing = fit(scene.view, scene.place, score)
    assert np.abs(np.array(placed(scene.view, scene.place, placing).centre) - true).max() < 3.0
    assert placing.doubt < 0.05


def test_before_any_piece_the_place_is_doubted_across_the_envelope() -> None:
    camera = Camera("block-block", "neutral", 1)
    scene = camera.scene(camera.game.initial_state())
    placing = unknown(scene.view, scene.place)
    low, high = (placed(scene.view, scene.place, placing, shift).centre[2] for shift in (-1.0, 1.0))
    assert placing.doubt == DOUBT[1] and high / low > math.exp(0.5)


def test_a_doubtful_first_fit_barely_moves_a_surer_one_and_widens_the_doubt_little() -> None:
    first, precision = merged(None, 0.0, Placing(0.34, (-34.0, 0.0), 0.14))  # a few flat cubes
    assert first.focal == 0.34 and math.isclose(precision, 1 / 0.14 ** 2)
    found, total = merged(first, precision, Placing(0.05, (-4.0, 0.0), 0.035))
    assert abs(found.focal - 0.05) < 0.03 and abs(found.offset[0] + 4.0) < 3.0
    assert 0.035 < found.doubt < 0.05 and math.isclose(total, precision + 1 / 0.035 ** 2)


def test_fits_that_disagree_leave_the_place_in_doubt() -> None:
    sure, precision = merged(None, 0.0, Placing(0.2, (0.0, 0.0), 0.02))
    found, _ = merged(sure, precision, Placing(-0.2, (0.0, 0.0), 0.02))
    assert abs(found.focal) < 1e-9 and found.doubt > 0.19


def test_a_leaning_camera_s_homography_is_the_place_s_prior_before_any_piece() -> None:
    view, camera = view_of(LEANING, 0.2, 1)
    anchor = locate_camera(view, hfov_deg=66.0)
    placing = unknown(view, anchor)
    assert placing.doubt < 2 * LENS_DOUBT
    assert math.isclose(math.exp(placing.focal) * anchor.focal_px, focal_from_hfov(640, 54.0), rel_tol=0.05)
    assert np.abs(np.array(placed(view, anchor, placing).centre) - camera.centre).max() < 30.0  # type: ignore[attr-defined]


def test_a_homography_whose_corners_misfit_it_is_no_prior() -> None:
    view, _ = view_of(LEANING, 8.0, 1)
    anchor = locate_camera(view)
    assert lens_prior(view, anchor) is None and unknown(view, anchor).doubt == DOUBT[1]


def test_a_camera_straight_down_has_no_lens_prior() -> None:
    view, _ = view_of(CameraSpec(height_mm=700, tilt_deg=0.0, hfov_deg=54.0), 0.2, 1)
    anchor = locate_camera(view)
    assert lens_prior(view, anchor) is None and unknown(view, anchor).doubt == DOUBT[1]


def through_told_lens(view: BoardView) -> BoardView:
    """Returns the view as a fix through a lens the markers told (no distortion, focal length unknown)."""
    lens = Calibration.radial_only(Radial(0.0, 0.01), view.frame_size)
    return BoardView(view.kit, view.mat, view.homography, view.frame_size, lens, view.used, view.observed)


def test_through_the_markers_lens_a_leaning_camera_is_placed_by_its_homography_not_fitted() -> None:
    view, camera = view_of(LEANING, 0.2, 1)
    lensed = through_told_lens(view)
    anchor = locate_camera(lensed, hfov_deg=66.0)

    def score(place: CameraPlace) -> float:
        raise AssertionError("no fit on pieces")

    placing = fit(lensed, anchor, score)
    assert placing == told(lensed, anchor) == unknown(lensed, anchor)
    assert placing.doubt == max(focal_spread(lensed), DOUBT[0]) < 2 * LENS_DOUBT
    assert math.isclose(math.exp(placing.focal) * anchor.focal_px, focal_from_hfov(640, 54.0), rel_tol=0.02)
    assert np.abs(np.array(placed(lensed, anchor, placing).centre) - camera.centre).max() < 20.0  # type: ignore[attr-defined]
    assert told(view, locate_camera(view)) is None  # no lens told: the fit on pieces places it


def test_through_the_markers_lens_a_camera_straight_down_is_still_fitted() -> None:
    view, _ = view_of(CameraSpec(height_mm=700, tilt_deg=0.0, hfov_deg=54.0), 0.2, 1)
    lensed = through_told_lens(view)
    assert told(lensed, locate_camera(lensed)) is None and unknown(lensed, locate_camera(lensed)).doubt == DOUBT[1]

