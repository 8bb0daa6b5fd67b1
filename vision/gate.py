"""Scene gating: tells when the board is being played on and when it is still enough to read.

Each frame of the board region is shrunk to a small grayscale image (160x120 by default) and
compared with the previous frame (motion) and with the last still scene (what changed). A
changed region that comes in from beyond the view (the image's edge, or the black fill where the
region runs past the camera's view) as wide as an arm, or is skin-coloured there where the still
scene was not, or is very large, is a hand or an arm: COVERED. A narrower change there is a
piece taken from beside the board or a piece's lean or shadow (the region should reach far
enough past the grid that pieces on it cannot cross its edge); under a warm light the mat and
the table may look like skin, so colours the still scene already had around there say nothing.
Once nothing moves, a change that lies wholly in the band beyond the board (`beyond`, set by the
caller from the board's size and the region's margin) hides no square, so it does not count as
covering: a piece taken from a reserve beside the board, or one nudged there, leaves such a
change; nor does one that came in arm-wide but where it meets the edge now shows what the rest
of the edge shows (the table: a reserve piece's gap, joined to the change of a piece put down at
the board's edge or its shadow, is no arm). Any other motion, and the first frames after it, is
MOVING. After `still_frames` frames without motion the scene is STILL, and on that frame the
gate emits a StillEvent: the moment to take an observation. A scene that held still for one
frame fewer (three frames showing it, the first still differing from the moving one before) and
then moved again was still all the same: on the moving frame the gate emits a `late` StillEvent
for the frame before, so a recording with short pauses between moves is not read as one long
change. A change of light (a change spread over the whole image that one smooth gain explains)
is not motion: the gate re-references and carries on.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from enum import Enum

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.frames import Image, require_image, to_gray

Field = NDArray[np.float32]
Mask = NDArray[np.bool_]

DARK = 16.0
BRIGHT = 250.0
GAIN_TRIGGER = 0.05  # below this raw changed fraction the light is taken as unchanged
LOG_SLACK = 0.15
SKIN_CR = (135, 180)
SKIN_CB = (85, 135)
MAD_SIGMA = 1.4826  # a normal spread's standard deviation over its median absolute deviation
TABLE_SIGMAS, TABLE_SHARE = 3.0, 0.8  # how near the unchanged rim's colour, and how much of a change at the rim


class GateError(ValueError):
    """Raised for bad input to the gate: a bad setting, frame or time."""


class GateState(str, Enum):
    """What the scene is doing."""

    MOVING = "moving"
    COVERED = "covered"
    STILL = "still"


@dataclass(frozen=True, slots=True)
class GateSettings:
    """The gate's tunable numbers (sizes in pixels of the small image, fractions of its area)."""

    # arm_fraction is the narrowest arm or sleeve that reaches in over the edge, as a fraction of
    # the small image's width and of its height (not of its area).

    size: tuple[int, int] = (160, 120)
    still_frames: int = 3
    still_ms: float = 0.0
    diff_level: float = 12.0
    min_blob_px: int = 6
    edge_fraction: float = 0.01
    cover_fraction: float = 0.3
    arm_fraction: float = 0.1
    skin_fraction: float = 0.5
    light_fraction: float = 0.2
    cover_hold_frames: int = 20

    def __post_init__(self) -> None:
        width, height = self.size
        checks = {
            "size": 16 <= width <= 1024 and 16 <= height <= 1024,
            "still_frames": 1 <= self.still_frames <= 1000,
            "still_ms": 0 <= self.still_ms <= 60_000,
            "diff_level": 1 <= self.diff_level <= 128,
            "min_blob_px": 1 <= self.min_blob_px <= width * height,
            "edge_fraction": 0 < self.edge_fraction <= 1,
            "cover_fraction": 0 < self.cover_fraction <= 1,
            "arm_fraction": 0 < self.arm_fraction <= 0.5,
            "skin_fraction": 0 < self.skin_fraction <= 1,
            "light_fraction": 0 < self.light_fraction <= 1,
            "cover_hold_frames": 1 <= self.cover_hold_frames <= 100_000,
        }
        for name, good in checks.items():
            if not good:
                raise GateError(f"gate setting {name} is out of range: {getattr(self, name)!r}")


@dataclass(frozen=True, slots=True)
class StillEvent:
    """The scene became still after a change (or a `done` forced it): take an observation now."""

    t_ms: float
    changed: bool
    changed_fraction: float
    forced: bool
    late: bool = False  # the still scene is the previous frame's: motion began on this one


def shrink(image: Image, size: tuple[int, int]) -> Image:
    """Returns the image resized to size, averaging whole blocks of pixels first (fast, quiet)."""
    factor = int(min(image.shape[1] / size[0], image.shape[0] / size[1]))
    if factor >= 2:
        whole = (image.shape[1] // factor, image.shape[0] // factor)
        image = np.asarray(cv2.resize(image[:whole[1] * factor, :whole[0] * factor], whole,
                                      interpolation=cv2.INTER_AREA), np.uint8)
    return np.asarray(cv2.resize(image, size, interpolation=cv2.INTER_LINEAR), np.uint8)


def lit(image: Image) -> Image:
    """Returns the bitwise OR of an image's colour channels (its alpha left out): zero only where all are."""
    if image.ndim == 2:
        return image
    return functools.reduce(np.bitwise_or, [image[:, :, c] for c in range(min(3, image.shape[2]))])


def out_of_view(image: Image) -> Mask:
    """Returns the pixels beyond the camera's view: pure black (a rectified region's fill) joined to the border."""
    black = np.asarray(lit(image) == 0, np.bool_)
    if not black.any():
        return black
    count, labels = cv2.connectedComponents(black.view(np.uint8))
    border = np.concatenate([labels[0], labels[-1], labels[:, 0], labels[:, -1]])
    joined = np.flatnonzero(np.bincount(border, minlength=count)[1:]) + 1
    return np.asarray(np.isin(labels, joined)) if joined.size else np.zeros_like(black)


def components(mask: Mask) -> tuple[int, NDArray[np.int32], NDArray[np.int32]]:
    """Returns a mask's 8-connected regions: their count (background included), labels and stats."""
    # BBDT finds the same regions as OpenCV's default (Spaghetti) a few times sooner at this
    # size; the gate never depends on the order in which the regions are numbered.
    count, labels, stats, _ = cv2.connectedComponentsWithStatsWithAlgorithm(
        mask.view(np.uint8), 8, cv2.CV_32S, cv2.CCL_BBDT)
    return int(count), np.asarray(labels, np.int32), np.asarray(stats, np.int32)


def skin_mask(image: Image) -> Mask:
    """Returns where a BGR(A) image has skin colours (a classic YCrCb box)."""
    ycrcb = cv2.cvtColor(np.ascontiguousarray(image[:, :, :3]), cv2.COLOR_BGR2YCrCb)
    low, high = np.array([0, SKIN_CR[0], SKIN_CB[0]]), np.array([255, SKIN_CR[1], SKIN_CB[1]])
    return np.asarray(cv2.inRange(ycrcb, low, high) > 0)


def skin_of(image: Image) -> Mask | None:
    """Returns where a frame has skin colours, or None for a gray frame."""
    return skin_mask(image) if image.ndim == 3 and image.shape[2] >= 3 else None


class SceneGate:
    """Turns a stream of board-region frames into MOVING / COVERED / STILL (see module doc)."""

    def __init__(self, settings: GateSettings | None = None) -> None:
        self.settings = settings or GateSettings()
        width, height = self.settings.size
        ys, xs = np.mgrid[0:height, 0:width].astype(np.float32)
        planes = [np.ones_like(xs), xs / width - 0.5, ys / height - 0.5]
        self._basis = np.stack(planes).reshape(3, -1)
        self._rows = np.ascontiguousarray(self._basis.T)
        self._logs: list[tuple[Field, Field, Mask]] = []
        self.state = GateState.MOVING
        self.event: StillEvent | None = None
        self._previous: Field | None = None
        self._reference: Field | None = None
        self._previous_colour: Image | None = None
        self._previous_t_ms = -math.inf
        self._reference_skin: Mask | None = None
        self._t_ms = -math.inf
        self._last_motion = -math.inf
        self._quiet = 0
        self._since_motion = 0
        self._pending = True
        self.beyond = 0.0  # the fraction of each side of the region that lies beyond the board

    def update(self, frame: Image, t_ms: float) -> GateState:
        """Returns the scene's state after this frame; sets `event` when it just became still."""
        t = self._check_time(t_ms)
        small, colour = self._shrink(frame)
        self.event, self._t_ms = None, t
        previous, previous_colour, previous_t = self._previous, self._previous_colour, self._previous_t_ms
        self._previous, self._previous_colour, self._previous_t_ms = small, colour, t
        if previous is None:
            self._quiet = 1
            return self._settle(small)
        motion, gain, raw = self._difference(small, previous)
        if self._reference is not None and self._is_light_change(raw, motion):
            self._reference = self._reference * gain
        moving = self._blobs(motion).size > 0
        self._since_motion = 0 if moving else self._since_motion + 1
        covered = self._covered(small, colour)
        if moving or covered:
            if self._settled_briefly(previous_t):
                self.event = self._emit(previous, previous_colour, previous_t, forced=False, late=True)
            self._quiet, self._pending, self._last_motion = 0, True, t
            self.state = GateState.COVERED if covered else GateState.MOVING
            return self.state
        self._quiet += 1
        return self._settle(small)

    @property
    def quiet_frames(self) -> int:
        """Returns how many frames in a row, up to the last one, showed no motion and no hand."""
        return self._quiet

    def force_still(self) -> StillEvent:
        """Declares the scene still now (a `done` button) and returns the event to observe on."""
        if self._previous is None:
            raise GateError("the gate has seen no frame yet, so there is nothing to observe")
        self._quiet, self._last_motion = self.settings.still_frames, -math.inf
        event = self._emit(self._previous, self._previous_colour, self._t_ms, forced=True)
        self.state = GateState.STILL
        return event

    def _check_time(self, t_ms: float) -> float:
        """Returns the frame time if it is a finite number not before the last one, or raises."""
        if isinstance(t_ms, bool) or not isinstance(t_ms, (int, float)) or not math.isfinite(t_ms):
            raise GateError(f"t_ms must be a finite number of milliseconds, not {t_ms!r}")
        if t_ms < self._t_ms:
            raise GateError(f"frame time {t_ms} ms is before the previous frame's {self._t_ms} ms")
        return float(t_ms)

    def _shrink(self, frame: Image) -> tuple[Field, Image]:
        """Returns the small blurred gray frame and the small frame itself (its skin and what lies
        beyond the view are worked out only when a change asks for them)."""
        small = shrink(require_image(frame), self.settings.size)
        gray = to_gray(small).astype(np.float32)
        return np.asarray(cv2.GaussianBlur(gray, (5, 5), 0), np.float32), small

    def _logged(self, field: Field) -> tuple[Field, Mask]:
        """Returns a field's log brightness and where it is neither dark nor bright (cached: each
        frame is compared with the previous one and with the still scene)."""
        for known, log, usable in self._logs:
            if known is field:
                return log, usable
        log = np.log(np.maximum(field, 1.0))
        usable = (field > DARK) & (field < BRIGHT)
        self._logs = [*self._logs[-2:], (field, log, usable)]
        return log, usable

    def _gain(self, now: Field, before: Field) -> Field:
        """Returns the smooth gain field (a plane in log space) that best turns before into now."""
        log_now, usable_now = self._logged(now)
        log_before, usable_before = self._logged(before)
        valid = usable_now & usable_before
        if np.count_nonzero(valid) < 16:
            return np.ones_like(now)
        ratio = log_now - log_before
        middle = float(np.median(ratio[valid][::4]))
        inliers = (valid & (np.abs(ratio - middle) < LOG_SLACK)).ravel()
        if np.count_nonzero(inliers) < 0.3 * now.size:
            return np.full_like(now, math.exp(middle))
        basis = np.compress(inliers, self._rows, axis=0).T  # self._basis[:, inliers], cheaper
        plane = np.linalg.solve(basis @ basis.T, basis @ ratio.ravel()[inliers])
        return np.asarray(np.exp(plane @ self._basis).reshape(now.shape), np.float32)

    def _difference(self, now: Field, before: Field) -> tuple[Mask, Field | float, float]:
        """Returns the light-matched change mask, the light's gain and the raw changed fraction."""
        raw_mask = np.asarray(cv2.absdiff(now, before)) > self.settings.diff_level
        raw = np.count_nonzero(raw_mask) / raw_mask.size
        gain: Field | float = 1.0
        if raw >= GAIN_TRIGGER:
            gain = self._gain(now, before)
            lit_before = np.minimum(before * gain, 255.0)
            raw_mask = np.asarray(cv2.absdiff(now, lit_before)) > self.settings.diff_level
        kernel = np.ones((3, 3), np.uint8)
        opened = cv2.morphologyEx(raw_mask.view(np.uint8), cv2.MORPH_OPEN, kernel)
        return opened.astype(bool), gain, raw

    def _is_light_change(self, raw: float, residual: Mask) -> bool:
        """Tells whether a wide raw change is explained by the light alone (a small residual)."""
        fraction = self.settings.light_fraction
        return raw >= fraction and float(residual.mean()) < fraction / 4

    def _blobs(self, mask: Mask) -> NDArray[np.int32]:
        """Returns the stats rows (x, y, w, h, area) of the changed regions big enough to count."""
        if np.count_nonzero(mask) < self.settings.min_blob_px:
            return np.zeros((0, 5), np.int32)
        count, _, stats = components(mask)
        rows = np.asarray(stats[1:count], np.int32)
        return rows[rows[:, cv2.CC_STAT_AREA] >= self.settings.min_blob_px]

    def _covered(self, small: Field, colour: Image) -> bool:
        """Tells whether a hand or arm is in view: a big change, or one coming in arm-wide or skin-coloured."""
        # A covering change that has not moved for cover_hold_frames frames is taken for part of
        # the scene (a tall piece leaning over the edge), so the gate can never stay covered.
        if self._reference is None or self._since_motion >= self.settings.cover_hold_frames:
            return False
        mask, _, _ = self._difference(small, self._reference)
        if not mask.any():
            return False
        count, labels, stats = components(mask)
        outside = out_of_view(colour)
        rim = self._rim(outside)
        arms = set(labels[self._arm_wide(mask, outside, rim)].tolist())
        entering = set(labels[mask & rim].tolist())
        skin_new = self._new_skin(skin_of(colour))
        least = max(self.settings.edge_fraction * mask.size, self.settings.min_blob_px)
        for label in range(1, count):
            area = int(stats[label, cv2.CC_STAT_AREA])
            big = area >= self.settings.cover_fraction * mask.size
            reaching = label in arms and area >= least and not (
                self._since_motion and self._shows_beyond(labels == label, colour, mask, rim))
            skinny = (label in entering and skin_new is not None and area >= self.settings.min_blob_px
                      and float(skin_new[labels == label].mean()) >= self.settings.skin_fraction)
            if (big or reaching or skinny) and not (self._since_motion and self._off_board(stats[label])):
                return True
        return False

    def _shows_beyond(self, region: Mask, colour: Image, changed: Mask, rim: Mask) -> bool:
        """Tells whether a changed region now shows, where it meets the rim, what the unchanged
        rim shows (the table beyond the board): a piece was taken away there, not an arm come in."""
        part, plain = region & rim, rim & ~changed
        if np.count_nonzero(plain) < self.settings.min_blob_px or not part.any():
            return False
        channels = colour.shape[2] if colour.ndim == 3 else 1
        table = colour[plain].reshape(-1, channels).astype(np.float32)
        here = colour[part].reshape(-1, channels).astype(np.float32)
        centre = np.median(table, axis=0)
        spread = np.median(np.abs(table - centre), axis=0) * MAD_SIGMA
        near = np.all(np.abs(here - centre) <= np.maximum(self.settings.diff_level, TABLE_SIGMAS * spread), axis=1)
        return float(near.mean()) >= TABLE_SHARE

    def _off_board(self, box: NDArray[np.int32]) -> bool:
        """Tells whether a changed region's box (x, y, w, h) lies wholly in the band beyond the board."""
        width, height = self.settings.size
        band_x, band_y = self.beyond * width, self.beyond * height
        x, y, w, h = (int(value) for value in box[:4])
        return (x + w <= band_x or x >= width - band_x or y + h <= band_y or y >= height - band_y)

    def _rim(self, outside: Mask) -> Mask:
        """Returns the pixels in view where things from beyond the view come in: the border, the fill's edge."""
        rim = cv2.dilate(outside.astype(np.uint8), np.ones((3, 3), np.uint8)).astype(bool)
        rim[[0, -1], :] = True
        rim[:, [0, -1]] = True
        return np.asarray(rim & ~outside)

    def _arm_kernel(self) -> NDArray[np.uint8]:
        """Returns a box as wide and as tall as the narrowest arm."""
        height, width = self.settings.size[1], self.settings.size[0]
        fraction = self.settings.arm_fraction
        return np.ones((max(3, round(fraction * height)), max(3, round(fraction * width))), np.uint8)

    def _arm_wide(self, mask: Mask, outside: Mask, rim: Mask) -> Mask:
        """Returns the rim pixels where a change at least as wide as an arm comes in."""
        # Eroding with an arm-sized box (once pinholes, where the arm looks like what it covers,
        # are filled), what lies beyond the view counted as changed, keeps at the rim only changes
        # that come in arm-wide; a piece taken from beside the board, or a piece's lean or soft
        # shadow reaching the edge, is narrower or thinner and wears away.
        changed = cv2.morphologyEx((mask | outside).astype(np.uint8), cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
        worn = cv2.erode(changed, self._arm_kernel(), borderType=cv2.BORDER_CONSTANT, borderValue=1)
        return np.asarray(worn.astype(bool) & rim)

    def _new_skin(self, skin: Mask | None) -> Mask | None:
        """Returns where the frame is skin-coloured but the still scene was not, nearby (None if gray)."""
        # Under a warm light the mat or the table may look like skin: a piece taken away shows
        # more of it, which says nothing, so skin within an arm's width of the old skin is left out.
        if skin is None or self._reference_skin is None:
            return skin
        known = cv2.dilate(self._reference_skin.astype(np.uint8), self._arm_kernel()).astype(bool)
        return np.asarray(skin & ~known)

    def _settle(self, small: Field) -> GateState:
        """Returns MOVING until the scene has been quiet long enough, then STILL (with an event)."""
        quiet_long = self._t_ms - self._last_motion >= self.settings.still_ms
        if self._quiet < self.settings.still_frames or not quiet_long:
            self.state = GateState.MOVING
            return self.state
        if self._pending:
            self.event = self._emit(small, self._previous_colour, self._t_ms, forced=False)
        self.state = GateState.STILL
        return self.state

    def _settled_briefly(self, previous_t: float) -> bool:
        """Tells whether the frames up to the previous one showed a new scene one frame short of
        still_frames: the first differing from the motion before it, the others matching it."""
        if not self._pending or self.settings.still_frames < 3:
            return False
        long_enough = previous_t - self._last_motion >= self.settings.still_ms
        return self._quiet == self.settings.still_frames - 1 and long_enough

    def _emit(self, small: Field, colour: Image | None, t_ms: float, forced: bool,
              late: bool = False) -> StillEvent:
        """Returns the still event for this scene and makes the scene the new reference."""
        if self._reference is None:
            changed, fraction = True, 1.0
        else:
            mask, _, _ = self._difference(small, self._reference)
            changed, fraction = self._blobs(mask).size > 0, float(mask.mean())
        self._reference, self._pending = small, False
        self._reference_skin = None if colour is None else skin_of(colour)
        return StillEvent(t_ms, changed, fraction, forced, late)
