"""Tests for vision/sight.py: what the camera can see of a game, and what the referee says of it."""

from __future__ import annotations

import random

import pytest

from rules import get_game
from vision.observation import Observation
from vision.sight import (
    invisible_moves,
    move_touches,
    physical_moves,
    referee_reason,
    view_of,
    visible_moves,
)

GAMES = ["block-arena", "block-pt", "tuned", "blockade", "block-block"]


@pytest.mark.parametrize("name", GAMES)
def test_the_seen_and_unseen_moves_split_the_legal_moves(name: str) -> None:
    game = get_game(name)
    rng = random.Random(5)
    state = game.initial_state()
    for _ in range(6):
        legal = [str(move) for move in game.legal_moves(state)]
        if not legal:
            break
        seen, unseen = visible_moves(game, state), invisible_moves(game, state)
        assert sorted(seen + unseen) == sorted(legal) and not set(seen) & set(unseen)
        assert all(view_of(game, game.apply(state, move)) == view_of(game, state) for move in unseen)
        state = game.apply(state, rng.choice(legal))


def test_a_move_touches_the_squares_it_leaves_and_reaches() -> None:
    game = get_game("blockade")
    state = game.play_all(["roll:b4g6"])
    assert move_touches(game, game.parse("d3-d4")) == {"d3", "d4"}
    assert view_of(game, game.apply(state, "d3-c3"))["c3"] != view_of(game, state)["c3"]


def test_the_referee_gives_a_reason_only_for_an_illegal_sequence() -> None:
    game = get_game("blockade")
    state = game.initial_state()
    assert referee_reason(game, state, ["roll:b4g6", "d3-d4"]) is None
    assert referee_reason(game, state, ["d3-d4"])  # the dice were not rolled
    assert referee_reason(game, state, ["not a move"])


def test_a_seen_change_is_written_as_the_physical_move_it_suggests() -> None:
    game = get_game("blockade")
    state = game.play_all(["roll:b4g6"])
    after = view_of(game, game.apply(state, "d3-c3"))
    seen = Observation.certain("blockade", after)
    assert physical_moves(game, state, seen, ["c3", "d3"]) == ("d3-c3",)
    assert physical_moves(game, state, Observation.certain("blockade", view_of(game, state)), ["c3"]) == ()
