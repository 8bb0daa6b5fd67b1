"""Where the camera is, from the board's homography: so cells are sampled where tops appear.

A piece's top at height h does not appear over its cell: seen from the camera centre C, the
point (x, y, h) lies on the ray that meets the mat at C + (P - C) * C_z / (C_z - h). With C known,
any 3D point maps to the mat plane and then through the cached homography to frame pixels, so
the homography stays the one source of truth and only C rests on the lens estimate. Without a
lens calibration the focal length comes from a horizontal field of view prior (KIT.md's envelope
is 50-70 degrees; 60 is the default): the error in C then scales the parallax, never the grid.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.board import BoardView

FloatArray = NDArray[np.float64]
DEFAULT_HFOV_DEG = 60.0
MIN_CLEARANCE_MM = 20.0
FOCAL_NOISE_PX = 0.3  # the least corner noise the homography's focal length is doubted by
FOCAL_SAMPLES, FOCAL_SEED = 64, 0  # refits, and their seed (the same view gets the same doubt)
FOCAL_TOLD = 0.05  # log focal length: a homography whose focal length moves less (focal_spread) tells it
SURE_LENS_DOUBT = 0.03  # a distortion the markers tell this closely ...
STRONG_LENS = 0.2  # ... and at least this strong (k1 on a frame-width focal length) is kept without
# the focal length. Rendered BLOCK.BLOCK looks straight down are told within 0.004-0.029 and at
# most 0.03 off the truth; the committed realistic fixtures, whose fix through it read 9 and 1
# moves of 21, within 0.051 and 0.086. A weak one gains nothing: sweep 217 (-0.028 told, -0.048
# true) read 0 of 21 through it, 21 without


class PoseError(ValueError):
    """Raised when no camera above the mat explains a homography."""


@dataclass(frozen=True, slots=True)
class CameraPlace:
    """The camera centre in board mm (z above the mat) and the focal length used, in pixels."""

    centre: tuple[float, float, float]
    focal_px: float

    def to_mat(self, points: FloatArray) -> FloatArray:
        """Returns the mat-plane points (N x 2) that line up with 3D board points (N x 3)."""
        cx, cy, cz = self.centre
        pts = np.asarray(points, np.float64).reshape(-1, 3)
        heights = np.minimum(pts[:, 2], cz - MIN_CLEARANCE_MM)
        stretch = cz / (cz - heights)
        return np.column_stack([cx + (pts[:, 0] - cx) * stretch, cy + (pts[:, 1] - cy) * stretch])


def focal_from_hfov(width_px: int, hfov_deg: float) -> float:
    """Returns the focal length in pixels of a lens with a horizontal field of view."""
    return (width_px / 2.0) / math.tan(math.radians(hfov_deg) / 2.0)


def focal_from_homography(homography: FloatArray, centre: tuple[float, float]) -> float | None:
    """Returns the focal length (pixels) that makes the plane's axes orthonormal, if defined.

    With square pixels and the principal point at `centre`, the two axis images h1, h2 satisfy
    h1'Wh2 = 0 and h1'Wh1 = h2'Wh2 for W = diag(1/f^2, 1/f^2, 1) (Zhang); a view that looks
    nearly straight down leaves f undetermined, and then None is returned.
    """
    shifted = np.array([[1.0, 0.0, -centre[0]], [0.0, 1.0, -centre[1]], [0.0, 0.0, 1.0]]) @ homography
    (a1, b1, c1), (a2, b2, c2) = shifted[:, 0], shifted[:, 1]
    first = np.array([a1 * a2 + b1 * b2, a1 * a1 + b1 * b1 - a2 * a2 - b2 * b2])
    second = np.array([c1 * c2, c1 * c1 - c2 * c2])
    inverse_square = -float(np.dot(first, second)) / (float(np.dot(first, first)) + 1e-300)
    if not inverse_square > 0:
        return None
    return 1.0 / math.sqrt(inverse_square)


def frame_centre(view: BoardView) -> tuple[float, float]:
    """Returns the middle of the view's frame (pixels), where the principal point is assumed."""
    width, height = view.frame_size
    return (width - 1) / 2.0, (height - 1) / 2.0


def homography_focal(view: BoardView) -> float | None:
    """Returns the focal length (pixels) the view's homography implies when it is well
    determined and plausible (40-85 degrees of horizontal field), else None."""
    width = view.frame_size[0]
    focal = focal_from_homography(view.homography, frame_centre(view))
    if focal is None or not focal_from_hfov(width, 85.0) <= focal <= focal_from_hfov(width, 40.0):
        return None
    return focal


def told_focal(view: BoardView) -> float | None:
    """Returns the focal length (pixels) the view's homography tells: plausible, and moving by
    less than FOCAL_TOLD when the markers' corners move by their misfit (a camera leaning some 8
    degrees or more off straight down: through the lens the markers tell, 42 of 97 rendered
    BLOCK.BLOCK looks pass, their focal lengths within 5 %); else None."""
    focal = homography_focal(view)
    return focal if focal is not None and focal_spread(view) <= FOCAL_TOLD else None


def focal_told(view: BoardView) -> bool:
    """Tells whether the view's homography tells the focal length (told_focal)."""
    return told_focal(view) is not None


def lens_pinned(view: BoardView) -> bool:
    """Tells whether a view's lens is pinned down: its markers tell a strong distortion (STRONG_LENS)
    within SURE_LENS_DOUBT (a mat filling much of the frame), or its homography the focal length too."""
    lens = view.calibration
    if lens is None:
        return False
    strong = abs(float(lens.dist_coeffs[0])) >= STRONG_LENS and lens.doubt <= SURE_LENS_DOUBT
    return strong or focal_told(view)


def focal_spread(view: BoardView, samples: int = FOCAL_SAMPLES) -> float:
    """Returns how far (log focal length) the homography's focal length moves when the markers'
    corners (without the lens's distortion, when known) move by their own misfit to it (at least
    FOCAL_NOISE_PX): half the 16-84 % range
    over seeded refits, infinite when a sixth of them or more tell no focal length."""
    corners = view.kit.marker_corners(view.mat)
    seen = [key for key in view.observed if key in corners]
    if len(seen) < 2:
        return math.inf
    board = np.vstack([corners[key] for key in seen]).astype(np.float64)
    pixels = np.vstack([view.observed[key] for key in seen]).astype(np.float64)
    noise = max(FOCAL_NOISE_PX, float(np.sqrt(((view.to_image(board) - pixels) ** 2).sum(axis=1).mean())))
    if view.calibration is not None:
        pixels = view.calibration.undistort_points(pixels, view.frame_size)
    return _spread(board.tobytes(), pixels.tobytes(), noise, frame_centre(view), samples)


@lru_cache(maxsize=8)
def _spread(board: bytes, pixels: bytes, noise: float, centre: tuple[float, float], samples: int) -> float:
    """Returns focal_spread's figure for matched points (float64 bytes, N x 2 each), kept for the
    last few (a locked board tracker hands out one view for many frames; a refit set costs ms)."""
    on_board, seen = np.frombuffer(board).reshape(-1, 2), np.frombuffer(pixels).reshape(-1, 2)
    rng = np.random.default_rng(FOCAL_SEED)
    found = [_refit_focal(on_board, seen + rng.normal(0.0, noise, seen.shape), centre) for _ in range(samples)]
    logs = np.log([focal for focal in found if focal is not None])
    if len(logs) < samples * 5 / 6:
        return math.inf
    low, high = np.percentile(logs, [16.0, 84.0])
    return float(high - low) / 2.0


def _refit_focal(board: FloatArray, pixels: FloatArray, centre: tuple[float, float]) -> float | None:
    """Returns the focal length of the homography fitted (least squares) to matched points."""
    homography, _ = cv2.findHomography(board, pixels, 0)
    return None if homography is None else focal_from_homography(np.asarray(homography, np.float64), centre)


def lens_matrix(view: BoardView, focal_px: float) -> FloatArray:
    """Returns the camera matrix of a lens of this focal length, principal point in the middle."""
    cx, cy = frame_centre(view)
    return np.array([[focal_px, 0.0, cx], [0.0, focal_px, cy], [0.0, 0.0, 1.0]])


def intrinsics(view: BoardView, hfov_deg: float) -> FloatArray:
    """Returns the camera matrix: the calibration's; else the focal length the homography
    implies when it is well determined and plausible (40-85 degrees); else the FOV prior."""
    if view.calibration is not None and view.lens_known:
        return np.asarray(view.calibration.matrix_for(view.frame_size), np.float64)
    focal = homography_focal(view)
    return lens_matrix(view, focal_from_hfov(view.frame_size[0], hfov_deg) if focal is None else focal)


def locate_camera(view: BoardView, hfov_deg: float = DEFAULT_HFOV_DEG) -> CameraPlace:
    """Returns the camera centre that, with the assumed lens, explains the view's homography."""
    return place_for_matrix(view, intrinsics(view, hfov_deg))


def place_for_focal(view: BoardView, focal_px: float) -> CameraPlace:
    """Returns the camera centre that explains the view's homography with a lens of this focal
    length (pixels, principal point in the frame's middle): a view from nearly straight above
    leaves focal length and height tied, so its observers may choose among these places."""
    return place_for_matrix(view, lens_matrix(view, focal_px))


def place_for_matrix(view: BoardView, matrix: FloatArray) -> CameraPlace:
    """Returns the camera centre that, with this camera matrix, explains the view's homography."""
    columns = np.linalg.solve(matrix, view.homography)
    scale = (np.linalg.norm(columns[:, 0]) + np.linalg.norm(columns[:, 1])) / 2.0
    if not math.isfinite(scale) or scale <= 0:
        raise PoseError("the homography is degenerate: no camera explains it")
    first, second, shift = columns[:, 0] / scale, columns[:, 1] / scale, columns[:, 2] / scale
    if shift[2] < 0:
        first, second, shift = -first, -second, -shift
    rotation = _nearest_rotation(np.column_stack([first, second, np.cross(first, second)]))
    centre = -rotation.T @ shift
    if centre[2] <= MIN_CLEARANCE_MM:
        raise PoseError(f"the camera would be {centre[2]:.0f} mm above the mat: not a view from above")
    return CameraPlace((float(centre[0]), float(centre[1]), float(centre[2])), float(matrix[0, 0]))


def _nearest_rotation(matrix: FloatArray) -> FloatArray:
    """Returns the rotation matrix closest to a nearly orthonormal one."""
    left, _, right = np.linalg.svd(matrix)
    rotation = left @ right
    if np.linalg.det(rotation) < 0:
        left[:, -1] = -left[:, -1]
        rotation = left @ right
    return np.asarray(rotation, np.float64)


def image_points(view: BoardView, place: CameraPlace, points: FloatArray) -> FloatArray:
    """Returns the frame pixels (N x 2) of 3D board points (N x 3), parallax included."""
    return view.to_image(place.to_mat(points))
