"""The table beside the mat: the pieces not in play, laid out in rows in view of the camera.

Each player's pieces in hand lie in a row beyond their edge of the mat (player 1 beyond rank 1,
player 2 beyond the last rank); Blockade's black supply stands in a column right of the mat.
Every piece is built around the origin, then moved to its place in the row.
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from vision.render import RenderError
from vision.render.pieces import PLAYER_COLOUR, PLAYERS, PYRAMID_NAMES, Cube, Setting, cube_solids, meeple
from vision.render.solids import Solid, box, pyramid

Spot = tuple[float, float, list[Solid]]
Rows = dict[object, list[Spot]]
SUPPLY_GAP_MM = 25.0
ROW_SPACING_MM = 8.0


def supply_solids(setting: Setting, off: Mapping[str, Any]) -> list[Solid]:
    """Returns the pieces that are not on the grid (a checked position's 'off'), on the table beside the mat."""
    rows = {
        "block-arena": _arena_supply, "block-pt": _pt_supply, "tuned": _tuned_supply,
        "blockade": _blockade_supply, "block-block": _block_supply,
    }[setting.game](setting, off)
    return [solid for where, row in rows.items() for solid in _lay_out(setting, where, row)]


def count(value: Any, what: str) -> int:
    """Returns a count of pieces, or raises RenderError."""
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= 99:
        raise RenderError(f"{what} must be a count from 0 to 99, not {value!r}")
    return value


def _hand(off: Mapping[str, Any], player: int) -> Any:
    """Returns a player's entry in the position's off-board 'hand' (0 if missing)."""
    hand = off.get("hand", {})
    if not isinstance(hand, Mapping):
        raise RenderError(f"the position's off 'hand' must be a dict by player, not {hand!r}")
    return hand.get(str(player), 0)


def _counts(off: Mapping[str, Any], player: int, what: str) -> Mapping[str, Any]:
    """Returns a player's hand that counts pieces by name (empty if missing), or raises RenderError."""
    hand = _hand(off, player) or {}
    if not isinstance(hand, Mapping):
        raise RenderError(f"{what} hand of player {player} must be a dict of counts by piece, not {hand!r}")
    return hand


def _lay_out(setting: Setting, where: object, row: list[Spot]) -> list[Solid]:
    """Returns a row of table pieces (extent along the row, depth, solids at the origin) beside the mat."""
    if not row:
        return []
    side, margin = setting.mat.side_mm, setting.kit.mat_margin_mm
    reach = margin + SUPPLY_GAP_MM + max(depth for _, depth, _ in row) / 2
    start, step = {1: ((0.0, -reach), (1.0, 0.0)), 2: ((side, side + reach), (-1.0, 0.0)),
                   "black": ((side + reach, 0.0), (0.0, 1.0))}[where]
    solids: list[Solid] = []
    travelled = 0.0
    for extent, _, pieces in row:
        centre = travelled + extent / 2
        offset = np.array([start[0] + step[0] * centre, start[1] + step[1] * centre, 0.0])
        solids += [solid.moved(offset) for solid in pieces]
        travelled += extent + ROW_SPACING_MM
    return solids


def _arena_supply(setting: Setting, off: Mapping[str, Any]) -> Rows:
    """Returns each player's unplaced blocks (lying) and unplaced meeple (on its back)."""
    width, _, length = setting.size("block")
    figure = setting.size("meeple")
    placed = off.get("meeples_placed", {})
    rows: Rows = {}
    for player in PLAYERS:
        colour = PLAYER_COLOUR["block-arena"][player]
        block = box(0.0, 0.0, 0.0, (width, length, width), setting.colour(f"{colour}-block"))
        rows[player] = [(width, length, [block])] * count(_hand(off, player), f"block-arena hand of player {player}")
        if isinstance(placed, Mapping) and placed.get(str(player)) is False:
            lying = meeple(setting, (0.0, 0.0, 0.0), setting.colour(f"{colour}-meeple"), lying=True)
            rows[player].append((figure[0], figure[2], lying))
    return rows


def _pt_supply(setting: Setting, off: Mapping[str, Any]) -> Rows:
    """Returns each player's blocking tiles still in hand."""
    tile = setting.size("tile")
    rows: Rows = {}
    for player in PLAYERS:
        solid = box(0.0, 0.0, 0.0, tile, setting.colour(PLAYER_COLOUR["block-pt"][player]))
        rows[player] = [(tile[0], tile[1], [solid])] * count(_hand(off, player), f"block-pt hand of player {player}")
    return rows


def _tuned_supply(setting: Setting, off: Mapping[str, Any]) -> Rows:
    """Returns each player's animals not yet added."""
    rows: Rows = {}
    for player in PLAYERS:
        hand = _counts(off, player, "tuned")
        rows[player] = []
        for kind in ("donkey", "dog", "cat"):
            size = setting.size(kind)
            solid = box(0.0, 0.0, 0.0, size, setting.colour(kind))
            number = count(hand.get(kind, 0), f"tuned hand of player {player}: {kind}")
            rows[player] += [(size[0], size[1], [solid])] * number
    return rows


def _blockade_supply(setting: Setting, off: Mapping[str, Any]) -> Rows:
    """Returns the black pyramids waiting off the board, standing in a column right of the mat."""
    supply = off.get("black_supply", {})
    if not isinstance(supply, Mapping):
        raise RenderError(f"blockade black_supply must be a dict of counts by size, not {supply!r}")
    row: list[Spot] = []
    for letter, name in PYRAMID_NAMES.items():
        base, _, height = setting.size(name)
        solid = pyramid(0.0, 0.0, 0.0, base, height, setting.colour("black"))
        row += [(base, base, [solid])] * count(supply.get(letter, 0), f"blockade black_supply {letter}")
    return {"black": row}


def _block_supply(setting: Setting, off: Mapping[str, Any]) -> Rows:
    """Returns each player's blocks still in hand, lying as the set file draws them."""
    assert setting.block_set is not None
    shapes = {shape.name: shape for shape in (*setting.block_set.shapes, setting.block_set.extra)}
    pitch = setting.mat.pitch_mm
    rows: Rows = {}
    for player in PLAYERS:
        hand = _counts(off, player, "block-block")
        unknown = sorted(str(name) for name in hand if name not in shapes)
        if unknown:
            raise RenderError(f"block-block hand of player {player} names shapes that set "
                              f"{setting.block_set.name!r} lacks: {', '.join(unknown)}")
        rows[player] = []
        colour = PLAYER_COLOUR["block-block"][player]
        for name, number in sorted(hand.items()):
            shape, half = shapes[name], name == setting.block_set.extra.name
            cubes = [Cube((x, y, z), 0, colour, "half" if half else colour, shape.opponent_ends, half)
                     for x, y, z in shape.cubes]
            extent = (max(x for x, _, _ in shape.cubes) + 1) * pitch
            depth = (max(y for _, y, _ in shape.cubes) + 1) * pitch
            solids = cube_solids(setting, cubes, (-extent / 2, -depth / 2))
            rows[player] += [(extent, depth, solids)] * count(number, f"block-block hand of player {player}: {name}")
    return rows
