"""Synthetic overhead-camera frames of a kit mat, drawn with plain OpenCV for the vision tests.

The mat is drawn at true scale with cv2.aruco.generateImageMarker (independently of
vision/mat.py), then seen through a pinhole camera with optional barrel distortion placed
anywhere in KIT.md's envelope: 45-80 cm above the mat, up to 20 degrees of tilt, any rotation.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from functools import cache
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.board import smooth_field
from vision.kit import Kit, Mat, board_to_page

MAT_PX_PER_MM = 4.0
Image = NDArray[np.uint8]
Points = NDArray[np.float64]


@cache
def mat_image(kit: Kit, mat: Mat, px_per_mm: float = MAT_PX_PER_MM) -> Image:
    """Returns the mat drawn top-down at px_per_mm: off-white, grey grid, markers with quiet zones."""
    side = int(round(kit.page_side_mm(mat) * px_per_mm))
    image = np.empty((side, side, 3), np.uint8)
    image[:] = kit.mat_rgb[::-1]
    page = board_to_page(mat, px_per_mm, kit.mat_margin_mm, pixel_centres=False)
    for marker_id, (x, y) in kit.marker_origins(mat).items():
        _draw_marker(image, kit, page, marker_id, x, y, px_per_mm)
    _draw_grid(image, kit, mat, page, px_per_mm)
    return image


def _to_page(page: Points, x: float, y: float) -> tuple[float, float]:
    """Returns the page position of a board point."""
    u, v, _ = page @ np.array([x, y, 1.0])
    return float(u), float(v)


def _draw_marker(image: Image, kit: Kit, page: Points, marker_id: int, x: float, y: float,
                 s: float) -> None:
    """Draws one marker (white quiet zone, then the generated marker) at its board place."""
    pad = kit.quiet_zone_mm
    u0, v0 = _to_page(page, x - pad, y + kit.marker_mm + pad)
    zone = int(round((kit.marker_mm + 2 * pad) * s))
    image[int(round(v0)):int(round(v0)) + zone, int(round(u0)):int(round(u0)) + zone] = 255
    dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, kit.dictionary))
    size = int(round(kit.marker_mm * s))
    marker = cv2.aruco.generateImageMarker(dictionary, marker_id, size, borderBits=1)
    u1, v1 = (int(round(value)) for value in _to_page(page, x, y + kit.marker_mm))
    image[v1:v1 + size, u1:u1 + size] = marker[:, :, None]


def _draw_grid(image: Image, kit: Kit, mat: Mat, page: Points, s: float) -> None:
    """Draws the grid lines, grid_line_mm wide and centred on each cell edge."""
    half = kit.grid_line_mm / 2
    colour = kit.grid_rgb[::-1]
    for index in range(mat.cells + 1):
        at = index * mat.pitch_mm
        for x0, y0, x1, y1 in ((at - half, -half, at + half, mat.side_mm + half),
                               (-half, at - half, mat.side_mm + half, at + half)):
            u0, v0 = _to_page(page, x0, y1)
            u1, v1 = _to_page(page, x1, y0)
            image[int(round(v0)):int(round(v1)), int(round(u0)):int(round(u1))] = colour


@dataclass(frozen=True)
class Camera:
    """A pinhole camera: intrinsics K, distortion D, pose (rvec, tvec) and frame size."""

    K: Points
    D: Points
    rvec: Points
    tvec: Points
    size: tuple[int, int]

    def project(self, board_mm: Points) -> Points:
        """Returns the frame pixels of board points (z = 0), distortion included."""
        points = np.column_stack([board_mm, np.zeros(len(board_mm))]).astype(np.float64)
        pixels, _ = cv2.projectPoints(points, self.rvec, self.tvec, self.K, self.D)
        return np.asarray(pixels, np.float64).reshape(-1, 2)

    def plane_homography(self) -> Points:
        """Returns the homography from board mm to undistorted pixels."""
        rotation, _ = cv2.Rodrigues(self.rvec)
        basis = np.column_stack([rotation[:, 0], rotation[:, 1], self.tvec.ravel()])
        return np.asarray(self.K @ basis, np.float64)

    def calibration(self) -> dict[str, Any]:
        """Returns the camera's calibration as the JSON-ready dict blockref reads."""
        return {"camera_matrix": self.K.tolist(), "dist_coeffs": self.D.ravel().tolist(),
                "image_size": list(self.size)}


def look_down(height_mm: float, tilt_deg: float, azimuth_deg: float, roll_deg: float,
              target: tuple[float, float], hfov_deg: float, size: tuple[int, int],
              k1: float = 0.0) -> Camera:
    """Returns a camera height_mm above the mat, tilted towards an azimuth, aimed at target."""
    tilt, azimuth, roll = (math.radians(a) for a in (tilt_deg, azimuth_deg, roll_deg))
    lean = math.sin(tilt)
    axis = np.array([lean * math.cos(azimuth), lean * math.sin(azimuth), -math.cos(tilt)])
    centre = np.array([target[0], target[1], 0.0]) - axis * height_mm / math.cos(tilt)
    helper = np.array([0.0, 1.0, 0.0]) if abs(axis[1]) < 0.9 else np.array([1.0, 0.0, 0.0])
    x_axis = np.cross(helper, axis)
    x_axis /= np.linalg.norm(x_axis)
    y_axis = np.cross(axis, x_axis)
    x_rolled = math.cos(roll) * x_axis + math.sin(roll) * y_axis
    y_rolled = np.cross(axis, x_rolled)
    rotation = np.array([x_rolled, y_rolled, axis])
    rvec, _ = cv2.Rodrigues(rotation)
    tvec = -rotation @ centre
    width, height = size
    focal = (width / 2) / math.tan(math.radians(hfov_deg) / 2)
    K = np.array([[focal, 0.0, (width - 1) / 2], [0.0, focal, (height - 1) / 2], [0.0, 0.0, 1.0]])
    D = np.array([k1, 0.0, 0.0, 0.0, 0.0])
    return Camera(K, D, np.asarray(rvec, np.float64), tvec.reshape(3, 1), size)


def marker_points(kit: Kit, mat: Mat) -> Points:
    """Returns every marker corner and quiet-zone corner of a mat in board mm."""
    pad = kit.quiet_zone_mm
    points = []
    for corners in kit.marker_corners(mat).values():
        centre = corners.mean(axis=0)
        points.append(centre + (corners - centre) * (kit.marker_mm + 2 * pad) / kit.marker_mm)
    return np.vstack(points)


def in_view(camera: Camera, points: Points, border: float = 8.0) -> bool:
    """Tells whether all points fall inside the frame with a border to spare."""
    pixels = camera.project(points)
    width, height = camera.size
    return bool(np.all((pixels >= border) & (pixels <= [width - 1 - border, height - 1 - border])))


def random_camera(rng: np.random.Generator, kit: Kit, mat: Mat, size: tuple[int, int],
                  k1_range: tuple[float, float] = (0.0, 0.0)) -> Camera:
    """Returns a random camera in the envelope that sees every marker of the mat whole."""
    centre = mat.side_mm / 2
    for _ in range(500):
        camera = look_down(
            height_mm=rng.uniform(450, 800), tilt_deg=rng.uniform(0, 20),
            azimuth_deg=rng.uniform(0, 360), roll_deg=rng.uniform(0, 360),
            target=(centre + rng.uniform(-20, 20), centre + rng.uniform(-20, 20)),
            hfov_deg=rng.uniform(50, 70), size=size, k1=rng.uniform(*k1_range))
        if in_view(camera, marker_points(kit, mat)):
            return camera
    raise AssertionError("no camera pose in the envelope sees this mat")


def render(camera: Camera, kit: Kit, mat: Mat, supersample: int = 2) -> Image:
    """Returns the frame the camera sees: the mat on a dark table, anti-aliased, distorted."""
    width, height = camera.size
    big = replace(camera, K=_scaled_intrinsics(camera.K, supersample),
                  size=(width * supersample, height * supersample))
    image = mat_image(kit, mat)
    page = board_to_page(mat, MAT_PX_PER_MM, kit.mat_margin_mm, pixel_centres=True)
    ideal = cv2.warpPerspective(image, page @ np.linalg.inv(big.plane_homography()), big.size,
                                flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                borderMode=cv2.BORDER_CONSTANT, borderValue=(60, 70, 80))
    small = np.asarray(cv2.resize(ideal, camera.size, interpolation=cv2.INTER_AREA), np.uint8)
    return _distort(small, camera) if np.any(camera.D) else small


def _scaled_intrinsics(K: Points, factor: int) -> Points:
    """Returns intrinsics for a frame `factor` times larger whose block means give the frame."""
    scaled = K.copy()
    scaled[:2, :] *= factor
    scaled[0, 2] += (factor - 1) / 2
    scaled[1, 2] += (factor - 1) / 2
    return scaled


def _distort(ideal: Image, camera: Camera) -> Image:
    """Returns the ideal (undistorted) frame resampled as the distorted camera sees it."""
    criteria = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 100, 1e-6)

    def ideal_at(pixels: Points) -> Points:
        """Returns where real (distorted) pixels come from in the ideal frame."""
        found = cv2.undistortPoints(pixels.reshape(-1, 1, 2), camera.K, camera.D, P=camera.K,
                                    criteria=criteria)
        return np.asarray(found, np.float64).reshape(-1, 2)

    maps = smooth_field(ideal_at, camera.size).astype(np.float32)
    real = cv2.remap(ideal, maps[..., 0], maps[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return np.asarray(real, np.uint8)


def add_noise(image: Image, rng: np.random.Generator, sigma: float = 3.0) -> Image:
    """Returns the image with Gaussian sensor noise, seeded from rng (drawn by OpenCV: fast)."""
    noise = np.empty(image.shape, np.int16)
    channels = 1 if image.ndim == 2 else image.shape[2]
    cv2.setRNGSeed(int(rng.integers(0, 2**31 - 1)))
    # One mean and spread per channel: a 1-element array leaves OpenCV reading past it, which
    # gave no noise in some processes and garbage in others (a flaky board test).
    cv2.randn(noise, (0.0,) * channels, (sigma,) * channels)
    return np.asarray(np.clip(image.astype(np.int16) + noise, 0, 255), np.uint8)


def jpeg(image: Image, quality: int = 80) -> Image:
    """Returns the image after a JPEG round trip at a quality."""
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    assert ok
    return np.asarray(cv2.imdecode(data, cv2.IMREAD_COLOR), np.uint8)
