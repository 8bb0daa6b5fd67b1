"""Positions in the common board format turned into solids: every game's pieces at the kit's sizes.

A position is `{"size": N, "cells": {"c3": [piece, ...]}, "off": {...}}` with pieces bottom to
top (the format `game.board(state)` returns). Pieces on the grid become Items, which remember
the (square, index) entries they stand for so that a move's lifted pieces can be carried by a
hand; table.py lays out the pieces off the grid.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Any, Mapping

import cv2
import numpy as np

from rules.block_block_set import BlockSet, SetFileError, load_set
from rules.core import RulesError, parse_square
from vision.kit import Kit, KitError, Mat
from vision.render import RenderError
from vision.render.solids import RGB, Paint, Solid, box, box_faces, domed_cylinder, prism, pyramid

Key = tuple[str, int]
Cells = dict[str, list[dict[str, Any]]]
PLAYERS = (1, 2)
SCHEMA: dict[str, dict[str, dict[str, tuple[object, ...]]]] = {
    "block-arena": {"block": {"owner": PLAYERS, "colour": ("light", "dark"), "orientation": ("upright", "lying")},
                    "meeple": {"owner": PLAYERS, "colour": ("light", "dark")}},
    "block-pt": {"blocker": {"owner": PLAYERS, "label": ("M", "N")}, "pawn": {"owner": PLAYERS, "label": ("X", "Y")}},
    "tuned": {"donkey": {}, "dog": {}, "cat": {}},
    "blockade": {"pyramid": {"colour": ("red", "yellow", "green", "blue", "black", "clear"),
                             "size": ("L", "M", "S")}},
    "block-block": {"cube": {"owner": PLAYERS, "colour": ("brown", "white"), "top": ("brown", "white", "half")}},
}
UNSEEN_KEYS = frozenset({"locked"})
PYRAMID_NAMES = {"L": "large", "M": "medium", "S": "small"}
PLAYER_COLOUR = {"block-arena": {1: "light", 2: "dark"}, "block-block": {1: "brown", 2: "white"},
                 "block-pt": {1: "M", 2: "N"}}
OTHER = {"brown": "white", "white": "brown"}
CLEAR_ALPHA = 0.3
MEEPLE_DESIGN = (22.0, 24.0)
MEEPLE_PARTS: tuple[tuple[tuple[float, float], ...], ...] = (
    tuple((4.5 * np.cos(a), 19.5 + 4.5 * np.sin(a)) for a in np.radians(np.arange(22.5, 360, 45))),
    ((-11.0, 12.0), (-9.0, 15.5), (9.0, 15.5), (11.0, 12.0), (9.0, 10.5), (-9.0, 10.5)),
    ((-6.0, 6.0), (6.0, 6.0), (5.0, 16.0), (-5.0, 16.0)),
    ((-11.0, 0.0), (-3.0, 0.0), (-1.5, 7.0), (-6.5, 8.0)),
    ((3.0, 0.0), (11.0, 0.0), (6.5, 8.0), (1.5, 7.0)),
)


@dataclass(frozen=True, slots=True)
class Item:
    """A piece on the grid: the (square, index) entries of the position it stands for, and its solids."""

    keys: frozenset[Key]
    solids: tuple[Solid, ...]


@dataclass(frozen=True, slots=True, eq=False)
class Setting:
    """What positions of one game are drawn with: the kit (the pyramids' wall too), the mat and the block set."""

    kit: Kit
    game: str
    mat: Mat
    block_set: BlockSet | None

    def size(self, name: str) -> tuple[float, float, float]:
        """Returns the kit's nominal size of one of this game's pieces."""
        piece = self.kit.pieces.get(self.game, {}).get(name)
        if piece is None:
            raise RenderError(f"kit {self.kit.name!r} has no {self.game} piece {name!r}")
        return piece.size_mm

    def colour(self, name: str) -> RGB:
        """Returns the kit's nominal colour of one of this game's colour names."""
        rgb = self.kit.colours.get(self.game, {}).get(name)
        if rgb is None:
            raise RenderError(f"kit {self.kit.name!r} has no {self.game} colour {name!r}")
        return rgb

    def alpha(self, name: str) -> float:
        """Returns the opacity of a colour: translucent colours let most light through."""
        return CLEAR_ALPHA if name in self.kit.translucent.get(self.game, frozenset()) else 1.0

    def centre(self, square: str) -> tuple[float, float]:
        """Returns the board mm centre of a square."""
        return self.mat.cell_centre(*square_index(square, self.mat.cells))


def make_setting(kit: Kit, game: str, variant: str | None) -> Setting:
    """Returns the drawing setting of a game and variant, or raises RenderError."""
    if game not in SCHEMA:
        raise RenderError(f"the renderer knows no game {game!r}; choose one of {', '.join(sorted(SCHEMA))}")
    try:
        mat = kit.mat(game, variant)
        block_set = load_set(variant or "default") if game == "block-block" else None
    except (KitError, SetFileError) as error:
        raise RenderError(str(error)) from None
    return Setting(kit, game, mat, block_set)


def square_index(square: str, size: int) -> tuple[int, int]:
    """Returns the 0-based (file, rank) of a square, or raises RenderError."""
    try:
        return parse_square(square, size)
    except (RulesError, TypeError):
        raise RenderError(f"{square!r} is not a square of a {size}x{size} board") from None


# -- checking a position ---------------------------------------------------------------------


def check_position(setting: Setting, position: Any) -> Cells:
    """Returns a position's cells once the whole position has the board format, or raises RenderError."""
    if not isinstance(position, Mapping) or not {"size", "cells", "off"} <= set(position):
        raise RenderError("a position must be a dict with the keys 'size', 'cells' and 'off'")
    if position["size"] != setting.mat.cells or isinstance(position["size"], bool):
        raise RenderError(f"position size {position['size']!r} does not match the "
                          f"{setting.mat.cells}x{setting.mat.cells} {setting.game} mat")
    cells = position["cells"]
    if not isinstance(cells, Mapping) or not isinstance(position["off"], Mapping):
        raise RenderError("a position's 'cells' and 'off' must be dicts")
    for square, stack in cells.items():
        square_index(square, setting.mat.cells)
        if not isinstance(stack, list) or not stack:
            raise RenderError(f"square {square} must hold a non-empty list of pieces, not {stack!r}")
        for piece in stack:
            _check_piece(setting, square, piece)
    return {square: list(stack) for square, stack in cells.items()}


def looks(piece: Mapping[str, Any]) -> dict[str, Any]:
    """Returns what of a piece shows to the camera: all its keys but those that never change its look."""
    return {key: value for key, value in piece.items() if key not in UNSEEN_KEYS}


def _same(value: object, option: object) -> bool:
    """Tells whether a value equals an option of the same type (so True is not the player 1)."""
    return type(value) is type(option) and value == option


def _check_piece(setting: Setting, square: str, piece: Any) -> None:
    """Raises RenderError unless the piece is a dict of a kind of the game with valid values."""
    kinds = SCHEMA[setting.game]
    if not isinstance(piece, Mapping) or piece.get("kind") not in kinds:
        raise RenderError(f"a piece on {square} must be a dict whose kind is one of {', '.join(kinds)}: {piece!r}")
    for key, options in kinds[piece["kind"]].items():
        if not any(_same(piece.get(key), option) for option in options):
            raise RenderError(f"the {piece['kind']} on {square} needs {key} in {list(options)}, "
                              f"not {piece.get(key)!r}")


# -- pieces on the grid ----------------------------------------------------------------------


def board_items(setting: Setting, cells: Cells) -> list[Item]:
    """Returns the items of a checked position's cells, in square order."""
    return {
        "block-arena": _arena_items, "block-pt": _pt_items, "tuned": _tuned_items,
        "blockade": _blockade_items, "block-block": _block_items,
    }[setting.game](setting, cells)


def meeple(setting: Setting, at: tuple[float, float, float], rgb: RGB, lying: bool = False) -> list[Solid]:
    """Returns a meeple (convex parts of an extruded outline) standing at a point, or lying on its back."""
    width, thickness, height = setting.size("meeple")
    scale = np.array([width / MEEPLE_DESIGN[0], height / MEEPLE_DESIGN[1]])
    x, y, z = at
    origin = np.array([x, y, z + thickness / 2]) if lying else np.array([x, y, z])
    u, v = np.eye(3)[0], (np.eye(3)[1] if lying else np.eye(3)[2])
    anchor = np.array([x, y, z + (thickness if lying else height)])
    solids = []
    for part in MEEPLE_PARTS:
        outline = cv2.convexHull(np.array(part, np.float32) * scale.astype(np.float32)).reshape(-1, 2)
        solids.append(prism(outline.astype(np.float64), thickness, origin, u, v, rgb).anchored(anchor))
    return solids


def _lying_box(setting: Setting, first: tuple[float, float], second: tuple[float, float], rgb: RGB) -> Solid:
    """Returns a block lying centred on two squares, its long side along the line between them."""
    width, _, length = setting.size("block")
    along_x = abs(first[0] - second[0]) > abs(first[1] - second[1])
    size = (length, width, width) if along_x else (width, length, width)
    return box((first[0] + second[0]) / 2, (first[1] + second[1]) / 2, 0.0, size, rgb)


def _lying_partner(setting: Setting, cells: Cells, square: str, piece: Mapping[str, Any]) -> Key:
    """Returns the (square, index) of a lying block's other half, or raises RenderError."""
    other = piece.get("other")
    mine = square_index(square, setting.mat.cells)
    theirs = square_index(other, setting.mat.cells) if isinstance(other, str) else (-9, -9)
    if abs(mine[0] - theirs[0]) + abs(mine[1] - theirs[1]) != 1:
        raise RenderError(f"the lying block on {square} needs 'other', a square next to it, not {other!r}")
    for index, partner in enumerate(cells.get(str(other), [])):
        if partner.get("kind") == "block" and partner.get("other") == square:
            return (str(other), index)
    raise RenderError(f"the lying block on {square} names {other} as its other square, which does not name it back")


def _block_height(setting: Setting, stack: list[dict[str, Any]]) -> float:
    """Returns the height of the top of the block in a square (0 if none)."""
    width, _, height = setting.size("block")
    blocks = [piece for piece in stack if piece["kind"] == "block"]
    return 0.0 if not blocks else (height if blocks[0]["orientation"] == "upright" else width)


def _support_middle(setting: Setting, cells: Cells, square: str) -> tuple[float, float]:
    """Returns the board mm middle of the footprint of the block a square's pieces stand on."""
    # A meeple's parts are drawn by this point (at each part's own top) rather than by the
    # meeple's, so that the painter puts them after the block they stand on even when it lies
    # over two squares or the meeple stands off the square's centre, and puts the parts of two
    # meeples side by side (which cut into each other) low to high.
    blocks = [piece for piece in cells[square] if piece["kind"] == "block"]
    if not blocks or blocks[0]["orientation"] == "upright":
        return setting.centre(square)
    partner = _lying_partner(setting, cells, square, blocks[0])
    (x0, y0), (x1, y1) = setting.centre(square), setting.centre(partner[0])
    return (x0 + x1) / 2, (y0 + y1) / 2


def _arena_meeple(setting: Setting, cells: Cells, square: str, index: int, rgb: RGB) -> Item:
    """Returns a meeple of a square's stack, beside its stack-mates, its parts anchored on its support."""
    stack = cells[square]
    meeples = [number for number, piece in enumerate(stack) if piece["kind"] == "meeple"]
    shift = (meeples.index(index) - (len(meeples) - 1) / 2) * setting.size("meeple")[0] * 0.45
    x, y = setting.centre(square)
    solids = meeple(setting, (x + shift, y, _block_height(setting, stack)), rgb)
    middle = _support_middle(setting, cells, square)
    return Item(frozenset({(square, index)}),
                tuple(solid.anchored(np.array([*middle, solid.top()])) for solid in solids))


def _arena_items(setting: Setting, cells: Cells) -> list[Item]:
    """Returns Block Arena's blocks (upright or lying over two squares) and meeples on top."""
    items = []
    for square, stack in sorted(cells.items()):
        for index, piece in enumerate(stack):
            rgb = setting.colour(f"{piece['colour']}-{piece['kind']}")
            x, y = setting.centre(square)
            if piece["kind"] == "meeple":
                items.append(_arena_meeple(setting, cells, square, index, rgb))
            elif piece["orientation"] == "upright":
                items.append(Item(frozenset({(square, index)}), (box(x, y, 0.0, setting.size("block"), rgb),)))
            else:
                partner = _lying_partner(setting, cells, square, piece)
                if square_index(square, setting.mat.cells) < square_index(partner[0], setting.mat.cells):
                    solid = _lying_box(setting, (x, y), setting.centre(partner[0]), rgb)
                    items.append(Item(frozenset({(square, index), partner}), (solid,)))
    return items


def _pt_items(setting: Setting, cells: Cells) -> list[Item]:
    """Returns Block's blocking tiles and pawns (a pawn on its own tile stands on the tile)."""
    items = []
    tile = setting.size("tile")
    width, _, height = setting.size("pawn")
    for square, stack in sorted(cells.items()):
        x, y = setting.centre(square)
        z = 0.0
        for index, piece in enumerate(stack):
            rgb = setting.colour(piece["label"])
            if piece["kind"] == "blocker":
                solid = box(x, y, z, tile, rgb)
                z += tile[2]
            else:
                solid = domed_cylinder(x, y, z, width / 2, height, rgb)
            items.append(Item(frozenset({(square, index)}), (solid,)))
    return items


def _tuned_items(setting: Setting, cells: Cells) -> list[Item]:
    """Returns Tuned's animals as flat-topped boxes stacked in order."""
    items = []
    for square, stack in sorted(cells.items()):
        x, y = setting.centre(square)
        z = 0.0
        for index, piece in enumerate(stack):
            size = setting.size(piece["kind"])
            items.append(Item(frozenset({(square, index)}), (box(x, y, z, size, setting.colour(piece["kind"])),)))
            z += size[2]
    return items


def nest_base(below: list[tuple[float, float, float]], base: float, height: float, wall: float) -> float:
    """Returns the lowest z at which a hollow pyramid (base, height, wall) rests over pyramids (z, base, height)."""
    if not below:
        return 0.0
    low, high = 0.0, max(z + h for z, _, h in below)
    for _ in range(40):
        middle = (low + high) / 2
        if _fits(below, middle, base - 2 * wall, height * (base - 2 * wall) / base):
            high = middle
        else:
            low = middle
    return high


def _fits(below: list[tuple[float, float, float]], z: float, inner: float, cavity: float) -> bool:
    """Tells whether a cavity (inner base, height) with its base at z clears every pyramid below."""
    for z0, base, height in below:
        if z >= z0 + height:
            continue
        if z + cavity < z0 + height - 1e-9:
            return False
        for level in (max(z, z0), z0 + height):
            room = inner / 2 * (1 - (level - z) / cavity)
            if room < base / 2 * (1 - (level - z0) / height) - 1e-9:
                return False
    return True


def _blockade_items(setting: Setting, cells: Cells) -> list[Item]:
    """Returns Blockade's pyramids, each nested on those below it as deep as the walls allow."""
    items = []
    for square, stack in sorted(cells.items()):
        x, y = setting.centre(square)
        below: list[tuple[float, float, float]] = []
        for index, piece in enumerate(stack):
            base, _, height = setting.size(PYRAMID_NAMES[piece["size"]])
            z = nest_base(below, base, height, setting.kit.pyramid_wall_mm)
            below.append((z, base, height))
            solid = pyramid(x, y, z, base, height, setting.colour(piece["colour"]), setting.alpha(piece["colour"]))
            items.append(Item(frozenset({(square, index)}), (solid,)))
    return items


# -- BLOCK.BLOCK cubes -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Cube:
    """One unit cube of a BLOCK.BLOCK block: where it is, which block, its colours and paint."""

    cell: tuple[int, int, int]
    block: object
    colour: str
    top: str
    ends: bool
    half: bool


def cube_solids(setting: Setting, cubes: list[Cube], origin: tuple[float, float],
                among: list[Cube] | None = None) -> list[Solid]:
    """Returns one box per cube; gaps and hidden faces are judged against `among` (default: cubes)."""
    pitch, side = setting.mat.pitch_mm, setting.size("cube")[0]
    gap = (pitch - side) / 2
    where = {cube.cell: cube for cube in (cubes if among is None else among)}
    solids = []
    for cube in cubes:
        f, r, level = cube.cell
        grow = [gap if _joined(where, cube, step) else 0.0 for step in ((-1, 0), (1, 0), (0, -1), (0, 1))]
        x0, y0 = origin[0] + f * pitch + gap, origin[1] + r * pitch + gap
        bounds = (x0 - grow[0], x0 + side + grow[1], y0 - grow[2], y0 + side + grow[3],
                  level * side, (level + 1) * side)
        anchor = np.array([x0 + side / 2, y0 + side / 2, (level + 1) * side])
        solids.append(box_faces(bounds, partial(_cube_paint, setting, where, cube)).anchored(anchor))
    return [solid for solid in solids if solid.faces]


def _joined(where: Mapping[tuple[int, int, int], Cube], cube: Cube, step: tuple[int, int]) -> bool:
    """Tells whether the neighbouring cell at the same level holds a cube of the same block."""
    f, r, level = cube.cell
    neighbour = where.get((f + step[0], r + step[1], level))
    return neighbour is not None and neighbour.block == cube.block


def _cube_paint(setting: Setting, where: Mapping[tuple[int, int, int], Cube], cube: Cube,
                direction: tuple[int, int, int]) -> Paint | None:
    """Returns the paint of one face of a cube, or None where another cube hides it."""
    f, r, level = cube.cell
    dx, dy, dz = direction
    if (f + dx, r + dy, level + dz) in where:
        return None
    both = (setting.colour("brown"), setting.colour("white"))
    if dz:
        return both if cube.top == "half" else setting.colour(cube.top)
    if cube.half:
        return both
    behind = where.get((f - dx, r - dy, level))
    is_end = cube.ends and behind is not None and behind.block == cube.block
    return setting.colour(OTHER[cube.colour] if is_end else cube.colour)


def _shape_ends(setting: Setting, name: str, square: str) -> tuple[bool, bool]:
    """Returns (opponent-coloured ends, half in both colours) of a block shape of the set."""
    assert setting.block_set is not None
    if name == setting.block_set.extra.name:
        return setting.block_set.extra.opponent_ends, True
    for shape in setting.block_set.shapes:
        if shape.name == name:
            return shape.opponent_ends, False
    raise RenderError(f"the cube on {square} belongs to shape {name!r}, which set {setting.block_set.name!r} lacks")


def _block_items(setting: Setting, cells: Cells) -> list[Item]:
    """Returns BLOCK.BLOCK's cubes, one item per cube, each level one cube higher."""
    cubes: list[tuple[Key, Cube]] = []
    for square, stack in sorted(cells.items()):
        f, r = square_index(square, setting.mat.cells)
        for level, piece in enumerate(stack):
            block = piece.get("block")
            if not isinstance(block, int) or isinstance(block, bool) or block < 0:
                raise RenderError(f"the cube on {square} needs 'block', the block's index from 0, not {block!r}")
            ends, half = _shape_ends(setting, piece.get("shape"), square)  # type: ignore[arg-type]
            cubes.append(((square, level), Cube((f, r, level), block, piece["colour"], piece["top"], ends, half)))
    among = [cube for _, cube in cubes]
    return [Item(frozenset({key}), tuple(cube_solids(setting, [cube], (0.0, 0.0), among))) for key, cube in cubes]
