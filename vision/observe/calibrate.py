"""Calibrating a still frame against the printed mat: where the mat really is, and how it is lit.

- `register` finds the printed grid lines across the frame (a dark dip across each line, looked
  for a few mm either side of where the board fix puts it) and fits a smooth field of mm offsets
  (cubic over the grid, outliers dropped): the lens distortion a homography cannot hold, which
  puts a top several mm away from where the fix says at the frame's edges. Because a ray meets
  the mat where the field says, the same field serves raised points too.
- `light_on` reads the mat on quiet cells (empty, with empty neighbours) and fits a smooth
  brightness field (vignetting, light fall-off), so colours can be compared at one brightness,
  and measures the colour noise left, so probabilities follow the frame's real noise.
- `lens_places` calibrates the lens on the registered grid (one view of a plane: the focal
  length, radial distortion and the camera's place), so tall tops are looked at where they
  really are; a camera looking nearly straight down leaves focal length and height tied, and
  then the places for several fields of view are given for the pieces to choose from.
- `printed` maps the printed page (vision.mat): where the mat shows its plain colour, a grid
  line, or a marker's ink or paper, so a ray that meets the mat can be predicted exactly.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from types import MappingProxyType
from typing import Hashable, Mapping

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.board import BoardView
from vision.kit import Kit, Mat, board_to_page
from vision.mat import Rect, mat_page
from vision.observation import EMPTY
from vision.observe.context import Scene, Taps, rgb_to_lab, taps
from vision.pose import MIN_CLEARANCE_MM, CameraPlace, focal_from_hfov, image_points, lens_matrix

FloatArray = NDArray[np.float64]
LIGHTNESS = 0.5  # lightness counts half as much as colour in a distance (shade moves it most)

LINE_REACH_MM = 6.0  # how far across a printed grid line its image is looked for
LINE_STEP_MM = 0.5
LINE_SPOTS = (-9.0, -4.5, 0.0, 4.5, 9.0)  # where along each cell's edge the line is looked at
MIN_DIP = 4.0  # the least a line darkens the mat (Lab L) to be trusted
MIN_LINES = 24  # fewer line readings per axis than this: the board fix is left as it is
LINE_SLACK_MM = 0.3  # line readings this close to the fit are never dropped as outliers


@dataclass(frozen=True, slots=True)
class Registration:
    """Where the board fix misplaces the mat (lens distortion the homography cannot hold): a
    smooth field of mm offsets, cubic over the grid, fitted to the printed grid lines."""

    across: FloatArray  # coefficients of the x offset
    along: FloatArray  # coefficients of the y offset
    side: float

    def shift(self, points: FloatArray) -> FloatArray:
        """Returns where mat points (... x 2, mm) really are for the board fix."""
        flat = points.reshape(-1, 2)
        basis = cubic_basis(flat, self.side)
        moved = flat + np.column_stack([basis @ self.across, basis @ self.along])
        return np.asarray(moved.reshape(points.shape), np.float64)


def cubic_basis(points: FloatArray, side: float, terms: int = 10) -> FloatArray:
    """Returns the first `terms` monomials up to cubic (1, x, y, x², xy, y², x³, x²y, xy², y³)
    of mat points scaled to [-1, 1] over the grid."""
    x, y = (points[:, 0] / side - 0.5) * 2, (points[:, 1] / side - 0.5) * 2
    xx, yy = x * x, y * y
    columns = [np.ones_like(x), x, y, xx, x * y, yy, xx * x, xx * y, x * yy, yy * y]
    return np.column_stack(columns[:terms])


def line_spots(mat: Mat) -> tuple[FloatArray, FloatArray]:
    """Returns points on every printed grid line (between crossings) and the line's normal."""
    anchors, normals = [], []
    for line in range(mat.cells + 1):
        for cell in range(mat.cells):
            for spot in LINE_SPOTS:
                along = (cell + 0.5) * mat.pitch_mm + spot
                anchors += [(line * mat.pitch_mm, along), (along, line * mat.pitch_mm)]
                normals += [(1.0, 0.0), (0.0, 1.0)]
    return np.array(anchors), np.array(normals)


def line_dips(profiles: FloatArray) -> tuple[FloatArray, NDArray[np.bool_]]:
    """Returns where along each lightness profile its narrow dark dip lies (mm from the middle,
    sub-sample) and whether the dip is clear: deep enough, with mat-bright shoulders."""
    steps = profiles.shape[1]
    low = np.clip(np.argmin(profiles, axis=1), 1, steps - 2)
    rows = np.arange(len(profiles))
    left, middle, right = profiles[rows, low - 1], profiles[rows, low], profiles[rows, low + 1]
    curve = left - 2 * middle + right
    offset = np.where(curve > 0, 0.5 * (left - right) / np.maximum(curve, 1e-6), 0.0)
    shoulders = np.median(profiles, axis=1)
    near = np.minimum(profiles[rows, np.maximum(low - 4, 0)], profiles[rows, np.minimum(low + 4, steps - 1)])
    clear = (shoulders - middle >= MIN_DIP) & (near - middle >= 0.6 * (shoulders - middle))
    clear &= (shoulders > 40.0) & (np.argmin(profiles, axis=1) == low)
    return (low - (steps - 1) / 2 + np.clip(offset, -0.5, 0.5)) * LINE_STEP_MM, clear


def robust_fit(basis: FloatArray, values: FloatArray, least: int, floor: float,
               ridge: tuple[float, ...] | None = None) -> FloatArray | None:
    """Returns least-squares coefficients (each term held back by its ridge weight per point, if
    given) refitted twice without the points off by over three deviations (or `floor`), or None
    once fewer than `least` points are left."""
    penalty = np.sqrt(np.diag(ridge if ridge is not None else [0.0] * basis.shape[1]) * len(values))
    keep = np.ones(len(values), bool)
    coefficients = None
    for _ in range(3):
        if int(keep.sum()) < least:
            return None
        system = np.vstack([basis[keep], penalty])
        coefficients = np.linalg.lstsq(system, np.concatenate([values[keep], np.zeros(len(penalty))]),
                                       rcond=None)[0]
        residual = np.abs(basis @ coefficients - values)
        keep = residual <= max(3.0 * 1.4826 * float(np.median(residual[keep])), floor)
    return np.asarray(coefficients, np.float64)


def register(scene: Scene) -> Registration:
    """Returns the offset field that puts the printed grid lines where the frame shows them
    (none when too few lines are seen)."""
    mat = scene.mat
    anchors, normals = line_spots(mat)
    across = np.arange(-LINE_REACH_MM, LINE_REACH_MM + 1e-9, LINE_STEP_MM)
    points = anchors[:, None, :] + across[None, :, None] * normals[:, None, :]
    lightness = scene.sample(np.column_stack([points.reshape(-1, 2), np.zeros(points.size // 2)]))[:, 0]
    offsets, clear = line_dips(lightness.reshape(len(anchors), len(across)))
    basis = cubic_basis(anchors, mat.side_mm)
    zero = np.zeros(basis.shape[1])
    fits = [robust_fit(basis[clear & (normals[:, axis] > 0)], offsets[clear & (normals[:, axis] > 0)],
                       MIN_LINES, LINE_SLACK_MM) for axis in (0, 1)]
    return Registration(fits[0] if fits[0] is not None else zero, fits[1] if fits[1] is not None else zero,
                        mat.side_mm)


# -- the light on the mat ----------------------------------------------------------------------

QUIET_HALF_MM = 12.0
QUIET_STEPS = 3
MIN_QUIET = 6  # quiet cells needed to fit a brightness field rather than one brightness
RIDGE = (0.0, 0.3, 0.3, 0.02, 0.02)  # how strongly each term of the brightness field is held back
BRIGHTNESS = (0.6, 1.6)  # the brightness factors the field may take (vignetting, fall-off)
MEDIAN_NORM = 1.1774  # the median length of a 2D standard normal vector
KING_STEPS = tuple((df, dr) for df in (-1, 0, 1) for dr in (-1, 0, 1) if df or dr)
ROOK_STEPS = ((-1, 0), (1, 0), (0, -1), (0, 1))
KEPT_PLANS = 4  # where the mat is read, for this many sets of quiet cells
SHADOW_DROP, LIT_ROUNDS = 0.1, 3  # a mat sample darker than the field by this is shaded: fitted again without


@dataclass(frozen=True, slots=True)
class Lighting:
    """The mat's brightness as a field of shade factors (1: nominal): vignetting, even in the
    frame's radius, and a gentle slope across the board (a lamp to one side); and the colour
    noise of a sample (the spread of one Lab chroma axis)."""

    coefficients: FloatArray
    view: BoardView
    noise: float

    def scale(self, points: FloatArray, pixels: FloatArray | None = None) -> FloatArray:
        """Returns the brightness factor at mat points (N x 2, mm), seen at these pixels if known."""
        return self.scale_on(light_basis(self.view, points, pixels))

    def scale_on(self, basis: FloatArray) -> FloatArray:
        """Returns the brightness factor where the field's terms are known (light_basis)."""
        return np.asarray(np.clip(basis @ self.coefficients, *BRIGHTNESS), np.float64)


def light_basis(view: BoardView, points: FloatArray, pixels: FloatArray | None = None) -> FloatArray:
    """Returns the brightness field's terms at mat points (seen at these pixels, if known): 1,
    the board's x and y (scaled to [-1, 1]), and the square and fourth power of the distance
    from the frame's centre (in half diagonals)."""
    flat = points.reshape(-1, 2)
    side = view.mat.side_mm
    width, height = view.frame_size
    seen = view.to_image(flat) if pixels is None else pixels
    offset = (seen - [(width - 1) / 2, (height - 1) / 2]) / (np.hypot(width, height) / 2)
    radius = offset[:, 0] * offset[:, 0] + offset[:, 1] * offset[:, 1]
    return np.column_stack([np.ones(len(flat)), flat[:, 0] / side * 2 - 1, flat[:, 1] / side * 2 - 1,
                            radius, radius * radius])


def weighted(lab: FloatArray) -> FloatArray:
    """Returns Lab colours (N x 3) with lightness offset and weighted: shade then scales all three."""
    out = np.array(lab, np.float64).reshape(-1, 3)
    out[:, 0] = LIGHTNESS * (out[:, 0] + 16.0)
    return out


def quiet_cells(scene: Scene, context: Mapping[str, str]) -> list[str]:
    """Returns the empty cells with the fewest pieces around them (no piece's shadow or side on
    them): those whose eight neighbours are empty, else whose four are, else every empty cell."""
    size = scene.mat.cells
    squares = tuple(cell_centres(scene.mat))  # file by file: index = file * size + rank
    empty = np.array([context.get(square, EMPTY) == EMPTY for square in squares]).reshape(size, size)
    padded = np.ones((size + 2, size + 2), np.bool_)
    padded[1:-1, 1:-1] = empty
    for steps in (KING_STEPS, ROOK_STEPS):
        calm = empty.copy()
        for df, dr in steps:
            calm &= padded[1 + df:1 + df + size, 1 + dr:1 + dr + size]
        if int(calm.sum()) >= MIN_QUIET:
            return [squares[i] for i in np.flatnonzero(calm)]
    return [squares[i] for i in np.flatnonzero(empty)]


def fit_brightness(basis: FloatArray, shade: FloatArray) -> FloatArray:
    """Returns the brightness field's coefficients fitted to the lit mat's shade factors, its
    slopes held back so that few or clustered cells cannot make it swing; a flat field at the
    median shade when too few are left. Shadows only darken, so the fit is repeated without the
    samples darker than it by over SHADOW_DROP (a shadow, or a piece just put on a quiet cell),
    besides robust_fit's outliers either way (glare)."""
    keep = np.ones(len(shade), np.bool_)
    fitted = None
    for _ in range(LIT_ROUNDS):
        refit = robust_fit(basis[keep], shade[keep], basis.shape[1], 0.01, RIDGE)
        if refit is None:
            break
        fitted = refit
        keep = shade - basis @ fitted > -SHADOW_DROP
    return fitted if fitted is not None else np.array([float(np.median(shade))] + [0.0] * (basis.shape[1] - 1))


@dataclass(frozen=True, slots=True)
class LightPlan:
    """Where the mat is read on some quiet cells for one board fix, camera place and registration:
    the frame pixels' bilinear taps and the brightness field's terms there."""

    taps: Taps
    basis: FloatArray


@cache
def quiet_grid() -> FloatArray:
    """Returns the offsets (mm, N x 2) about a quiet cell's centre where the mat is read (read only)."""
    offsets = np.linspace(-QUIET_HALF_MM, QUIET_HALF_MM, QUIET_STEPS)
    grid = np.array([(x, y) for x in offsets for y in offsets])
    grid.setflags(write=False)
    return grid


@cache
def cell_centres(mat: Mat) -> Mapping[str, tuple[float, float]]:
    """Returns every square's centre on a mat (mm), by name (worked out once per mat: read only)."""
    return MappingProxyType({f"{chr(ord('a') + f)}{r + 1}": mat.cell_centre(f, r)
                             for f in range(mat.cells) for r in range(mat.cells)})


def light_plan(scene: Scene, quiet: tuple[str, ...], shift: Registration,
               kept: dict[Hashable, LightPlan] | None = None) -> LightPlan:
    """Returns where the mat is read on quiet cells: kept (with the last few) in kept, if given."""
    key = (scene.view.homography.tobytes(), scene.view.frame_size, scene.place, shift.across.tobytes(),
           shift.along.tobytes(), quiet)
    if kept is not None and key in kept:
        return kept[key]
    centres = np.array([cell_centres(scene.mat)[square] for square in quiet])
    points = (centres[:, None, :] + quiet_grid()[None]).reshape(-1, 2)
    ground = np.column_stack([shift.shift(points), np.zeros(len(points))])
    pixels = image_points(scene.view, scene.place, ground)
    plan = LightPlan(taps(scene.frame.shape[:2], pixels), light_basis(scene.view, points))
    if kept is not None:
        recent = dict(list(kept.items())[1 - KEPT_PLANS:])
        kept.clear()
        kept.update({**recent, key: plan})
    return plan


def light_on(scene: Scene, context: Mapping[str, str], shift: Registration,
             kept: dict[Hashable, LightPlan] | None = None) -> Lighting | None:
    """Returns the brightness field and noise read from the mat on quiet cells (None: no mat to
    read); where they are read is kept in kept, if given (see light_plan)."""
    quiet = quiet_cells(scene, context)
    if len(quiet) < 3:
        return None
    plan = light_plan(scene, tuple(quiet), shift, kept)
    seen = weighted(scene.lab_tapped(plan.taps))
    mat = weighted(rgb_to_lab(tuple(float(v) for v in scene.kit.mat_rgb)))[0]  # type: ignore[arg-type]
    shade = seen @ mat / float(mat @ mat)
    coefficients = fit_brightness(plan.basis, shade)
    lighting = Lighting(coefficients, scene.view, 0.0)
    chroma = seen[:, 1:] / lighting.scale_on(plan.basis)[:, None]  # shadows move lightness, hardly chroma
    spread = np.linalg.norm(chroma - np.median(chroma, axis=0), axis=1)
    return Lighting(coefficients, scene.view, float(np.median(spread)) / MEDIAN_NORM)


def flatten(lab: FloatArray, points: FloatArray, lighting: Lighting | None,
            pixels: FloatArray | None = None) -> FloatArray:
    """Returns Lab colours seen at mat points (at these pixels, if known) as they would look at
    nominal brightness."""
    if lighting is None:
        return np.asarray(lab, np.float64)
    return at_nominal(lab, lighting.scale(points, pixels))


def at_nominal(lab: FloatArray, scale: FloatArray) -> FloatArray:
    """Returns Lab colours seen at brightness factors (N) as they would look at nominal brightness."""
    flat = np.asarray(lab, np.float64) / scale[:, None]
    flat[:, 0] = (lab[:, 0] + 16.0) / scale - 16.0
    return flat


# -- the printed mat ---------------------------------------------------------------------------

PAGE_PX_PER_MM = 2.0
OFF_PAGE = 255


GROUND = ("mat", "grid", "ink", "paper")  # the printed mat's parts, in ground_parts' order


def ground_parts(kit: Kit) -> dict[str, tuple[int, int, int]]:
    """Returns what the printed mat shows, by part name: the mat, its grid lines, the markers'
    ink and their white paper."""
    return dict(zip(GROUND, (kit.mat_rgb, kit.grid_rgb, (0, 0, 0), (255, 255, 255))))


@dataclass(frozen=True, slots=True, eq=False)
class Printed:
    """The printed mat as a map of which ground part (ground_parts' order) shows where."""

    parts: NDArray[np.uint8]
    to_page: FloatArray

    def at(self, points: FloatArray) -> NDArray[np.int_]:
        """Returns the ground part at mat points (N x 2, mm), OFF_PAGE beyond the mat."""
        flat = np.asarray(points, np.float64).reshape(-1, 2)
        page = flat @ self.to_page[:2, :2].T + self.to_page[:2, 2]
        column, row = np.round(page[:, 0]).astype(int), np.round(page[:, 1]).astype(int)
        height, width = self.parts.shape
        inside = (column >= 0) & (column < width) & (row >= 0) & (row < height)
        found = np.full(len(flat), OFF_PAGE, np.int_)
        found[inside] = self.parts[row[inside], column[inside]]
        return found


@cache
def printed(kit: Kit, mat: Mat) -> Printed:
    """Returns the map of a mat's printed page (markers, grid lines), at PAGE_PX_PER_MM: its
    rectangles painted in drawing order, each as the ground part nearest its colour."""
    page = mat_page(kit, mat)
    colours = np.array(list(ground_parts(kit).values()), np.float64)
    parts = np.zeros((int(round(page.height * PAGE_PX_PER_MM)), int(round(page.width * PAGE_PX_PER_MM))), np.uint8)
    for shape in page.shapes:
        if isinstance(shape, Rect):
            x0, x1 = (max(0, int(round(v * PAGE_PX_PER_MM))) for v in (shape.x, shape.x + shape.w))
            y0, y1 = (max(0, int(round(v * PAGE_PX_PER_MM))) for v in (shape.y, shape.y + shape.h))
            parts[y0:y1, x0:x1] = int(np.argmin(np.linalg.norm(colours - np.array(shape.rgb), axis=1)))
    to_page = board_to_page(mat, PAGE_PX_PER_MM, kit.mat_margin_mm, pixel_centres=True)
    return Printed(parts, to_page)


# -- the lens, from the registered grid --------------------------------------------------------

LENS_HFOV = (60.0, 55.0, 65.0, 50.0, 70.0)  # fields of view tried when the lens cannot be fitted
FIELD_OF_VIEW = (45.0, 75.0)  # a free fit outside these fields of view is not believed
GRID_STEPS = 15
LENS_FLAGS = (cv2.CALIB_USE_INTRINSIC_GUESS | cv2.CALIB_FIX_PRINCIPAL_POINT | cv2.CALIB_FIX_ASPECT_RATIO
              | cv2.CALIB_ZERO_TANGENT_DIST | cv2.CALIB_FIX_K2 | cv2.CALIB_FIX_K3)


def fit_lens(scene: Scene, registration: Registration, hfov: float | None) -> tuple[CameraPlace, float] | None:
    """Returns the camera place that a single-view calibration on the registered grid gives (a
    pinhole with radial distortion, its focal length free or set by a field of view), and the
    fitted focal length's relative deviation; None when no camera above the mat fits."""
    side = scene.mat.side_mm
    ticks = np.linspace(0.0, side, GRID_STEPS)
    grid = np.array([(x, y) for x in ticks for y in ticks])
    pixels = scene.view.to_image(registration.shift(grid)).astype(np.float32)
    width, height = scene.view.frame_size
    matrix = lens_matrix(scene.view, focal_from_hfov(width, 60.0 if hfov is None else hfov))
    flags = LENS_FLAGS | (cv2.CALIB_FIX_FOCAL_LENGTH if hfov is not None else 0)
    points = np.column_stack([grid, np.zeros(len(grid))]).astype(np.float32)
    try:
        _, fitted, _, rotations, shifts, deviations, *_ = cv2.calibrateCameraExtended(
            [points], [pixels], (width, height), matrix, np.zeros(5), flags=flags)
    except cv2.error:
        return None
    rotation, _ = cv2.Rodrigues(rotations[0])
    centre = (-rotation.T @ shifts[0]).ravel()
    if not np.all(np.isfinite(centre)) or centre[2] <= MIN_CLEARANCE_MM:
        return None
    place = CameraPlace((float(centre[0]), float(centre[1]), float(centre[2])), float(fitted[0, 0]))
    return place, float(deviations.ravel()[0]) / float(fitted[0, 0])


def lens_places(scene: Scene, registration: Registration) -> list[CameraPlace]:
    """Returns the camera places to start from, the likeliest first: with a lens calibration, the
    scene's own; else the single-view fit with its focal length free (when it lands in KIT.md's
    envelope), then the fits at fields of view across the envelope (a camera looking nearly
    straight down leaves focal length and height tied, and a little error in the grid moves a
    free fit a lot)."""
    if scene.view.lens_known:
        return [scene.place]
    fits = [fit_lens(scene, registration, hfov) for hfov in (None, *LENS_HFOV)]
    places = [fit[0] for fit in fits if fit is not None
              and FIELD_OF_VIEW[0] <= hfov_of(scene.view.frame_size[0], fit[0].focal_px) <= FIELD_OF_VIEW[1]]
    return places or [scene.place]


def hfov_of(width: int, focal: float) -> float:
    """Returns the horizontal field of view (degrees) of a focal length in pixels."""
    return float(np.degrees(2 * np.arctan(width / 2 / focal)))
