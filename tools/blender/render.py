"""BlenderRenderer: the fast tier's Renderer with its scene drawn by Cycles instead of OpenCV.

It keeps the fast tier's camera, lens, setting and light, so truth.json's calibration and the
planner's hands are the same; only `ideal` changes. A shot is rendered as a linear image of the
canvas (the undistorted view with the barrel's margin), the camera's locked white balance takes
`awb` of the light's colour away, the result is encoded like sRGB (values above white kept),
and the fast tier's Lens adds the barrel. Its Sensor then sets exposure, vignettes, adds noise
and encodes JPEG, with white balance left out because it was done here. Stills (no hand) are
rendered once per position and reused while it stays; frames with a hand use fewer samples and
a smaller render.
"""

from __future__ import annotations

import json
import shutil
import time
import weakref
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import bpy
import cv2
import numpy as np
from numpy.typing import NDArray

from tools.blender.materials import Materials
from tools.blender.meshes import capsule_mesh, solid_mesh
from tools.blender.stage import add_camera, add_mat, add_room, add_table, light_tint, reset, work_folder
from vision.kit import Kit
from vision.render.camera import CameraSpec
from vision.render.effects import LightSpec, Sensor
from vision.render.hands import Hand
from vision.render.scene import Renderer, position_solids
from vision.render.solids import RGB, Solid

FloatImage = NDArray[np.float32]
KIND_BY_COLOUR = {"blockade": {"clear": "clear"}, "block-pt": {"X": "painted", "Y": "painted"}}
DEFAULT_KIND = {"blockade": "plastic"}
NO_BEVEL = {"block-block"}


@dataclass(frozen=True, slots=True)
class Quality:
    """How hard Cycles works: samples for stills and hand frames, and the hand frames' render scale."""

    still_samples: int = 8
    hand_samples: int = 4
    hand_percent: int = 70
    bevel_mm: float = 0.8


class BlenderRenderer(Renderer):
    """Draws one game's mat and pieces with Cycles, as one camera sees them under one light."""

    def __init__(self, game: str, variant: str | None, camera: CameraSpec, light: LightSpec, *,
                 seed: int = 0, kit: Kit | str = "default", quality: Quality = Quality()) -> None:
        super().__init__(game, variant, camera, light, seed=seed, kit=kit, supersample=1)
        self.sensor = Sensor(camera, replace(self.light, awb=1.0), np.random.default_rng([seed, 1]))
        self.quality = quality
        self.timings: list[tuple[str, float]] = []
        self._balance = _white_balance(self.light)
        self._stills: dict[str, FloatImage] = {}
        self._folder = work_folder()
        weakref.finalize(self, shutil.rmtree, self._folder, True)
        self._materials = Materials()
        self._kinds = _colour_kinds(self.kit, game)
        self._scene = self._build()
        self._shown: list[Any] = []

    def _build(self) -> Any:
        """Returns the Blender scene with everything that never moves: room, table, mat, camera."""
        scene = reset()
        centre = self.setting.mat.side_mm / 2
        add_room(scene, self.light, centre)
        add_table(scene, self._materials, self.light.table_rgb, centre)
        add_mat(scene, self.kit, self.setting.mat, self._folder)
        add_camera(scene, self.canvas)
        return scene

    def ideal(self, position: Any, hand: Hand | None = None) -> Any:
        """Returns the frame-sized view through the lens as float BGR 0..255 (above 255 where over white)."""
        if hand is not None:
            return self.lens.develop(self._render(position, hand))
        key = json.dumps(position, sort_keys=True)
        if key not in self._stills:
            self._stills = {key: self.lens.develop(self._render(position, None))}
        return self._stills[key]

    def _render(self, position: Any, hand: Hand | None) -> FloatImage:
        """Returns the canvas of a shot rendered by Cycles, white-balanced and sRGB-encoded, as BGR."""
        self._show(position, hand)
        still = hand is None
        percent = 100 if still else self.quality.hand_percent
        self._scene.cycles.samples = self.quality.still_samples if still else self.quality.hand_samples
        self._scene.render.resolution_percentage = percent
        started = time.monotonic()
        image = _render_linear(self._scene, str(Path(self._folder) / "shot.exr"))
        self.timings.append(("still" if still else "hand", time.monotonic() - started))
        image = _encode(image * self._balance)
        if percent != 100:
            image = np.asarray(cv2.resize(image, self.canvas.size, interpolation=cv2.INTER_LINEAR), np.float32)
        return image

    def _show(self, position: Any, hand: Hand | None) -> None:
        """Replaces the movable objects with a position's pieces and a hand with what it holds."""
        for thing in self._shown:
            bpy.data.meshes.remove(thing.data)
        items, table = position_solids(self.setting, position)
        solids = [solid for item in items for solid in item.solids] + table + list(hand.held if hand else ())
        things = [self._solid(f"piece{index}", solid) for index, solid in enumerate(solids)]
        if hand is not None:
            things += [capsule_mesh(f"hand{index}", capsule, self._hand_material(capsule.rgb, index, hand))
                       for index, capsule in enumerate(hand.capsules)]
        for thing in things:
            self._scene.collection.objects.link(thing)
        self._shown = things

    def _solid(self, name: str, solid: Solid) -> Any:
        """Returns the mesh object of one piece's solid."""
        bevel = 0.0 if self.setting.game in NO_BEVEL else self.quality.bevel_mm
        return solid_mesh(name, solid, self._piece_material, bevel)

    def _piece_material(self, rgb: RGB, alpha: float) -> Any:
        """Returns the material of a piece's face from its colour (and opacity)."""
        kind = self._kinds.get(tuple(rgb), DEFAULT_KIND.get(self.setting.game, "wood"))
        return self._materials.get("clear" if alpha < 1 else kind, rgb)

    def _hand_material(self, rgb: RGB, index: int, hand: Hand) -> Any:
        """Returns skin for the hand and forearm, cloth for the sleeve (the last capsule)."""
        return self._materials.get("cloth" if index == len(hand.capsules) - 1 else "skin", rgb)

    def seconds_per_render(self) -> dict[str, float]:
        """Returns the mean render time of stills and hand frames so far, in seconds."""
        kinds = {kind for kind, _ in self.timings}
        return {kind: float(np.mean([t for k, t in self.timings if k == kind])) for kind in kinds}


def _colour_kinds(kit: Kit, game: str) -> dict[tuple[int, ...], str]:
    """Returns the material kind of each nominal colour of a game that is not the game's default."""
    names = KIND_BY_COLOUR.get(game, {})
    return {tuple(rgb): names[name] for name, rgb in kit.colours.get(game, {}).items() if name in names}


def _white_balance(light: LightSpec) -> FloatImage:
    """Returns the BGR gain by which the camera's locked white balance removes `awb` of the light's colour."""
    tint = np.array(light_tint(light.kelvin), np.float32)[::-1]
    gain = tint ** np.float32(-light.awb)
    return np.asarray(gain / float(gain @ np.array([0.0722, 0.7152, 0.2126], np.float32)), np.float32)


def _render_linear(scene: Any, path: str) -> FloatImage:
    """Returns the scene rendered by Cycles as a scene-linear BGR float image (rows top to bottom)."""
    scene.render.filepath = path
    bpy.ops.render.render(write_still=True)
    image = bpy.data.images.load(path, check_existing=False)
    width, height = image.size
    pixels = np.empty(width * height * 4, np.float32)
    image.pixels.foreach_get(pixels)
    bpy.data.images.remove(image)
    return np.ascontiguousarray(pixels.reshape(height, width, 4)[::-1, :, 2::-1])


def _encode(linear: FloatImage) -> FloatImage:
    """Returns linear values encoded with the sRGB curve, scaled to 0..255 (over-white values kept)."""
    value = np.maximum(linear, 0.0)
    encoded = np.where(value <= 0.0031308, value * 12.92, 1.055 * np.power(value, 1 / 2.4) - 0.055)
    return np.asarray(encoded * 255.0, np.float32)
