"""Tests of the synthetic camera: pose, projection, barrel distortion, and the envelope's limits."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest

from vision.kit import kit_named
from vision.render import RenderError
from vision.render.camera import CameraSpec, Lens, pose
from vision.render.record import PRESETS
from vision.render.scene import Renderer

KIT = kit_named()
MAT = KIT.mat("block-arena", "9x9")
CENTRE = (MAT.side_mm / 2, MAT.side_mm / 2)


def random_specs(count: int, seed: int) -> list[CameraSpec]:
    """Returns seeded camera specs spread over the envelope (k1 kept where the image does not fold)."""
    rng = np.random.default_rng(seed)
    specs = []
    for _ in range(count):
        hfov = float(rng.uniform(50, 70))
        specs.append(CameraSpec(height_mm=float(rng.uniform(450, 800)), tilt_deg=float(rng.uniform(0, 20)),
                                azimuth_deg=float(rng.uniform(0, 360)), roll_deg=float(rng.uniform(0, 360)),
                                hfov_deg=hfov, k1=float(rng.uniform(-0.25 if hfov < 60 else -0.12, 0.0)),
                                size=(int(rng.integers(640, 1641)), int(rng.integers(480, 1233)))))
    return specs


@pytest.mark.parametrize("spec", random_specs(6, seed=11))
def test_the_camera_stands_at_its_height_and_looks_at_the_mat_centre(spec: CameraSpec) -> None:
    camera = pose(spec, CENTRE)
    assert camera.centre[2] == pytest.approx(spec.height_mm)
    principal = camera.matrix[:2, 2]
    assert np.allclose(camera.project([[*CENTRE, 0.0]]), principal, atol=1e-6)
    assert np.linalg.det(camera.rotation) == pytest.approx(1.0)
    tilt = np.degrees(np.arccos(-camera.rotation[2, 2]))
    assert tilt == pytest.approx(spec.tilt_deg, abs=1e-6)


@pytest.mark.parametrize("spec", random_specs(6, seed=12))
def test_grid_corners_project_as_the_homography_of_the_true_camera(spec: CameraSpec) -> None:
    camera = pose(spec, CENTRE)
    corners = MAT.grid_corners()
    through_plane = cv2.perspectiveTransform(corners.reshape(-1, 1, 2), camera.plane_homography()).reshape(-1, 2)
    assert np.abs(camera.project_ideal(corners) - through_plane).max() < 1e-6
    # cv2.projectPoints puts the lens's barrel in; taking it out again lands on the homography.
    assert np.abs(camera.undistort_pixels(camera.project(corners)) - through_plane).max() < 1e-3


def test_a_point_on_the_optical_axis_is_not_distorted_and_corners_move_inwards() -> None:
    camera = pose(CameraSpec(k1=-0.2, hfov_deg=55), CENTRE)
    width, height = camera.size
    corner = np.array([[0.0, 0.0], [width - 1.0, height - 1.0]])
    ideal = camera.undistort_pixels(corner)
    centre = camera.matrix[:2, 2]
    assert np.all(np.linalg.norm(ideal - centre, axis=1) > np.linalg.norm(corner - centre, axis=1))
    assert np.allclose(camera.undistort_pixels(centre[None]), centre)


@pytest.mark.parametrize("name", list(PRESETS))
def test_markers_found_in_a_render_give_the_grid_within_a_pixel(name: str) -> None:
    camera, light = PRESETS[name]
    renderer = Renderer("block-arena", "9x9", replace(camera, size=(640, 480)), light, seed=5)
    frame = renderer.frame({"size": 9, "cells": {}, "off": {"hand": {"1": 4, "2": 4}}})
    parameters = cv2.aruco.DetectorParameters()
    parameters.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    detector = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50), parameters)
    corners, ids, _ = detector.detectMarkers(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY))
    assert ids is not None and sorted(ids.ravel().tolist()) == [0, 1, 2, 3, 10]
    board = KIT.marker_corners(MAT)
    source = np.vstack([board[int(marker)] for marker in ids.ravel()])
    seen = renderer.camera.undistort_pixels(np.vstack([corner.reshape(4, 2) for corner in corners]))
    homography, _ = cv2.findHomography(source, seen, 0)
    grid = cv2.perspectiveTransform(MAT.grid_corners().reshape(-1, 1, 2), homography).reshape(-1, 2)
    assert np.abs(grid - renderer.camera.project_ideal(MAT.grid_corners())).max() < 1.0


@pytest.mark.parametrize("change, words", [
    ({"height_mm": 300.0}, "height_mm"), ({"tilt_deg": 25.0}, "tilt_deg"), ({"hfov_deg": 80.0}, "hfov_deg"),
    ({"size": (320, 240)}, "size"), ({"k1": -0.3}, "k1"), ({"k1": 0.1}, "k1"), ({"jpeg_quality": 50}, "jpeg_quality"),
    ({"k1": -0.25, "hfov_deg": 70.0}, "folds"), ({"height_mm": float("nan")}, "height_mm"), ({"vignette": True}, "vignette"),
])
def test_a_camera_outside_the_envelope_is_refused_by_name(change: dict[str, object], words: str) -> None:
    with pytest.raises(RenderError, match=words):
        pose(replace(CameraSpec(), **change), CENTRE)  # type: ignore[arg-type]


def test_the_lens_keeps_the_frame_size_and_refuses_a_bad_scale() -> None:
    camera = pose(CameraSpec(k1=-0.15), CENTRE)
    lens = Lens(camera, 2)
    canvas = np.full((lens.canvas.size[1], lens.canvas.size[0], 3), 90, np.uint8)
    assert lens.develop(canvas).shape == (480, 640, 3)
    assert lens.canvas.margin[0] > 0 and lens.canvas.margin[1] > 0
    with pytest.raises(RenderError, match="supersampling"):
        Lens(camera, 0)
