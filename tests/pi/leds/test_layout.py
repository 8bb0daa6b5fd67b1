"""Tests of LED layouts: the wiring of the board, the bundled files and clear load errors."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pi.leds.errors import LayoutError
from pi.leds.layout import (
    Board,
    default_layout,
    default_layout_for,
    layout_from_dict,
    load_layout,
    with_limits,
)

BASE = """
[board]
width = 3
height = 2

[status]
player1 = [6]
player2 = [7]

[counters.player1]
tens = [8]
units = [9, 10, 11, 12, 13, 14, 15, 16, 17]

[counters.player2]
tens = [18]
units = [19, 20, 21, 22, 23, 24, 25, 26, 27]
"""


def board_order(board: Board) -> list[str]:
    """Returns the board's squares in strip order (rank 1 is the bottom, file a the left)."""
    places = {board.cell_position(f, r): f"{'abc'[f]}{r + 1}"
              for f in range(board.width) for r in range(board.height)}
    return [places[i] for i in range(board.width * board.height)]


@pytest.mark.parametrize(
    ("origin", "runs", "serpentine", "order"),
    [
        ("bottom-left", "rows", True, ["a1", "b1", "c1", "c2", "b2", "a2"]),
        ("bottom-left", "rows", False, ["a1", "b1", "c1", "a2", "b2", "c2"]),
        ("bottom-right", "rows", True, ["c1", "b1", "a1", "a2", "b2", "c2"]),
        ("top-left", "rows", True, ["a2", "b2", "c2", "c1", "b1", "a1"]),
        ("top-right", "rows", False, ["c2", "b2", "a2", "c1", "b1", "a1"]),
        ("bottom-left", "columns", True, ["a1", "a2", "b2", "b1", "c1", "c2"]),
        ("bottom-left", "columns", False, ["a1", "a2", "b1", "b2", "c1", "c2"]),
        ("top-right", "columns", True, ["c2", "c1", "b1", "b2", "a2", "a1"]),
        ("bottom-right", "columns", False, ["c1", "c2", "b1", "b2", "a1", "a2"]),
    ],
)
def test_the_board_wiring(origin: str, runs: str, serpentine: bool, order: list[str]) -> None:
    assert board_order(Board(3, 2, 1, origin, runs, serpentine)) == order


def test_several_leds_per_cell_after_an_offset() -> None:
    board = Board(3, 2, leds_per_cell=2, offset=5)
    assert board.cell_leds(0, 0) == (5, 6)
    assert board.cell_leds(2, 1) == (11, 12)  # a2 is the last cell, c2 the fourth
    assert board.led_range == range(5, 17)


@pytest.mark.parametrize(("name", "count"), [("9x9", 109), ("7x7", 77), ("5x5", 53), ("3x3", 37)])
def test_the_bundled_layouts(name: str, count: int) -> None:
    layout = default_layout(name)
    size = int(name[0])
    assert layout.count == count and layout.name == name
    assert layout.board.width == layout.board.height == size
    assert dict(layout.cells)["a1"] == (0,)
    assert dict(layout.cells)["a2"] == (2 * size - 1,)  # serpentine rows
    assert layout.counters[0].capacity >= 40
    assert layout.strip.colour_order == "GRB"
    assert default_layout_for(size) == layout


def test_the_nine_by_nine_squares_in_order() -> None:
    layout = default_layout("9x9")
    assert layout.squares[:3] == ("a1", "b1", "c1") and layout.squares[-1] == "i9"
    assert dict(layout.cells)["a9"] == (72,) and dict(layout.cells)["i9"] == (80,)


def test_an_unknown_bundled_layout() -> None:
    with pytest.raises(LayoutError, match="no bundled layout '8x8'; choose one of 3x3, 5x5"):
        default_layout("8x8")


def write(tmp_path: Path, text: str) -> Path:
    """Writes a layout file and returns its path."""
    path = tmp_path / "mine.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_minimal_file_takes_the_defaults(tmp_path: Path) -> None:
    layout = load_layout(write(tmp_path, BASE))
    assert layout.count == 28 and layout.name == "mine"
    assert layout.strip.gamma == 2.2 and layout.strip.brightness == 255
    assert layout.board.serpentine and layout.board.origin == "bottom-left"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (BASE + "\n[strip]\ncolour_order = 'GRR'\n", "strip.colour_order must be one of BGR"),
        (BASE + "\n[strip]\nbrightness = 300\n", "strip.brightness must be a whole number"),
        (BASE + "\n[strip]\ngamma = 0\n", "strip.gamma must be a number from 0.2 to 5"),
        (BASE + "\n[strip]\nmax_milliamps = 0\n", "strip.max_milliamps must be"),
        (BASE + "\n[strip]\nvolts = 5\n", r"\[strip\] has unknown key 'volts'"),
        (BASE.replace("width = 3", "width = 'three'"), "board.width must be a whole number"),
        (BASE.replace("width = 3\n", ""), r"\[board\] needs width"),
        (BASE.replace("height = 2", "height = 2\norigin = 'middle'"), "board.origin must be"),
        (BASE.replace("height = 2", "height = 2\nruns = 'diagonal'"), "board.runs must be"),
        (BASE.replace("height = 2", "height = 2\nserpentine = 1"), "board.serpentine must be"),
        (BASE.replace("player1 = [6]", "player1 = [5]"), "LED 5 in status.player1 is already"),
        (BASE.replace("tens = [18]", "tens = [8]"), "LED 8 in counters.player2.tens is already"),
        (BASE.replace("player2 = [7]", "player2 = []"), "status.player2 must be a non-empty"),
        (BASE.replace("player2 = [7]", "player2 = [-1]"), "status.player2 must be a non-empty"),
        (BASE.replace(", 27]", "]"), "counters.player2.units must list exactly 9 LEDs"),
        (BASE.replace("[counters.player2]", "[counters.player3]"), r"\[counters\] has unknown"),
        ("count = 10\n" + BASE, "count must be a whole number from 28"),
        ("colour = 1\n" + BASE, "the file has unknown key 'colour'"),
        ("[board\n", "is not valid TOML"),
        ("", r"\[board\] must be a table"),
    ],
)
def test_bad_files_name_the_file_and_the_fault(tmp_path: Path, text: str, message: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(LayoutError, match=message) as caught:
        load_layout(path)
    assert str(path) in str(caught.value)


def test_unreadable_files(tmp_path: Path) -> None:
    with pytest.raises(LayoutError, match="cannot read layout .*missing.toml"):
        load_layout(tmp_path / "missing.toml")
    path = tmp_path / "latin.toml"
    path.write_bytes(b"# \xe9\n")
    with pytest.raises(LayoutError, match="is not UTF-8 text"):
        load_layout(path)


def test_a_longer_strip_and_a_dict() -> None:
    data: dict[str, Any] = {
        "count": 40,
        "board": {"width": 1, "height": 1},
        "status": {"player1": [1], "player2": [2]},
        "counters": {"player1": {"tens": [3], "units": list(range(4, 13))},
                     "player2": {"tens": [13], "units": list(range(14, 23))}},
    }
    assert layout_from_dict(data).count == 40


def test_configured_limits_replace_the_layouts() -> None:
    layout = with_limits(default_layout("3x3"), brightness=10, max_milliamps=500)
    assert (layout.strip.brightness, layout.strip.max_milliamps) == (10, 500)
    assert with_limits(layout).strip == layout.strip
    with pytest.raises(LayoutError, match="strip.brightness"):
        with_limits(layout, brightness=256)
