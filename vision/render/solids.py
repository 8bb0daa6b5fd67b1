"""Convex solids as flat polygon faces in board mm: boxes, prisms, pyramids, domed cylinders.

Every solid is convex, so a face is visible exactly when it turns towards the camera, and its
shadow on the mat is the convex hull of its vertices pushed along the light. Pieces that are not
convex (a meeple) are made of several convex solids.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Union

import numpy as np

from vision.render.camera import FloatArray

RGB = tuple[int, int, int]
Paint = Union[RGB, tuple[RGB, RGB]]
BOX_DIRECTIONS: tuple[tuple[int, int, int], ...] = ((1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1))


@dataclass(frozen=True, slots=True, eq=False)
class Face:
    """A flat convex polygon (k x 3 vertices, outward order) with its nominal colour and opacity."""

    points: FloatArray
    rgb: RGB
    alpha: float = 1.0


@dataclass(frozen=True, slots=True, eq=False)
class Solid:
    """A convex solid: faces ordered so their normals point outwards, and the anchor it is drawn by."""

    # The anchor is the middle of the footprint of the piece the solid belongs to, at the piece's
    # top: the painter draws solids in order of their anchors, so the parts of one piece keep
    # together and the pieces of one stack (even nested ones) go bottom to top.

    faces: tuple[Face, ...]
    anchor: FloatArray

    def points(self) -> FloatArray:
        """Returns every vertex of the solid (none for a solid without faces)."""
        return np.vstack([face.points for face in self.faces]) if self.faces else np.zeros((0, 3))

    def top(self) -> float:
        """Returns the height of the solid's highest point (0 for a solid without faces)."""
        return float(self.points()[:, 2].max(initial=0.0))

    def moved(self, offset: FloatArray) -> Solid:
        """Returns the solid shifted by an (x, y, z) offset."""
        faces = tuple(Face(face.points + offset, face.rgb, face.alpha) for face in self.faces)
        return Solid(faces, self.anchor + offset)

    def anchored(self, anchor: FloatArray) -> Solid:
        """Returns the same solid drawn by another anchor."""
        return Solid(self.faces, np.asarray(anchor, np.float64))


def normals(polygons: list[FloatArray]) -> FloatArray:
    """Returns the unit normals of polygons (right hand round each vertex order; +z if degenerate)."""
    # Newell's method, done at once for all polygons with as many vertices.
    result = np.tile([0.0, 0.0, 1.0], (len(polygons), 1))
    for count in {len(polygon) for polygon in polygons}:
        chosen = [index for index, polygon in enumerate(polygons) if len(polygon) == count]
        points = np.stack([polygons[index] for index in chosen])
        vectors = np.cross(points, np.roll(points, -1, axis=1)).sum(axis=1)
        lengths = np.linalg.norm(vectors, axis=1)
        good = lengths > 1e-12
        result[np.array(chosen)[good]] = vectors[good] / lengths[good, None]
    return result


def solid(faces: list[Face]) -> Solid:
    """Returns a convex solid whose faces are reordered where needed to face away from its centre."""
    points = np.vstack([face.points for face in faces])
    centre = points.mean(axis=0)
    low, high = points.min(axis=0), points.max(axis=0)
    anchor = np.array([(low[0] + high[0]) / 2, (low[1] + high[1]) / 2, high[2]])
    outward = []
    for face, direction in zip(faces, normals([face.points for face in faces])):
        flip = float(direction @ (face.points.mean(axis=0) - centre)) < 0
        outward.append(Face(face.points[::-1].copy(), face.rgb, face.alpha) if flip else face)
    return Solid(tuple(outward), anchor)


def loft(bottom: FloatArray, top: FloatArray, rgb: RGB, alpha: float = 1.0) -> list[Face]:
    """Returns the side faces between two rings of as many vertices, and the top ring's cap."""
    count = len(bottom)
    sides = [Face(np.array([bottom[i], bottom[(i + 1) % count], top[(i + 1) % count], top[i]]), rgb, alpha)
             for i in range(count)]
    spread = float(np.ptp(top[:, 0]) + np.ptp(top[:, 1]))
    return sides + ([Face(top.copy(), rgb, alpha)] if spread > 1e-9 else [])


def ring(cx: float, cy: float, z: float, radius: float, count: int, turn: float = 0.0) -> FloatArray:
    """Returns count points on a horizontal circle."""
    angles = turn + np.arange(count) * 2 * math.pi / count
    return np.column_stack([cx + radius * np.cos(angles), cy + radius * np.sin(angles), np.full(count, z)])


def rectangle(cx: float, cy: float, z: float, width: float, depth: float) -> FloatArray:
    """Returns the corners of a horizontal rectangle centred on (cx, cy), counter-clockwise."""
    hw, hd = width / 2, depth / 2
    return np.array([[cx - hw, cy - hd, z], [cx + hw, cy - hd, z], [cx + hw, cy + hd, z], [cx - hw, cy + hd, z]])


def box(cx: float, cy: float, z0: float, size: tuple[float, float, float], rgb: RGB) -> Solid:
    """Returns an upright box (width along x, depth along y, height) standing at z0."""
    width, depth, height = size
    return solid(loft(rectangle(cx, cy, z0, width, depth), rectangle(cx, cy, z0 + height, width, depth), rgb))


def pyramid(cx: float, cy: float, z0: float, base: float, height: float, rgb: RGB, alpha: float = 1.0) -> Solid:
    """Returns a square pyramid standing at z0 with its apex above the base's centre."""
    apex = np.tile([cx, cy, z0 + height], (4, 1))
    return solid(loft(rectangle(cx, cy, z0, base, base), apex, rgb, alpha))


def domed_cylinder(cx: float, cy: float, z0: float, radius: float, height: float, rgb: RGB,
                   count: int = 16, rings: int = 3) -> Solid:
    """Returns a cylinder standing at z0 whose top is a half sphere of its radius (a pawn)."""
    shoulder = z0 + max(height - radius, 0.0)
    faces = loft(ring(cx, cy, z0, radius, count), ring(cx, cy, shoulder, radius, count), rgb)[:count]
    previous = ring(cx, cy, shoulder, radius, count)
    for step in range(1, rings + 1):
        angle = step * math.pi / 2 / (rings + 1)
        current = ring(cx, cy, shoulder + radius * math.sin(angle), radius * math.cos(angle), count)
        faces += loft(previous, current, rgb)[:count]
        previous = current
    faces.append(Face(previous, rgb))
    return solid(faces)


def prism(outline: FloatArray, thickness: float, origin: FloatArray, u: FloatArray, v: FloatArray,
          rgb: RGB) -> Solid:
    """Returns a convex outline of (a, b) points at origin + a*u + b*v, extruded thickness/2 both ways."""
    w = np.cross(u, v)
    plane = origin + outline[:, :1] * u + outline[:, 1:2] * v
    back, front = plane - w * thickness / 2, plane + w * thickness / 2
    faces = loft(back, front, rgb)
    return solid(faces + [Face(back[::-1].copy(), rgb)])


def box_faces(bounds: tuple[float, float, float, float, float, float],
              paint: Callable[[tuple[int, int, int]], Paint | None]) -> Solid:
    """Returns a box from (x0, x1, y0, y1, z0, z1) whose faces are painted per outward direction."""
    # paint gives each direction (the bottom is never drawn) one colour, two colours for a face
    # split along its diagonal, or None to leave the face out (it touches another solid).
    x0, x1, y0, y1, z0, z1 = bounds
    corners = {(i, j, k): np.array([(x0, x1)[i], (y0, y1)[j], (z0, z1)[k]])
               for i in (0, 1) for j in (0, 1) for k in (0, 1)}
    faces: list[Face] = []
    for direction in BOX_DIRECTIONS:
        colour = paint(direction)
        if colour is not None:
            faces += _painted(_box_side(corners, direction), colour)
    return solid(faces) if faces else Solid((), np.zeros(3))


def _box_side(corners: dict[tuple[int, int, int], FloatArray], direction: tuple[int, int, int]) -> FloatArray:
    """Returns the four corners of a box's side facing a direction, in order around it."""
    axis = next(index for index, part in enumerate(direction) if part)
    side = 1 if direction[axis] > 0 else 0
    others = [index for index in range(3) if index != axis]
    cycle = ((0, 0), (1, 0), (1, 1), (0, 1))
    points = []
    for a, b in cycle:
        key = [0, 0, 0]
        key[axis], key[others[0]], key[others[1]] = side, a, b
        points.append(corners[(key[0], key[1], key[2])])
    return np.array(points)


def _painted(square: FloatArray, paint: Paint) -> list[Face]:
    """Returns a box side as one face, or as two triangles of two colours split along a diagonal."""
    if isinstance(paint[0], int):
        return [Face(square, paint)]
    first, second = paint
    return [Face(square[[0, 1, 2]], first), Face(square[[0, 2, 3]], second)]
