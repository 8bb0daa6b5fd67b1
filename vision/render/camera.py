"""A pinhole camera in KIT.md's envelope: its pose above the mat, projection and barrel distortion.

Board coordinates are millimetres with the origin at a1's outer grid corner, x along the files,
y along the ranks and z up. The camera stands `height_mm` above the mat, its optical axis tilted
up to 20 degrees off vertical towards `azimuth_deg`, turned by `roll_deg` about that axis, and
always aimed at the mat centre. Its horizontal field of view fixes the focal length of the
pinhole; barrel distortion is OpenCV's radial k1 on normalised coordinates.

Scenes are drawn on an ideal (undistorted) canvas, supersampled and with a margin wide enough
for the barrel; a Lens turns that canvas into the frame: area downsampling, then cv2.remap.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Iterable

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.render import RenderError, check_number

FloatArray = NDArray[np.float64]
Image = NDArray[np.uint8]
Size = tuple[int, int]

HEIGHT_MM = (450.0, 800.0)
TILT_DEG = (0.0, 20.0)
HFOV_DEG = (50.0, 70.0)
FRAME_WIDTH = (640, 1640)
FRAME_HEIGHT = (480, 1232)
K1 = (-0.25, 0.0)
FOLD_MARGIN = 0.95
NEWTON_STEPS = 12
SHIFT = 4
ONE = 1 << SHIFT


@dataclass(frozen=True, slots=True)
class CameraSpec:
    """A camera as set up over the table: pose, lens, sensor noise and JPEG quality."""

    height_mm: float = 600.0
    tilt_deg: float = 0.0
    azimuth_deg: float = 0.0
    roll_deg: float = 0.0
    hfov_deg: float = 60.0
    size: Size = (640, 480)
    k1: float = 0.0
    vignette: float = 0.0
    blur_px: float = 0.0
    read_noise: float = 0.0
    shot_noise: float = 0.0
    jpeg_quality: int = 92

    def checked(self) -> CameraSpec:
        """Returns the spec itself if it lies in the envelope, or raises RenderError naming the field."""
        check_number(self.height_mm, *HEIGHT_MM, "camera height_mm")
        check_number(self.tilt_deg, *TILT_DEG, "camera tilt_deg")
        check_number(self.azimuth_deg, -360.0, 360.0, "camera azimuth_deg")
        check_number(self.roll_deg, -360.0, 360.0, "camera roll_deg")
        check_number(self.hfov_deg, *HFOV_DEG, "camera hfov_deg")
        check_number(self.k1, *K1, "camera k1")
        check_number(self.vignette, 0.0, 0.6, "camera vignette")
        check_number(self.blur_px, 0.0, 3.0, "camera blur_px")
        check_number(self.read_noise, 0.0, 12.0, "camera read_noise")
        check_number(self.shot_noise, 0.0, 12.0, "camera shot_noise")
        _check_size(self.size)
        _check_quality(self.jpeg_quality)
        _check_fold(self)
        return self


def _check_size(size: Any) -> None:
    """Raises RenderError unless size is a (width, height) pair inside the envelope."""
    good = (isinstance(size, tuple) and len(size) == 2
            and all(isinstance(part, int) and not isinstance(part, bool) for part in size))
    inside = good and FRAME_WIDTH[0] <= size[0] <= FRAME_WIDTH[1] and FRAME_HEIGHT[0] <= size[1] <= FRAME_HEIGHT[1]
    if not inside:
        raise RenderError(f"camera size must be (width, height) from 640x480 to 1640x1232, not {size!r}")


def _check_quality(quality: Any) -> None:
    """Raises RenderError unless the JPEG quality is an integer from 75 to 95."""
    if not isinstance(quality, int) or isinstance(quality, bool) or not 75 <= quality <= 95:
        raise RenderError(f"camera jpeg_quality must be an integer from 75 to 95, not {quality!r}")


def focal_px(spec: CameraSpec) -> float:
    """Returns the focal length in pixels that gives the spec's horizontal field of view."""
    return (spec.size[0] / 2) / math.tan(math.radians(spec.hfov_deg) / 2)


def _check_fold(spec: CameraSpec) -> None:
    """Raises RenderError if k1 is so strong that the image folds over before the frame corners."""
    if spec.k1 == 0:
        return
    corner = math.hypot(spec.size[0] / 2, spec.size[1] / 2) / focal_px(spec)
    fold = (2 / 3) / math.sqrt(-3 * spec.k1)
    if corner > FOLD_MARGIN * fold:
        raise RenderError(f"camera k1 {spec.k1:g} with a {spec.hfov_deg:g} degree field of view folds the "
                          "image before its corners: use a weaker k1 or a narrower field of view")


@dataclass(frozen=True, slots=True, eq=False)
class Camera:
    """A posed pinhole camera: matrix K, radial k1, board-to-camera rotation and translation."""

    matrix: FloatArray
    k1: float
    rotation: FloatArray
    translation: FloatArray
    size: Size

    @property
    def dist_coeffs(self) -> FloatArray:
        """Returns OpenCV's distortion coefficients (k1, k2, p1, p2, k3)."""
        return np.array([self.k1, 0.0, 0.0, 0.0, 0.0])

    @property
    def centre(self) -> FloatArray:
        """Returns the camera's position in board mm."""
        return np.asarray(-self.rotation.T @ self.translation, np.float64)

    def to_camera(self, points: Any) -> FloatArray:
        """Returns board points (N x 3, or N x 2 on the mat) in camera coordinates."""
        return np.asarray(as_points3d(points) @ self.rotation.T + self.translation, np.float64)

    def project(self, points: Any) -> FloatArray:
        """Returns the frame pixels of board points, lens distortion included (cv2.projectPoints)."""
        rvec, _ = cv2.Rodrigues(self.rotation)
        pixels, _ = cv2.projectPoints(as_points3d(points), rvec, self.translation, self.matrix, self.dist_coeffs)
        return np.asarray(pixels, np.float64).reshape(-1, 2)

    def sees(self, points: Any, margin_px: float = 4.0) -> bool:
        """Tells whether every board point projects inside the frame, margin_px from its edges."""
        pixels = self.project(points)
        width, height = self.size
        return bool((pixels >= margin_px).all() and (pixels[:, 0] < width - margin_px).all()
                    and (pixels[:, 1] < height - margin_px).all())

    def project_ideal(self, points: Any) -> FloatArray:
        """Returns the undistorted pixels of board points."""
        return apply_matrix(self.matrix, self.to_camera(points))

    def plane_homography(self) -> FloatArray:
        """Returns the homography from board mm on the mat (z = 0) to undistorted pixels."""
        basis = np.column_stack([self.rotation[:, 0], self.rotation[:, 1], self.translation])
        return np.asarray(self.matrix @ basis, np.float64)

    def undistort_pixels(self, pixels: Any) -> FloatArray:
        """Returns where frame pixels would be without the lens's barrel (Newton on the radius)."""
        points = np.asarray(pixels, np.float64).reshape(-1, 2)
        focal, centre = np.diag(self.matrix)[:2], self.matrix[:2, 2]
        normal = (points - centre) / focal
        return np.asarray(centre + normal * _radial_scale(normal, self.k1)[:, None] * focal, np.float64)

    def calibration(self) -> dict[str, Any]:
        """Returns the camera's true calibration and pose as JSON-ready data."""
        rvec, _ = cv2.Rodrigues(self.rotation)
        return {"camera_matrix": self.matrix.tolist(), "dist_coeffs": self.dist_coeffs.tolist(),
                "image_size": list(self.size), "rvec": np.ravel(rvec).tolist(),
                "tvec": self.translation.tolist()}


def as_points3d(points: Any) -> FloatArray:
    """Returns points as an N x 3 float array, adding z = 0 to N x 2 points on the mat."""
    array = np.asarray(points, np.float64)
    array = array.reshape(-1, array.shape[-1]) if array.ndim else array
    if array.ndim != 2 or array.shape[1] not in (2, 3):
        raise RenderError(f"points must be N x 2 or N x 3 board coordinates, not of shape {np.shape(points)}")
    return array if array.shape[1] == 3 else np.column_stack([array, np.zeros(len(array))])


def apply_matrix(matrix: FloatArray, camera_points: FloatArray) -> FloatArray:
    """Returns the pixels of camera-coordinate points through a 3x3 intrinsic matrix."""
    image = camera_points @ matrix.T
    return np.asarray(image[:, :2] / image[:, 2:3], np.float64)


def _radial_scale(normal: FloatArray, k1: float) -> FloatArray:
    """Returns r_u / r_d for distorted normalised points, solving r + k1 r^3 = r_d by Newton's method."""
    distorted = np.hypot(normal[:, 0], normal[:, 1])
    radius = distorted.copy()
    for _ in range(NEWTON_STEPS):
        radius -= (radius + k1 * radius ** 3 - distorted) / (1 + 3 * k1 * radius ** 2)
    safe = np.where(distorted > 1e-12, distorted, 1.0)
    return np.where(distorted > 1e-12, radius / safe, 1.0)


def _axes(spec: CameraSpec) -> FloatArray:
    """Returns the camera's rotation: rows are its x (right), y (down) and z (optical axis) in board axes."""
    tilt, azimuth, roll = (math.radians(angle) for angle in (spec.tilt_deg, spec.azimuth_deg, spec.roll_deg))
    axis = np.array([math.sin(tilt) * math.cos(azimuth), math.sin(tilt) * math.sin(azimuth), -math.cos(tilt)])
    down = np.array([0.0, -1.0, 0.0]) - axis * -axis[1]
    down /= np.linalg.norm(down)
    right = np.cross(down, axis)
    turned = math.cos(roll) * right + math.sin(roll) * down
    return np.array([turned, np.cross(axis, turned), axis])


def pose(spec: CameraSpec, target: tuple[float, float]) -> Camera:
    """Returns the camera of a checked spec, height_mm above the mat and aimed at target (board mm)."""
    spec.checked()
    rotation = _axes(spec)
    centre = np.array([target[0], target[1], 0.0]) - rotation[2] * spec.height_mm / -rotation[2][2]
    focal = focal_px(spec)
    width, height = spec.size
    matrix = np.array([[focal, 0.0, (width - 1) / 2], [0.0, focal, (height - 1) / 2], [0.0, 0.0, 1.0]])
    return Camera(matrix, float(spec.k1), rotation, -rotation @ centre, spec.size)


@dataclass(frozen=True, slots=True, eq=False)
class Canvas:
    """The ideal image plane drawn `scale` times larger, with a margin (frame pixels) for the barrel."""

    camera: Camera
    scale: int
    margin: tuple[int, int]
    matrix: FloatArray
    size: Size

    def pixels(self, points: Any) -> FloatArray:
        """Returns the canvas pixels of board points."""
        return apply_matrix(self.matrix, self.camera.to_camera(points))

    def homography(self) -> FloatArray:
        """Returns the homography from board mm on the mat to canvas pixels."""
        to_canvas = self.matrix @ np.linalg.inv(self.camera.matrix)
        return np.asarray(to_canvas @ self.camera.plane_homography(), np.float64)

    def mm_to_px(self) -> float:
        """Returns about how many canvas pixels one mm on the mat spans, at the mat under the axis."""
        return float(self.matrix[0, 0] / abs(self.camera.to_camera(np.zeros((1, 3)))[0, 2]))


def canvas_for(camera: Camera, scale: int) -> Canvas:
    """Returns the canvas on which the camera's ideal view is drawn at an integer supersampling scale."""
    margin = _barrel_margin(camera)
    width, height = camera.size
    shift = np.array([[scale, 0.0, scale * margin[0] + (scale - 1) / 2],
                      [0.0, scale, scale * margin[1] + (scale - 1) / 2], [0.0, 0.0, 1.0]])
    size = (scale * (width + 2 * margin[0]), scale * (height + 2 * margin[1]))
    return Canvas(camera, scale, margin, shift @ camera.matrix, size)


def _frame_border(size: Size) -> FloatArray:
    """Returns the pixel centres along the border of a frame."""
    width, height = size
    xs, ys = np.arange(width, dtype=np.float64), np.arange(height, dtype=np.float64)
    top = np.column_stack([xs, np.zeros(width)])
    side = np.column_stack([np.zeros(height), ys])
    return np.vstack([top, top + [0, height - 1], side, side + [width - 1, 0]])


def _barrel_margin(camera: Camera) -> tuple[int, int]:
    """Returns how many pixels the ideal image must extend beyond the frame on each side."""
    if camera.k1 == 0:
        return (0, 0)
    ideal = camera.undistort_pixels(_frame_border(camera.size))
    width, height = camera.size
    over_x = max(-ideal[:, 0].min(), ideal[:, 0].max() - (width - 1), 0.0)
    over_y = max(-ideal[:, 1].min(), ideal[:, 1].max() - (height - 1), 0.0)
    return (int(math.ceil(over_x)) + 2, int(math.ceil(over_y)) + 2)


class Lens:
    """Turns a canvas image into the camera's frame: area downsampling, then barrel distortion."""

    def __init__(self, camera: Camera, scale: int = 2) -> None:
        if not isinstance(scale, int) or isinstance(scale, bool) or not 1 <= scale <= 4:
            raise RenderError(f"supersampling scale must be an integer from 1 to 4, not {scale!r}")
        self.camera = camera
        self.canvas = canvas_for(camera, scale)
        self._maps = _distortion_maps(camera, self.canvas.margin) if camera.k1 else None

    def develop(self, image: NDArray[Any]) -> NDArray[Any]:
        """Returns the frame the camera records of a canvas image (same dtype)."""
        width, height = self.camera.size
        mx, my = self.canvas.margin
        small = image
        if self.canvas.scale > 1:
            small = cv2.resize(image, (width + 2 * mx, height + 2 * my), interpolation=cv2.INTER_AREA)
        if self._maps is None:
            return small[my:my + height, mx:mx + width]
        return np.asarray(cv2.remap(small, self._maps[0], self._maps[1], cv2.INTER_LINEAR,
                                    borderMode=cv2.BORDER_REPLICATE))


def _distortion_maps(camera: Camera, margin: tuple[int, int]) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
    """Returns cv2.remap maps from each frame pixel to its place on the margined ideal image."""
    width, height = camera.size
    grid = np.stack(np.meshgrid(np.arange(width, dtype=np.float64), np.arange(height, dtype=np.float64)), -1)
    ideal = camera.undistort_pixels(grid.reshape(-1, 2)).reshape(height, width, 2) + np.array(margin)
    return ideal[..., 0].astype(np.float32), ideal[..., 1].astype(np.float32)


def bgr(rgb: Iterable[float]) -> tuple[int, int, int]:
    """Returns an OpenCV colour (B, G, R integers 0..255) from r, g, b values."""
    r, g, b = (int(round(min(max(float(part), 0.0), 255.0))) for part in rgb)
    return (b, g, r)


def fill(image: Image, pixels: FloatArray, colour: tuple[int, ...], smooth: bool = False) -> None:
    """Fills a convex polygon given in (fractional) pixel coordinates."""
    points = np.round(np.asarray(pixels) * ONE).astype(np.int32)
    cv2.fillConvexPoly(image, points, colour, cv2.LINE_AA if smooth else cv2.LINE_8, SHIFT)
