"""The board in the frame: undistortion, the marker homography, its cache, re-check and recovery.

A BoardTracker fits a homography (board mm -> undistorted pixels) from the mat's markers, then
on each frame only looks for the markers near where that homography puts them. It keeps the
last good homography while markers are covered, and when markers turn up elsewhere (a bumped
camera or mat) it re-detects in the whole frame and accepts a new homography only once it has
been the same over `confirm_frames` frames.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any, Callable

import cv2
import numpy as np

from vision.frames import Image, Size, require_image
from vision.kit import Kit, Mat, board_to_page
from vision.markers import (FloatArray, MarkerDetector, Markers, MarkerTemplate, fit_homography,
                            marker_template, match_template, project, read_game)
from vision.radial import Radial, distorted, estimate_radial

DISTORTION_LENGTHS = (4, 5, 8, 12, 14)
UNDISTORT_CRITERIA = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 50, 1e-4)
ASPECT_SLACK = 0.01
MAX_RECTIFIED_SIDE = 4096
MATCH_SCORE = 0.8
MAP_STEP = 8
MAX_SIDE = 16384


class VisionError(ValueError):
    """Raised for bad input to the board vision: a bad calibration, parameter or frame size."""


class Calibration:
    """A camera's intrinsics and distortion, scaled to each frame size, with cached maps (doubt:
    how far off the distortion's strength may be; 0 for a calibration, the fit's for the markers')."""

    def __init__(self, camera_matrix: Any, dist_coeffs: Any, image_size: Any = None,
                 source: str = "calibration", focal_known: bool = True, doubt: float = 0.0) -> None:
        self.camera_matrix = _camera_matrix(camera_matrix, source)
        self.dist_coeffs = _dist_coeffs(dist_coeffs, source)
        self.image_size = None if image_size is None else _size(image_size, source)
        self.focal_known = focal_known
        self.doubt = doubt
        self._maps: dict[Size, tuple[Image, Image]] = {}

    @classmethod
    def radial_only(cls, radial: Radial, size: Size) -> Calibration:
        """Returns the distortion a frame's markers tell (vision.radial) as a calibration whose
        focal length is not known (its matrix's is the frame's width, which the strength is on)."""
        width, height = size
        matrix = [[float(width), 0.0, (width - 1) / 2], [0.0, float(width), (height - 1) / 2], [0.0, 0.0, 1.0]]
        return cls(matrix, [radial.strength, 0.0, 0.0, 0.0, 0.0], [width, height],
                   "the lens the markers tell", focal_known=False, doubt=radial.doubt)

    @classmethod
    def load(cls, path: str | Path) -> Calibration:
        """Returns the calibration in a JSON file (camera_matrix, dist_coeffs, image_size)."""
        source = f"calibration file {path}"
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except OSError as error:
            raise VisionError(f"{source} cannot be read ({error.strerror or error})") from None
        except (UnicodeDecodeError, json.JSONDecodeError) as error:
            raise VisionError(f"{source} is not valid JSON ({error})") from None
        if not isinstance(data, dict) or not {"camera_matrix", "dist_coeffs"} <= set(data):
            raise VisionError(f"{source} must be an object with camera_matrix and dist_coeffs")
        unknown = sorted(set(data) - {"camera_matrix", "dist_coeffs", "image_size"})
        if unknown:
            raise VisionError(f"{source} has unknown key(s): {', '.join(unknown)}")
        return cls(data["camera_matrix"], data["dist_coeffs"], data.get("image_size"), source)

    def save(self, path: str | Path) -> None:
        """Writes the calibration as the JSON file load reads."""
        data = {"camera_matrix": self.camera_matrix.tolist(), "dist_coeffs": self.dist_coeffs.tolist(),
                "image_size": None if self.image_size is None else list(self.image_size)}
        Path(path).write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")

    def matrix_for(self, size: Size) -> FloatArray:
        """Returns the camera matrix for frames of a size (scaled from the calibrated size)."""
        if self.image_size is None or self.image_size == size:
            return self.camera_matrix
        sx, sy = size[0] / self.image_size[0], size[1] / self.image_size[1]
        if abs(sx / sy - 1) > ASPECT_SLACK:
            width, height = self.image_size
            raise VisionError(f"the calibration is for {width}x{height} frames; "
                              f"{size[0]}x{size[1]} frames have another aspect ratio")
        scale = np.array([[sx, 0.0, (sx - 1) / 2], [0.0, sy, (sy - 1) / 2], [0.0, 0.0, 1.0]])
        return scale @ self.camera_matrix

    def undistort_points(self, pixels: FloatArray, size: Size) -> FloatArray:
        """Returns where frame pixels would be without lens distortion (same camera matrix)."""
        matrix = self.matrix_for(size)
        points = np.asarray(pixels, np.float64).reshape(-1, 1, 2)
        ideal = cv2.undistortImagePoints(points, matrix, self.dist_coeffs, None, UNDISTORT_CRITERIA)
        return np.asarray(ideal, np.float64).reshape(-1, 2)

    def distort_points(self, pixels: FloatArray, size: Size) -> FloatArray:
        """Returns where undistorted pixels fall in the real (distorted) frame."""
        matrix = self.matrix_for(size)
        points = np.asarray(pixels, np.float64).reshape(-1, 2)
        normalised = (points - matrix[:2, 2]) / np.diag(matrix)[:2]
        if len(self.dist_coeffs) > 5 and np.any(self.dist_coeffs[5:]):
            rays = np.column_stack([normalised, np.ones(len(points))])
            zero = np.zeros(3)
            real, _ = cv2.projectPoints(rays, zero, zero, matrix, self.dist_coeffs)
            return np.asarray(real, np.float64).reshape(-1, 2)
        return np.asarray(distorted(normalised, self.dist_coeffs) * np.diag(matrix)[:2] + matrix[:2, 2], np.float64)

    def undistort(self, frame: Image) -> Image:
        """Returns the frame without lens distortion (maps precomputed once per frame size)."""
        image = require_image(frame)
        size = (image.shape[1], image.shape[0])
        if size not in self._maps:
            matrix = self.matrix_for(size)
            first, second = cv2.initUndistortRectifyMap(matrix, self.dist_coeffs, None, matrix,
                                                        size, cv2.CV_16SC2)
            self._maps[size] = (np.asarray(first), np.asarray(second))
        first, second = self._maps[size]
        return np.asarray(cv2.remap(image, first, second, cv2.INTER_LINEAR), np.uint8)


def _numbers(value: Any, what: str, source: str) -> FloatArray:
    """Returns a nested list of finite numbers as an array, or raises."""
    try:
        array = np.array(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise VisionError(f"{source}: {what} must hold numbers only, not {value!r}") from None
    if isinstance(value, (str, bytes)) or not np.all(np.isfinite(array)):
        raise VisionError(f"{source}: {what} must hold finite numbers, not {value!r}")
    return array


def _camera_matrix(value: Any, source: str) -> FloatArray:
    """Returns a valid 3x3 camera matrix, or raises."""
    matrix = _numbers(value, "camera_matrix", source)
    good = matrix.shape == (3, 3) and matrix[0, 0] > 0 and matrix[1, 1] > 0
    if not good or not np.allclose(matrix[2], [0.0, 0.0, 1.0]) or matrix[1, 0] != 0:
        raise VisionError(f"{source}: camera_matrix must be [[fx, 0, cx], [0, fy, cy], [0, 0, 1]] "
                          f"with fx, fy > 0, not {value!r}")
    return matrix


def _dist_coeffs(value: Any, source: str) -> FloatArray:
    """Returns valid distortion coefficients (4, 5, 8, 12 or 14 numbers), or raises."""
    coeffs = _numbers(value, "dist_coeffs", source).ravel()
    if len(coeffs) not in DISTORTION_LENGTHS or np.ndim(value) > 2:
        raise VisionError(f"{source}: dist_coeffs must be 4, 5, 8, 12 or 14 numbers, not {value!r}")
    return coeffs


def _size(value: Any, source: str) -> Size:
    """Returns a valid [width, height] image size, or raises."""
    pixels = isinstance(value, (list, tuple)) and len(value) == 2 and all(
        isinstance(v, int) and not isinstance(v, bool) and 0 < v <= MAX_SIDE for v in value)
    if not pixels:
        raise VisionError(f"{source}: image_size must be [width, height] in pixels, not {value!r}")
    return (value[0], value[1])


class BoardView:
    """One homography fix: board mm <-> frame pixels, and the rectified top-down board image."""

    def __init__(self, kit: Kit, mat: Mat, homography: FloatArray, frame_size: Size,
                 calibration: Calibration | None = None, used: tuple[int, ...] = (),
                 observed: Markers | None = None) -> None:
        self.kit, self.mat, self.frame_size, self.calibration = kit, mat, frame_size, calibration
        self.homography = np.asarray(homography, np.float64)
        self.used = used
        self.observed: Markers = dict(observed or {})
        self._markers: dict[int, FloatArray] | None = None
        self._templates: dict[int, MarkerTemplate] | None = None
        self._maps: dict[tuple[float, float], tuple[Image, Image]] = {}

    @property
    def lens_known(self) -> bool:
        """Tells whether the lens's focal length is known (a calibration given, not only the
        distortion the markers tell)."""
        return self.calibration is not None and self.calibration.focal_known

    def to_image(self, points_mm: Any) -> FloatArray:
        """Returns the frame pixels (distortion included) of board points in mm (N x 2)."""
        ideal = project(self.homography, np.asarray(points_mm, np.float64))
        if self.calibration is None:
            return ideal
        return self.calibration.distort_points(ideal, self.frame_size)

    def to_board(self, pixels: Any) -> FloatArray:
        """Returns the board mm of frame pixels (N x 2)."""
        ideal = np.asarray(pixels, np.float64).reshape(-1, 2)
        if self.calibration is not None:
            ideal = self.calibration.undistort_points(ideal, self.frame_size)
        return project(np.asarray(np.linalg.inv(self.homography), np.float64), ideal)

    def grid_corners(self) -> FloatArray:
        """Returns the frame pixels of the grid's corners, a1's outer corner first."""
        return self.to_image(self.mat.grid_corners())

    def marker_pixels(self) -> dict[int, FloatArray]:
        """Returns where each of the mat's markers should appear in the frame (4 corners each)."""
        if self._markers is None:
            corners = self.kit.marker_corners(self.mat)
            self._markers = {key: self.to_image(points) for key, points in corners.items()}
        return self._markers

    def seen_pixels(self) -> dict[int, FloatArray]:
        """Returns where each marker was seen when this fix was made, or else where the fix puts
        it (a lens's distortion leaves corner markers off the homography by a steady amount)."""
        return {key: self.observed.get(key, corners) for key, corners in self.marker_pixels().items()}

    def templates(self) -> dict[int, MarkerTemplate]:
        """Returns (and caches) how each marker should look in the frame under this fix."""
        if self._templates is None:
            self._templates = {key: marker_template(self.kit, key, corners)
                               for key, corners in self.seen_pixels().items()}
        return self._templates

    def distance(self, other: BoardView) -> float:
        """Returns the largest pixel distance between the two fixes over the mat's outline."""
        corners = self.kit.marker_corners(self.mat)
        outline = np.vstack([self.mat.grid_corners(), *corners.values()])
        if other.mat != self.mat:
            return math.inf
        gaps = self.to_image(outline) - other.to_image(outline)
        return float(np.max(np.linalg.norm(gaps, axis=1)))

    def rectified_matrix(self, px_per_mm: float, margin_mm: float = 0.0) -> FloatArray:
        """Returns the matrix from board mm to pixels of the rectified image."""
        return board_to_page(self.mat, px_per_mm, margin_mm, pixel_centres=True)

    def rectify(self, frame: Image, px_per_mm: float = 2.0, margin_mm: float = 0.0) -> Image:
        """Returns the top-down board image: a1 at the bottom left, px_per_mm, margin_mm around."""
        image = require_image(frame)
        if (image.shape[1], image.shape[0]) != self.frame_size:
            width, height = self.frame_size
            raise VisionError(f"the frame is {image.shape[1]}x{image.shape[0]}, but this board fix "
                              f"is for {width}x{height} frames")
        first, second = self._rectify_maps(px_per_mm, margin_mm)
        return np.asarray(cv2.remap(image, first, second, cv2.INTER_LINEAR,
                                    borderMode=cv2.BORDER_CONSTANT), np.uint8)

    def _rectify_maps(self, px_per_mm: float, margin_mm: float) -> tuple[Image, Image]:
        """Returns (and caches) the remap tables from rectified pixels to frame pixels."""
        key = (px_per_mm, margin_mm)
        if key not in self._maps:
            side = _rectified_side(self.mat, px_per_mm, margin_mm)
            to_page = self.rectified_matrix(px_per_mm, margin_mm)
            page = np.asarray(np.linalg.inv(to_page), np.float64)
            field = smooth_field(lambda grid: self.to_image(project(page, grid)), (side, side))
            pixels = field.astype(np.float32)
            first, second = cv2.convertMaps(pixels[..., 0], pixels[..., 1], cv2.CV_16SC2)
            kept = dict(list(self._maps.items())[-3:])
            self._maps = {**kept, key: (np.asarray(first), np.asarray(second))}
        return self._maps[key]


def smooth_field(values_at: Callable[[FloatArray], FloatArray], size: Size,
                 step: int = MAP_STEP) -> FloatArray:
    """Returns a smooth 2-channel field at every pixel of width x height, sampled every step px."""
    # Knots sit where cv2.resize puts its source pixels, one extra all round, so that bilinear
    # resizing interpolates (never extrapolates) them at every pixel.
    width, height = size
    across, down = -(-width // step) + 2, -(-height // step) + 2
    xs = (np.arange(across) - 0.5) * step - 0.5
    ys = (np.arange(down) - 0.5) * step - 0.5
    knots = np.stack(np.meshgrid(xs, ys), axis=-1).reshape(-1, 2)
    coarse = values_at(knots).reshape(down, across, 2).astype(np.float32)
    dense = cv2.resize(coarse, (across * step, down * step), interpolation=cv2.INTER_LINEAR)
    return np.asarray(dense[step:step + height, step:step + width], np.float64)


def _rectified_side(mat: Mat, px_per_mm: float, margin_mm: float) -> int:
    """Returns the side in pixels of a rectified board image, or raises for bad parameters."""
    good = isinstance(px_per_mm, (int, float)) and isinstance(margin_mm, (int, float))
    if not good or not (0 < px_per_mm <= 50 and 0 <= margin_mm <= 1000):
        raise VisionError(f"px_per_mm must be in (0, 50] and margin_mm in [0, 1000], "
                          f"not {px_per_mm!r} and {margin_mm!r}")
    side = int(round((mat.side_mm + 2 * margin_mm) * px_per_mm))
    if not 1 <= side <= MAX_RECTIFIED_SIDE:
        raise VisionError(f"a rectified board of {side} pixels a side is out of range "
                          f"(1 to {MAX_RECTIFIED_SIDE})")
    return side


class BoardState(str, Enum):
    """How sure the tracker is of the board's place in this frame."""

    SEARCHING = "searching"    # no homography yet
    LOCKED = "locked"          # every corner marker confirms the cached homography
    PARTIAL = "partial"        # some markers hidden, the visible ones confirm it
    COVERED = "covered"        # no marker visible: the last good homography is kept
    RECOVERING = "recovering"  # markers moved: a new homography awaits confirmation


@dataclass(frozen=True, slots=True)
class BoardFix:
    """The tracker's answer for one frame."""

    state: BoardState
    view: BoardView | None
    message: str
    seen: tuple[int, ...]
    game: Mat | None
    frame: int

    @property
    def ok(self) -> bool:
        """Tells whether markers in this very frame confirm the homography."""
        return self.state in (BoardState.LOCKED, BoardState.PARTIAL)


class BoardTracker:
    """Keeps the board's homography over a stream of frames of one size (see the module doc)."""

    def __init__(self, kit: Kit, mat: Mat | None = None, calibration: Calibration | None = None, *,
                 confirm_frames: int = 2, tolerance_px: float = 2.0, full_every: int = 15,
                 estimate_lens: bool = True, lens_kept: Callable[[BoardView], bool] | None = None) -> None:
        _check_settings(confirm_frames, tolerance_px, full_every)
        self.kit, self.mat, self.calibration = kit, mat, calibration
        self.estimate_lens = estimate_lens
        self.lens_kept = lens_kept  # a fix through the markers' lens must pass it, else it is made without
        self.confirm_frames, self.tolerance_px = confirm_frames, tolerance_px
        self.full_every = full_every
        self._detector = MarkerDetector(kit)
        self._view: BoardView | None = None
        self._pending: list[BoardView] = []
        self._game: Mat | None = None
        self._frames = self._last_full = self._last_seen = 0

    @property
    def view(self) -> BoardView | None:
        """Returns the current (last good) board fix, if any."""
        return self._view

    def update(self, frame: Image) -> BoardFix:
        """Returns where the board is in this frame, re-checking or re-fitting as needed."""
        image = require_image(frame)
        size = (image.shape[1], image.shape[0])
        if self.calibration is not None:
            self.calibration.matrix_for(size)
        self._frames += 1
        if self._view is not None and self._view.frame_size != size:
            self._view, self._pending = None, []
        if self._view is None:
            return self._acquire(image, size)
        seen, moved = self._recheck(image, self._view)
        if moved or self._due_full(seen):
            return self._full_check(image, size, self._view)
        return self._report(seen)

    def _detect_all(self, image: Image) -> Markers:
        """Returns every marker in the whole frame and notes the game marker, if one is read."""
        self._last_full = self._frames
        markers = self._detector.detect(image)
        game, _ = read_game(self.kit, markers)
        if game is not None:
            self._game = game
        return markers

    def _mat_for(self, markers: Markers) -> Mat | None:
        """Returns the mat to fit: the configured one, or the one the game marker names."""
        if self.mat is not None:
            return self.mat
        game, _ = read_game(self.kit, markers)
        return game or self._game

    def _fit(self, mat: Mat, markers: Markers, size: Size,
             prior: BoardView | None = None) -> BoardView | None:
        """Returns a new fix from the markers seen (helped by a prior), or None if too few fit;
        without a calibration, the lens's distortion is the one the markers tell (if they do and
        the fix through it passes `lens_kept`)."""
        guess = prior.homography if prior is not None and prior.mat == mat else None
        if self.calibration is not None:
            return self._fit_through(self.calibration, mat, markers, size, guess)
        plain = self._fit_through(None, mat, markers, size, guess)
        lens = self._lens_told(markers, plain)
        if lens is None:
            return plain
        view = self._fit_through(lens, mat, markers, size, guess)
        return view if view is None or self.lens_kept is None or self.lens_kept(view) else plain

    def _fit_through(self, lens: Calibration | None, mat: Mat, markers: Markers, size: Size,
                     guess: FloatArray | None) -> BoardView | None:
        """Returns the fix from the markers seen through a lens (None: as seen), or None if too few fit."""
        board = self.kit.marker_corners(mat)
        seen = markers
        if lens is not None:
            seen = {key: lens.undistort_points(value, size) for key, value in markers.items()}
        fit = fit_homography(board, seen, guess)
        if fit is None or fit.rms_px > self.tolerance_px:
            return None
        mine = {key: value for key, value in markers.items() if key in board}
        return BoardView(self.kit, mat, fit.homography, size, lens, fit.used, mine)

    def _lens_told(self, markers: Markers, plain: BoardView | None) -> Calibration | None:
        """Returns the distortion the markers tell (vision.radial) about their fix as seen, if
        asked to and they tell it."""
        if not self.estimate_lens or plain is None:
            return None
        size = plain.frame_size
        radial = estimate_radial(self.kit.marker_corners(plain.mat), markers, plain.homography, size)
        return None if radial is None else Calibration.radial_only(radial, size)

    def _acquire(self, image: Image, size: Size) -> BoardFix:
        """Returns the first fix found in the whole frame, or SEARCHING saying what is missing."""
        markers = self._detect_all(image)
        mat = self._mat_for(markers)
        if mat is None:
            _, why = read_game(self.kit, markers)
            return self._fix(BoardState.SEARCHING,
                             f"no game configured and {why}: cannot tell which mat this is")
        view = self._fit(mat, markers, size)
        if view is None:
            found = sorted(set(markers) & set(self.kit.marker_corners(mat)))
            return self._fix(BoardState.SEARCHING, f"found markers {found or 'none'} of the "
                             f"{mat.label} mat; need 2 that fit together to place the board")
        self._view = view
        return self._report(self._confirmed(image, view), "board found")

    def _confirmed(self, image: Image, view: BoardView) -> tuple[int, ...]:
        """Returns the markers the fit used plus those the detector missed but that match where
        the fit puts them (its threaded search occasionally drops one)."""
        seen, _ = self._recheck(image, view)
        return tuple(sorted(set(view.used) | set(seen)))

    def _recheck(self, image: Image, view: BoardView) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """Returns the markers matched where the fix expects them, and those matched nearby."""
        pad = int(math.ceil(2 * self.tolerance_px)) + 2
        seen: list[int] = []
        moved: list[int] = []
        for key, template in view.templates().items():
            match = match_template(image, template, pad)
            if match is not None and match[0] >= MATCH_SCORE:
                (seen if match[1] <= self.tolerance_px else moved).append(key)
        return tuple(seen), tuple(moved)

    def _classify(self, view: BoardView, found: Markers) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """Splits found markers of the mat into those where the fix saw (or puts) them and those
        moved."""
        expected = view.seen_pixels()
        seen: list[int] = []
        moved: list[int] = []
        for key in sorted(set(found) & set(expected)):
            error = float(np.mean(np.linalg.norm(found[key] - expected[key], axis=1)))
            (seen if error <= self.tolerance_px else moved).append(key)
        return tuple(seen), tuple(moved)

    def _due_full(self, seen: tuple[int, ...]) -> bool:
        """Tells whether to search the whole frame: too few markers confirm, or it is time."""
        hidden = set(self.kit.corner_ids) - set(seen)
        if not hidden:
            return False
        return len(seen) < 2 or self._frames - self._last_full >= self.full_every

    def _full_check(self, image: Image, size: Size, view: BoardView) -> BoardFix:
        """Returns the fix after a whole-frame search: confirmed, kept, or a new one pending."""
        markers = self._detect_all(image)
        seen, moved = self._classify(view, markers)
        mat = self._mat_for(markers) or view.mat
        if not moved and mat == view.mat:
            self._pending = []
            return self._report(seen)
        candidate = self._fit(mat, markers, size, view)
        if candidate is None or candidate.distance(view) <= self.tolerance_px:
            self._pending = []
            note = f"markers {list(moved)} are not where the others put them" if moved else ""
            return self._report(seen, note) if seen or candidate else self._recovering(moved)
        return self._confirm(candidate)

    def _confirm(self, candidate: BoardView) -> BoardFix:
        """Returns RECOVERING until the candidate has held for confirm_frames, then adopts it."""
        if self._pending and candidate.distance(self._pending[-1]) <= self.tolerance_px:
            self._pending.append(candidate)
        else:
            self._pending = [candidate]
        if len(self._pending) < self.confirm_frames:
            return self._fix(BoardState.RECOVERING, "the markers moved (camera or mat bumped?): "
                             f"checking the new place, {len(self._pending)} of "
                             f"{self.confirm_frames} frames")
        self._view, self._pending = candidate, []
        return self._report(candidate.used, "the board moved: new homography adopted")

    def _recovering(self, moved: tuple[int, ...]) -> BoardFix:
        """Returns RECOVERING when markers moved but too few to fit a new homography."""
        return self._fix(BoardState.RECOVERING, f"markers {list(moved)} moved and no others "
                         "confirm the board: the last homography is suspect")

    def _report(self, seen: tuple[int, ...], note: str = "") -> BoardFix:
        """Returns LOCKED, PARTIAL or COVERED for the markers that confirmed the fix."""
        corners = set(self.kit.corner_ids)
        if seen:
            self._last_seen = self._frames
        if corners <= set(seen):
            state, text = BoardState.LOCKED, "all corner markers confirm the board"
        elif seen:
            hidden = sorted(corners - set(seen))
            state = BoardState.PARTIAL
            text = f"markers {hidden} hidden; the others confirm the board"
        else:
            state = BoardState.COVERED
            text = ("no marker in view: keeping the last good homography (confirmed at frame "
                    f"{self._last_seen})")
        message = "; ".join(part for part in (note, text, self._game_note()) if part)
        return self._fix(state, message, seen)

    def _game_note(self) -> str:
        """Returns a note when the game marker names another mat than the configured one."""
        if self.mat is not None and self._game is not None and self._game != self.mat:
            return f"the game marker names {self._game.label}, not the configured {self.mat.label}"
        return ""

    def _fix(self, state: BoardState, message: str, seen: tuple[int, ...] = ()) -> BoardFix:
        """Returns a BoardFix of this frame."""
        view = None if state is BoardState.SEARCHING else self._view
        return BoardFix(state, view, message, seen, self._game, self._frames)


def _check_settings(confirm_frames: int, tolerance_px: float, full_every: int) -> None:
    """Raises VisionError for tracker settings out of range."""
    if not isinstance(confirm_frames, int) or not 1 <= confirm_frames <= 10:
        raise VisionError(f"confirm_frames must be an integer from 1 to 10, not {confirm_frames!r}")
    if not isinstance(tolerance_px, (int, float)) or not 0.1 <= tolerance_px <= 50:
        raise VisionError(f"tolerance_px must be a number from 0.1 to 50, not {tolerance_px!r}")
    if not isinstance(full_every, int) or not 1 <= full_every <= 1000:
        raise VisionError(f"full_every must be an integer from 1 to 1000, not {full_every!r}")
