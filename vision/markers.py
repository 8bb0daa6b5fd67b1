"""ArUco markers: detection, bit patterns, template re-checks in place, homography fits."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.frames import Image, to_gray
from vision.kit import Kit, Mat

FloatArray = NDArray[np.float64]
Markers = dict[int, FloatArray]

RANSAC_PX = 3.0
MIN_MARKERS = 2
COARSE_SIDE = 32  # a template twice this wide or more is matched shrunk by half (a cheaper check)


@dataclass(frozen=True, slots=True)
class Fit:
    """A homography from board mm to pixels, its RMS reprojection error and the markers it used."""

    homography: FloatArray
    rms_px: float
    used: tuple[int, ...]


def dictionary(kit: Kit) -> cv2.aruco.Dictionary:
    """Returns the kit's predefined ArUco dictionary."""
    return cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, kit.dictionary))


def marker_cells(kit: Kit, marker_id: int) -> NDArray[np.bool_]:
    """Returns a marker's cells, border included, as a square of booleans (True = black)."""
    side = kit.marker_bits + 2
    image = cv2.aruco.generateImageMarker(dictionary(kit), marker_id, side, borderBits=1)
    return np.asarray(image) < 128


def detector_parameters() -> cv2.aruco.DetectorParameters:
    """Returns detector parameters with sub-pixel corners, tuned for markers 17-30 px wide."""
    parameters = cv2.aruco.DetectorParameters()
    parameters.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    # At 640x480 from 80 cm a 30 mm marker is ~17 px; reading its bits at 8 px per cell
    # (default 4) decodes every such marker in the synthetic envelope sweep.
    parameters.perspectiveRemovePixelPerCell = 8
    return parameters


class MarkerDetector:
    """Finds the kit's markers in frames; the OpenCV detector is created once and reused."""

    def __init__(self, kit: Kit) -> None:
        self.kit = kit
        self._detector = cv2.aruco.ArucoDetector(dictionary(kit), detector_parameters())

    def detect(self, frame: Image) -> Markers:
        """Returns each marker ID seen exactly once in the frame with its 4 pixel corners."""
        corners, ids, _ = self._detector.detectMarkers(to_gray(frame))
        return unique_markers(corners, ids)


def unique_markers(corners: Sequence[Any], ids: Any) -> Markers:
    """Returns OpenCV's detections as {id: 4x2 corners}, dropping IDs seen more than once."""
    if ids is None:
        return {}
    flat = [int(value) for value in np.asarray(ids).ravel()]
    points = [np.asarray(corner, np.float64).reshape(4, 2) for corner in corners]
    return {key: point for key, point in zip(flat, points) if flat.count(key) == 1}


@dataclass(frozen=True, slots=True)
class MarkerTemplate:
    """How a marker and its quiet zone should look in the frame: a gray patch and its corner, and
    the patch shrunk by a factor of 2 or 1 (the same patch) for a cheaper check."""

    image: Image
    origin: tuple[int, int]
    coarse: Image
    factor: int


def marker_template(kit: Kit, marker_id: int, corners_px: FloatArray,
                    scale: int = 8) -> MarkerTemplate:
    """Returns the marker drawn where its corners (ArUco order, frame pixels) put it."""
    cells = marker_cells(kit, marker_id)
    quiet = int(round(kit.quiet_zone_mm * len(cells) / kit.marker_mm * scale))
    side = len(cells) * scale + 2 * quiet
    ideal = np.full((side, side), 255, np.uint8)
    blown_up = np.kron(cells, np.ones((scale, scale)))
    ideal[quiet:side - quiet, quiet:side - quiet] = np.where(blown_up, 0, 255)
    low, high = quiet - 0.5, side - quiet - 0.5
    square = np.array([[low, low], [high, low], [high, high], [low, high]], np.float32)
    to_frame = cv2.getPerspectiveTransform(square, np.asarray(corners_px, np.float32))
    edge = side - 0.5
    outline = np.array([[-0.5, -0.5], [edge, -0.5], [edge, edge], [-0.5, edge]])
    quad = project(np.asarray(to_frame, np.float64), outline)
    x0, y0 = (int(v) for v in np.floor(quad.min(axis=0)))
    x1, y1 = (int(v) for v in np.ceil(quad.max(axis=0)))
    shift = np.array([[1.0, 0.0, -x0], [0.0, 1.0, -y0], [0.0, 0.0, 1.0]])
    patch = cv2.warpPerspective(ideal, shift @ to_frame, (x1 - x0 + 1, y1 - y0 + 1),
                                flags=cv2.INTER_AREA, borderValue=int(np.mean(kit.mat_rgb)))
    image = np.asarray(patch, np.uint8)
    factor = 2 if min(image.shape) >= 2 * COARSE_SIDE else 1
    return MarkerTemplate(image, (x0, y0), shrunk(image, factor), factor)


def shrunk(image: Image, factor: int) -> Image:
    """Returns the image averaged over factor x factor blocks (a ragged edge dropped)."""
    if factor == 1:
        return image
    height, width = image.shape[0] // factor, image.shape[1] // factor
    return np.asarray(cv2.resize(image[:height * factor, :width * factor], (width, height),
                                 interpolation=cv2.INTER_AREA), np.uint8)


def match_template(frame: Image, template: MarkerTemplate, pad: int) -> tuple[float, float] | None:
    """Returns the best match score within pad pixels of the template's place and its offset."""
    # Normalised cross-correlation does not mind a change of light; None if the window leaves
    # the frame. A big template is matched shrunk by half, the offset read to a fraction of a
    # shrunk pixel (a parabola through the peak), which costs a few times less than matching
    # it whole.
    if template.factor > 1:
        coarse = _match(frame, template.coarse, template.origin, -(-pad // template.factor),
                        template.factor)
        if coarse is not None:
            return coarse
    return _match(frame, template.image, template.origin, pad, 1)


def _match(frame: Image, patch: Image, origin: tuple[int, int], steps: int,
           factor: int) -> tuple[float, float] | None:
    """Returns the best score of a (shrunk) patch within steps of its place and the offset in
    frame pixels, or None if the window leaves the frame."""
    height, width = patch.shape
    x0, y0 = origin[0] - steps * factor, origin[1] - steps * factor
    x1, y1 = x0 + (width + 2 * steps) * factor, y0 + (height + 2 * steps) * factor
    if x0 < 0 or y0 < 0 or x1 > frame.shape[1] or y1 > frame.shape[0]:
        return None
    window = shrunk(to_gray(frame[y0:y1, x0:x1]), factor)
    scores = np.asarray(cv2.matchTemplate(window, patch, cv2.TM_CCOEFF_NORMED), np.float32)
    _, best, _, (x, y) = cv2.minMaxLoc(scores)
    if factor == 1:
        return float(best), float(np.hypot(x - steps, y - steps))
    dx, dy = _peak_shift(scores[y, :], x), _peak_shift(scores[:, x], y)
    return float(best), factor * float(np.hypot(x + dx - steps, y + dy - steps))


def _peak_shift(scores: NDArray[np.float32], at: int) -> float:
    """Returns where between its neighbours a parabola puts the peak at index at (-0.5 to 0.5)."""
    if at == 0 or at == len(scores) - 1:
        return 0.0
    left, middle, right = (float(value) for value in scores[at - 1:at + 2])
    curve = left - 2 * middle + right
    return 0.0 if curve >= 0 else float(np.clip((left - right) / (2 * curve), -0.5, 0.5))


def project(homography: FloatArray, points: Any) -> FloatArray:
    """Returns points (N x 2) mapped through a homography."""
    flat = np.asarray(points, np.float64).reshape(-1, 1, 2)
    if not len(flat):
        return np.zeros((0, 2))  # OpenCV maps no points to None
    return np.asarray(cv2.perspectiveTransform(flat, homography), np.float64).reshape(-1, 2)


def fit_homography(board: Markers, seen: Markers, prior: FloatArray | None = None) -> Fit | None:
    """Returns the homography from board mm to pixels over the markers both name, or None."""
    # Needs two markers; RANSAC drops misplaced corners, then least squares over the inliers.
    # With only two markers a full homography extrapolates badly across the board, so when a
    # prior homography is known (a bumped camera) it is corrected by a similarity instead.
    used = sorted(set(board) & set(seen))
    if len(used) < MIN_MARKERS:
        return None
    source = np.vstack([board[key] for key in used])
    target = np.vstack([seen[key] for key in used])
    if len(used) == MIN_MARKERS and prior is not None:
        homography, mask = _similarity_fit(prior, source, target)
    else:
        homography, mask = _projective_fit(source, target)
    if homography is None or not _sane(homography, source):
        return None
    inliers = mask.ravel().astype(bool)
    error = project(homography, source[inliers]) - target[inliers]
    rms = float(np.sqrt(np.mean(np.sum(error**2, axis=1))))
    kept = tuple(key for index, key in enumerate(used) if inliers[4 * index:4 * index + 4].all())
    return Fit(homography, rms, kept)


def _projective_fit(source: FloatArray, target: FloatArray) -> tuple[FloatArray | None, FloatArray]:
    """Returns a RANSAC-then-least-squares homography and its inlier mask."""
    rough, mask = cv2.findHomography(source, target, cv2.RANSAC, RANSAC_PX)
    if rough is None or int(mask.sum()) < 4 * MIN_MARKERS:
        return None, np.zeros(len(source))
    inliers = mask.ravel().astype(bool)
    homography, _ = cv2.findHomography(source[inliers], target[inliers], 0)
    if homography is None:
        return None, np.zeros(len(source))
    return np.asarray(homography, np.float64), np.asarray(mask, np.float64)


def _similarity_fit(prior: FloatArray, source: FloatArray,
                    target: FloatArray) -> tuple[FloatArray | None, FloatArray]:
    """Returns the prior homography corrected by the similarity that best moves it onto target."""
    moved, mask = cv2.estimateAffinePartial2D(project(prior, source), target, method=cv2.RANSAC,
                                              ransacReprojThreshold=RANSAC_PX)
    if moved is None or int(mask.sum()) < 4 * MIN_MARKERS:
        return None, np.zeros(len(source))
    return np.vstack([moved, [0.0, 0.0, 1.0]]) @ prior, np.asarray(mask, np.float64)


def _sane(homography: FloatArray, source: FloatArray) -> bool:
    """Tells whether a homography is finite and maps the points' hull without folding it."""
    if not np.all(np.isfinite(homography)):
        return False
    low, high = source.min(axis=0), source.max(axis=0)
    square = np.array([low, [high[0], low[1]], high, [low[0], high[1]]])
    w = (homography @ np.column_stack([square, np.ones(4)]).T)[2]
    if np.any(w <= 0) and np.any(w >= 0):
        return False
    quad = project(homography, square)
    edges = np.roll(quad, -1, axis=0) - quad
    following = np.roll(edges, -1, axis=0)
    turns = edges[:, 0] * following[:, 1] - edges[:, 1] * following[:, 0]
    return bool(np.all(turns > 0) or np.all(turns < 0))


def read_game(kit: Kit, seen: Markers) -> tuple[Mat | None, str]:
    """Returns the mat named by the one game marker in view (or None) and a sentence saying so."""
    mats = [mat for mat in (kit.mat_for_marker(key) for key in sorted(seen)) if mat is not None]
    if len(mats) == 1:
        return mats[0], f"the game marker {mats[0].marker_id} names {mats[0].label}"
    if not mats:
        return None, "no game marker in view"
    ids = ", ".join(str(mat.marker_id) for mat in mats)
    return None, f"several game markers in view ({ids}): cannot tell which mat is the board"
