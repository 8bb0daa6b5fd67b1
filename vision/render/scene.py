"""The scene: the printed mat warped onto the camera's canvas, shaded solids, soft shadows, hands.

The mat is the printable page of vision.mat (off-white, grey grid lines, the corner and game
markers with their quiet zones, the legend's scale bar) rasterised top-down at a whole number of
pixels per mm, about twice the canvas's density, and warped onto the canvas with the homography
of the z = 0 plane; the table shows around it. Solids are drawn with the painter's algorithm
(pieces far from the point under the camera first, stacks bottom to top; faces turned away are
dropped unless translucent) and Lambert shading. Shadows are the solids' outlines pushed along
each light onto the mat, blurred, and taken off the light that source brings. A lamp is not a
point, so a shadow's edge blurs in proportion to the height of what casts it: sharp at a piece's
foot, shadow_blur_mm at the tip of a SHADOW_PIECE_MM piece's shadow (each solid is cut into
height bands, each band's share of the shadow blurred for its height).
A Renderer puts it together for one game, camera and light, keeping the still scene of the last
position so that frames with a moving hand only redraw the hand.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from typing import Any, Iterable

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.kit import Kit, Mat, board_to_page, kit_named
from vision.mat import mat_page, rasterise
from vision.render import RenderError
from vision.render.camera import Canvas, CameraSpec, FloatArray, Image, Lens, bgr, fill, pose
from vision.render.effects import Lighting, LightSpec, Sensor, lighting
from vision.render.hands import Hand, draw_hand, hand_casters
from vision.render.pieces import Item, Setting, board_items, check_position, make_setting
from vision.render.solids import RGB, Face, Solid, normals
from vision.render.table import supply_solids

SHADOW_MIN_STEP, SHADOW_STEPS = 3, 6  # the shadow grid: least pixels a cell, cells the widest blur spans
SHADOW_PIECE_MM = 30.0  # a light's shadow_blur_mm is the blur of the shadow of this tall a piece's top
SHADOW_BANDS_MM = (2.0, 6.0, 12.0, 20.0, 30.0, 45.0, 70.0, 110.0)  # tops of the height bands (then the rest)
Caster = tuple[FloatArray, float]


# -- the mat ---------------------------------------------------------------------------------


@cache
def mat_texture(kit: Kit, mat: Mat, px_per_mm: int) -> Image:
    """Returns the printed mat (vision.mat's page, text left out) drawn top-down at px_per_mm."""
    return rasterise(mat_page(kit, mat), px_per_mm)


def texture_density(canvas: Canvas) -> int:
    """Returns the whole px per mm at which to draw the mat: about twice the canvas's density."""
    return int(np.clip(np.ceil(2 * canvas.mm_to_px()), 2, 10))


def draw_mat(canvas: Canvas, kit: Kit, mat: Mat, table_rgb: RGB) -> Image:
    """Returns the canvas showing the mat on the table (no pieces, no shadows)."""
    px_per_mm = texture_density(canvas)
    page = board_to_page(mat, px_per_mm, kit.mat_margin_mm, pixel_centres=True)
    warp = canvas.homography() @ np.linalg.inv(page)
    return np.asarray(cv2.warpPerspective(mat_texture(kit, mat, px_per_mm), warp, canvas.size,
                                          flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                                          borderValue=bgr(table_rgb)), np.uint8)


# -- solids and shadows ----------------------------------------------------------------------


def draw_solids(image: Image, canvas: Canvas, solids: Iterable[Solid], light: Lighting) -> None:
    """Draws solids with the painter's algorithm: solids far to near, faces turned away skipped."""
    # Pieces stand on the mat and the camera looks down, so a solid whose anchor is farther from
    # the point under the camera goes first, of two equally far (a stack) the lower one, and of
    # two as high (pieces side by side on one support) the one whose own middle is farther;
    # within a solid, translucent faces go far to near and opaque ones facing away are left out.
    shapes = [solid for solid in solids if solid.faces]
    if not shapes:
        return
    eye = canvas.camera.centre
    faces = [face for solid in shapes for face in solid.faces]
    owner = np.repeat(np.arange(len(shapes)), [len(solid.faces) for solid in shapes])
    directions = normals([face.points for face in faces])
    centres = np.array([face.points.mean(axis=0) for face in faces])
    facing = np.einsum("ij,ij->i", directions, eye - centres) > 0
    shades = light.shade(directions)
    keys = [(-_reach(solid.anchor, eye), float(solid.anchor[2]), -_reach(solid.points().mean(axis=0), eye))
            for solid in shapes]
    rank = np.empty(len(shapes), int)
    rank[sorted(range(len(shapes)), key=keys.__getitem__)] = np.arange(len(shapes))
    order = np.lexsort((-np.linalg.norm(centres - eye, axis=1), rank[owner]))
    for index in order:
        face = faces[index]
        if facing[index] or face.alpha < 1:
            _draw_face(image, canvas, face, shades[index])


def _reach(point: FloatArray, eye: FloatArray) -> float:
    """Returns how far a point lies from the camera along the mat (its horizontal distance)."""
    return float(np.hypot(*(point[:2] - eye[:2])))


def _draw_face(image: Image, canvas: Canvas, face: Face, shade: float) -> None:
    """Fills one face; a translucent face, lit through as well as on, is blended into what is behind."""
    pixels = canvas.pixels(face.points)
    colour = bgr(np.array(face.rgb) * (shade if face.alpha >= 1 else (1 + shade) / 2))
    if face.alpha >= 1:
        fill(image, pixels, colour)
        return
    height, width = image.shape[:2]
    x0, y0 = np.clip(np.floor(pixels.min(axis=0)).astype(int) - 1, 0, [width, height])
    x1, y1 = np.clip(np.ceil(pixels.max(axis=0)).astype(int) + 2, 0, [width, height])
    if x1 <= x0 or y1 <= y0:
        return
    window = image[y0:y1, x0:x1]
    layer = window.copy()
    fill(layer, pixels - [x0, y0], colour)
    cv2.addWeighted(layer, face.alpha, window, 1 - face.alpha, 0.0, dst=window)


def solid_casters(solids: Iterable[Solid]) -> list[Caster]:
    """Returns the shadow casters of solids: their vertices and how opaque they are."""
    return [(solid.points(), max(face.alpha for face in solid.faces)) for solid in solids if solid.faces]


@dataclass(frozen=True, slots=True, eq=False)
class Shade:
    """The light left under soft shadows in a window of the canvas: a patch (255 = full light) and its corner."""

    light: Image
    origin: tuple[int, int]


def shadows(canvas: Canvas, casters: list[Caster], light: Lighting, blur_mm: float) -> Shade | None:
    """Returns where the casters' soft shadows fall on the mat and how much light they leave, or None."""
    # The shadows are drawn on a grid coarse enough that the widest blur spans a few of its cells,
    # then only the window they darken is scaled up to the canvas.
    if not casters:
        return None
    spread = blur_mm * canvas.mm_to_px()
    step = int(np.clip(spread / SHADOW_STEPS, SHADOW_MIN_STEP, 32))
    width, height = canvas.size
    small = (-(-width // step), -(-height // step))
    offset = (1 / step - 1) / 2
    to_small = np.array([[1 / step, 0.0, offset], [0.0, 1 / step, offset], [0.0, 0.0, 1.0]]) @ canvas.homography()
    factor = np.ones((small[1], small[0]), np.float32)
    heights = [float(points[:, 2].max()) for points, _ in casters]
    tops = [top for top in SHADOW_BANDS_MM if top < max(heights)] + [max(heights)]
    for direction, loss in zip(light.directions, light.shadow_loss()):
        below, dark = np.zeros((small[1], small[0]), np.float32), np.zeros((small[1], small[0]), np.float32)
        for low, top in zip([0.0, *tops], tops):
            reaching = [caster for caster, height in zip(casters, heights) if height > low]
            mask = sharp_shadows(reaching, direction, top, to_small, below)
            band = np.maximum(mask - below, 0.0)  # a see-through caster drawn over another may lower it
            sigma = max(spread * (low + top) / 2 / SHADOW_PIECE_MM / step, 0.6)
            dark += cv2.GaussianBlur(band, (0, 0), sigma)
            below = np.maximum(below, mask)
        factor -= np.float32(loss / 255) * np.minimum(dark, 255.0)
    return _shade_window(np.asarray(factor * 255 + 0.5, np.uint8), step, canvas.size)


def sharp_shadows(casters: list[Caster], direction: FloatArray, top: float, to_small: FloatArray,
                  under: NDArray[np.float32]) -> NDArray[np.float32]:
    """Returns the sharp shadows along one light of the casters' parts below a height, drawn on
    the shadow grid over those already drawn (255 where a caster stops all the light)."""
    mask = np.asarray(under, np.uint8)
    for points, alpha in casters:
        cut = cut_below(points, top)
        if len(cut):
            ground = cut[:, :2] - cut[:, 2:3] / direction[2] * direction[:2]
            pixels = cv2.perspectiveTransform(ground.reshape(-1, 1, 2), to_small).reshape(-1, 2)
            hull = np.asarray(cv2.convexHull(pixels.astype(np.float32)).reshape(-1, 2), np.float64)
            fill(mask, hull, (int(round(255 * alpha)),))
    return mask.astype(np.float32)


def cut_below(points: FloatArray, top: float) -> FloatArray:
    """Returns the corners of a convex solid (its vertices) cut off at a height: the vertices
    below it and where the segments between vertices either side of it cross it."""
    low, high = points[points[:, 2] <= top], points[points[:, 2] > top]
    if not len(high) or not len(low):
        return points if not len(high) else points[:0]
    share = (top - low[:, None, 2]) / (high[None, :, 2] - low[:, None, 2])
    crossings = low[:, None, :] + share[..., None] * (high[None, :, :] - low[:, None, :])
    return np.vstack([low, crossings.reshape(-1, 3)])


def _shade_window(light: Image, step: int, size: tuple[int, int]) -> Shade | None:
    """Returns the canvas patch scaled up from the coarse light grid where it is below full light."""
    rows, columns = np.nonzero(light < 255)
    if not len(rows):
        return None
    y0, x0 = max(int(rows.min()) - 2, 0), max(int(columns.min()) - 2, 0)
    y1, x1 = min(int(rows.max()) + 3, light.shape[0]), min(int(columns.max()) + 3, light.shape[1])
    patch = cv2.resize(light[y0:y1, x0:x1], ((x1 - x0) * step, (y1 - y0) * step), interpolation=cv2.INTER_LINEAR)
    width, height = size
    patch = patch[:height - y0 * step, :width - x0 * step]
    return Shade(np.asarray(patch, np.uint8), (x0 * step, y0 * step))


def darken(image: Image, shade: Shade | None) -> Image:
    """Returns a new image: the image with the shade's light taken off (a copy if there is no shade)."""
    result = image.copy()
    if shade is None:
        return result
    x, y = shade.origin
    height, width = shade.light.shape
    window = result[y:y + height, x:x + width]
    light = cv2.cvtColor(shade.light, cv2.COLOR_GRAY2BGR)
    window[:] = cv2.multiply(window, light, scale=1 / 255)
    return result


def position_solids(setting: Setting, position: Any) -> tuple[list[Item], list[Solid]]:
    """Returns a position's items on the grid and its pieces on the table, or raises RenderError."""
    cells = check_position(setting, position)
    return board_items(setting, cells), supply_solids(setting, position["off"])


# -- the renderer ----------------------------------------------------------------------------


class Renderer:
    """Draws one game's mat and pieces as one camera sees them under one light, frame by frame."""

    def __init__(self, game: str, variant: str | None, camera: CameraSpec, light: LightSpec, *,
                 seed: int = 0, kit: Kit | str = "default", supersample: int = 2) -> None:
        self.kit = kit_named(kit) if isinstance(kit, str) else kit
        self.setting: Setting = make_setting(self.kit, game, variant)
        self.light = light.checked()
        centre = self.setting.mat.side_mm / 2
        self.camera = pose(camera, (centre, centre))
        self.lens = Lens(self.camera, supersample)
        self.lighting = lighting(light)
        self.sensor = Sensor(camera, light, np.random.default_rng([seed, 1]))
        self._mat: Image | None = None
        self._still: tuple[str, Image] | None = None

    def sees_every_marker(self, margin_px: float = 4.0) -> bool:
        """Tells whether the camera sees every marker of the mat whole, margin_px inside the frame."""
        corners = np.vstack(list(self.kit.marker_corners(self.setting.mat).values()))
        return self.camera.sees(corners, margin_px)

    @property
    def canvas(self) -> Canvas:
        """Returns the canvas the scene is drawn on."""
        return self.lens.canvas

    def scene(self, position: Any, hand: Hand | None = None) -> Image:
        """Returns the canvas image of a position (and a hand) at nominal colours; without a hand it is shared."""
        still = self._still_scene(position)
        if hand is None:
            return still
        casters = solid_casters(hand.held) + hand_casters(hand)
        image = darken(still, shadows(self.canvas, casters, self.lighting, self.light.shadow_blur_mm))
        draw_solids(image, self.canvas, hand.held, self.lighting)
        draw_hand(image, self.canvas, hand, self.lighting)
        return image

    def ideal(self, position: Any, hand: Hand | None = None) -> Image:
        """Returns the frame-sized view through the lens, before the sensor (no light level, no noise)."""
        return np.asarray(self.lens.develop(self.scene(position, hand)), np.uint8)

    def frame(self, position: Any, hand: Hand | None = None, lux: float | None = None) -> Image:
        """Returns the frame the camera records: lens, then sensor (exposure locks on the first call)."""
        return self.sensor.capture(self.ideal(position, hand), lux)

    def _still_scene(self, position: Any) -> Image:
        """Returns the scene without hands, drawn again only when the position changes."""
        try:
            key = json.dumps(position, sort_keys=True)
        except (TypeError, ValueError):
            raise RenderError("a position must be JSON-ready data (dicts, lists, text, numbers)") from None
        if self._still is None or self._still[0] != key:
            self._still = (key, self._draw_still(position))
        return self._still[1]

    def _draw_still(self, position: Any) -> Image:
        """Returns the scene of a position: mat, shadows, pieces on the grid and on the table."""
        items, table = position_solids(self.setting, position)
        solids = [solid for item in items for solid in item.solids] + table
        if self._mat is None:
            self._mat = draw_mat(self.canvas, self.kit, self.setting.mat, self.light.table_rgb)
        shade = shadows(self.canvas, solid_casters(solids), self.lighting, self.light.shadow_blur_mm)
        image = darken(self._mat, shade)
        draw_solids(image, self.canvas, solids, self.lighting)
        return image
