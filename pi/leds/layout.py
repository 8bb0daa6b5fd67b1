"""LED layouts: where each square's, status and counter LEDs sit on the strip, read from TOML.

A layout file has four tables (see pi/layouts/9x9.toml for a commented example):

- `[strip]`  colour_order ("GRB" ...), brightness (0-255 cap), max_milliamps (total budget),
  milliamps_per_channel (one colour channel at full, about 20), gamma (for the table);
- `[board]`  width, height (cells), leds_per_cell, origin (the corner holding the board's
  first LED: "bottom-left" is a1's corner, bottom being rank 1 and left file a), runs ("rows":
  the strip runs along ranks; "columns": along files), serpentine (every other run goes back),
  offset (strip index of the board's first LED);
- `[status]` player1, player2: lists of LED indices lit for the player to move;
- `[counters.player1]`, `[counters.player2]`: tens (at least one LED) and units (exactly 9
  LEDs), so a counter reads exactly from 0 to 10 * len(tens) + 9.

An optional top-level `count` gives the strip's length when it is longer than the LEDs used.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field, replace
from itertools import permutations
from pathlib import Path
from typing import Any

from pi.leds.errors import LayoutError
from pi.leds.model import is_whole
from rules.core import square_name

LAYOUTS_DIR = Path(__file__).resolve().parent.parent / "layouts"
COLOUR_ORDERS: frozenset[str] = frozenset("".join(p) for p in permutations("RGB"))
ORIGINS: frozenset[str] = frozenset({"bottom-left", "bottom-right", "top-left", "top-right"})
RUNS: frozenset[str] = frozenset({"rows", "columns"})
UNITS_LEDS = 9
MAX_LEDS = 4096


@dataclass(frozen=True, slots=True)
class Strip:
    """How the strip wants its colours: byte order, brightness and current caps, gamma."""

    colour_order: str = "GRB"
    brightness: int = 255
    max_milliamps: int = 2000
    milliamps_per_channel: int = 20
    gamma: float = 2.2


@dataclass(frozen=True, slots=True)
class Board:
    """The LED matrix under the board: its size, wiring order and place on the strip."""

    width: int
    height: int
    leds_per_cell: int = 1
    origin: str = "bottom-left"
    runs: str = "rows"
    serpentine: bool = True
    offset: int = 0

    def cell_position(self, file: int, rank: int) -> int:
        """Returns a cell's place along the board's wiring (0 for the first cell)."""
        x = file if self.origin.endswith("left") else self.width - 1 - file
        y = rank if self.origin.startswith("bottom") else self.height - 1 - rank
        line, step, run = (y, x, self.width) if self.runs == "rows" else (x, y, self.height)
        if self.serpentine and line % 2 == 1:
            step = run - 1 - step
        return line * run + step

    def cell_leds(self, file: int, rank: int) -> tuple[int, ...]:
        """Returns the strip indices of a cell's LEDs."""
        first = self.offset + self.cell_position(file, rank) * self.leds_per_cell
        return tuple(range(first, first + self.leds_per_cell))

    @property
    def led_range(self) -> range:
        """Returns the strip indices the board occupies."""
        return range(self.offset, self.offset + self.width * self.height * self.leds_per_cell)


@dataclass(frozen=True, slots=True)
class Counter:
    """The LEDs of one player's move counter: a tens bar and a units bar of 9."""

    tens: tuple[int, ...]
    units: tuple[int, ...]

    @property
    def capacity(self) -> int:
        """Returns the largest value the counter reads exactly."""
        return 10 * len(self.tens) + len(self.units)


@dataclass(frozen=True, slots=True)
class Layout:
    """A whole strip: the strip settings, the board, status LEDs and counters."""

    strip: Strip
    board: Board
    status: tuple[tuple[int, ...], tuple[int, ...]]
    counters: tuple[Counter, Counter]
    count: int
    name: str = ""
    cells: tuple[tuple[str, tuple[int, ...]], ...] = field(default=(), compare=False)

    @property
    def squares(self) -> tuple[str, ...]:
        """Returns the board's square names, a1 first, by rank then file."""
        return tuple(square for square, _ in self.cells)


def make_layout(strip: Strip, board: Board, status: tuple[tuple[int, ...], tuple[int, ...]],
                counters: tuple[Counter, Counter], count: int | None = None,
                name: str = "") -> Layout:
    """Returns a checked layout with its square-to-LED table, or raises LayoutError."""
    _check_strip(strip)
    _check_board(board)
    used = _check_indices(board, status, counters)
    needed = max(used) + 1
    if count is None:
        count = needed
    if not is_whole(count) or count < needed or count > MAX_LEDS:
        raise LayoutError(f"count must be a whole number from {needed} (the LEDs used) "
                          f"to {MAX_LEDS}, got {count!r}")
    cells = tuple((square_name(file, rank), board.cell_leds(file, rank))
                  for rank in range(board.height) for file in range(board.width))
    return Layout(strip, board, status, counters, count, name, cells)


def load_layout(path: str | Path) -> Layout:
    """Returns the layout in a TOML file, or raises LayoutError naming the file and fault."""
    where = str(path)
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as error:
        raise LayoutError(f"cannot read layout {where}: {error.strerror or error}") from None
    except UnicodeDecodeError:
        raise LayoutError(f"layout {where} is not UTF-8 text") from None
    except tomllib.TOMLDecodeError as error:
        raise LayoutError(f"layout {where} is not valid TOML: {error}") from None
    try:
        return layout_from_dict(data, Path(path).stem)
    except LayoutError as error:
        raise LayoutError(f"layout {where}: {error}") from None


def default_layout(name: str) -> Layout:
    """Returns one of the bundled layouts by name ("9x9", "7x7", "5x5", "3x3")."""
    known = sorted(p.stem for p in LAYOUTS_DIR.glob("*.toml"))
    if name not in known:
        raise LayoutError(f"no bundled layout {name!r}; choose one of " + ", ".join(known))
    return load_layout(LAYOUTS_DIR / f"{name}.toml")


def layout_from_dict(data: dict[str, Any], name: str = "") -> Layout:
    """Returns the layout described by parsed TOML data, or raises LayoutError."""
    _only(data, "the file", {"strip", "board", "status", "counters", "count"})
    strip = Strip(**_table(data, "strip", Strip.__dataclass_fields__, required=False))
    board_table = _table(data, "board", Board.__dataclass_fields__, required=True)
    for key in ("width", "height"):
        if key not in board_table:
            raise LayoutError(f"[board] needs {key}")
    board = Board(**board_table)
    status_table = _table(data, "status", {"player1", "player2"}, required=True)
    status = (_indices(status_table, "status.player1"), _indices(status_table, "status.player2"))
    counter_tables = _table(data, "counters", {"player1", "player2"}, required=True)
    counters = (_counter(counter_tables, "player1"), _counter(counter_tables, "player2"))
    return make_layout(strip, board, status, counters, data.get("count"), name)


# -- reading helpers ----------------------------------------------------------------------


def _table(data: dict[str, Any], key: str, allowed: Any, required: bool) -> dict[str, Any]:
    """Returns a sub-table holding only allowed keys, or raises LayoutError."""
    table = data.get(key)
    if table is None and not required:
        return {}
    if not isinstance(table, dict):
        raise LayoutError(f"[{key}] must be a table")
    _only(table, f"[{key}]", set(allowed))
    return table


def _only(table: dict[str, Any], where: str, allowed: set[str]) -> None:
    """Raises LayoutError if a table holds a key not allowed there (a likely typo)."""
    unknown = sorted(set(table) - allowed)
    if unknown:
        raise LayoutError(f"{where} has unknown key {unknown[0]!r}; allowed: "
                          + ", ".join(sorted(allowed)))


def _indices(table: dict[str, Any], key: str) -> tuple[int, ...]:
    """Returns a list of LED indices from a table, or raises LayoutError."""
    value = table.get(key.rsplit(".", 1)[-1])
    if not isinstance(value, list) or not value or not all(
        is_whole(i) and 0 <= i < MAX_LEDS for i in value
    ):
        raise LayoutError(f"{key} must be a non-empty list of LED indices from 0 to "
                          f"{MAX_LEDS - 1}, got {value!r}")
    return tuple(value)


def _counter(tables: dict[str, Any], player: str) -> Counter:
    """Returns one player's counter LEDs, or raises LayoutError."""
    where = f"counters.{player}"
    table = tables.get(player)
    if not isinstance(table, dict):
        raise LayoutError(f"[{where}] must be a table with tens and units")
    _only(table, f"[{where}]", {"tens", "units"})
    counter = Counter(_indices(table, f"{where}.tens"), _indices(table, f"{where}.units"))
    if len(counter.units) != UNITS_LEDS:
        raise LayoutError(f"{where}.units must list exactly {UNITS_LEDS} LEDs (one per unit "
                          f"1-9), got {len(counter.units)}")
    return counter


# -- checks -------------------------------------------------------------------------------


def _check_strip(strip: Strip) -> None:
    """Raises LayoutError unless the strip settings are usable."""
    if strip.colour_order not in COLOUR_ORDERS:
        raise LayoutError(f"strip.colour_order must be one of {', '.join(sorted(COLOUR_ORDERS))}, "
                          f"got {strip.colour_order!r}")
    _whole("strip.brightness", strip.brightness, 0, 255)
    _whole("strip.max_milliamps", strip.max_milliamps, 1, 1_000_000)
    _whole("strip.milliamps_per_channel", strip.milliamps_per_channel, 1, 1000)
    gamma = strip.gamma
    if isinstance(gamma, bool) or not isinstance(gamma, (int, float)) or not 0.2 <= gamma <= 5:
        raise LayoutError(f"strip.gamma must be a number from 0.2 to 5, got {gamma!r}")


def _check_board(board: Board) -> None:
    """Raises LayoutError unless the board's size and wiring are known values."""
    _whole("board.width", board.width, 1, 26)
    _whole("board.height", board.height, 1, 99)
    _whole("board.leds_per_cell", board.leds_per_cell, 1, 64)
    _whole("board.offset", board.offset, 0, MAX_LEDS - 1)
    if board.origin not in ORIGINS:
        raise LayoutError(f"board.origin must be one of {', '.join(sorted(ORIGINS))}, "
                          f"got {board.origin!r}")
    if board.runs not in RUNS:
        raise LayoutError(f"board.runs must be 'rows' or 'columns', got {board.runs!r}")
    if not isinstance(board.serpentine, bool):
        raise LayoutError(f"board.serpentine must be true or false, got {board.serpentine!r}")


def _check_indices(board: Board, status: tuple[tuple[int, ...], ...],
                   counters: tuple[Counter, ...]) -> set[int]:
    """Returns every LED index used, or raises LayoutError if one is used twice."""
    used = set(board.led_range)
    if max(used) >= MAX_LEDS:
        raise LayoutError(f"the board needs LEDs up to index {max(used)}; the limit is "
                          f"{MAX_LEDS - 1}")
    groups = [("status.player1", status[0]), ("status.player2", status[1])]
    for player, counter in zip(("player1", "player2"), counters):
        groups += [(f"counters.{player}.tens", counter.tens),
                   (f"counters.{player}.units", counter.units)]
    for where, indices in groups:
        for index in indices:
            if index in used:
                raise LayoutError(f"LED {index} in {where} is already used by the board "
                                  "or another group")
            used.add(index)
    return used


def _whole(where: str, value: object, low: int, high: int) -> None:
    """Raises LayoutError unless value is a whole number from low to high."""
    if not (is_whole(value) and low <= value <= high):
        raise LayoutError(f"{where} must be a whole number from {low} to {high}, got {value!r}")



def with_limits(layout: Layout, brightness: int | None = None,
                max_milliamps: int | None = None) -> Layout:
    """Returns the layout with configured brightness and current caps (None keeps its own)."""
    strip = replace(
        layout.strip,
        brightness=layout.strip.brightness if brightness is None else brightness,
        max_milliamps=layout.strip.max_milliamps if max_milliamps is None else max_milliamps,
    )
    _check_strip(strip)
    return replace(layout, strip=strip)


def default_layout_for(cells: int) -> Layout:
    """Returns the bundled layout of an N x N board (the mat's cells per side)."""
    return default_layout(f"{cells}x{cells}")
