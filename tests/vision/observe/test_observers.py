"""What every pixel observer answers to bad input, on a prepared frame of its game: a bad position
or another game's memory is refused with one clear ObserveError, and the memory given is left as
it was."""

from __future__ import annotations

import copy
import pickle
from dataclasses import dataclass
from typing import Any, Callable

import pytest

from pi.pipeline import OBSERVER_MODULES, Observer, observer_for
from rules.registry import get_game
from tests.vision.observe.block_scenes import VariantCamera
from tests.vision.observe.stack_scenes import KIT
from vision.observe.context import ObserveError, Scene

GAMES = list(OBSERVER_MODULES)
VARIANTS: dict[str, str | None] = {"block-arena": "9x9", "block-block": "default"}
BAD_POSITIONS: dict[str, Callable[[int], tuple[Any, str]]] = {  # each from the mat's size: the position, words
    "other size": lambda size: ({"size": size + 2, "cells": {}, "off": {}}, f"{size + 2}x{size + 2}"),
    "off the grid": lambda size: ({"size": size, "cells": {"z9": []}, "off": {}}, "z9"),
    "unknown piece": lambda size: ({"size": size, "cells": {"a1": [{"kind": "horse"}]}, "off": {}}, "a1"),
    "text": lambda size: ("a1", "position"),
    "nothing": lambda size: (None, "position"),
}


@dataclass(frozen=True)
class Watch:
    """A game's observer and a prepared neutral frame of the game's starting position."""

    game: str
    observe: Observer
    scene: Scene
    board: dict[str, Any]

    def memory(self) -> Any:
        """Returns a fresh memory of the game's observer."""
        return observer_for(self.game, KIT)[1]


@pytest.fixture(scope="module", params=GAMES)
def watch(request: pytest.FixtureRequest) -> Watch:
    """Returns each game's observer with its frame (rendered once per game)."""
    game, variant = request.param, VARIANTS.get(request.param)
    rules = get_game(game, variant)
    board = rules.board(rules.initial_state())
    scene = VariantCamera(game, variant, "neutral", 1).board_scene(board)
    return Watch(game, observer_for(game, KIT)[0], scene, board)


def state_of(memory: Any) -> bytes:
    """Returns everything a memory holds, as bytes to compare."""
    return pickle.dumps(memory)


@pytest.mark.parametrize("case", list(BAD_POSITIONS))
def test_a_bad_position_is_refused_and_the_memory_is_untouched(watch: Watch, case: str) -> None:
    board, words = BAD_POSITIONS[case](watch.board["size"])
    memory = watch.memory()
    before = state_of(memory)
    with pytest.raises(ObserveError, match=words):
        watch.observe(watch.scene, board, memory)
    assert state_of(memory) == before


@pytest.mark.parametrize("step", range(1, len(GAMES)))
def test_a_memory_of_another_game_is_refused(watch: Watch, step: int) -> None:
    memory = observer_for(GAMES[(GAMES.index(watch.game) + step) % len(GAMES)], KIT)[1]
    before = state_of(memory)
    with pytest.raises(ObserveError, match="memory"):
        watch.observe(watch.scene, watch.board, memory)
    assert state_of(memory) == before


def test_a_copy_of_a_used_memory_reads_alike_and_leaves_the_memory_as_it_was(watch: Watch) -> None:
    """The pipeline's second look at a still frame reads with a deep copy of the memory, under
    another position (here the one after the first legal move)."""
    rules = get_game(watch.game, VARIANTS.get(watch.game))
    start = rules.initial_state()
    other = rules.board(rules.apply(start, rules.legal(start)[0]))
    memory, twin = watch.memory(), watch.memory()
    first = watch.observe(watch.scene, watch.board, memory)
    assert watch.observe(watch.scene, watch.board, twin).cells == first.cells
    trial = copy.deepcopy(memory)
    assert watch.observe(watch.scene, watch.board, copy.deepcopy(memory)).cells == \
        watch.observe(watch.scene, watch.board, copy.deepcopy(twin)).cells
    watch.observe(watch.scene, other, trial)
    assert watch.observe(watch.scene, watch.board, memory).cells == watch.observe(watch.scene, watch.board, twin).cells
