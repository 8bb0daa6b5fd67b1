"""Tests of anticipating a position (vision.observe.reading.anticipate) with Block Arena's
observer on rendered frames: the next still frame reads the same, with nothing predicted anew."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from tests.vision.observe.block_scenes import VariantCamera
from tests.vision.observe.stack_scenes import KIT
from tests.vision.test_pose import view_of
from vision.observe import block_arena
from vision.observe.colours import ColourMemory
from vision.observe.context import Scene
from vision.observe.reading import START_GAIN, chosen_start, per_fix, pinned_place
from vision.observe.synthesis import Synthesis
from vision.render.camera import CameraSpec

OPENING = ["+a1", "+a9b9", "+c1d1", "+e9", "+f1", "+g9"]
PLIES = 2  # moves played after the opening


@pytest.fixture(scope="module")
def scenes() -> list[tuple[Scene, dict[str, Any]]]:
    """Returns the prepared still frames of an opening and of the next positions, with the positions."""
    camera = VariantCamera("block-arena", "9x9", "neutral", 2)
    states = [camera.game.play_all(OPENING)]
    for move in ("+h1i1", "+h9")[:PLIES]:
        states.append(camera.game.apply(states[-1], move))
    return [(camera.scene(state), camera.game.board(state)) for state in states]


def forbid_prediction(monkeypatch: pytest.MonkeyPatch) -> None:
    """Makes building or predicting any geometry fail."""
    def refuse(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("a geometry was predicted")

    monkeypatch.setattr(Synthesis, "build", refuse)
    monkeypatch.setattr(Synthesis, "predict", refuse)


def test_an_anticipated_position_reads_the_same_without_predicting(scenes: list[tuple[Scene, dict[str, Any]]],
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    plain, warmed = block_arena.new_memory(KIT), block_arena.new_memory(KIT)
    first_scene, first_board = scenes[0]
    block_arena.observe(first_scene, first_board, plain)
    block_arena.observe(first_scene, first_board, warmed)
    for (before, _), (scene, board) in zip(scenes, scenes[1:]):
        expected = block_arena.observe(scene, board, plain)
        assert block_arena.anticipate(before, board, warmed)
        with monkeypatch.context() as patch:
            forbid_prediction(patch)
            seen = block_arena.observe(scene, board, warmed)
        assert seen.cells == expected.cells


def test_nothing_is_anticipated_without_a_kept_camera_place(scenes: list[tuple[Scene, dict[str, Any]]]) -> None:
    memory = block_arena.new_memory(KIT)
    assert not block_arena.anticipate(scenes[0][0], scenes[1][1], memory)
    assert memory.geometries == {}


def test_nothing_is_anticipated_once_the_pieces_have_doubled(scenes: list[tuple[Scene, dict[str, Any]]]) -> None:
    memory = block_arena.new_memory(KIT)
    block_arena.observe(*scenes[0], memory)
    board = scenes[0][1]
    upright = board["cells"]["a1"]
    doubled = {**board, "cells": {**board["cells"], **{f"{file}{rank}": upright for file in "bcdefgh" for rank in (4, 6)}}}
    kept = dict(memory.geometries)
    assert not block_arena.anticipate(scenes[0][0], doubled, memory)
    assert memory.geometries.keys() == kept.keys()


def fix(homography: np.ndarray) -> Scene:
    """Returns a stand-in scene holding only a board fix's homography (all per_fix reads)."""
    return SimpleNamespace(view=SimpleNamespace(homography=homography))  # type: ignore[return-value]


def test_a_value_kept_per_board_fix_is_computed_once_per_fix() -> None:
    memory = block_arena.new_memory(KIT)
    calls: list[int] = []

    def compute() -> int:
        calls.append(1)
        return len(calls)

    assert per_fix(fix(np.eye(3)), memory, "registered", compute) == 1
    assert per_fix(fix(np.eye(3)), memory, "registered", compute) == 1 and len(calls) == 1
    assert per_fix(fix(1.001 * np.eye(3)), memory, "registered", compute) == 2  # the camera was bumped
    assert per_fix(fix(np.eye(3)), ColourMemory({"mat": (200, 200, 200)}), "registered", compute) == 3  # a memory that keeps nothing


def test_a_value_of_none_kept_per_board_fix_is_computed_once_too() -> None:
    memory = block_arena.new_memory(KIT)
    calls: list[int] = []
    assert per_fix(fix(np.eye(3)), memory, "pinned", lambda: calls.append(1)) is None
    assert per_fix(fix(np.eye(3)), memory, "pinned", lambda: calls.append(1)) is None and len(calls) == 1


def test_a_leaning_camera_pins_its_place_down_and_one_straight_down_does_not() -> None:
    leaning = CameraSpec(height_mm=540, tilt_deg=15, azimuth_deg=100, roll_deg=-10, hfov_deg=62.0, size=(640, 480))
    view, camera = view_of(leaning, 0.2, 1)
    place = pinned_place(view)
    assert place is not None and np.allclose(place.centre, camera.centre, atol=8.0)  # type: ignore[attr-defined]
    assert pinned_place(view_of(leaning, 3.0, 1)[0]) is None  # corners too far off to tell the focal length
    assert pinned_place(view_of(CameraSpec(height_mm=650, tilt_deg=0.0, hfov_deg=54.0))[0]) is None


def test_another_start_is_taken_only_when_the_pieces_prefer_it_clearly() -> None:
    first, lower, higher = np.array([108.0, 179.0, 661.0]), np.array([110.0, 152.0, 502.0]), np.array([108.0, 184.0, 683.0])
    centre, cost = chosen_start([first, lower, higher], [2300.0, 2270.0, 2301.0])  # 30 nats: a sharp shadow's worth
    assert centre is first and cost == 2300.0
    centre, cost = chosen_start([first, lower, higher], [2300.0, 2300.0 - START_GAIN - 1.0, 2301.0])
    assert centre is lower and cost == 2300.0 - START_GAIN - 1.0
