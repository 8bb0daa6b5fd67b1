"""Tests of Blockade's pixel observer on rendered frames of seeded games, through the real still
path (BoardTracker, locate_camera, prepare), with each of the renderer's five presets.

A piece nested on one of its own colour looks, from above, like the piece below it alone: where
the move changed a cell only that way (a red Small leaving a red Large), the camera cannot tell,
and the observer reads the current label, doubtfully. Accuracy is asserted on the cells the
camera can tell (99%), and overall it is reported and bounded."""

from __future__ import annotations

import random
from typing import Any

import pytest

from rules.registry import get_game
from tests.vision.observe.stack_scenes import (
    KIT, Camera, Read, accuracy, confidently_wrong, read_frames, wrong,
)
from vision.expect import expected_view
from vision.infer import read_change
from vision.observe import blockade
from vision.observe.context import ObserveError
from vision.render.record import PRESETS

GAME = get_game("blockade")
FRAMES = 3
SEED = 21


@pytest.fixture(scope="module")
def reads() -> dict[str, list[Read]]:
    """Returns each preset's frames of one seeded game, read with one memory per preset."""
    return {preset: read_frames(blockade, "blockade", preset, SEED + index, FRAMES,
                                lambda: blockade.new_memory(KIT))
            for index, preset in enumerate(PRESETS)}


def look_alike(read: Read, square: str) -> bool:
    """Tells whether a cell changed in a way no camera above can see (same look, other label)."""
    current, truth = read.current[square], read.truth[square]
    return current != truth and blockade.label_look(current) == blockade.label_look(truth)


def telling(reads: list[Read]) -> list[tuple[str, str, str]]:
    """Returns the misread cells among those whose change (if any) the camera can see."""
    return [(square, read.truth[square], cell.label) for read in reads
            for square, cell in read.seen.cells.items()
            if cell.label != read.truth[square] and not look_alike(read, square)]


def telling_accuracy(reads: list[Read]) -> float:
    """Returns the share of the cells the camera can tell that were read right."""
    cells = sum(not look_alike(read, square) for read in reads for square in read.truth)
    return 1 - len(telling(reads)) / cells


def test_cells_the_camera_can_tell_match_the_expected_view(reads: dict[str, list[Read]]) -> None:
    every = [read for frames in reads.values() for read in frames]
    report = {preset: (round(accuracy(frames), 4), round(telling_accuracy(frames), 4))
              for preset, frames in reads.items()}
    print("blockade accuracy per preset (all cells, cells the camera can tell):", report)
    assert telling_accuracy(every) >= 0.99, (report, telling(every))
    assert accuracy(every) >= 0.95, wrong(every)


def test_look_alike_changes_read_the_current_label_doubtfully(reads: dict[str, list[Read]]) -> None:
    cells = [(read, square) for frames in reads.values() for read in frames
             for square in read.truth if look_alike(read, square)]
    for read, square in cells:
        cell = read.seen.cells[square]
        assert cell.label == read.current[square] and cell.confidence <= 0.9
        assert cell.probability(read.truth[square]) > 0.0


def test_no_cell_is_confidently_wrong(reads: dict[str, list[Read]]) -> None:
    every = [read for frames in reads.values() for read in frames]
    assert confidently_wrong(every) == []


def test_the_clear_large_reads_as_itself(reads: dict[str, list[Read]]) -> None:
    for frames in reads.values():
        cell = frames[0].seen.cells["c3"]
        if frames[0].truth["c3"] == "clear-L":
            assert cell.label == "clear-L" and cell.confidence >= 0.9


def telling_moves(state: Any) -> list[str]:
    """Returns the piece moves every effect of which the camera sees, and no other move shares."""
    before = expected_view("blockade", GAME.board(state))
    views = {move: expected_view("blockade", GAME.board(GAME.apply(state, move)))
             for move in GAME.legal(state)}
    found = []
    for move, after in views.items():
        changed = [square for square in before if before[square] != after[square]]
        look = blockade.label_look
        seen = changed and all(look(before[square]) != look(after[square]) for square in changed)
        if seen and sum(view == after for view in views.values()) == 1:
            found.append(move)
    return sorted(found)


@pytest.mark.parametrize("preset, seed", [("neutral", 1), ("low-warm-tilted", 4), ("dim-noisy", 2)])
def test_the_inference_reads_the_true_move(preset: str, seed: int) -> None:
    camera, rng = Camera("blockade", preset, seed), random.Random(seed)
    state, memory, checked = GAME.initial_state(), blockade.new_memory(KIT), 0
    while checked < 2:
        moves = telling_moves(state)
        if moves:
            after = GAME.apply(state, moves[0])
            seen = blockade.observe(camera.scene(after), GAME.board(state), memory)
            reading = read_change(GAME, state, seen)
            assert (reading.kind, reading.moves) == ("move", (moves[0],)), reading.message()
            checked += 1
        state = GAME.apply(state, rng.choice(GAME.legal(state)))


def test_bad_input_raises_one_clear_error() -> None:
    camera = Camera("blockade", "neutral", 3)
    scene = camera.scene(GAME.initial_state())
    with pytest.raises(ObserveError, match="position"):
        blockade.observe(scene, {"size": 5, "cells": {"a1": [{"kind": "cube"}]}, "off": {}})
    with pytest.raises(ObserveError, match="3x3"):
        blockade.observe(scene, {"size": 3, "cells": {}, "off": {}})
    from vision.observe import tuned
    with pytest.raises(ObserveError, match="memory"):
        blockade.observe(scene, GAME.board(GAME.initial_state()), tuned.new_memory(KIT))


@pytest.mark.slow
def test_a_longer_sweep_keeps_the_telling_cells_right() -> None:
    every = [read for index, preset in enumerate(PRESETS)
             for read in read_frames(blockade, "blockade", preset, 200 + index, 8,
                                     lambda: blockade.new_memory(KIT))]
    assert telling_accuracy(every) >= 0.99, telling(every)
    assert confidently_wrong(every) == []
