"""Tests of Tuned's pixel observer on rendered frames of seeded games, through the real still
path (BoardTracker, locate_camera, prepare), with each of the renderer's five presets."""

from __future__ import annotations

import random
from dataclasses import replace
from functools import partial
from typing import Any

import numpy as np
import pytest

from rules.registry import get_game
from tests.vision.observe.block_scenes import VariantCamera
from tests.vision.observe.stack_scenes import (
    KIT, Camera, Read, accuracy, confidently_wrong, read_frames, wrong,
)
from vision.expect import expected_view
from vision.infer import read_change
from vision.observation import EMPTY
from vision.observe import stacks, tuned
from vision.observe.colours import ColourMemory
from vision.observe.context import ObserveError
from vision.observe.stacks import observe_stacks, patch_for, sampling_for
from vision.render.record import PRESETS

GAME = get_game("tuned")
FRAMES = 4
SEED = 11


@pytest.fixture(scope="module")
def reads() -> dict[str, list[Read]]:
    """Returns each preset's frames of one seeded game, read with one memory per preset."""
    return {preset: read_frames(tuned, "tuned", preset, SEED + index, FRAMES, lambda: tuned.new_memory(KIT))
            for index, preset in enumerate(PRESETS)}


def test_labels_match_the_expected_view_on_99_percent_of_cells(reads: dict[str, list[Read]]) -> None:
    every = [read for frames in reads.values() for read in frames]
    report = {preset: round(accuracy(frames), 4) for preset, frames in reads.items()}
    print("tuned accuracy per preset:", report)
    assert accuracy(every) >= 0.99, (report, wrong(every))


def test_no_cell_is_confidently_wrong(reads: dict[str, list[Read]]) -> None:
    every = [read for frames in reads.values() for read in frames]
    assert confidently_wrong(every) == []


def test_clear_cells_are_read_with_high_confidence(reads: dict[str, list[Read]]) -> None:
    confidences = [cell.confidence for frames in reads.values() for read in frames
                   for square, cell in read.seen.cells.items() if cell.label == read.truth[square]]
    assert float(np.median(confidences)) >= 0.95


def test_every_cell_lists_probabilities_of_its_vocabulary(reads: dict[str, list[Read]]) -> None:
    seen = reads["neutral"][0].seen
    assert set(seen.cells) == set(expected_view("tuned", GAME.board(GAME.initial_state())))
    for cell in seen.cells.values():
        assert 0.0 < sum(cell.probs.values()) <= 1.0 + 1e-6
        assert cell.probability(cell.label) == cell.confidence


def visible_moves(state: Any) -> list[str]:
    """Returns the legal moves whose view no other legal move shares."""
    views: dict[str, list[str]] = {}
    for move in GAME.legal(state):
        key = repr(sorted(expected_view("tuned", GAME.board(GAME.apply(state, move))).items()))
        views.setdefault(key, []).append(move)
    return sorted(moves[0] for moves in views.values() if len(moves) == 1)


@pytest.mark.parametrize("preset, seed", [("neutral", 3), ("low-warm-tilted", 4), ("bright-sharp", 5)])
def test_the_inference_reads_the_true_move(preset: str, seed: int) -> None:
    camera, rng = Camera("tuned", preset, seed), random.Random(seed)
    state, memory = GAME.initial_state(), tuned.new_memory(KIT)
    for _ in range(3):
        move = rng.choice(visible_moves(state))
        after = GAME.apply(state, move)
        seen = tuned.observe(camera.scene(after), GAME.board(state), memory)
        reading = read_change(GAME, state, seen)
        assert (reading.kind, reading.moves) == ("move", (move,)), reading.message()
        state = after


def readings_with(scene: Any, board: dict[str, Any], near: tuned.Crossing | None) -> dict[str, dict[str, float]]:
    """Returns every cell's probabilities with only some squares' stacks as its neighbours (all: None)."""
    game = replace(tuned.TUNED, plan=partial(tuned._plan, near=near), key=partial(tuned._key, near=near))
    seen = observe_stacks(game, scene, board, tuned.new_memory(KIT), tuned.new_memory, None)
    return {square: dict(cell.probs) for square, cell in seen.cells.items()}


def test_leaving_out_the_stacks_that_cannot_stand_in_a_cells_rays_changes_no_reading() -> None:
    tall, cat, dog = [{"kind": kind} for kind in ("donkey", "dog", "cat")], [{"kind": "cat"}], [{"kind": "dog"}]
    board = {"size": 3, "cells": {"a1": tall, "a2": cat, "b1": cat, "b2": tall, "c3": dog}, "off": {}}
    scene = VariantCamera("tuned", None, "dim-noisy", 6).board_scene(board)  # one where the stacks matter
    near, blind = tuned.Crossing(scene, None), tuned.Crossing(scene, None)
    blind.found = {square: () for square in scene.squares()}
    every = readings_with(scene, board, None)
    assert readings_with(scene, board, near) == every
    assert sum(len(near[square]) for square in scene.squares()) < len(scene.squares()) * (len(scene.squares()) - 1)
    assert readings_with(scene, board, blind) != every  # the stacks that may stand in the rays do matter


def test_samples_read_through_the_kept_sampling_are_those_read_afresh() -> None:
    tall = [{"kind": kind} for kind in ("donkey", "dog")]
    board = {"size": 3, "cells": {"b2": tall, "c1": tall[:1]}, "off": {}}
    scene = VariantCamera("tuned", None, "high-cool", 7).board_scene(board)
    memory = tuned.new_memory(KIT)
    sampled = sampling_for(tuned.TUNED, scene, memory)
    assert sampling_for(tuned.TUNED, scene, memory) is sampled  # kept for the camera
    points = np.vstack([patch_for(scene, square, tuned.TUNED).points for square in scene.squares()])
    fresh = scene.sample(np.column_stack([points, np.zeros(len(points))]))
    assert np.array_equal(scene.lab_tapped(sampled.taps), fresh)
    assert np.array_equal(sampled.patches["b2"].points, patch_for(scene, "b2", tuned.TUNED).points)


def test_an_anticipated_position_reads_the_same_without_building_geometry(monkeypatch: pytest.MonkeyPatch) -> None:
    camera = VariantCamera("tuned", None, "low-warm-tilted", 8)
    states, rng = [GAME.initial_state()], random.Random(8)
    for _ in range(3):
        states.append(GAME.apply(states[-1], rng.choice(GAME.legal(states[-1]))))
    scenes = [(camera.scene(state), GAME.board(state)) for state in states]
    plain, warmed = tuned.new_memory(KIT), tuned.new_memory(KIT)
    tuned.observe(*scenes[0], plain)
    tuned.observe(*scenes[0], warmed)
    for (before, _), (scene, board) in zip(scenes, scenes[1:]):
        expected = tuned.observe(scene, board, plain)
        assert tuned.anticipate(before, board, warmed)
        with monkeypatch.context() as patch:
            patch.setattr(stacks, "build_models", partial(no_models_built, stacks.build_models))
            seen = tuned.observe(scene, board, warmed)
        assert seen.cells == expected.cells


def no_models_built(build: Any, plans: Any, *args: Any) -> Any:
    """Builds cells' geometry as the engine does, failing if any cell needs building."""
    assert not plans, f"{len(plans)} cells were built anew"
    return build(plans, *args)


def test_nothing_is_anticipated_without_a_memory_that_keeps_geometry() -> None:
    scene = Camera("tuned", "neutral", 1).scene(GAME.initial_state())
    assert not tuned.anticipate(scene, GAME.board(GAME.initial_state()), ColourMemory({"mat": (90.0, 0.0, 0.0)}))


def test_an_empty_board_reads_empty_without_a_memory() -> None:
    camera = Camera("tuned", "neutral", 1)
    state = GAME.initial_state()
    seen = tuned.observe(camera.scene(state), GAME.board(state))
    assert set(seen.labels().values()) == {EMPTY}


def test_bad_input_raises_one_clear_error_and_leaves_the_memory_alone() -> None:
    camera = Camera("tuned", "neutral", 2)
    state = GAME.initial_state()
    scene, memory = camera.scene(state), tuned.new_memory(KIT)
    before = {name: memory.lab(name).copy() for name in memory.names}
    with pytest.raises(ObserveError, match="position"):
        tuned.observe(scene, {"size": 3, "cells": {"a1": [{"kind": "horse"}]}, "off": {}}, memory)
    with pytest.raises(ObserveError, match="5x5"):
        tuned.observe(scene, {"size": 5, "cells": {}, "off": {}}, memory)
    with pytest.raises(ObserveError, match="memory"):
        tuned.observe(scene, GAME.board(state), object())  # type: ignore[arg-type]
    with pytest.raises(ObserveError, match="Scene"):
        tuned.observe("frame", GAME.board(state), memory)  # type: ignore[arg-type]
    assert all(np.array_equal(memory.lab(name), before[name]) for name in memory.names)


def test_a_blockade_scene_is_refused() -> None:
    camera = Camera("blockade", "neutral", 1)
    blockade = get_game("blockade")
    with pytest.raises(ObserveError, match="tuned"):
        tuned.observe(camera.scene(blockade.initial_state()), GAME.board(GAME.initial_state()))


@pytest.mark.slow
def test_a_longer_sweep_keeps_99_percent() -> None:
    every = [read for index, preset in enumerate(PRESETS)
             for read in read_frames(tuned, "tuned", preset, 100 + index, 12, lambda: tuned.new_memory(KIT))]
    assert accuracy(every) >= 0.99, wrong(every)
    assert confidently_wrong(every) == []
