"""The observation contract: cells, labels of each game's vocabulary, whole grids, and the seeded
noisy observations the tests and benches use."""

from __future__ import annotations

import random
from typing import Any

import pytest

from rules import get_game
from vision.expect import expected_view
from vision.observation import (
    CellSeen,
    Observation,
    ObservationError,
    grid_squares,
    is_label,
    king_step,
    noisy_observation,
)


def empty_grid(size: int) -> dict[str, CellSeen]:
    """Returns sure empty cells for a whole grid."""
    return {square: CellSeen.sure("empty") for square in grid_squares(size)}


@pytest.mark.parametrize("game, label", [
    ("block-arena", "light-block-upright"), ("block-arena", "dark-block-lying"),
    ("block-arena", "light-meeple/dark-block-upright"),
    ("block-arena", "both-meeples/light-block-lying"),
    ("block-pt", "cream-tile"), ("block-pt", "blue-pawn/charcoal-tile"), ("block-pt", "red-pawn"),
    ("tuned", "cat/dog/donkey"), ("tuned", "dog"), ("tuned", "cat/donkey"),
    ("blockade", "green-M/clear-L"), ("blockade", "black-M/green-L"), ("blockade", "red-S/black-L"),
    ("blockade", "yellow-S/yellow-M/clear-L"), ("blockade", "red-S/red-S/red-L"),
    ("blockade", "green-M/green-M/green-M/clear-L"), ("block-block", "half@3"),
    ("block-block", "white@12"), ("tuned", "empty"),
])
def test_labels_of_the_vocabulary(game: str, label: str) -> None:
    assert is_label(game, label)


@pytest.mark.parametrize("game, label", [
    ("block-arena", "light-block"), ("block-arena", "light-meeple"), ("block-pt", "red-tile"),
    ("tuned", "donkey/cat"), ("tuned", "dog/dog"), ("blockade", "green-L/green-M"),
    ("blockade", "clear-M"), ("blockade", "red-S/blue-S"), ("blockade", "red-M/red-S"),
    ("block-block", "brown@0"),
    ("block-block", "brown"), ("chess", "empty"), ("tuned", ""),
])
def test_texts_outside_the_vocabulary(game: str, label: str) -> None:
    assert not is_label(game, label)


def test_a_cell_keeps_its_probabilities_read_only() -> None:
    cell = CellSeen.from_probs({"cat": 0.7, "dog": 0.2})
    assert (cell.label, cell.confidence, cell.probability("donkey")) == ("cat", 0.7, 0.0)
    with pytest.raises(TypeError):
        cell.probs["cat"] = 1.0  # type: ignore[index]
    assert CellSeen("dog", 0.9).probs == {"dog": 0.9}


@pytest.mark.parametrize("args, message", [
    (("cat", 0.5, {"cat": 0.5, "dog": 0.6}), "probabilities sum to 1.100"),
    (("cat", 0.3, {"cat": 0.3, "dog": 0.6}), "'cat' is not the most probable"),
    (("cat", 0.4, {"cat": 0.5}), "confidence of 'cat' is not its probability"),
    (("cat", 1.5, {}), "between 0 and 1"),
    (("cat", "high", {}), "must be a number"),
    (("cat", 0.5, {"cat": True}), "must be a number"),
])
def test_bad_cells_raise_one_clear_error(args: tuple[Any, ...], message: str) -> None:
    with pytest.raises(ObservationError, match=message):
        CellSeen(*args)


def test_an_observation_covers_the_whole_grid_with_labels_of_its_game() -> None:
    seen = Observation("tuned", empty_grid(3), frame=7)
    assert seen.size == 3 and seen.labels()["b2"] == "empty" and seen.frame == 7
    arena = Observation("block-arena", empty_grid(7))
    assert arena.size == 7


@pytest.mark.parametrize("game, cells, frame, message", [
    ("chess", empty_grid(3), None, "unknown game 'chess'"),
    ("tuned", empty_grid(4), None, r"needs every square of its grid \(3x3\), got 16 cells"),
    ("block-arena", empty_grid(8), None, r"\(7x7 or 9x9\)"),
    ("block-block", empty_grid(27), None, r"\(up to 26x26\)"),
    ("tuned", {**empty_grid(3), "b2": CellSeen.sure("cow")}, None, "b2: 'cow' is not a tuned"),
    ("tuned", {**empty_grid(3), "b2": "cat"}, None, "b2 must hold a CellSeen"),
    ("tuned", empty_grid(3), -1, "frame number"),
    ("tuned", [], None, "cells must map square names"),
])
def test_bad_observations_raise_one_clear_error(game: str, cells: Any, frame: Any,
                                                message: str) -> None:
    with pytest.raises(ObservationError, match=message):
        Observation(game, cells, frame)


def test_noisy_observations_are_seeded_and_honest() -> None:
    game = get_game("tuned")
    before = expected_view("tuned", game.board(game.play_all(["+donkey@a1"])))
    after = expected_view("tuned", game.board(game.play_all(["+donkey@a1", "+dog@a1"])))
    first = noisy_observation("tuned", after, random.Random(3), previous=before, mislabelled=3,
                              avoid={"b2": {"dog/donkey", "donkey"}})
    again = noisy_observation("tuned", after, random.Random(3), previous=before, mislabelled=3,
                              avoid={"b2": {"dog/donkey", "donkey"}})
    assert first == again
    wrong = {s for s, cell in first.cells.items() if cell.label != after[s]}
    assert len(wrong) == 3 and "a1" not in wrong and "b2" not in wrong
    for square, cell in first.cells.items():
        assert sum(cell.probs.values()) <= 1.0 + 1e-9
        if square in wrong:
            assert cell.confidence <= 0.5 and 0.15 <= cell.probability(after[square]) <= 0.3
        else:
            assert 0.6 <= cell.confidence <= 0.99
    assert first.cells["a1"].probability("donkey") == 0.0  # a changed cell's old label


@pytest.mark.parametrize("square, other, step", [
    ("b2", "a1", True), ("b2", "c3", True), ("b2", "b3", True), ("b2", "b2", False), ("b2", "d2", False),
    ("a9", "b10", True), ("a1", "a3", False),
])
def test_a_king_step_is_one_square_in_any_direction(square: str, other: str, step: bool) -> None:
    assert king_step(square, other) is step
