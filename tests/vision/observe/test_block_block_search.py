"""Tests for BLOCK.BLOCK's search moves that change neighbouring columns together."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import numpy as np

from vision.observe.block_block_search import Cell, Column, changed_groups, group_trials, search_cells

PITCH = 26.0


def cells_of(columns: list[Column]) -> list[Cell]:
    """Returns a row of cells (one file apart) for some columns, with no rays."""
    sight: Any = SimpleNamespace(rays=SimpleNamespace(col=np.zeros(0, np.int64)))
    centres = [(PITCH * i, 0.0) for i in range(len(columns))]
    return search_cells(sight, columns, [f"{chr(97 + i)}1" for i in range(len(columns))], centres, 4)


def choice(cells: list[Cell], labels: list[str]) -> list[int]:
    """Returns the choice of some labels."""
    return [cell.labels.index(label) for cell, label in zip(cells, labels)]


def test_groups_are_the_changed_columns_neighbours_and_all_changed() -> None:
    cells = cells_of([Column(1, "white")] * 4)
    chosen = choice(cells, ["white@1", "white@2", "white@2", "white@2"])
    assert changed_groups(cells, chosen) == [(0, 1), (1, 2), (2, 3), (1, 2, 3)]


def test_no_group_when_nothing_changed() -> None:
    cells = cells_of([Column(1, "white"), Column(0, "empty")])
    assert changed_groups(cells, choice(cells, ["white@1", "empty"])) == []


def test_a_pair_is_tried_a_cube_up_a_cube_down_and_level() -> None:
    cells = cells_of([Column(1, "white")] * 2)
    chosen = choice(cells, ["white@2", "white@3"])
    tried = [[cells[i].labels[k] for i, k in enumerate(trial)] for trial in group_trials(cells, chosen, (0, 1))]
    assert tried == [["white@3", "white@4"], ["white@1", "white@2"], ["white@3", "white@3"], ["white@2", "white@2"]]


def test_an_empty_column_is_never_moved() -> None:
    cells = cells_of([Column(1, "brown"), Column(0, "empty")])
    chosen = choice(cells, ["brown@2", "empty"])
    assert group_trials(cells, chosen, (0, 1)) == []
