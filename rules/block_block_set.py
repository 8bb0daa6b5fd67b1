"""BLOCK.BLOCK set files: the board size and the blocks, read from rules/sets/<name>.toml."""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from importlib import resources
from itertools import permutations, product
from typing import Any, Mapping

from rules.core import RulesError

Cell = tuple[int, int, int]
Cells = tuple[Cell, ...]

NAME = re.compile(r"[a-z][a-z0-9]*")
MAX_BOARD = 26
MAX_CUBES = 64
MAX_COUNT = 99
_SET_KEYS = frozenset({"board", "shapes", "extra"})
_SHAPE_KEYS = frozenset({"cubes", "count", "opponent_ends"})
_EXTRA_KEYS = frozenset({"name", "cubes", "points"})


class SetFileError(RulesError):
    """Raised when a BLOCK.BLOCK set file is missing or malformed."""


@dataclass(frozen=True, slots=True)
class Candidate:
    """One orientation at one board offset: its columns' lowest cubes and its cells at level 0."""

    first: int
    first_low: int
    rest: tuple[tuple[int, int], ...]
    cells: Cells


@dataclass(frozen=True, slots=True)
class Shape:
    """A block shape: its unit cubes, how many each player holds, and its placements."""

    name: str
    cubes: Cells
    count: int
    opponent_ends: bool
    orientations: frozenset[Cells]
    candidates: tuple[Candidate, ...]


@dataclass(frozen=True, slots=True)
class BlockSet:
    """A whole set: board size, the players' shapes and brown's extra block."""

    name: str
    board: int
    shapes: tuple[Shape, ...]
    extra: Shape
    extra_points: float
    by_name: Mapping[str, Shape] = field(compare=False, repr=False)

    @property
    def blocks_each(self) -> int:
        """Returns how many ordinary blocks each player places."""
        return sum(shape.count for shape in self.shapes)

    @property
    def max_level(self) -> int:
        """Returns the highest level any cube can ever reach (every cube in one column)."""
        total = 2 * sum(shape.count * len(shape.cubes) for shape in self.shapes)
        return total + len(self.extra.cubes) - 1


# -- geometry --------------------------------------------------------------------------------


def _rotations() -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    """Returns the 24 proper rotations as (axis permutation, signs) pairs."""
    found = []
    for perm in permutations(range(3)):
        inversions = sum(1 for i in range(3) for j in range(i + 1, 3) if perm[i] > perm[j])
        for signs in product((1, -1), repeat=3):
            if (-1) ** inversions * signs[0] * signs[1] * signs[2] == 1:
                found.append((perm, signs))
    return found


ROTATIONS = _rotations()


def normalize(cells: Cells | list[Cell]) -> Cells:
    """Returns the cells shifted so each coordinate's minimum is 0, sorted."""
    low = [min(cell[axis] for cell in cells) for axis in range(3)]
    return tuple(sorted((x - low[0], y - low[1], z - low[2]) for x, y, z in cells))


def orientations(cubes: Cells) -> frozenset[Cells]:
    """Returns every distinct normalized placement of the cubes under the 24 rotations."""
    return frozenset(
        normalize([(s[0] * c[p[0]], s[1] * c[p[1]], s[2] * c[p[2]]) for c in cubes])
        for p, s in ROTATIONS
    )


def columns(cells: Cells) -> dict[tuple[int, int], list[int]]:
    """Returns the levels each (file, rank) column of the cells holds, in order."""
    found: dict[tuple[int, int], list[int]] = {}
    for x, y, z in sorted(cells):
        found.setdefault((x, y), []).append(z)
    return found


def is_upright(cells: Cells) -> bool:
    """Tells whether a block of several cubes stands in a single column."""
    return len(cells) > 1 and len(columns(cells)) == 1


def _gapless(levels: list[int]) -> bool:
    """Tells whether a column's levels are contiguous (no empty space inside the block)."""
    return levels[-1] - levels[0] + 1 == len(levels)


def _candidates(orientation: Cells, board: int) -> list[Candidate]:
    """Returns the orientation at every offset on the board, if it can ever stand."""
    cols = columns(orientation)
    if not all(_gapless(levels) for levels in cols.values()):
        return []
    width = 1 + max(x for x, _ in cols)
    depth = 1 + max(y for _, y in cols)
    found = []
    for ox, oy in product(range(board - width + 1), range(board - depth + 1)):
        lows = [((x + ox) * board + y + oy, levels[0]) for (x, y), levels in sorted(cols.items())]
        cells = tuple((x + ox, y + oy, z) for x, y, z in orientation)
        found.append(Candidate(lows[0][0], lows[0][1], tuple(lows[1:]), cells))
    return found


def _is_bar(cubes: Cells) -> bool:
    """Tells whether the cubes form a straight bar of two or more."""
    extents = sorted(1 + max(c[axis] for c in cubes) for axis in range(3))
    return extents[:2] == [1, 1] and extents[2] == len(cubes) > 1


def _connected(cubes: Cells) -> bool:
    """Tells whether the cubes are joined face to face."""
    cells, seen, todo = set(cubes), {cubes[0]}, [cubes[0]]
    while todo:
        x, y, z = todo.pop()
        for step in ((1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1)):
            near = (x + step[0], y + step[1], z + step[2])
            if near in cells and near not in seen:
                seen.add(near)
                todo.append(near)
    return len(seen) == len(cells)


# -- validation of the parsed TOML -----------------------------------------------------------


def _table(value: Any, what: str) -> Mapping[str, Any]:
    """Returns value if it is a TOML table, or raises."""
    if not isinstance(value, dict):
        raise SetFileError(f"{what} must be a table")
    return value


def _keys(table: Mapping[str, Any], allowed: frozenset[str], required: set[str], what: str) -> None:
    """Raises unless the table has every required key and no unknown one."""
    unknown = sorted(set(table) - allowed)
    if unknown:
        raise SetFileError(f"{what} has unknown key(s): {', '.join(unknown)}")
    missing = sorted(required - set(table))
    if missing:
        raise SetFileError(f"{what} is missing key(s): {', '.join(missing)}")


def _integer(value: Any, what: str, low: int, high: int) -> int:
    """Returns value if it is an integer in [low, high], or raises."""
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise SetFileError(f"{what} must be an integer from {low} to {high}, not {value!r}")
    return value


def _name(value: Any, what: str) -> str:
    """Returns value if it is a lower-case shape name, or raises."""
    if not isinstance(value, str) or not NAME.fullmatch(value):
        raise SetFileError(f"{what} must be a lower-case name like 'bar2', not {value!r}")
    return value


def _cube(value: Any, what: str) -> Cell:
    """Returns one [x, y, z] cube, or raises."""
    if not isinstance(value, list) or len(value) != 3:
        raise SetFileError(f"{what} must be a list of [x, y, z] cubes, not {value!r}")
    x, y, z = (_integer(v, f"a coordinate in {what}", 0, MAX_CUBES) for v in value)
    return (x, y, z)


def _cubes(value: Any, what: str) -> Cells:
    """Returns the normalized unit cubes of a shape, or raises."""
    if not isinstance(value, list) or not 1 <= len(value) <= MAX_CUBES:
        raise SetFileError(f"{what} must list 1 to {MAX_CUBES} [x, y, z] cubes")
    cubes = [_cube(item, what) for item in value]
    if len(set(cubes)) != len(cubes):
        raise SetFileError(f"{what} lists a cube twice")
    shape = normalize(cubes)
    if not _connected(shape):
        raise SetFileError(f"{what} are not joined face to face")
    return shape


def _shape(name: str, cubes: Cells, count: int, ends: bool, board: int) -> Shape:
    """Returns a shape with its orientations and board placements worked out."""
    turned = orientations(cubes)
    candidates = [c for o in sorted(turned) for c in _candidates(o, board)]
    return Shape(name, cubes, count, ends, turned, tuple(candidates))


def _parse_shape(name: str, value: Any, board: int) -> Shape:
    """Returns one [shapes.NAME] table as a Shape, or raises."""
    what = f"shape {name!r}"
    table = _table(value, what)
    _keys(table, _SHAPE_KEYS, {"cubes", "count"}, what)
    cubes = _cubes(table["cubes"], f"the cubes of {what}")
    count = _integer(table["count"], f"the count of {what}", 1, MAX_COUNT)
    ends = table.get("opponent_ends", False)
    if not isinstance(ends, bool):
        raise SetFileError(f"opponent_ends of {what} must be true or false")
    if ends and not _is_bar(cubes):
        raise SetFileError(f"{what} has opponent_ends but is not a straight bar")
    return _shape(name, cubes, count, ends, board)


def _parse_extra(value: Any, shapes: Mapping[str, Shape], board: int) -> tuple[Shape, float]:
    """Returns brown's extra block and its points from the [extra] table, or raises."""
    table = _table(value, "extra")
    _keys(table, _EXTRA_KEYS, set(_EXTRA_KEYS), "extra")
    name = _name(table["name"], "the name of the extra block")
    if name in shapes:
        raise SetFileError(f"the extra block's name {name!r} is already a shape")
    points = table["points"]
    if isinstance(points, bool) or not isinstance(points, (int, float)) or not 0 <= points <= 1:
        raise SetFileError(f"the extra block's points must be a number from 0 to 1, not {points!r}")
    cubes = _cubes(table["cubes"], "the cubes of the extra block")
    return _shape(name, cubes, 1, False, board), float(points)


def parse_set(data: Mapping[str, Any], name: str) -> BlockSet:
    """Returns the BlockSet described by a parsed set file, or raises SetFileError."""
    _keys(data, _SET_KEYS, set(_SET_KEYS), f"set {name!r}")
    board = _integer(data["board"], "board", 1, MAX_BOARD)
    tables = _table(data["shapes"], "shapes")
    if not tables:
        raise SetFileError(f"set {name!r} has no shapes")
    shapes = {key: _parse_shape(_name(key, "a shape name"), v, board) for key, v in tables.items()}
    extra, points = _parse_extra(data["extra"], shapes, board)
    by_name = {**shapes, extra.name: extra}
    return BlockSet(name, board, tuple(shapes.values()), extra, points, by_name)


def load_set(name: str) -> BlockSet:
    """Returns the set shipped as rules/sets/<name>.toml, or raises SetFileError."""
    if not NAME.fullmatch(name):
        raise SetFileError(f"{name!r} is not a set name")
    resource = resources.files("rules") / "sets" / f"{name}.toml"
    if not resource.is_file():
        raise SetFileError(f"there is no set file named {name}.toml")
    try:
        text = resource.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise SetFileError(f"set file {name}.toml is not UTF-8 text") from error
    return read_set(text, name)


def read_set(text: str, name: str) -> BlockSet:
    """Returns the BlockSet written in a set file's TOML text, or raises SetFileError."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise SetFileError(f"set file {name}.toml is not valid TOML: {error}") from error
    return parse_set(data, name)
