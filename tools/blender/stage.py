"""The Blender scene: render settings, the room's light, the table, the printed mat and the camera.

Board millimetres become metres; the origin stays at a1's outer grid corner with z up. The mat
is a plane printed with exactly the page the fast tier warps (vision.render.scene.mat_texture),
lying on a wood table of the preset's colour. Each LightSpec source is a disc-shaped area light
in its direction, sized so that a piece's shadow is about as soft as the spec's blur; the world
gives the ambient share. Both carry the light's black-body colour; the camera's white balance is
applied after the render. The camera is the fast tier's pinhole: K, rotation and translation.
"""

from __future__ import annotations

import math
import tempfile
from pathlib import Path
from typing import Any

import bpy
import cv2
import numpy as np
from mathutils import Matrix

from tools.blender.materials import Materials, image_material, linear
from tools.blender.meshes import MM
from vision.kit import Kit, Mat
from vision.render.camera import Canvas
from vision.render.effects import LightSpec, kelvin_rgb, lighting
from vision.render.scene import SHADOW_PIECE_MM, mat_texture

LIGHT_DISTANCE_M = 1.4
TABLE_M = 3.0
MAT_PX_PER_MM = 6
PAPER_MM = 0.3
# Blender's area light of P watts gives about P / (pi d^2) W/m^2 at distance d on its axis (measured).
AREA_IRRADIANCE = 1 / math.pi


def reset() -> Any:
    """Returns a fresh empty scene set up for Cycles on the CPU with the Standard view transform."""
    bpy.ops.wm.read_factory_settings(use_empty=True)
    scene = bpy.context.scene
    scene.render.engine = "CYCLES"
    cycles = scene.cycles
    cycles.device = "CPU"
    cycles.use_adaptive_sampling = False
    cycles.use_denoising = True
    cycles.denoiser = "OPENIMAGEDENOISE"
    cycles.denoising_quality = "FAST"
    cycles.denoising_prefilter = "FAST"
    cycles.max_bounces, cycles.diffuse_bounces, cycles.glossy_bounces = 6, 2, 2
    cycles.transmission_bounces, cycles.transparent_max_bounces = 6, 4
    cycles.caustics_reflective = cycles.caustics_refractive = False
    cycles.blur_glossy = 1.0
    cycles.sample_clamp_indirect = 4.0
    cycles.filter_width = 1.2
    scene.render.use_persistent_data = True
    scene.render.film_transparent = False
    scene.view_settings.view_transform = "Standard"
    scene.view_settings.look = "None"
    scene.render.image_settings.file_format = "OPEN_EXR"
    scene.render.image_settings.color_depth = "32"
    scene.render.image_settings.exr_codec = "NONE"
    return scene


def light_tint(kelvin: float) -> tuple[float, float, float]:
    """Returns the scene-linear colour of black-body light, relative to the neutral 6500 K and of unit luma."""
    tint = np.array(linear(kelvin_rgb(kelvin) * 255)) / np.array(linear(kelvin_rgb(6500.0) * 255))
    tint /= float(tint @ np.array([0.2126, 0.7152, 0.0722]))
    return (float(tint[0]), float(tint[1]), float(tint[2]))


def add_room(scene: Any, light: LightSpec, centre_mm: float) -> None:
    """Adds the world's ambient light and one area light per source, all at the light's colour."""
    tint = light_tint(light.kelvin)
    room = lighting(light)
    world = bpy.data.worlds.new("room")
    world.use_nodes = True
    background = world.node_tree.nodes["Background"]
    background.inputs["Color"].default_value = (*tint, 1.0)
    background.inputs["Strength"].default_value = room.ambient
    scene.world = world
    target = np.array([centre_mm, centre_mm, 0.0]) * MM
    for index, (direction, weight) in enumerate(zip(room.directions, room.weights)):
        _area_light(scene, f"lamp{index}", target + direction * LIGHT_DISTANCE_M, direction, weight, tint,
                    light.shadow_blur_mm)


def _area_light(scene: Any, name: str, where: np.ndarray, towards_light: np.ndarray, weight: float,
                tint: tuple[float, float, float], blur_mm: float) -> None:
    """Adds a disc light at where, facing the mat, bright enough to add weight to an upward white face."""
    # An upward face's direct share is weight * sin(elevation) with sin folded into the weight's
    # normalisation by lighting(); the light's power gives irradiance pi * weight / sin(elevation)
    # along its axis so that the upward face receives pi * weight * (its own sin) / sin = pi * weight.
    lamp = bpy.data.lights.new(name, "AREA")
    lamp.shape = "DISK"
    lamp.size = max(LIGHT_DISTANCE_M * blur_mm / SHADOW_PIECE_MM, 0.02)
    lamp.color = tint
    lamp.energy = math.pi * weight / AREA_IRRADIANCE * LIGHT_DISTANCE_M ** 2
    lamp.use_shadow = True
    thing = bpy.data.objects.new(name, lamp)
    thing.matrix_world = _facing(where, towards_light)
    scene.collection.objects.link(thing)


def _facing(where: np.ndarray, axis: np.ndarray) -> Matrix:
    """Returns the world matrix of an object at where whose local +z is axis (it shines along -z)."""
    z = axis / np.linalg.norm(axis)
    helper = np.array([1.0, 0.0, 0.0]) if abs(z[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
    x = np.cross(helper, z)
    x /= np.linalg.norm(x)
    y = np.cross(z, x)
    return _matrix(x, y, z, where)


def _matrix(x: np.ndarray, y: np.ndarray, z: np.ndarray, where: np.ndarray) -> Matrix:
    """Returns a 4x4 world matrix from three axis columns and a location."""
    rows = [[x[i], y[i], z[i], where[i]] for i in range(3)] + [[0.0, 0.0, 0.0, 1.0]]
    return Matrix([[float(value) for value in row] for row in rows])


def add_table(scene: Any, materials: Materials, rgb: tuple[int, int, int], centre_mm: float) -> None:
    """Adds the wooden table top under the mat."""
    half = TABLE_M / 2
    centre = centre_mm * MM
    corners = [(centre - half, centre - half, -PAPER_MM * MM), (centre + half, centre - half, -PAPER_MM * MM),
               (centre + half, centre + half, -PAPER_MM * MM), (centre - half, centre + half, -PAPER_MM * MM)]
    mesh = bpy.data.meshes.new("table")
    mesh.from_pydata(corners, [], [[0, 1, 2, 3]])
    mesh.materials.append(materials.get("table", rgb))
    scene.collection.objects.link(bpy.data.objects.new("table", mesh))


def add_mat(scene: Any, kit: Kit, mat: Mat, folder: str) -> None:
    """Adds the printed mat: a plane over the page's extent with the page image on it."""
    path = str(Path(folder) / "mat.png")
    cv2.imwrite(path, mat_texture(kit, mat, MAT_PX_PER_MM))
    low, high = -kit.mat_margin_mm * MM, (mat.side_mm + kit.mat_margin_mm) * MM
    mesh = bpy.data.meshes.new("mat")
    mesh.from_pydata([(low, low, 0.0), (high, low, 0.0), (high, high, 0.0), (low, high, 0.0)], [], [[0, 1, 2, 3]])
    uv = mesh.uv_layers.new(name="UVMap")
    uv.data.foreach_set("uv", [0.0, 0.0, 1.0, 0.0, 1.0, 1.0, 0.0, 1.0])
    mesh.materials.append(image_material("mat", path))
    scene.collection.objects.link(bpy.data.objects.new("mat", mesh))


def add_camera(scene: Any, canvas: Canvas) -> None:
    """Adds the canvas's pinhole camera (OpenCV looks down +z, y down; Blender looks down -z, y up)."""
    width, height = canvas.size
    fx, cx, cy = canvas.matrix[0, 0], canvas.matrix[0, 2], canvas.matrix[1, 2]
    lens = bpy.data.cameras.new("camera")
    lens.sensor_fit = "HORIZONTAL"
    lens.sensor_width = 36.0
    lens.lens = fx * lens.sensor_width / width
    lens.shift_x = ((width - 1) / 2 - cx) / width
    lens.shift_y = (cy - (height - 1) / 2) / width
    lens.clip_start, lens.clip_end = 0.01, 20.0
    rotation = canvas.camera.rotation
    thing = bpy.data.objects.new("camera", lens)
    thing.matrix_world = _matrix(rotation[0], -rotation[1], -rotation[2], canvas.camera.centre * MM)
    scene.collection.objects.link(thing)
    scene.camera = thing
    scene.render.resolution_x, scene.render.resolution_y = width, height
    scene.render.pixel_aspect_x = scene.render.pixel_aspect_y = 1.0


def work_folder() -> str:
    """Returns a new temporary folder for the mat image and the renders."""
    return tempfile.mkdtemp(prefix="blockref-blender-")
