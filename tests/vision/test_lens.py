"""Tests of the lens calibration from the printed mat, on rendered frames of a known lens."""

from __future__ import annotations

import numpy as np
import pytest

from rules import get_game
from vision.board import Calibration, VisionError
from vision.frames import Image
from vision.kit import kit_named
from vision.lens import MIN_VIEWS, calibrate
from vision.render.camera import CameraSpec
from vision.render.record import PRESETS
from vision.render.scene import Renderer

KIT = kit_named()
# The mat at several tilts and turns, as a user shows it to a fixed camera (tilt, azimuth, height).
POSES = ((20, 0, 550), (20, 90, 600), (20, 180, 650), (20, 270, 500), (15, 45, 700), (10, 300, 600))


def frames_of(k1: float, poses: tuple[tuple[int, int, int], ...] = POSES,
              size: tuple[int, int] = (640, 480)) -> tuple[list[Image], dict[str, object]]:
    """Returns Block Arena 9x9 frames of the mat from a 62-degree lens of some distortion, and the
    lens's true calibration."""
    game, light = get_game("block-arena", "9x9"), PRESETS["neutral"][1]
    board, frames, truth = game.board(game.initial_state()), [], {}
    for index, (tilt, azimuth, height) in enumerate(poses):
        spec = CameraSpec(height_mm=height, tilt_deg=tilt, azimuth_deg=azimuth, roll_deg=30 * index, hfov_deg=62,
                          k1=k1, size=size, read_noise=1.0, shot_noise=1.5)
        renderer = Renderer("block-arena", "9x9", spec, light, seed=index)
        frames.append(renderer.frame(board))
        truth = renderer.camera.calibration()
    return frames, truth


def rays(calibration: Calibration, pixels: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """Returns the undistorted directions (x / z, y / z) of frame pixels under a calibration."""
    matrix = calibration.matrix_for(size)
    ideal = calibration.undistort_points(pixels, size)
    return (ideal - matrix[:2, 2]) / np.diag(matrix)[:2]


@pytest.mark.parametrize("k1", [0.0, -0.15])
def test_the_fitted_lens_sees_the_mat_as_the_true_lens_does(k1: float) -> None:
    frames, truth = frames_of(k1)
    fit = calibrate(frames, KIT)
    true = Calibration(truth["camera_matrix"], truth["dist_coeffs"], truth["image_size"])
    assert fit.views == len(POSES) and fit.rms_px < 1.0
    assert fit.calibration.camera_matrix[0, 0] == pytest.approx(true.camera_matrix[0, 0], rel=0.02)
    ys, xs = np.mgrid[100:380:20, 140:500:20]  # where the mat lies in the frames
    pixels = np.column_stack([xs.ravel(), ys.ravel()]).astype(float)
    error = np.abs(rays(fit.calibration, pixels, (640, 480)) - rays(true, pixels, (640, 480))).max()
    assert error < 0.004  # about 2 px at this focal length


def test_too_few_views_of_the_mat_are_refused() -> None:
    frames, _ = frames_of(-0.1, POSES[:MIN_VIEWS - 1])
    blank = np.full((480, 640, 3), 200, np.uint8)
    with pytest.raises(VisionError, match=f"at least {MIN_VIEWS} frames"):
        calibrate(frames + [blank, blank], KIT)


def test_frames_of_different_sizes_are_refused() -> None:
    small, _ = frames_of(-0.1, POSES[:2])
    large, _ = frames_of(-0.1, POSES[2:4], size=(800, 600))
    with pytest.raises(VisionError, match="one size, not 640x480, 800x600"):
        calibrate(small + large, KIT)


def test_a_mat_seen_straight_on_is_refused_it_cannot_tell_the_focal_length() -> None:
    frames, _ = frames_of(-0.1, tuple((5, azimuth, 600) for azimuth in range(0, 360, 60)))
    with pytest.raises(VisionError, match="tilted at least 15 degrees towards the camera in 3 frames, not 0"):
        calibrate(frames, KIT)


def test_views_that_leave_the_focal_length_in_doubt_are_refused() -> None:
    frames, _ = frames_of(-0.15, ((16, 0, 800),) * 4)  # one far view, four times: 1.2 % in doubt
    with pytest.raises(VisionError, match=r"leave the focal length 1.2% in doubt \(at most 1%\)"):
        calibrate(frames, KIT)
