"""Tests of the camera place estimate and parallax projection against a known camera."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.board import BoardView, Calibration
from vision.kit import kit_named
from vision.pose import (
    FOCAL_TOLD, STRONG_LENS, SURE_LENS_DOUBT, CameraPlace, PoseError, focal_from_hfov, focal_spread, focal_told,
    homography_focal, image_points, lens_pinned, locate_camera, told_focal,
)
from vision.radial import Radial
from vision.render.camera import CameraSpec, pose

KIT = kit_named()
MAT = KIT.mat("block-arena", "9x9")
CENTRE = (MAT.side_mm / 2, MAT.side_mm / 2)


def view_of(spec: CameraSpec, noise_px: float | None = None, seed: int = 0) -> tuple[BoardView, object]:
    """Returns a board view from a renderer camera's exact plane homography, and the camera; with
    a noise, the markers' corners are seen that far off (seeded), the homography fitted to them."""
    camera = pose(spec, CENTRE)
    exact = BoardView(KIT, MAT, camera.plane_homography(), spec.size)
    if noise_px is None:
        return exact, camera
    rng, corners = np.random.default_rng(seed), KIT.marker_corners(MAT)
    seen = {key: exact.to_image(points) + rng.normal(0.0, noise_px, (4, 2)) for key, points in corners.items()}
    board = np.vstack(list(corners.values()))
    homography, _ = cv2.findHomography(board, np.vstack(list(seen.values())), 0)
    return BoardView(KIT, MAT, homography, spec.size, observed=seen), camera


@pytest.mark.parametrize("height, tilt, azimuth", [(450, 0, 0), (600, 12, 40), (800, 20, 200)])
def test_exact_lens_gives_the_true_centre(height: float, tilt: float, azimuth: float) -> None:
    spec = CameraSpec(height_mm=height, tilt_deg=tilt, azimuth_deg=azimuth, hfov_deg=55.0)
    view, camera = view_of(spec)
    place = locate_camera(view, hfov_deg=55.0)
    assert np.allclose(place.centre, camera.centre, atol=1.0)  # type: ignore[attr-defined]


def test_wrong_fov_prior_still_projects_tops_near_the_truth() -> None:
    spec = CameraSpec(height_mm=600, tilt_deg=15, azimuth_deg=70, hfov_deg=68.0, size=(1280, 960))
    view, camera = view_of(spec)
    place = locate_camera(view)  # assumes 60 degrees
    tops = np.array([[16.0, 16.0, 62.0], [272.0, 272.0, 62.0], [144.0, 16.0, 30.0]])
    truth = camera.project_ideal(tops)  # type: ignore[attr-defined]
    error = np.linalg.norm(image_points(view, place, tops) - truth, axis=1)
    shift = np.linalg.norm(view.to_image(tops[:, :2]) - truth, axis=1)
    assert np.all(error < 0.35 * shift + 1.0)


def test_ground_points_map_exactly() -> None:
    view, _ = view_of(CameraSpec(height_mm=700, tilt_deg=10))
    place = locate_camera(view)
    ground = np.array([[0.0, 0.0, 0.0], [100.0, 200.0, 0.0]])
    assert np.allclose(image_points(view, place, ground), view.to_image(ground[:, :2]))


def test_parallax_pushes_tops_away_from_the_nadir() -> None:
    place = CameraPlace((100.0, 100.0, 600.0), 800.0)
    moved = place.to_mat(np.array([[200.0, 100.0, 60.0]]))
    assert moved[0, 0] == pytest.approx(100.0 + 100.0 * 600.0 / 540.0)


def test_a_mirrored_homography_is_refused() -> None:
    view = BoardView(KIT, MAT, np.diag([1.0, 1.0, 0.0]), (640, 480))
    with pytest.raises(PoseError):
        locate_camera(view)


@pytest.mark.parametrize("tilt", [6.0, 12.0, 20.0])
def test_a_leaning_camera_tells_its_focal_length(tilt: float) -> None:
    spec = CameraSpec(height_mm=650, tilt_deg=tilt, azimuth_deg=130, roll_deg=40, hfov_deg=54.0, size=(1024, 768))
    view, _ = view_of(spec)
    focal = homography_focal(view)
    assert focal is not None and focal == pytest.approx(focal_from_hfov(1024, 54.0), rel=1e-3)


def test_a_camera_straight_down_does_not_tell_its_focal_length() -> None:
    view, _ = view_of(CameraSpec(height_mm=650, tilt_deg=0.0, hfov_deg=54.0))
    assert homography_focal(view) is None


def test_the_focal_length_is_doubted_by_how_far_the_corners_misfit_the_homography() -> None:
    leaning = CameraSpec(height_mm=650, tilt_deg=14, azimuth_deg=130, roll_deg=40, hfov_deg=54.0)
    sharp, blurred = view_of(leaning, 0.2, 1)[0], view_of(leaning, 2.0, 1)[0]
    assert focal_spread(sharp) < 0.05 and focal_spread(blurred) > 2 * focal_spread(sharp)
    assert focal_spread(sharp) == focal_spread(sharp)  # seeded: the same view, the same doubt
    assert focal_spread(view_of(CameraSpec(height_mm=650, tilt_deg=1.0, hfov_deg=54.0), 0.2, 1)[0]) > 0.3
    assert focal_spread(view_of(leaning)[0]) == float("inf")  # no marker seen: nothing to tell by


def test_the_focal_length_is_told_only_by_a_leaning_camera_whose_corners_fit_well() -> None:
    leaning = CameraSpec(height_mm=650, tilt_deg=14, azimuth_deg=130, roll_deg=40, hfov_deg=54.0)
    sharp = view_of(leaning, 0.2, 1)[0]
    assert focal_told(sharp) and told_focal(sharp) == homography_focal(sharp)
    assert not focal_told(view_of(leaning, 2.0, 1)[0]) and told_focal(view_of(leaning, 2.0, 1)[0]) is None
    assert focal_spread(view_of(leaning, 2.0, 1)[0]) > FOCAL_TOLD
    assert not focal_told(view_of(CameraSpec(height_mm=650, tilt_deg=1.0, hfov_deg=54.0), 0.2, 1)[0])


def test_a_lens_is_pinned_by_a_strong_sure_distortion_or_by_a_told_focal_length() -> None:
    straight = view_of(CameraSpec(height_mm=650, tilt_deg=1.0, hfov_deg=54.0), 0.2, 1)[0]
    leaning = view_of(CameraSpec(height_mm=650, tilt_deg=14, azimuth_deg=130, roll_deg=40, hfov_deg=54.0), 0.2, 1)[0]

    def through(view: BoardView, doubt: float, strength: float = 0.0) -> BoardView:
        """Returns the view seen through a markers' lens of a strength doubted by so much (the
        corners left where its homography puts them)."""
        lens = Calibration.radial_only(Radial(strength, doubt), view.frame_size)
        return BoardView(KIT, MAT, view.homography, view.frame_size, lens, view.used, view.observed)

    assert not lens_pinned(straight) and not lens_pinned(leaning)  # no lens at all
    assert lens_pinned(through(straight, SURE_LENS_DOUBT, -STRONG_LENS))
    assert not lens_pinned(through(straight, 0.05, -0.4))  # strong but not sure
    assert not lens_pinned(through(straight, 0.005, -0.1))  # sure but weak
    assert lens_pinned(through(leaning, 0.05))  # its homography tells the focal length
