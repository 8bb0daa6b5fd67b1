"""How a cell's stack grew or shrank between two still frames, read from the parallax of its top.

A pyramid nested on one of its own colour shows, from above, the same faces at the same slope and
in the same shade as the pyramid below it alone: colour cannot tell them apart. Its surface stands
higher, though, and a camera that is not straight above the cell sees everything that rose moved
away from the point under the camera by the rise times the parallax there (pixels per mm of
height). Between a still frame and a later one the lightness (the faces' shading draws the
ridges; JPEG blurs colour) of each cell's top is tracked in two bands below its apex: a shift and
an offset are fitted by least squares (Lucas-Kanade, iterated, on lightly blurred frames,
gradients averaged over both frames), only where the cell's own top shows and no neighbour (even
one grown by a move) can lean in. Each candidate stack moves each sample's texture by the rise of
its surface straight above what the sample sees; tracking that motion, as if the frame had moved
so, gives the shift the candidate predicts, and the measured shift is scored against it
(Student's t: JPEG and noise now and then move a low-contrast top far more than its spread says),
each prediction first scaled to fit the shift within SCALES (a changed top's texture moves
consistently less than its rise says, by 0.5-0.9 in the recorded games).
The frame's noise is measured on the cells themselves (most do not change between two frames),
and a prediction is given room in proportion to its size (the camera place, hence the parallax,
is not exact).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Callable, Mapping, Sequence

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.observe.context import Scene, balanced_lab
from vision.observe.stack_colours import FloatArray
from vision.observe.stacks import HALF, HEIGHT, X, Y, Z0, backdrop, cast, patch_points, pixels_per_mm
from vision.pose import image_points

BLUR_PX = 1.0  # the frames are blurred this much (sigma) before tracking: noise, not texture
CROP_PX = 24  # a frame is tracked over the mat and this far round it (blur and taps stay clear of the cut)
STEP_PX = 0.7  # tracked samples are this far apart in the frame ...
MIN_STEP_MM = 0.4  # ... but never closer on the mat than this
BANDS_MM = ((0.0, 12.0), (12.0, 35.0))  # the top is tracked in bands this deep below the apex
MIN_SAMPLES = 30  # fewer tracked samples than this tell nothing
ROUNDS = 5  # Lucas-Kanade iterations at most
REMAP_ROW = 1024  # pixels sampled per row of a remap (OpenCV's maps are under 32767 wide)
SETTLED_PX = 0.01  # an iteration moving the shift less than this ends the tracking
MOST_PX = 4.0  # a shift beyond this is not a pyramid's parallax (tracking lost), with ...
TUNED_WALL_MM = 1.5  # ... pyramids of this wall; thicker ones nest higher and move as much further
OFFSET_L = 100.0  # a lightness offset between two frames is within this (the whole scale)
CORRELATION = 8.0  # neighbouring samples share noise (blur, JPEG): the fit's variance times this
NOISE_FLOOR = 0.3  # the least lightness noise of a sample (L): two identical frames still differ
STILL_SPREAD = 1.39  # the median squared Mahalanobis distance of a shift that is only noise (2 axes)
LEAST_CELLS = 5  # tracked cells needed to measure the frame's noise from them
FLOOR_PX = 0.08  # the least spread of a measured shift (unmodelled changes of the frame)
FOOTPRINT_SLACK_MM = 0.5  # a pyramid's footprint is widened this much before a ray is said to miss it
ROOM = 0.4  # a predicted shift may be off by this share of its size (camera place, scale)
SCALES = (0.7, 1.1)  # a measured shift is this share of the predicted one, at most (the texture of a
                     # changed top moves less than its rise says: 0.5-0.9 measured), fitted per shift
# a pixel, then the taps of its gradients along x and y
TAPS = np.array([[0.0, 0.0], [0.5, 0.0], [-0.5, 0.0], [0.0, 0.5], [0.0, -0.5]])
Sampler = Callable[[FloatArray], FloatArray]  # an image's lightness at some frame pixels
TAILS = 4.0  # shifts are read with Student's t of this many degrees of freedom: JPEG and noise
             # in a low-contrast top now and then move one far more than its spread says


@dataclass(frozen=True, slots=True)
class Shift:
    """The shift (frame pixels, x and y) of a cell's top from one frame to the next, its
    covariance, and the shift each candidate stack predicts (one row per candidate)."""

    delta: FloatArray
    covariance: FloatArray
    predicted: FloatArray

    def log_likelihood(self, candidate: int) -> float:
        """Returns the log-likelihood of the shift if a candidate stack stands there now (nats;
        0 for a candidate the shift does not judge)."""
        return float(self.log_likelihoods()[candidate])

    def log_likelihoods(self) -> FloatArray:
        """Returns the log-likelihood of the shift for every candidate (nats; 0 where not judged)."""
        predicted = self.scaled()
        room = (ROOM * np.hypot(predicted[:, 0], predicted[:, 1])) ** 2 + FLOOR_PX ** 2
        xx, xy, yy = self.covariance[0, 0] + room, self.covariance[0, 1], self.covariance[1, 1] + room
        miss_x, miss_y = self.delta[0] - predicted[:, 0], self.delta[1] - predicted[:, 1]
        det = xx * yy - xy * xy
        distance = (miss_x * miss_x * yy - 2.0 * miss_x * miss_y * xy + miss_y * miss_y * xx) / det
        found = -0.5 * (TAILS + 2) * np.log1p(distance / TAILS) - 0.5 * np.log(det)
        return np.asarray(np.where(np.isnan(found), 0.0, found), np.float64)

    def scaled(self) -> FloatArray:
        """Returns each candidate's predicted shift scaled to fit the measured one best (within
        SCALES, by the measurement's covariance; a zero prediction stays zero)."""
        inverse = np.linalg.inv(self.covariance)
        along = self.predicted @ inverse @ self.delta
        size = np.einsum("ij,jk,ik->i", self.predicted, inverse, self.predicted)
        with np.errstate(invalid="ignore", divide="ignore"):
            scale = np.where(size > 0.0, np.clip(along / size, *SCALES), 1.0)
        return np.asarray(self.predicted * scale[:, None], np.float64)


@dataclass(frozen=True, slots=True)
class Track:
    """What tracking a cell's top measured: the shift and its covariance (before the frame's
    noise is known)."""

    delta: FloatArray
    covariance: FloatArray


def calibrated(shifts: Mapping[str, Sequence[Shift | None]]) -> dict[str, list[Shift | None]]:
    """Returns the shifts (of each cell's bands, None where a band was not tracked) with their
    covariance scaled to the frame's real noise, band by band: most cells do not change between
    two still frames, so the median of their squared Mahalanobis distances from no shift is that
    of noise alone (never scaled down)."""
    found = {square: list(bands) for square, bands in shifts.items()}
    for band in range(max((len(bands) for bands in found.values()), default=0)):
        every = [bands[band] for bands in found.values() if band < len(bands) and bands[band] is not None]
        if len(every) < LEAST_CELLS:
            continue
        spread = np.median([shift.delta @ np.linalg.solve(shift.covariance, shift.delta) for shift in every if shift])
        scale = max(float(spread) / STILL_SPREAD, 1.0)
        for bands in found.values():
            shift = bands[band] if band < len(bands) else None
            if shift is not None:
                bands[band] = replace(shift, covariance=shift.covariance * scale)
    return found


@dataclass(frozen=True, slots=True, eq=False)
class Picture:
    """A still frame ready to be tracked: lightly blurred, white-balanced, its lightness (Lab L,
    float32): shading draws the ridges between a pyramid's faces, and JPEG blurs colour."""

    lightness: NDArray[np.float32]
    origin: tuple[int, int] = (0, 0)  # the frame pixel of the lightness's first (x, y)
    most_px: float = MOST_PX  # a shift beyond this is not a pyramid's parallax (most_shift)

    def at(self, pixels: FloatArray) -> FloatArray:
        """Returns the lightness at frame pixels (N x 2), bilinear, clamped to the border."""
        spots = (np.asarray(pixels, np.float64).reshape(-1, 2) - self.origin).astype(np.float32)
        count = len(spots)
        if not count:
            return np.zeros(0)  # OpenCV's remap refuses an empty map
        rows = -(-count // REMAP_ROW)
        flat = np.zeros((rows * REMAP_ROW, 2), np.float32)
        flat[:count] = spots
        grid = flat.reshape(rows, REMAP_ROW, 2)
        found = cv2.remap(self.lightness, grid[..., 0], grid[..., 1], cv2.INTER_LINEAR,
                          borderMode=cv2.BORDER_REPLICATE)
        return np.asarray(found.ravel()[:count], np.float64)


def picture(scene: Scene) -> Picture:
    """Returns a scene's frame ready to be tracked, over the mat (all that is ever tracked)."""
    side, margin = scene.mat.side_mm, scene.kit.mat_margin_mm
    corners = scene.view.to_image(np.array([[-margin, -margin], [side + margin, side + margin],
                                            [-margin, side + margin], [side + margin, -margin]]))
    height, width = scene.frame.shape[:2]
    left, top = (max(int(value) - CROP_PX, 0) for value in corners.min(axis=0))
    right, bottom = min(int(corners[:, 0].max()) + CROP_PX, width), min(int(corners[:, 1].max()) + CROP_PX, height)
    crop = scene.frame[top:max(bottom, top + 1), left:max(right, left + 1)]
    blurred = cv2.GaussianBlur(crop, (0, 0), BLUR_PX).astype(np.float32)
    return Picture(np.ascontiguousarray(balanced_lab(blurred, scene.gains)[..., 0]), (left, top),
                   most_shift(scene.kit.pyramid_wall_mm))


def most_shift(wall_mm: float) -> float:
    """Returns the largest shift that may be a pyramid's parallax for pyramids of a wall: MOST_PX,
    more in proportion for a thicker wall (a thinner one's smaller rises still need the room)."""
    return MOST_PX * max(1.0, wall_mm / TUNED_WALL_MM)


TopView = tuple[FloatArray, FloatArray, FloatArray]  # mat points, the height each ray meets a stack, its depth


def top_view(scene: Scene, square: str, blocks: FloatArray, reach_mm: float) -> TopView:
    """Returns the mat points (N x 2) whose rays show a cell's own stack (its pyramids) in the
    bands below its apex (BANDS_MM), the height at which each meets it and its depth below the apex."""
    step = max(STEP_PX / pixels_per_mm(scene, square), MIN_STEP_MM)
    points, _ = patch_points(scene, square, step, reach_mm)
    camera = scene.place.centre
    apex = float((blocks[:, Z0] + blocks[:, HEIGHT]).max(initial=0.0))
    points = points[passes_over(points, camera, np.full(len(points), max(apex - BANDS_MM[-1][1], 0.0)), blocks)]
    height = surface(blocks, points, camera)
    depth = apex - height
    top = (depth < BANDS_MM[-1][1]) & (height > 0.0)
    return points[top], height[top], depth[top]


def top_points(view: TopView, neighbours: FloatArray, camera: tuple[float, float, float]) -> list[FloatArray]:
    """Returns, per band below the apex (BANDS_MM), the mat points of a cell's top view whose
    rays meet none of the given neighbouring pyramids first."""
    points, height, depth = view
    behind = backdrop(neighbours, cast(neighbours, points, camera), len(points))
    shown = height > behind.z
    return [np.asarray(points[shown & (depth >= low) & (depth < high)], np.float64) for low, high in BANDS_MM]


def passes_over(points: FloatArray, camera: tuple[float, float, float], low: FloatArray,
                blocks: FloatArray) -> NDArray[np.bool_]:
    """Tells which rays through mat points may meet some pyramids above a height of their own:
    those that pass over the box round the pyramids' footprints (widened a little) somewhere
    between that height and the highest apex; the others cannot meet them."""
    centre = np.asarray(camera, np.float64)
    toward = (centre[:2] - points) / centre[2]
    top = float((blocks[:, Z0] + blocks[:, HEIGHT]).max(initial=0.0))
    half = blocks[:, HALF, None] + FOOTPRINT_SLACK_MM
    first, last = (blocks[:, [X, Y]] - half).min(axis=0), (blocks[:, [X, Y]] + half).max(axis=0)
    start, stop = points + low[:, None] * toward, points + top * toward
    over = (np.maximum(start, stop) >= first) & (np.minimum(start, stop) <= last)
    return np.asarray(over[:, 0] & over[:, 1] & (low <= top), np.bool_)


def surface(blocks: FloatArray, points: FloatArray, camera: tuple[float, float, float]) -> FloatArray:
    """Returns the height at which the ray through each mat point first meets some pyramids (0:
    the mat)."""
    hits = cast(blocks, points, camera)
    return np.asarray(np.where(hits.hit, hits.z, 0.0).max(axis=0, initial=0.0), np.float64)


def heights_at(blocks: FloatArray, spots: FloatArray) -> FloatArray:
    """Returns the height of some pyramids' surface straight above each board point (x, y; 0
    where none stands)."""
    return np.asarray(block_heights(blocks, spots).max(axis=1, initial=0.0), np.float64)


def block_heights(blocks: FloatArray, spots: FloatArray) -> FloatArray:
    """Returns the height of each pyramid's surface straight above each board point (P x G; 0
    where it does not stand)."""
    off = np.maximum(np.abs(spots[:, None, 0] - blocks[None, :, X]), np.abs(spots[:, None, 1] - blocks[None, :, Y]))
    level = blocks[None, :, Z0] + blocks[None, :, HEIGHT] * (1.0 - off / blocks[None, :, HALF])
    inside = off <= blocks[None, :, HALF]
    return np.asarray(np.where(inside, level, 0.0), np.float64)


def seen_at(points: FloatArray, heights: FloatArray, camera: tuple[float, float, float]) -> FloatArray:
    """Returns the board point (x, y) straight under where the ray through each mat point stands
    at a height."""
    centre = np.asarray(camera, np.float64)
    return np.asarray(points + heights[:, None] * (centre[:2] - points) / centre[2], np.float64)


def parallax(scene: Scene, points: FloatArray, heights: FloatArray) -> FloatArray:
    """Returns how far (frame pixels, x and y) the point at a height over each mat point's ray
    moves per mm it rises."""
    xyz = np.column_stack([points, heights])
    low, high = image_points(scene.view, scene.place, xyz - [0, 0, 0.5]), image_points(scene.view, scene.place, xyz + [0, 0, 0.5])
    return np.asarray(high - low, np.float64)


def pixels_of(scene: Scene, points: FloatArray) -> FloatArray:
    """Returns the frame pixels of mat points."""
    return image_points(scene.view, scene.place, np.column_stack([points, np.zeros(len(points))]))


@dataclass(frozen=True, slots=True)
class Template:
    """What tracking needs of the first frame: where it tracks (frame pixels), the lightness
    there and its gradients along x and y."""

    pixels: FloatArray
    lightness: FloatArray
    along_x: FloatArray
    along_y: FloatArray


def template(before: Picture, pixels: FloatArray) -> Template:
    """Returns a frame's template for tracking the texture at some pixels."""
    return Template(np.asarray(pixels, np.float64), *_looked(before.at, pixels))


def _looked(sample: Sampler, pixels: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Returns an image's lightness at some pixels and its gradients along x and y there."""
    count = len(pixels)
    taps = sample((TAPS[:, None, :] + pixels[None]).reshape(-1, 2)).reshape(len(TAPS), count)
    return taps[0], taps[1] - taps[2], taps[3] - taps[4]


def _design(along_x: FloatArray, along_y: FloatArray) -> FloatArray:
    """Returns the least-squares design of a shift (2) and a lightness offset."""
    return np.column_stack([along_x, along_y, np.ones(len(along_x))])


def track(first: Template, after: Picture) -> Track | None:
    """Returns how far the texture at a template's pixels moved in a next frame, and the
    covariance of that shift; None when too few pixels show it or the tracking is lost."""
    return track_all([first], after)[0]


def track_all(firsts: Sequence[Template], after: Picture) -> list[Track | None]:
    """Returns track() for each of some templates into one next frame, fitted all at once."""
    found: list[Track | None] = [None] * len(firsts)
    asked = [index for index, first in enumerate(firsts) if len(first.pixels) >= MIN_SAMPLES]
    for index, fitted in zip(asked, _fit_all([Job(firsts[index], after) for index in asked])):
        if fitted is not None:
            noise = max(fitted.residual, NOISE_FLOOR ** 2) * CORRELATION
            covariance = np.linalg.inv(fitted.gram + _prior(noise, after.most_px))[:2, :2] * noise
            found[index] = Track(fitted.delta, np.asarray(covariance, np.float64))
    return found


def _prior(noise: float, most_px: float) -> FloatArray:
    """Returns the prior term of a shift fit's normal matrix (samples of some lightness noise, L
    squared): the shift is within most_px and the offset within OFFSET_L, so a texture that runs
    one way (an edge) tells nothing along itself, where the prior then holds."""
    return np.diag(noise * np.array([most_px ** -2, most_px ** -2, OFFSET_L ** -2]))


def predict(first: Template, before: Picture, motions: Sequence[FloatArray | None]) -> list[FloatArray | None]:
    """Returns, for each motion of the texture at each pixel of a frame's template (N x 2;
    None: not asked), the shift tracking would measure were the next frame moved so: the frame
    is warped so and tracked as a next frame is (each distinct motion once)."""
    return predict_all([(first, before, motions)])[0]


def predict_all(asked: Sequence[tuple[Template, Picture, Sequence[FloatArray | None]]]) -> list[list[FloatArray | None]]:
    """Returns predict() for each of some (template, frame, motions), every warp fitted at once."""
    distinct = [{motion.tobytes(): motion for motion in motions if motion is not None and np.any(motion)}
                for _, _, motions in asked]
    fitted = iter(_fit_all([Job(first, before, motion)
                            for (first, before, _), mine in zip(asked, distinct) for motion in mine.values()]))
    found = []
    for (_, before, motions), mine in zip(asked, distinct):
        shifts = {key: _shift_or_lost(next(fitted), before.most_px) for key in mine}
        found.append([None if motion is None else shifts.get(motion.tobytes(), np.zeros(2)) for motion in motions])
    return found


def _shift_or_lost(fitted: Fitted | None, most_px: float) -> FloatArray:
    """Returns a fitted shift, or one beyond most_px where the tracking was lost."""
    return np.full(2, 2 * most_px) if fitted is None else fitted.delta


@dataclass(frozen=True, slots=True)
class Job:
    """One shift to fit: a template's texture into a frame, whose texture at each pixel may have
    moved by its own motion (N x 2) first."""

    first: Template
    after: Picture
    motion: FloatArray | None = None


@dataclass(frozen=True, slots=True)
class Fitted:
    """A fitted shift, the fit's Gram matrix (design by design) and mean squared residual."""

    delta: FloatArray
    gram: FloatArray
    residual: float


def _fit_all(jobs: Sequence[Job]) -> list[Fitted | None]:
    """Returns the shift of each job's texture into its frame (Lucas-Kanade, iterated: every
    unsettled job one step a round, sampled together); None where the tracking is lost."""
    found: list[Fitted | None] = [Fitted(np.zeros(2), np.zeros((3, 3)), 0.0) if not len(job.first.pixels) else None
                                  for job in jobs]  # no pixels: nothing moves
    deltas = np.zeros((len(jobs), 2))
    active = [index for index, job in enumerate(jobs) if len(job.first.pixels)]
    for round_ in range(ROUNDS):
        if not active:
            break
        gram, solution, residual = _step([jobs[index] for index in active], deltas[active])
        deltas[active] += solution[:, :2]
        lost = np.abs(deltas[active]).max(axis=1) > np.array([jobs[index].after.most_px for index in active])
        done = (np.abs(solution[:, :2]).max(axis=1) < SETTLED_PX) | (round_ == ROUNDS - 1)
        for place, index in enumerate(active):
            if done[place] and not lost[place]:
                found[index] = Fitted(deltas[index].copy(), gram[place], float(residual[place]))
        active = [index for place, index in enumerate(active) if not (lost[place] or done[place])]
    return found


def _step(jobs: Sequence[Job], deltas: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Returns one Lucas-Kanade step of each job from its shift so far: the design's Gram
    matrix, the solution (shift step and offset) and the mean squared residual after it."""
    sizes = [len(job.first.pixels) for job in jobs]
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.intp)
    lightness, along_x, along_y = _looked_jobs(jobs, deltas)
    first_x = np.concatenate([job.first.along_x for job in jobs])
    first_y = np.concatenate([job.first.along_y for job in jobs])
    design = _design((first_x + along_x) / 2, (first_y + along_y) / 2)
    difference = np.concatenate([job.first.lightness for job in jobs]) - lightness
    gram = np.add.reduceat(design[:, :, None] * design[:, None, :], starts, axis=0)
    moment = np.add.reduceat(design * difference[:, None], starts, axis=0)
    normal = gram + np.array([_prior(NOISE_FLOOR ** 2 * CORRELATION, job.after.most_px) for job in jobs])
    solution = np.linalg.solve(normal, moment[:, :, None])[:, :, 0]
    left = difference - np.einsum("ij,ij->i", design, np.repeat(solution, sizes, axis=0))
    residual = np.add.reduceat(left ** 2, starts) / np.array(sizes)
    return np.asarray(gram, np.float64), np.asarray(solution, np.float64), np.asarray(residual, np.float64)


def _looked_jobs(jobs: Sequence[Job], deltas: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Returns, over every job's pixels in turn, its frame's lightness where its texture stands
    now (its pixels moved by its shift so far, less its motion) and the gradients there; each
    frame sampled once."""
    spots = [job.first.pixels + delta - (0.0 if job.motion is None else job.motion)
             for job, delta in zip(jobs, deltas)]
    ends = np.cumsum([len(spot) for spot in spots])
    found = np.empty((3, int(ends[-1]) if len(ends) else 0), np.float64)
    for after in {id(job.after): job.after for job in jobs}.values():
        mine = [index for index, job in enumerate(jobs) if job.after is after]
        where = np.concatenate([np.arange(ends[index] - len(spots[index]), ends[index]) for index in mine])
        found[:, where] = np.stack(_looked(after.at, np.concatenate([spots[index] for index in mine])))
    lightness, along_x, along_y = (np.asarray(row, np.float64) for row in found)
    return lightness, along_x, along_y


def shift_of(found: Track, predicted: Sequence[FloatArray | None]) -> Shift:
    """Returns the tracked shift with what each candidate predicts (NaN where it is not judged)."""
    rows = [np.full(2, np.nan) if row is None else row for row in predicted]
    return Shift(found.delta, found.covariance, np.array(rows, np.float64).reshape(-1, 2))
