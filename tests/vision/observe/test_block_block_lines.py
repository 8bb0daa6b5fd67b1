"""Tests of BLOCK.BLOCK's grid-line evidence: probe points, sightlines past columns, and the
revision of a reading that still shows a line that vanished."""

from __future__ import annotations

import numpy as np

from vision.observe.block_block_lines import MIN_POINTS, line_points, missing, revised, sightlines
from vision.pose import CameraPlace

CELLS, PITCH, CUBE = 5, 26.0, 25.0
PLACE = CameraPlace((-200.0, 65.0, 600.0), 600.0)  # off the a-file side: rays lean towards -x
LABELS = ("empty", "brown@1", "brown@2", "brown@3", "white@1", "white@2", "white@3")
HEIGHTS = np.array([0.0, 1, 2, 3, 1, 2, 3]) * CUBE


def index(square: str) -> int:
    """Returns a square's index in Scene order (by file, then rank)."""
    return (ord(square[0]) - ord("a")) * CELLS + int(square[1:]) - 1


def boxes() -> np.ndarray:
    """Returns every cell's cube footprint (x0, x1, y0, y1)."""
    centres = np.array([((f + 0.5) * PITCH, (r + 0.5) * PITCH) for f in range(CELLS) for r in range(CELLS)])
    return np.column_stack([centres[:, 0] - 12.75, centres[:, 0] + 12.75, centres[:, 1] - 12.75, centres[:, 1] + 12.75])


def on_line(x: float, rank: int) -> np.ndarray:
    """Tells which probe points lie on the line x = const along one rank (0-based)."""
    points = line_points(CELLS, PITCH)
    return (points.ground[:, 0] == x) & (points.ground[:, 1] > rank * PITCH) & (points.ground[:, 1] < (rank + 1) * PITCH)


def heights_with(**columns: float) -> np.ndarray:
    """Returns every column's height (mm), empty but for the given squares."""
    found = np.zeros(CELLS * CELLS)
    for square, height in columns.items():
        found[index(square)] = height
    return found


def test_line_points_lie_on_the_lines_away_from_crossings_beside_their_two_cells() -> None:
    points = line_points(CELLS, PITCH)
    x, y = points.ground.T
    on_x = np.isclose(x % PITCH, 0.0)
    assert np.all(on_x | np.isclose(y % PITCH, 0.0))
    along = np.where(on_x, y, x)
    assert np.all(np.abs((along + PITCH / 2) % PITCH - PITCH / 2) >= 3.0)
    first = points.beside[(x == 2 * PITCH) & (y > 2 * PITCH) & (y < 3 * PITCH)]
    assert {tuple(pair) for pair in first.tolist()} == {(index("b3"), index("c3"))}
    outer = points.beside[(x == 0.0) & (y < PITCH)]
    assert {tuple(pair) for pair in outer.tolist()} == {(-1, index("a1"))}


def test_a_column_hides_the_line_beyond_it_and_shows_the_one_on_the_camera_side() -> None:
    points = line_points(CELLS, PITCH)
    lines = sightlines([PLACE], points.ground, boxes())
    shown = lines.shown(heights_with(c3=CUBE))
    assert not shown[on_line(3 * PITCH, 2)].any()  # the c3 / d3 line: rays lean back over c3
    assert shown[on_line(2 * PITCH, 2)].all()  # the b3 / c3 line: rays lean away from c3
    assert lines.shown(heights_with())[on_line(3 * PITCH, 2)].all()


def reading(**sure: str) -> tuple[list[np.ndarray], list[np.ndarray], list[int]]:
    """Returns every cell's probabilities (each sure of its label, empty by default), heights and choice."""
    probs, read = [], []
    for square in range(CELLS * CELLS):
        label = next((text for name, text in sure.items() if index(name) == square), "empty")
        p = np.full(len(LABELS), 1e-12)
        p[LABELS.index("white@1")] = 1e-10  # the model's own leaning among the unlikely ones
        p[LABELS.index(label)] = 1.0
        probs.append(p / p.sum())
        read.append(LABELS.index(label))
    return probs, [HEIGHTS] * len(probs), read


def test_a_vanished_line_the_reading_shows_moves_its_cell_to_the_lowest_cover() -> None:
    points = line_points(CELLS, PITCH)
    lines = sightlines([PLACE], points.ground, boxes())
    probs, heights, read = reading()
    lost = on_line(3 * PITCH, 2)
    assert int(lost.sum()) >= MIN_POINTS
    after = revised(probs, heights, read, lines, points.beside, lost, np.zeros(len(lost), np.bool_))
    c3 = after[index("c3")]
    assert LABELS[int(np.argmax(c3))] == "white@1" and c3[LABELS.index("empty")] < 0.05
    taller = LABELS.index("white@2")
    assert c3[taller] <= probs[index("c3")][taller]  # a taller cover is not favoured
    for square in ("d3", "b3", "c2"):
        assert np.array_equal(after[index(square)], probs[index(square)])


def test_a_cover_that_would_hide_a_line_still_shown_is_not_chosen() -> None:
    points = line_points(CELLS, PITCH)
    lines = sightlines([PLACE], points.ground, boxes())
    probs, heights, read = reading()
    line = on_line(4 * PITCH, 2)  # the d3 / e3 line: only d3 can hide it, and hides all of it
    lost = line & (points.ground[:, 1] < 2.5 * PITCH)
    kept = line & (points.ground[:, 1] > 2.5 * PITCH)
    assert int(lost.sum()) >= MIN_POINTS
    after = revised(probs, heights, read, lines, points.beside, lost, kept)
    assert all(np.array_equal(a, b) for a, b in zip(after, probs))


def test_a_line_no_column_can_hide_changes_nothing() -> None:
    points = line_points(CELLS, PITCH)
    lines = sightlines([PLACE], points.ground, boxes())
    probs, heights, read = reading()
    lost = (points.ground[:, 0] == 0.0) & (points.ground[:, 1] < 2 * PITCH)  # rays lean off the grid
    after = revised(probs, heights, read, lines, points.beside, lost, np.zeros(len(lost), np.bool_))
    assert all(np.array_equal(a, b) for a, b in zip(after, probs))


def test_a_line_already_hidden_by_the_reading_changes_nothing_more() -> None:
    points = line_points(CELLS, PITCH)
    lines = sightlines([PLACE], points.ground, boxes())
    probs, heights, read = reading(c3="brown@1")
    lost = on_line(3 * PITCH, 2)
    after = revised(probs, heights, read, lines, points.beside, lost, np.zeros(len(lost), np.bool_))
    assert all(np.array_equal(a, b) for a, b in zip(after, probs))



def test_a_line_a_lowered_column_would_show_but_does_not_is_missing() -> None:
    before = np.array([0.2, 0.2, 0.01, 0.01, 0.01])  # two lines shown then, three hidden
    now = np.array([0.2, 0.2, 0.01, 0.15, 0.01])
    shown_then = np.array([True, True, False, False, False])
    shown_now = np.array([True, True, True, True, False])  # the reading lowered a column
    exposed = shown_now & ~shown_then
    assert missing(before, now, shown_then, exposed).tolist() == [False, False, True, False, False]
    faint = before / 10  # no line clear enough to judge by
    assert not missing(faint, now / 10, shown_then, exposed).any()


def test_a_column_read_lower_than_it_was_is_raised_back_to_hide_its_missing_lines() -> None:
    points = line_points(CELLS, PITCH)
    lines = sightlines([PLACE], points.ground, boxes())
    probs, heights, read = reading()  # c3 read empty, though it stood a cube tall
    shown_then, shown_now = lines.shown(heights_with(c3=CUBE)), lines.shown(heights_with())
    before = np.where(shown_then, 0.2, 0.01)
    covered = np.all(lines.hidden_per_place(heights_with(c3=CUBE)), axis=0)
    lost = missing(before, before, shown_then, shown_now & covered)  # nothing changed on the mat
    assert lost[on_line(3 * PITCH, 2)].all()
    after = revised(probs, heights, read, lines, points.beside, lost, np.zeros(len(lost), np.bool_))
    assert LABELS[int(np.argmax(after[index("c3")]))] == "white@1"
