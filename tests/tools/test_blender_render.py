"""The realistic tier renders what the calibration says: markers and grid lines where truth.json puts them.

Runs only where Blender's bpy wheel is installed (docs/realistic-fixtures.md); CI skips it.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

pytest.importorskip("bpy")

import cv2  # noqa: E402

from tools.blender.meshes import solid_mesh  # noqa: E402
from tools.blender.render import BlenderRenderer, Quality  # noqa: E402
from vision.render.camera import CameraSpec  # noqa: E402
from vision.render.effects import LightSpec  # noqa: E402
from vision.render.solids import pyramid  # noqa: E402

CAMERA = CameraSpec(height_mm=520, tilt_deg=15, azimuth_deg=60, roll_deg=30, hfov_deg=62, k1=-0.12)
LIGHT = LightSpec(kelvin=4500, lux=500, sources=((40.0, 60.0, 1.0),))
EMPTY = {"size": 3, "cells": {}, "off": {"hand": {"1": {}, "2": {}}}}


@pytest.fixture(scope="module")
def renderer() -> BlenderRenderer:
    return BlenderRenderer("tuned", None, CAMERA, LIGHT, seed=3, quality=Quality(still_samples=4))


@pytest.fixture(scope="module")
def frame(renderer: BlenderRenderer) -> Any:
    return np.clip(renderer.ideal(EMPTY), 0, 255).astype(np.uint8)


def test_a_pyramid_becomes_four_triangles() -> None:
    mesh = solid_mesh("p", pyramid(0.0, 0.0, 0.0, 25.0, 44.0, (200, 40, 40)), lambda rgb, alpha: None, 0.0).data
    assert sorted(len(face.vertices) for face in mesh.polygons) == [3, 3, 3, 3]


def test_the_blender_camera_projects_as_the_canvas(renderer: BlenderRenderer) -> None:
    from bpy_extras.object_utils import world_to_camera_view
    from mathutils import Vector

    scene = renderer._scene
    points = np.array([[0.0, 0.0, 0.0], [180.0, 0.0, 0.0], [90.0, 90.0, 50.0], [-40.0, 200.0, 10.0]])
    width, height = renderer.canvas.size
    for point, expected in zip(points, renderer.canvas.pixels(points)):
        view = world_to_camera_view(scene, scene.camera, Vector(tuple(point * 0.001)))
        pixel = (view.x * width - 0.5, (1 - view.y) * height - 0.5)
        assert np.allclose(pixel, expected, atol=0.05)


def test_markers_are_found_where_the_calibration_projects_them(renderer: BlenderRenderer, frame: Any) -> None:
    detector = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50),
                                       cv2.aruco.DetectorParameters())
    corners, ids, _ = detector.detectMarkers(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY))
    truth = renderer.kit.marker_corners(renderer.setting.mat)
    assert ids is not None and sorted(int(i) for i in ids.ravel()) == sorted(truth)
    for found, marker in zip(corners, ids.ravel()):
        error = np.linalg.norm(found.reshape(-1, 2) - renderer.camera.project(truth[int(marker)]), axis=1)
        assert error.max() < 2.0, (int(marker), error)


def test_grid_lines_meet_at_the_projected_grid_corners(renderer: BlenderRenderer, frame: Any) -> None:
    gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY).astype(np.float64)
    corners = renderer.setting.mat.grid_corners()
    for index, corner in enumerate(corners):
        for neighbour in (corners[index - 1], corners[(index + 1) % 4]):
            for along in (8.0, 16.0, 24.0):
                point = corner + (neighbour - corner) / np.linalg.norm(neighbour - corner) * along
                assert abs(_line_offset(renderer, gray, point, neighbour - corner)) < 2.0, (corner, point)


def _line_offset(renderer: BlenderRenderer, gray: Any, point: Any, direction: Any) -> float:
    """Returns how many pixels across the line the darkest point of a grid line lies from its projection."""
    centre = renderer.camera.project(point[None])[0]
    ahead = renderer.camera.project((point + direction / np.linalg.norm(direction))[None])[0] - centre
    across = np.array([-ahead[1], ahead[0]]) / np.linalg.norm(ahead)
    offsets = np.arange(-4.0, 4.01, 0.25)
    samples = centre + offsets[:, None] * across
    values = cv2.remap(gray.astype(np.float32), samples[:, 0].astype(np.float32)[None],
                       samples[:, 1].astype(np.float32)[None], cv2.INTER_LINEAR)[0]
    return float(offsets[int(np.argmin(values))])
