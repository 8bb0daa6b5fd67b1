"""Tests of BLOCK.BLOCK's pixel observer on rendered frames of seeded games, through the real still
path (BoardTracker, locate_camera, prepare), with each of the renderer's five presets."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import numpy as np
import pytest

from rules.registry import get_game
from tests.vision.observe.stack_scenes import (
    KIT, Camera, Read, accuracy, confidently_wrong, read_frames, wrong,
)
from vision.expect import expected_view
from vision.infer import Reading, read_change
from vision.observation import EMPTY, CellSeen, is_label
from vision.observe import block_block
from vision.observe.block_block_looks import Looks
from vision.observe.block_block_place import Placing
from vision.observe.block_block_search import Column
from vision.observe.colours import ColourMemory
from vision.observe.context import ObserveError, Scene
from vision.render.record import PRESETS

GAME = get_game("block-block")
FRAMES = 4
SEED = 21


@pytest.fixture(scope="module")
def reads() -> dict[str, list[Read]]:
    """Returns each preset's frames of one seeded game, read with one memory per preset."""
    return {preset: read_frames(block_block, "block-block", preset, SEED + index, FRAMES,
                                lambda: block_block.new_memory(KIT))
            for index, preset in enumerate(PRESETS)}


def test_labels_match_the_expected_view_on_99_percent_of_cells(reads: dict[str, list[Read]]) -> None:
    every = [read for frames in reads.values() for read in frames]
    report = {preset: round(accuracy(frames), 4) for preset, frames in reads.items()}
    print("block-block accuracy per preset:", report)
    assert accuracy(every) >= 0.99, (report, wrong(every))


def test_no_cell_is_confidently_wrong(reads: dict[str, list[Read]]) -> None:
    every = [read for frames in reads.values() for read in frames]
    assert confidently_wrong(every) == []


def test_clear_cells_are_read_with_high_confidence(reads: dict[str, list[Read]]) -> None:
    confidences = [cell.confidence for frames in reads.values() for read in frames
                   for square, cell in read.seen.cells.items() if cell.label == read.truth[square]]
    assert float(np.median(confidences)) >= 0.95


def test_every_cell_lists_probabilities_of_its_vocabulary(reads: dict[str, list[Read]]) -> None:
    seen = reads["neutral"][-1].seen
    assert set(seen.cells) == set(expected_view("block-block", GAME.board(GAME.initial_state())))
    for cell in seen.cells.values():
        assert 0.0 < sum(cell.probs.values()) <= 1.0 + 1e-6
        assert all(is_label("block-block", label) for label in cell.probs)
        assert cell.probability(cell.label) == cell.confidence


def test_the_cells_a_move_changed_are_seen(reads: dict[str, list[Read]]) -> None:
    changed = [(read.truth[square], cell.label) for frames in reads.values() for read in frames
               for square, cell in read.seen.cells.items() if read.truth[square] != read.current[square]]
    assert changed and sum(truth == label for truth, label in changed) >= 0.9 * len(changed)


def visible_moves(state: Any) -> list[str]:
    """Returns the legal moves whose view no other legal move shares."""
    views: dict[str, list[str]] = {}
    for move in GAME.legal(state):
        key = repr(sorted(expected_view("block-block", GAME.board(GAME.apply(state, move))).items()))
        views.setdefault(key, []).append(move)
    return sorted(moves[0] for moves in views.values() if len(moves) == 1)


def read_moves(preset: str, seed: int, count: int) -> list[tuple[str, Reading]]:
    """Returns each of a few seeded moves (each with a view of its own) and how it was read."""
    camera, rng = Camera("block-block", preset, seed), random.Random(seed)
    state, memory, found = GAME.initial_state(), block_block.new_memory(KIT), []
    for _ in range(count):
        move = rng.choice(visible_moves(state))
        after = GAME.apply(state, move)
        seen = block_block.observe(camera.scene(after), GAME.board(state), memory)
        found.append((move, read_change(GAME, state, seen)))
        state = after
    return found


def test_the_inference_reads_the_true_moves() -> None:
    readings = [item for preset, seed in (("neutral", 3), ("high-cool", 4), ("dim-noisy", 5))
                for item in read_moves(preset, seed, 3)]
    for move, reading in readings:  # a doubtful reading must still offer the true move
        assert reading.moves == (move,) or (reading.kind == "ambiguous" and (move,) in reading.candidates), \
            reading.message()
    assert sum(reading.kind == "move" for _, reading in readings) >= len(readings) - 2


def refuse(name: str) -> Any:
    """Returns a stand-in that fails if called."""
    def refused(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError(f"{name} was called")
    return refused


def only_on(scene: Scene, function: Any) -> Any:
    """Returns a stand-in for a function of a scene that fails on any other scene."""
    def checked(seen: Scene, *args: Any) -> Any:
        assert seen is scene, "the last still frame was sampled again"
        return function(seen, *args)
    return checked


def test_an_anticipated_position_is_read_as_without_and_casts_and_samples_no_ray_again(monkeypatch: pytest.MonkeyPatch) -> None:
    camera, rng = Camera("block-block", "high-cool", 6), random.Random(6)
    state, plain, warmed = GAME.initial_state(), block_block.new_memory(KIT), block_block.new_memory(KIT)
    still = camera.scene(state)
    block_block.observe(still, GAME.board(state), plain)
    block_block.observe(still, GAME.board(state), warmed)
    anticipated = 0
    for _ in range(10):
        move = rng.choice(visible_moves(state))
        scene = camera.scene(GAME.apply(state, move))
        expected = block_block.observe(scene, GAME.board(state), plain)
        with monkeypatch.context() as patch:
            if block_block.anticipate(still, GAME.board(state), warmed):
                anticipated += 1
                patch.setattr(block_block, "fit", refuse("fit"))
                patch.setattr(block_block, "cast", refuse("cast"))
                patch.setattr(block_block, "plain_ground", refuse("plain_ground"))
                patch.setattr(block_block, "surfaces", refuse("surfaces"))
                patch.setattr(block_block, "ray_colours", only_on(scene, block_block.ray_colours))
            seen = block_block.observe(scene, GAME.board(state), warmed)
        assert seen.cells == expected.cells
        state, still = GAME.apply(state, move), scene
    assert anticipated >= 3


def test_only_the_last_still_frame_read_with_a_place_not_due_is_anticipated() -> None:
    camera = Camera("block-block", "neutral", 2)
    empty = GAME.initial_state()
    placed = GAME.apply(empty, "bar2:c3.0c3.1")
    memory = block_block.new_memory(KIT)
    first, second = camera.scene(empty), camera.scene(placed)
    assert not block_block.anticipate(first, GAME.board(empty), memory)  # nothing read yet
    block_block.observe(first, GAME.board(empty), memory)
    assert not block_block.anticipate(first, GAME.board(placed), memory)  # no place fitted: due now
    block_block.observe(second, GAME.board(placed), memory)
    assert memory.placing is not None and memory.place_cubes == 2
    assert not block_block.anticipate(first, GAME.board(placed), memory)  # not the last frame read
    assert block_block.anticipate(second, GAME.board(placed), memory)
    memory.placing = replace(memory.placing, doubt=block_block.SURE_DOUBT * 2)
    assert not block_block.anticipate(second, GAME.board(GAME.apply(placed, "ell:a1.0b1.0b1.1")), memory)


def test_an_empty_board_reads_empty_without_a_memory() -> None:
    camera = Camera("block-block", "neutral", 1)
    state = GAME.initial_state()
    seen = block_block.observe(camera.scene(state), GAME.board(state))
    assert set(seen.labels().values()) == {EMPTY}
    assert min(cell.confidence for cell in seen.cells.values()) > 0.95


def test_a_first_block_is_read_without_a_memory() -> None:
    camera = Camera("block-block", "high-cool", 2)
    state = GAME.apply(GAME.initial_state(), "bar2:c3.0c3.1")
    seen = block_block.observe(camera.scene(state), GAME.board(GAME.initial_state()))
    assert seen.labels() == expected_view("block-block", GAME.board(state))


def test_bad_input_raises_one_clear_error_and_leaves_the_memory_alone() -> None:
    camera = Camera("block-block", "neutral", 2)
    state = GAME.initial_state()
    scene, memory = camera.scene(state), block_block.new_memory(KIT)
    before = {name: memory.lab(name).copy() for name in memory.names}
    with pytest.raises(ObserveError, match="position"):
        block_block.observe(scene, {"size": 5, "cells": {"a1": [{"kind": "horse"}]}, "off": {}}, memory)
    with pytest.raises(ObserveError, match="5x5"):
        block_block.observe(scene, {"size": 3, "cells": {}, "off": {}}, memory)
    with pytest.raises(ObserveError, match="memory"):
        block_block.observe(scene, GAME.board(state), object())  # type: ignore[arg-type]
    with pytest.raises(ObserveError, match="new_memory"):
        block_block.observe(scene, GAME.board(state), ColourMemory({"mat": KIT.mat_rgb}))
    with pytest.raises(ObserveError, match="Scene"):
        block_block.observe("frame", GAME.board(state), memory)  # type: ignore[arg-type]
    assert all(np.array_equal(memory.lab(name), before[name]) for name in memory.names)
    assert memory.placing is None and not memory.geometry and memory.last is None


def test_blind_rays_score_every_surface_alike_and_the_others_keep_theirs() -> None:
    rng = np.random.default_rng(3)
    looks = Looks(rng.normal(size=6), rng.normal(size=(3, 6)), rng.normal(size=(3, 6)),
                  rng.normal(size=6), np.zeros(6, np.int64))
    seen = block_block.blind(looks, np.array([1, 4]))
    assert np.all(seen.ground[[1, 4]] == 0.0) and np.all(seen.top[:, [1, 4]] == 0.0)
    assert np.all(seen.side[:, [1, 4]] == 0.0)
    kept = [0, 2, 3, 5]
    assert np.array_equal(seen.ground[kept], looks.ground[kept])
    assert np.array_equal(seen.top[:, kept], looks.top[:, kept]) and seen.same is looks.same
    assert not np.all(looks.ground[[1, 4]] == 0.0)  # the looks given are left alone


def test_a_doubtful_place_is_fitted_again_at_every_cube_added() -> None:
    memory = block_block.new_memory(KIT)
    memory.place_cubes = 6
    assert block_block.refit_cubes(memory, Placing(0.0, (0.0, 0.0), block_block.SURE_DOUBT * 2)) == 7
    assert block_block.refit_cubes(memory, Placing(0.0, (0.0, 0.0), block_block.SURE_DOUBT / 2)) == 9


def test_a_tuned_scene_is_refused() -> None:
    camera = Camera("tuned", "neutral", 1)
    with pytest.raises(ObserveError, match="block-block"):
        block_block.observe(camera.scene(get_game("tuned").initial_state()),
                            GAME.board(GAME.initial_state()))


@pytest.mark.slow
def test_a_longer_sweep_keeps_99_percent() -> None:
    sweeps = {preset: read_frames(block_block, "block-block", preset, 100 + index, 12,
                                  lambda: block_block.new_memory(KIT))
              for index, preset in enumerate(PRESETS)}
    print("block-block sweep accuracy per preset:",
          {preset: round(accuracy(frames), 4) for preset, frames in sweeps.items()})
    every = [read for frames in sweeps.values() for read in frames]
    assert accuracy(every) >= 0.99, wrong(every)
    assert confidently_wrong(every) == []


def test_the_half_is_due_only_once_white_holds_one_block_or_none() -> None:
    start = GAME.board(GAME.initial_state())
    assert not block_block.half_due(start)
    hands = start["off"]["hand"]
    last = {**start, "off": {"hand": {"1": hands["1"], "2": {**{shape: 0 for shape in hands["2"]}, "ess": 1}}}}
    assert block_block.half_due(last)
    placed = {**last, "off": {"hand": {"1": {**hands["1"], "half": 0}, "2": last["off"]["hand"]["2"]}}}
    assert not block_block.half_due(placed)  # the half is down already
    assert block_block.half_due({"size": 5, "cells": {}})  # no hands: it may


# -- a reading at the highest height searched ---------------------------------------------------


def test_a_column_read_at_the_highest_height_searched_may_be_taller() -> None:
    # Two placements on one column between two readings (the first a question left unanswered)
    # rose it six cubes; searched to four, it read four for sure, and a bar2 and an upright bar3
    # were taken for the true ell and upright bar4 (random-look BLOCK.BLOCK seed 414).
    read = CellSeen.from_probs({"brown@4": 0.6, "brown@3": 0.4})
    seen = block_block.censored(read, Column(0, EMPTY))
    ahead = block_block.LEVELS_AHEAD
    taller = [seen.probability(f"brown@{h}") for h in range(5, 5 + ahead)]
    assert seen.label == "brown@4" and taller == [seen.probability("brown@4")] * ahead
    assert seen.probability("brown@4") / seen.probability("brown@3") == pytest.approx(1.5)  # odds kept
    assert sum(seen.probs.values()) == pytest.approx(1.0) and seen.probability(f"brown@{5 + ahead}") == 0.0


def test_a_column_read_below_the_highest_height_searched_is_left_as_read() -> None:
    read = CellSeen.from_probs({"white@5": 0.7, "white@4": 0.3})
    assert block_block.censored(read, Column(2, "white")) is read
