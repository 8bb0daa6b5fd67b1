"""Tests of Block (PT)'s pixel observer on rendered frames of seeded games, through the real
still path (BoardTracker, locate_camera, prepare), with each of the renderer's five presets;
and its answers to bad input."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from rules.registry import get_game
from tests.vision.observe.block_scenes import (Sight, VariantCamera, accuracy, confidently_wrong, read_sights,
                                               wrong)
from tests.vision.observe.stack_scenes import KIT
from vision.infer import read_change
from vision.observation import EMPTY
from vision.observe import block_arena, block_pt
from vision.observe.colours import ColourMemory
from vision.observe.context import ObserveError, Scene
from vision.render.record import PRESETS

GAME = "block-pt"
FRAMES = 3
SEED = 21
PIECES = {"M": ("blocker", 1), "N": ("blocker", 2), "X": ("pawn", 1), "Y": ("pawn", 2)}


def piece(label: str) -> dict[str, Any]:
    """Returns a Block (PT) piece in the board format from its label (M, N, X, Y)."""
    kind, owner = PIECES[label]
    return {"kind": kind, "owner": owner, "label": label}


@pytest.fixture(scope="module")
def sights() -> dict[str, list[Sight]]:
    """Returns each preset's frames of one seeded game, read with one memory per preset."""
    return {preset: read_sights(block_pt, GAME, None, preset, SEED + index, FRAMES, lambda: block_pt.new_memory(KIT))
            for index, preset in enumerate(PRESETS)}


@pytest.fixture(scope="module")
def scene() -> tuple[Scene, dict[str, Any]]:
    """Returns one prepared neutral frame of every label Block (PT) has (the illegal pairs too)."""
    cells = {"b2": ["M"], "c3": ["N"], "d4": ["X"], "e5": ["Y"], "f6": ["M", "X"], "g7": ["N", "Y"],
             "c7": ["N", "X"], "g3": ["M", "Y"]}
    board = {"size": 9, "cells": {square: [piece(label) for label in stack] for square, stack in cells.items()},
             "off": {"hand": {"1": 4, "2": 4}}}
    return VariantCamera(GAME, None, "neutral", 3).board_scene(board), board


def test_labels_match_the_expected_view_on_99_percent_of_cells(sights: dict[str, list[Sight]]) -> None:
    every = [sight for frames in sights.values() for sight in frames]
    report = {preset: round(accuracy(frames), 4) for preset, frames in sights.items()}
    print("block-pt accuracy per preset:", report)
    assert accuracy(every) >= 0.99, (report, wrong(every))


def test_no_cell_is_confidently_wrong(sights: dict[str, list[Sight]]) -> None:
    every = [sight for frames in sights.values() for sight in frames]
    assert confidently_wrong(every) == []


def test_clear_cells_are_read_with_high_confidence(sights: dict[str, list[Sight]]) -> None:
    confidences = [cell.confidence for frames in sights.values() for sight in frames
                   for square, cell in sight.read.seen.cells.items() if cell.label == sight.read.truth[square]]
    assert float(np.median(confidences)) >= 0.95
    assert float(np.percentile(confidences, 10)) >= 0.9


def test_the_referee_reads_the_true_move_from_the_observation(sights: dict[str, list[Sight]]) -> None:
    checked = 0
    for sight in (sight for frames in sights.values() for sight in frames):
        step, read = sight.read.step, sight.read
        if read.truth == read.current:
            continue
        reading = read_change(get_game(GAME), step.before, read.seen)
        assert reading.move == step.move, (step.move, reading.message())
        checked += 1
    assert checked >= 6


def test_every_label_is_read_on_one_frame_even_the_illegal_pairs(scene: tuple[Scene, dict[str, Any]]) -> None:
    frame, board = scene
    seen = block_pt.observe(frame, board, block_pt.new_memory(KIT))
    expected = {"b2": "cream-tile", "c3": "charcoal-tile", "d4": "red-pawn", "e5": "blue-pawn",
                "f6": "red-pawn/cream-tile", "g7": "blue-pawn/charcoal-tile", "c7": "red-pawn/charcoal-tile",
                "g3": "blue-pawn/cream-tile", "a1": EMPTY}
    assert {square: seen.cells[square].label for square in expected} == expected
    assert min(seen.cells[square].confidence for square in expected) > 0.9


def test_a_cream_tile_that_appears_is_seen_against_the_position(scene: tuple[Scene, dict[str, Any]]) -> None:
    frame, board = scene
    before = {**board, "cells": {square: stack for square, stack in board["cells"].items() if square != "b2"}}
    seen = block_pt.observe(frame, before, block_pt.new_memory(KIT))
    assert seen.cells["b2"].label == "cream-tile" and seen.cells["b2"].confidence > 0.9


def test_a_plain_colour_memory_serves_and_learns(scene: tuple[Scene, dict[str, Any]]) -> None:
    frame, board = scene
    plain = ColourMemory({name: (float(r), float(g), float(b))
                          for name, (r, g, b) in block_pt.pt_model(KIT).parts.items()})
    seen = block_pt.observe(frame, board, plain)
    assert seen.cells["b2"].label == "cream-tile"
    assert not np.array_equal(plain.lab("mat"), plain.nominal["mat"])


def test_a_scene_of_another_game_is_refused(scene: tuple[Scene, dict[str, Any]]) -> None:
    frame, board = scene
    with pytest.raises(ObserveError, match="block-arena"):
        block_arena.observe(frame, board)


@pytest.mark.slow
def test_a_longer_sweep_stays_above_99_percent() -> None:
    every = [sight for index, preset in enumerate(PRESETS)
             for sight in read_sights(block_pt, GAME, None, preset, 200 + index, 8, lambda: block_pt.new_memory(KIT))]
    assert accuracy(every) >= 0.99, wrong(every)
    assert confidently_wrong(every) == []
