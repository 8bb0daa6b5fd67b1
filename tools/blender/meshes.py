"""The fast tier's solids and hand capsules as Blender mesh objects, in metres.

A Solid's faces share corners; they are welded into one mesh per solid (so a bevel runs along
its edges), each face keeping the material of its colour. Faces meeting at a shallow angle (a
pawn's dome and sides) are shaded smooth, sharper edges stay sharp. A hand's capsule becomes
the convex hull of its two end spheres.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Sequence

import bmesh
import bpy
import numpy as np

from vision.render.hands import Capsule
from vision.render.solids import RGB, Solid

MM = 0.001
WELD_DECIMALS = 4
SMOOTH_ANGLE = math.radians(30.0)
SPHERE_RINGS, SPHERE_SEGMENTS = 6, 12
Picker = Callable[[RGB, float], Any]


def solid_mesh(name: str, solid: Solid, material_of: Picker, bevel_mm: float) -> Any:
    """Returns a new mesh object of a solid, its faces given materials by colour and opacity."""
    # A pyramid's sides are lofted quads whose top two corners meet at the apex: welded, they
    # become triangles.
    vertices: dict[tuple[float, ...], int] = {}
    faces, slots = [], []
    materials: list[Any] = []
    for face in solid.faces:
        corners = list(dict.fromkeys(_weld(vertices, point) for point in face.points))
        if len(corners) < 3:
            continue
        faces.append(corners)
        material = material_of(face.rgb, face.alpha)
        if material not in materials:
            materials.append(material)
        slots.append(materials.index(material))
    mesh = _mesh(name, list(vertices), faces, materials, slots)
    thing = bpy.data.objects.new(name, mesh)
    if bevel_mm > 0:
        _bevel(thing, bevel_mm)
    return thing


def _weld(vertices: dict[tuple[float, ...], int], point: np.ndarray) -> int:
    """Returns the index of a point among the mesh's vertices, adding it if new."""
    key = tuple(round(float(value), WELD_DECIMALS) for value in point)
    return vertices.setdefault(key, len(vertices))


def _mesh(name: str, points: Sequence[tuple[float, ...]], faces: list[list[int]], materials: list[Any],
          slots: list[int]) -> Any:
    """Returns a new mesh from mm points and faces, with materials per face, smooth below SMOOTH_ANGLE."""
    mesh = bpy.data.meshes.new(name)
    mesh.from_pydata([tuple(value * MM for value in point) for point in points], [], faces)
    for material in materials:
        mesh.materials.append(material)
    mesh.polygons.foreach_set("material_index", slots)
    mesh.polygons.foreach_set("use_smooth", [True] * len(faces))
    mesh.set_sharp_from_angle(angle=SMOOTH_ANGLE)
    mesh.validate()
    mesh.update()
    return mesh


def _bevel(thing: Any, bevel_mm: float) -> None:
    """Rounds the object's sharp edges a little, as real pieces are."""
    bevel = thing.modifiers.new("bevel", "BEVEL")
    bevel.width = bevel_mm * MM
    bevel.segments = 2
    bevel.limit_method = "ANGLE"
    bevel.angle_limit = SMOOTH_ANGLE
    bevel.harden_normals = False


def capsule_mesh(name: str, capsule: Capsule, material: Any) -> Any:
    """Returns a new smooth mesh object of a tapered capsule: the hull of its two end spheres."""
    points = np.vstack([_sphere(capsule.start, capsule.start_radius), _sphere(capsule.end, capsule.end_radius)])
    shape = bmesh.new()
    for point in points * MM:
        shape.verts.new(tuple(point))
    bmesh.ops.convex_hull(shape, input=list(shape.verts))
    mesh = bpy.data.meshes.new(name)
    shape.to_mesh(mesh)
    shape.free()
    mesh.materials.append(material)
    mesh.polygons.foreach_set("use_smooth", [True] * len(mesh.polygons))
    mesh.update()
    return bpy.data.objects.new(name, mesh)


def _sphere(centre: np.ndarray, radius: float) -> np.ndarray:
    """Returns points on a sphere (rings by segments, plus the poles) in mm."""
    rings = np.linspace(0, math.pi, SPHERE_RINGS + 2)[1:-1]
    turns = np.linspace(0, 2 * math.pi, SPHERE_SEGMENTS, endpoint=False)
    ring, turn = np.meshgrid(rings, turns)
    unit = np.column_stack([(np.sin(ring) * np.cos(turn)).ravel(), (np.sin(ring) * np.sin(turn)).ravel(),
                            np.cos(ring).ravel()])
    unit = np.vstack([unit, [[0, 0, 1], [0, 0, -1]]])
    return np.asarray(centre, np.float64) + unit * radius
