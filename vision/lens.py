"""A lens calibration from the printed mat: its markers, seen in several frames, are the target.

Each marker's corners lie at known board millimetres (vision.kit: Kit.marker_corners), so every
frame that shows the mat's game marker and enough of the others gives a view of a flat target of
known geometry. OpenCV's calibrateCamera fits the lens to the views: the focal length (square
pixels) and radial distortion k1, the principal point held in the frame's middle and no
tangential or higher terms (a few dozen points per view do not pin more down). The views must
differ: the mat at several tilts and places in the frame (a camera straight above a flat mat
cannot tell the focal length from the height), so a fit is refused unless MIN_TILTED views lean
MIN_TILT_DEG or more and the fit's own spread leaves the focal length within MOST_FOCAL_DOUBT
(rendered lenses: views leaning 18 degrees miss it by under 2 %, 12 degrees by 8 %). The result
is what Calibration.load reads (Calibration.save writes it).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import cv2
import numpy as np

from vision.board import Calibration, VisionError
from vision.frames import Image, Size, require_image
from vision.kit import Kit, Mat
from vision.markers import FloatArray, MarkerDetector, read_game
from vision.pose import focal_from_hfov

MIN_VIEWS = 4  # views needed for a calibration
MIN_MARKERS = 4  # markers a frame must show to count as a view
FLAGS = (cv2.CALIB_USE_INTRINSIC_GUESS | cv2.CALIB_FIX_PRINCIPAL_POINT | cv2.CALIB_FIX_ASPECT_RATIO
         | cv2.CALIB_ZERO_TANGENT_DIST | cv2.CALIB_FIX_K2 | cv2.CALIB_FIX_K3)
GUESS_HFOV_DEG = 60.0  # the focal length the fit starts from (KIT.md: 50-70 degrees)
MIN_TILT_DEG, MIN_TILTED = 15.0, 3  # views that must show the mat tilted at least this much
MOST_FOCAL_DOUBT = 0.01  # a focal length doubted by more than this share of it is refused


@dataclass(frozen=True, slots=True)
class View:
    """One frame's markers: their corners in board mm (N x 3, z = 0) and in pixels (N x 2)."""

    board: FloatArray
    pixels: FloatArray


@dataclass(frozen=True, slots=True)
class LensFit:
    """A fitted lens, how far its reprojection misses the corners (RMS pixels) and the views used."""

    calibration: Calibration
    rms_px: float
    views: int


def view_of(frame: Image, kit: Kit, detector: MarkerDetector, mat: Mat | None = None) -> View | None:
    """Returns a frame's view of the mat (named by its game marker unless given), or None when
    the mat cannot be told or fewer than MIN_MARKERS of its markers show."""
    seen = detector.detect(frame)
    mat = mat or read_game(kit, seen)[0]
    if mat is None:
        return None
    corners = kit.marker_corners(mat)
    shown = sorted(set(seen) & set(corners))
    if len(shown) < MIN_MARKERS:
        return None
    board = np.vstack([np.column_stack([corners[key], np.zeros(4)]) for key in shown])
    return View(board, np.vstack([seen[key] for key in shown]))


def fit_lens(views: Sequence[View], size: Size) -> LensFit:
    """Returns the lens that best explains the views of frames of a size, or raises VisionError."""
    if len(views) < MIN_VIEWS:
        raise VisionError(f"a calibration needs the mat in at least {MIN_VIEWS} frames, "
                          f"with its game marker and {MIN_MARKERS} markers in view; {len(views)} had them")
    width, height = size
    focal = focal_from_hfov(width, GUESS_HFOV_DEG)
    guess = np.array([[focal, 0.0, (width - 1) / 2], [0.0, focal, (height - 1) / 2], [0.0, 0.0, 1.0]])
    rms, matrix, distortion, turns, _, spread, _, _ = cv2.calibrateCameraExtended(
        [view.board.astype(np.float32) for view in views], [view.pixels.astype(np.float32) for view in views],
        size, guess, np.zeros(5), flags=FLAGS)
    if not (math.isfinite(rms) and np.all(np.isfinite(matrix)) and matrix[0, 0] > 0):
        raise VisionError("the views do not fit any lens: show the mat at several tilts")
    tilted = sum(tilt_of(np.asarray(turn, np.float64)) >= MIN_TILT_DEG for turn in turns)
    if tilted < MIN_TILTED:
        raise VisionError(f"the mat must be tilted at least {MIN_TILT_DEG:g} degrees towards the camera in "
                          f"{MIN_TILTED} frames, not {tilted}: seen straight on, a lens's focal length and "
                          "the mat's distance cannot be told apart")
    doubt = float(np.ravel(spread)[1]) / float(matrix[1, 1])
    if not doubt <= MOST_FOCAL_DOUBT:
        raise VisionError(f"the frames leave the focal length {doubt:.1%} in doubt (at most {MOST_FOCAL_DOUBT:.0%}): "
                          "show the mat at more different tilts and places in the view")
    return LensFit(Calibration(matrix, np.ravel(distortion), list(size)), float(rms), len(views))


def tilt_of(turn: FloatArray) -> float:
    """Returns how far a view's mat leans from facing the camera (degrees), from its rotation."""
    rotation, _ = cv2.Rodrigues(turn)
    return math.degrees(math.acos(min(1.0, abs(float(rotation[2, 2])))))


def calibrate(frames: Sequence[Image], kit: Kit, mat: Mat | None = None) -> LensFit:
    """Returns the lens fitted to the frames that show the mat, or raises VisionError (frames of
    different sizes, too few views)."""
    images = [require_image(frame) for frame in frames]
    sizes = {(image.shape[1], image.shape[0]) for image in images}
    if len(sizes) > 1:
        raise VisionError("the frames of a calibration must all be of one size, not "
                          + ", ".join(f"{w}x{h}" for w, h in sorted(sizes)))
    detector = MarkerDetector(kit)
    views = [view for view in (view_of(image, kit, detector, mat) for image in images) if view is not None]
    return fit_lens(views, sizes.pop() if sizes else (0, 0))
