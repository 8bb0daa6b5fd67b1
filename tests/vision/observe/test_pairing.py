"""Tests of how a reading's lying halves are weighed by their neighbours (reading.paired): a
half needs a neighbour that may hold its other half, and a neighbour whose own piece lies
unmoved with another cell cannot."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from rules.core import square_name
from vision.observation import CellSeen
from vision.observe.reading import free_for, paired

HALVES = {"dark-block-lying": "dark-block-lying", "dark-meeple/dark-block-lying": "dark-block-lying"}


def synthesis(size: int = 3) -> Any:
    """Returns the little of a Synthesis that paired reads: the halves, the mat's size, the grid."""
    squares = [square_name(file, rank) for file in range(size) for rank in range(size)]
    return SimpleNamespace(model=SimpleNamespace(halves=HALVES), scene=SimpleNamespace(mat=SimpleNamespace(cells=size)),
                           grid={index: (ord(s[0]) - 97, int(s[1:]) - 1) for index, s in enumerate(squares)},
                           index={s: index for index, s in enumerate(squares)})


def position() -> dict[str, str]:
    """Returns a 3x3 position: a dark brick lying over a1 and a2, the rest empty."""
    found = {square_name(file, rank): "empty" for file in range(3) for rank in range(3)}
    return {**found, "a1": "dark-block-lying", "a2": "dark-block-lying"}


def test_a_neighbour_held_by_its_own_unmoved_brick_is_not_free() -> None:
    context = position()
    cells = {square: CellSeen.sure(label) for square, label in context.items()}
    partners = {"a1": "a2", "a2": "a1"}
    assert not free_for("b1", "a1", cells, context, partners)
    assert free_for("a2", "a1", cells, context, partners)  # the brick's own other cell
    assert free_for("b1", "c1", cells, context, partners)  # no piece lying there
    moved = {**cells, "a2": CellSeen.sure("empty")}
    assert free_for("b1", "a1", moved, context, partners)  # its brick may have moved


def test_a_half_beside_only_held_halves_gives_way_to_what_else_it_may_be() -> None:
    context = position()
    cells = {square: CellSeen.sure(label) for square, label in context.items()}
    cells["b1"] = CellSeen.from_probs({"dark-meeple/dark-block-lying": 0.97, "empty": 0.03})
    partners = {"a1": "a2", "a2": "a1"}
    held = paired(synthesis(), cells, context, partners)["b1"]
    assert held.label == "empty" and held.probability("empty") > 0.9
    free = paired(synthesis(), cells, context, {})["b1"]  # no partners known: a1 may hold its other half
    assert free.label == "dark-meeple/dark-block-lying"
