"""The physical kit as data: mats, markers, pieces and colours, read from a TOML kit file."""

from __future__ import annotations

import json
import math
import re
import tomllib
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from types import MappingProxyType
from typing import Any, Mapping

import numpy as np
from numpy.typing import NDArray

RGB = tuple[int, int, int]
FloatArray = NDArray[np.float64]

NAME = re.compile(r"[a-z][a-z0-9-]*")
COLOUR_NAME = re.compile(r"[A-Za-z][A-Za-z0-9-]*")
PYRAMID_WALL_MM = 1.5  # the pyramids' wall when a kit does not say (KIT.md leaves it to the set)
PYRAMID_WALLS_MM = (0.3, 4.0)  # a wall outside these is no pyramid set's
DICTIONARY = re.compile(r"DICT_([4-7])X\1_(50|100|250|1000)")
_KIT_KEYS = frozenset({
    "name", "dictionary", "marker_mm", "quiet_zone_mm", "corner_gap_mm", "game_marker_below_mm",
    "mat_margin_mm", "corner_ids", "mat_rgb", "grid_rgb", "grid_line_mm", "mats", "pieces",
    "colours", "translucent", "pyramid_wall_mm",
})
_MAT_KEYS = frozenset({"game", "variant", "marker_id", "cells", "pitch_mm"})
_PIECE_KEYS = frozenset({"size_mm", "shape"})
MAX_CELLS = 26
MAX_MM = 10_000.0


class KitError(ValueError):
    """Raised when a kit file is missing or malformed, or a kit lacks what was asked of it."""


@dataclass(frozen=True, slots=True)
class Piece:
    """A piece's nominal size [width, depth, height] in mm and its shape word."""

    name: str
    size_mm: tuple[float, float, float]
    shape: str


@dataclass(frozen=True, slots=True)
class Mat:
    """One game's printed mat: N x N cells of a pitch, named by its game marker."""

    game: str
    variant: str | None
    marker_id: int
    cells: int
    pitch_mm: float

    @property
    def side_mm(self) -> float:
        """Returns the side of the grid in mm."""
        return self.cells * self.pitch_mm

    @property
    def label(self) -> str:
        """Returns the game name followed by the variant, if any."""
        return self.game if self.variant is None else f"{self.game} {self.variant}"

    def grid_corners(self) -> FloatArray:
        """Returns the grid's corners in board mm: a1's outer corner first, counter-clockwise."""
        side = self.side_mm
        return np.array([[0.0, 0.0], [side, 0.0], [side, side], [0.0, side]])

    def cell_centre(self, file: int, rank: int) -> tuple[float, float]:
        """Returns the board mm centre of a cell given 0-based file and rank indices."""
        if not (0 <= file < self.cells and 0 <= rank < self.cells):
            raise KitError(f"cell ({file}, {rank}) is off the {self.cells}x{self.cells} grid")
        return ((file + 0.5) * self.pitch_mm, (rank + 0.5) * self.pitch_mm)


@dataclass(frozen=True, slots=True)
class Kit:
    """A whole kit: marker geometry, the mats by game, and the pieces and colours by game."""

    name: str
    dictionary: str
    marker_mm: float
    quiet_zone_mm: float
    corner_gap_mm: float
    game_marker_below_mm: float
    mat_margin_mm: float
    corner_ids: tuple[int, int, int, int]
    mat_rgb: RGB
    grid_rgb: RGB
    grid_line_mm: float
    mats: tuple[Mat, ...]
    pieces: Mapping[str, Mapping[str, Piece]] = field(hash=False)
    colours: Mapping[str, Mapping[str, RGB]] = field(hash=False)
    translucent: Mapping[str, frozenset[str]] = field(hash=False)
    pyramid_wall_mm: float = PYRAMID_WALL_MM  # how thick Blockade's pyramids are: how deep they nest

    def __deepcopy__(self, memo: dict[int, object]) -> Kit:
        """Returns the kit itself: it never changes (a memory copied for a trial shares it)."""
        return self

    @property
    def marker_bits(self) -> int:
        """Returns the number of data bits along one side of a marker (4 for DICT_4X4_50)."""
        match = DICTIONARY.fullmatch(self.dictionary)
        if match is None:
            raise KitError(f"kit {self.name!r} names no ArUco dictionary: {self.dictionary!r}")
        return int(match.group(1))

    def mat(self, game: str, variant: str | None = None) -> Mat:
        """Returns the mat of a game and variant (None: the game's first mat), or raises."""
        mats = [mat for mat in self.mats if mat.game == game]
        if not mats:
            known = ", ".join(sorted({mat.game for mat in self.mats}))
            raise KitError(f"kit {self.name!r} has no mat for game {game!r}; it has {known}")
        for mat in mats:
            if variant is None or mat.variant in (variant, None):
                return mat
        names = ", ".join(str(mat.variant) for mat in mats)
        raise KitError(f"kit {self.name!r} has no {game} mat for variant {variant!r}; "
                       f"it has {names}")

    def mat_for_marker(self, marker_id: int) -> Mat | None:
        """Returns the mat a game marker ID names, or None if it names none."""
        for mat in self.mats:
            if mat.marker_id == marker_id:
                return mat
        return None

    def marker_origins(self, mat: Mat) -> dict[int, tuple[float, float]]:
        """Returns each marker's lower-left corner in board mm, corner markers then the game one."""
        side, gap, size = mat.side_mm, self.corner_gap_mm, self.marker_mm
        low, high = -gap - size, side + gap
        origins = dict(zip(self.corner_ids, [(low, low), (high, low), (high, high), (low, high)]))
        origins[mat.marker_id] = (side / 2 - size / 2, -self.game_marker_below_mm - size / 2)
        return origins

    def marker_corners(self, mat: Mat) -> dict[int, FloatArray]:
        """Returns each marker's 4 corners in board mm, in ArUco order (TL, TR, BR, BL upright)."""
        size = self.marker_mm
        offsets = np.array([[0.0, size], [size, size], [size, 0.0], [0.0, 0.0]])
        return {mid: offsets + np.array(origin) for mid, origin in self.marker_origins(mat).items()}

    def page_side_mm(self, mat: Mat) -> float:
        """Returns the side of the printed mat in mm (the grid plus the margin on each side)."""
        return mat.side_mm + 2 * self.mat_margin_mm


def board_to_page(mat: Mat, scale: float, margin_mm: float, pixel_centres: bool) -> FloatArray:
    """Returns the 3x3 matrix from board mm to a top-down page (y down, a1 at bottom left)."""
    # The page shows the grid plus margin_mm on every side at `scale` units per mm; with
    # pixel_centres the result is in OpenCV pixel coordinates (pixel k's centre at k).
    shift = 0.5 if pixel_centres else 0.0
    top = (mat.side_mm + margin_mm) * scale - shift
    return np.array([[scale, 0.0, margin_mm * scale - shift], [0.0, -scale, top], [0.0, 0.0, 1.0]])


# -- reading a kit file ----------------------------------------------------------------------


def _fail(source: str, message: str) -> KitError:
    """Returns a KitError naming the kit file."""
    return KitError(f"kit file {source}: {message}")


def _table(value: Any, what: str, source: str) -> Mapping[str, Any]:
    """Returns value if it is a TOML table, or raises."""
    if not isinstance(value, dict):
        raise _fail(source, f"{what} must be a table, not {value!r}")
    return value


def _check_keys(table: Mapping[str, Any], allowed: frozenset[str], what: str, source: str) -> None:
    """Raises if a table has unknown keys or lacks a required one (all but the optional ones)."""
    unknown = sorted(set(table) - allowed)
    if unknown:
        raise _fail(source, f"{what} has unknown key(s): {', '.join(unknown)}")


def _require(table: Mapping[str, Any], key: str, what: str, source: str) -> Any:
    """Returns table[key], or raises naming the missing key."""
    if key not in table:
        raise _fail(source, f"{what} is missing the key {key!r}")
    return table[key]


def _length(value: Any, what: str, source: str, zero_ok: bool = False) -> float:
    """Returns value as a positive (or, if allowed, zero) length in mm, or raises."""
    numeric = isinstance(value, (int, float)) and not isinstance(value, bool)
    number = float(value) if numeric else -1.0
    low_ok = number >= 0 if zero_ok else number > 0
    if not (low_ok and math.isfinite(number) and number <= MAX_MM):
        bound = "zero or more" if zero_ok else "more than zero"
        raise _fail(source, f"{what} must be a number of mm, {bound} and at most {MAX_MM:g}, "
                    f"not {value!r}")
    return number


def _wall(value: Any, source: str) -> float:
    """Returns the pyramids' wall in mm if it is within PYRAMID_WALLS_MM, or raises."""
    low, high = PYRAMID_WALLS_MM
    wall = _length(value, "pyramid_wall_mm", source)
    if not low <= wall <= high:
        raise _fail(source, f"pyramid_wall_mm must be from {low:g} to {high:g} mm, not {value!r}")
    return wall


def _integer(value: Any, what: str, source: str, low: int, high: int) -> int:
    """Returns value if it is an integer in [low, high], or raises."""
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise _fail(source, f"{what} must be an integer from {low} to {high}, not {value!r}")
    return value


def _name(value: Any, what: str, source: str, pattern: re.Pattern[str] = NAME) -> str:
    """Returns value if it is a name matching the pattern, or raises."""
    if not isinstance(value, str) or not pattern.fullmatch(value):
        raise _fail(source, f"{what} must be a name like 'block-arena', not {value!r}")
    return value


def _rgb(value: Any, what: str, source: str) -> RGB:
    """Returns value as an [r, g, b] colour of integers 0..255, or raises."""
    if not isinstance(value, list) or len(value) != 3:
        raise _fail(source, f"{what} must be a colour [r, g, b], not {value!r}")
    r, g, b = (_integer(part, what, source, 0, 255) for part in value)
    return (r, g, b)


def _dictionary(value: Any, source: str) -> tuple[str, int]:
    """Returns an ArUco dictionary name and its number of IDs, or raises."""
    match = DICTIONARY.fullmatch(value) if isinstance(value, str) else None
    if match is None:
        raise _fail(source, f"dictionary must be an ArUco name like 'DICT_4X4_50', not {value!r}")
    return value, int(match.group(2))


def _corner_ids(value: Any, source: str, count: int) -> tuple[int, int, int, int]:
    """Returns the four distinct corner marker IDs, or raises."""
    if not isinstance(value, list) or len(value) != 4:
        raise _fail(source, f"corner_ids must be a list of 4 marker IDs, not {value!r}")
    ids = [_integer(item, "each of corner_ids", source, 0, count - 1) for item in value]
    if len(set(ids)) != 4:
        raise _fail(source, f"corner_ids must be 4 different IDs, not {value!r}")
    return (ids[0], ids[1], ids[2], ids[3])


def _mat(value: Any, index: int, source: str, count: int) -> Mat:
    """Returns one [[mats]] entry, or raises."""
    what = f"mats[{index}]"
    table = _table(value, what, source)
    _check_keys(table, _MAT_KEYS, what, source)
    variant = table.get("variant")
    if variant is not None and not (isinstance(variant, str) and variant.strip()):
        raise _fail(source, f"{what}.variant must be a non-empty text, not {variant!r}")
    def field_of(key: str) -> tuple[Any, str, str]:
        """Returns a required value of the entry, its name and the source, for the checkers."""
        return _require(table, key, what, source), f"{what}.{key}", source

    return Mat(
        game=_name(*field_of("game")), variant=variant,
        marker_id=_integer(*field_of("marker_id"), 0, count - 1),
        cells=_integer(*field_of("cells"), 1, MAX_CELLS),
        pitch_mm=_length(*field_of("pitch_mm")),
    )


def _mats(value: Any, source: str, count: int, corner_ids: tuple[int, ...]) -> tuple[Mat, ...]:
    """Returns the [[mats]] list with distinct games, variants and marker IDs, or raises."""
    if not isinstance(value, list) or not value:
        raise _fail(source, "mats must be a non-empty list of [[mats]] tables")
    mats = tuple(_mat(item, index, source, count) for index, item in enumerate(value))
    ids = [mat.marker_id for mat in mats]
    if len(set(ids)) != len(ids) or set(ids) & set(corner_ids):
        raise _fail(source, "every mat needs its own marker_id, different from the corner_ids")
    keys = [(mat.game, mat.variant) for mat in mats]
    if len(set(keys)) != len(keys):
        raise _fail(source, "two mats have the same game and variant")
    return mats


def _piece(name: str, value: Any, what: str, source: str) -> Piece:
    """Returns one piece table, or raises."""
    table = _table(value, what, source)
    _check_keys(table, _PIECE_KEYS, what, source)
    size = _require(table, "size_mm", what, source)
    if not isinstance(size, list) or len(size) != 3:
        raise _fail(source, f"{what}.size_mm must be [width, depth, height], not {size!r}")
    w, d, h = (_length(part, f"{what}.size_mm", source) for part in size)
    shape = _name(_require(table, "shape", what, source), f"{what}.shape", source)
    return Piece(name, (w, d, h), shape)


def _per_game(value: Any, what: str, source: str) -> dict[str, Mapping[str, Any]]:
    """Returns a table of per-game tables with valid game names, or raises."""
    games = _table(value, what, source)
    return {_name(game, f"{what} game", source): _table(games[game], f"{what}.{game}", source)
            for game in games}


def _pieces(value: Any, source: str) -> Mapping[str, Mapping[str, Piece]]:
    """Returns the [pieces.GAME.NAME] tables, or raises."""
    result: dict[str, Mapping[str, Piece]] = {}
    for game, table in _per_game(value, "pieces", source).items():
        pieces = {_name(name, f"pieces.{game} piece", source):
                  _piece(name, item, f"pieces.{game}.{name}", source)
                  for name, item in table.items()}
        result[game] = MappingProxyType(pieces)
    return MappingProxyType(result)


def _colours(value: Any, source: str) -> Mapping[str, Mapping[str, RGB]]:
    """Returns the [colours.GAME] tables, or raises."""
    result: dict[str, Mapping[str, RGB]] = {}
    for game, table in _per_game(value, "colours", source).items():
        colours = {_name(name, f"colours.{game} colour", source, COLOUR_NAME):
                   _rgb(rgb, f"colours.{game}.{name}", source) for name, rgb in table.items()}
        result[game] = MappingProxyType(colours)
    return MappingProxyType(result)


def _translucent(value: Any, colours: Mapping[str, Mapping[str, RGB]],
                 source: str) -> Mapping[str, frozenset[str]]:
    """Returns the [translucent] lists of colour names, each a known colour, or raises."""
    result: dict[str, frozenset[str]] = {}
    for game, names in _table(value, "translucent", source).items():
        known = colours.get(game, {})
        if not isinstance(names, list) or any(name not in known for name in names):
            raise _fail(source, f"translucent.{game} must list colours of colours.{game}, "
                        f"not {names!r}")
        result[game] = frozenset(names)
    return MappingProxyType(result)


def _squares_apart(kit: Kit, mat: Mat) -> bool:
    """Tells whether every marker's quiet zone stays off the grid and off the other markers."""
    pad, size = kit.quiet_zone_mm, kit.marker_mm
    zones = [(x - pad, y - pad, x + size + pad, y + size + pad)
             for x, y in kit.marker_origins(mat).values()]
    grid = (0.0, 0.0, mat.side_mm, mat.side_mm)
    boxes = [grid, *zones]
    low, high = -kit.mat_margin_mm, mat.side_mm + kit.mat_margin_mm
    inside = all(low <= z[0] and z[2] <= high and low <= z[1] and z[3] <= high for z in zones)
    overlaps = any(a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]
                   for i, a in enumerate(boxes) for b in boxes[i + 1:])
    return inside and not overlaps


def parse_kit(data: Mapping[str, Any], source: str) -> Kit:
    """Returns the kit described by a parsed TOML table, or raises KitError naming the problem."""
    _check_keys(data, _KIT_KEYS, "the kit", source)
    dictionary, count = _dictionary(_require(data, "dictionary", "the kit", source), source)
    corner_ids = _corner_ids(_require(data, "corner_ids", "the kit", source), source, count)
    colours = _colours(data.get("colours", {}), source)
    lengths = {key: _length(_require(data, key, "the kit", source), key, source,
                            zero_ok=key == "quiet_zone_mm")
               for key in ("marker_mm", "quiet_zone_mm", "corner_gap_mm", "game_marker_below_mm",
                           "mat_margin_mm", "grid_line_mm")}
    kit = Kit(
        name=_name(_require(data, "name", "the kit", source), "name", source),
        dictionary=dictionary, corner_ids=corner_ids,
        mat_rgb=_rgb(_require(data, "mat_rgb", "the kit", source), "mat_rgb", source),
        grid_rgb=_rgb(_require(data, "grid_rgb", "the kit", source), "grid_rgb", source),
        mats=_mats(_require(data, "mats", "the kit", source), source, count, corner_ids),
        pieces=_pieces(data.get("pieces", {}), source), colours=colours,
        translucent=_translucent(data.get("translucent", {}), colours, source),
        pyramid_wall_mm=_wall(data.get("pyramid_wall_mm", PYRAMID_WALL_MM), source), **lengths,
    )
    for mat in kit.mats:
        if not _squares_apart(kit, mat):
            raise _fail(source, f"on the {mat.label} mat the markers and their quiet zones overlap "
                        "each other or the grid, or stick out of the mat")
    return kit


def load_kit(path: str | Path) -> Kit:
    """Returns the kit read from a TOML kit file, or raises KitError naming the problem."""
    source = str(path)
    try:
        text = Path(path).read_bytes().decode("utf-8")
    except OSError as error:
        raise _fail(source, f"cannot be read ({error.strerror or error})") from None
    except UnicodeDecodeError:
        raise _fail(source, "is not UTF-8 text") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise _fail(source, f"is not valid TOML ({error})") from None
    return parse_kit(data, source)


@cache
def kit_named(name: str = "default") -> Kit:
    """Returns a kit bundled with blockref (vision/kits/NAME.toml), or raises KitError."""
    if not NAME.fullmatch(name):
        raise KitError(f"kit name must be a name like 'default', not {name!r}")
    file = resources.files("vision").joinpath("kits", f"{name}.toml")
    if not file.is_file():
        raise KitError(f"there is no bundled kit named {name!r}")
    return parse_kit(tomllib.loads(file.read_text(encoding="utf-8")), f"{name}.toml")


def kit_from(spec: str) -> Kit:
    """Returns the kit a setting names: a bundled kit's name, or the path of a kit file (.toml)."""
    return load_kit(spec) if spec.endswith(".toml") else kit_named(spec)


RECORDED_KIT = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]*\.toml")  # a kit file kept in a recording


def recorded_kit(spec: str, directory: str | Path) -> Kit:
    """Returns the kit a recording names: a bundled kit's name, or a kit file in its directory
    (a plain file name ending .toml, never a path out of it); raises KitError."""
    if RECORDED_KIT.fullmatch(spec):
        return load_kit(Path(directory) / spec)
    if not NAME.fullmatch(spec):
        raise KitError(f"a recording's kit is a bundled kit's name or a .toml file beside game.json, not {spec!r}")
    return kit_named(spec)


def kit_toml(kit: Kit) -> str:
    """Returns a kit as TOML text that parse_kit reads back as the same kit."""
    lines = [f"{key} = {_toml(getattr(kit, key))}" for key in (
        "name", "dictionary", "marker_mm", "quiet_zone_mm", "corner_gap_mm", "game_marker_below_mm",
        "mat_margin_mm", "corner_ids", "mat_rgb", "grid_rgb", "grid_line_mm", "pyramid_wall_mm")]
    for mat in kit.mats:
        lines += ["", "[[mats]]", f"game = {_toml(mat.game)}"]
        lines += [f"variant = {_toml(mat.variant)}"] if mat.variant is not None else []
        lines += [f"marker_id = {mat.marker_id}", f"cells = {mat.cells}", f"pitch_mm = {_toml(mat.pitch_mm)}"]
    for game, pieces in kit.pieces.items():
        for piece in pieces.values():
            lines += ["", f"[pieces.{game}.{piece.name}]", f"size_mm = {_toml(piece.size_mm)}",
                      f"shape = {_toml(piece.shape)}"]
    for game, colours in kit.colours.items():
        lines += ["", f"[colours.{game}]"] + [f"{name} = {_toml(rgb)}" for name, rgb in colours.items()]
    lines += ["", "[translucent]"] + [f"{game} = {_toml(sorted(names))}" for game, names in kit.translucent.items()]
    return "\n".join(lines) + "\n"


def _toml(value: Any) -> str:
    """Returns a text, number or list of them as a TOML value."""
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml(item) for item in value) + "]"
    return json.dumps(value) if isinstance(value, str) else repr(value)
