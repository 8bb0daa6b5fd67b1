"""Rays from the camera against a position's pieces: which piece each ray meets first.

The pieces are the kit's convex solids as the fast renderer draws them (vision.render.pieces,
at KIT.md's sizes), each turned into half-spaces; a ray from the camera centre to a point of the
mat is clipped against each solid it may meet (Cyrus-Beck). `PieceSolids` keeps the solids of
each square between positions, so a new position draws again only the squares that changed.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import numpy as np
from numpy.typing import NDArray

from vision.kit import Kit
from vision.render.pieces import Cells, Item, board_items, check_position, make_setting
from vision.render.solids import Solid, normals

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int_]
GROUND = -1
Planes = tuple[FloatArray, FloatArray, FloatArray]  # a solid's normals, offsets and box


@dataclass(frozen=True, slots=True, eq=False)
class Solids:
    """The convex solids of a position as half-spaces (inside: normal . x <= offset), per item."""

    normals: FloatArray  # P x 3
    offsets: FloatArray  # P
    starts: IntArray  # the first plane of each solid (planes are grouped by solid)
    owners: IntArray  # the item each solid belongs to
    boxes: FloatArray  # S x 6: x0, y0, z0, x1, y1, z1 of each solid


def planes_of(solid: Solid) -> Planes:
    """Returns a convex solid's outward face planes (its base, z >= its lowest point, among
    them) and its bounding box."""
    faces = [face.points for face in solid.faces]
    points = solid.points()
    outward = np.vstack([normals(faces), [[0.0, 0.0, -1.0]]])
    anchors = np.vstack([np.array([face[0] for face in faces]), [[0.0, 0.0, points[:, 2].min()]]])
    box = np.concatenate([points.min(axis=0), points.max(axis=0)])
    return outward, np.einsum("ij,ij->i", outward, anchors), box


def item_planes(item: Item) -> list[Planes]:
    """Returns the planes of each solid of an item that has faces."""
    return [planes_of(solid) for solid in item.solids if solid.faces]


def solids_of(items: Sequence[Item], planes: Sequence[list[Planes]] | None = None) -> Solids:
    """Returns the half-spaces of every solid of some items (their planes, if already known)."""
    per_item = planes if planes is not None else [item_planes(item) for item in items]
    rows = [(number, part) for number, parts in enumerate(per_item) for part in parts]
    if not rows:
        return Solids(np.zeros((0, 3)), np.zeros(0), np.zeros(0, np.int_), np.zeros(0, np.int_), np.zeros((0, 6)))
    sizes = [len(part[1]) for _, part in rows]
    return Solids(np.vstack([part[0] for _, part in rows]), np.concatenate([part[1] for _, part in rows]),
                  np.cumsum([0, *sizes[:-1]]), np.array([number for number, _ in rows]),
                  np.array([part[2] for _, part in rows]))


def first_hits(solids: Solids, centre: FloatArray, ground: FloatArray, keep: NDArray[np.bool_],
               shadows: FloatArray) -> IntArray:
    """Returns the item each ray from the camera centre to a mat point (N x 2) meets first, of the
    solids kept, or GROUND where it meets none; shadows: each solid's mat-plane box (x0, y0, x1,
    y1), outside which no ray meets it."""
    hits = np.full(len(ground), GROUND, np.int_)
    depth = np.full(len(ground), np.inf)
    ends = np.append(solids.starts[1:], len(solids.offsets))
    for number in np.flatnonzero(keep):
        x0, y0, x1, y1 = shadows[number]
        rays = np.flatnonzero((ground[:, 0] >= x0) & (ground[:, 0] <= x1) & (ground[:, 1] >= y0) & (ground[:, 1] <= y1))
        if not len(rays):
            continue
        planes = slice(solids.starts[number], ends[number])
        near = entry(solids.normals[planes], solids.offsets[planes], centre, ground[rays])
        closer = near < depth[rays]
        depth[rays[closer]] = near[closer]
        hits[rays[closer]] = solids.owners[number]
    return hits


def entry(normal: FloatArray, offset: FloatArray, centre: FloatArray, ground: FloatArray) -> FloatArray:
    """Returns where (0: the camera, 1: the mat) each ray to a mat point enters a convex solid
    given as half-spaces, or infinity where it misses it."""
    direction = np.column_stack([ground, np.zeros(len(ground))]) - centre
    slope = direction @ normal.T
    room = offset - normal @ centre
    with np.errstate(divide="ignore", invalid="ignore"):
        at = room / slope
    near = np.where(slope < 0, at, -np.inf).max(axis=1)
    far = np.where(slope > 0, at, np.where((slope == 0) & (room < 0), -np.inf, np.inf)).min(axis=1)
    met = (near <= far) & (far >= 0) & (near <= 1)
    return np.asarray(np.where(met, np.maximum(near, 0.0), np.inf), np.float64)


def square_groups(cells: Cells) -> list[Cells]:
    """Returns the squares of a position that are drawn together: each alone, but a piece lying
    over two squares (its `other`) joins them."""
    groups: list[Cells] = []
    placed: set[str] = set()
    for square in sorted(cells):
        if square in placed:
            continue
        joined = {square} | {str(piece["other"]) for piece in cells[square] if piece.get("other") in cells}
        placed |= joined
        groups.append({name: cells[name] for name in sorted(joined)})
    return groups


class PieceSolids:
    """The items and solids of one game's positions, drawn per group of squares and kept while
    the group stays as it is (see the module doc)."""

    def __init__(self, kit: Kit, game: str, variant: str | None) -> None:
        self.setting = make_setting(kit, game, variant)
        self._kept: dict[str, tuple[list[Item], list[list[Planes]]]] = {}

    def of(self, board: Mapping[str, Any]) -> tuple[list[Item], Solids]:
        """Returns the items of a position in the board format and their solids (RenderError
        for a bad position)."""
        cells = check_position(self.setting, board)
        items: list[Item] = []
        planes: list[list[Planes]] = []
        kept = {}
        for group in square_groups(cells):
            key = json.dumps(group, sort_keys=True)
            drawn = kept[key] = self._kept.get(key) or self._draw(group)
            items += drawn[0]
            planes += drawn[1]
        self._kept = kept
        return items, solids_of(items, planes)

    def _draw(self, group: Cells) -> tuple[list[Item], list[list[Planes]]]:
        """Returns the items of a group of squares and the planes of each."""
        items = board_items(self.setting, group)
        return items, [item_planes(item) for item in items]
