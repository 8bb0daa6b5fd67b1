"""The conformance suite every registered game must pass: seeded random playouts."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest

from rules.core import OUTCOME_REASONS, Game, IllegalMoveError


def check_legal_list(game: Game[Any, Any], state: Any) -> list[str]:
    """Checks that the legal list is sorted, unique, canonical and round-trips; returns it."""
    legal = game.legal(state)
    assert legal == sorted(set(legal)), "legal moves must be sorted and unique"
    for text in legal:
        move = game.parse(text)
        assert str(move) == text, f"{text!r} is not canonical"
        assert game.parse(str(move)) == move
    return legal


def check_data(game: Game[Any, Any], state: Any) -> None:
    """Checks that scores, counters and outcome are JSON-ready data within range."""
    json.dumps(game.summary(state))
    counters = game.counters(state)
    assert set(counters) <= {"1", "2"}
    assert all(isinstance(v, int) and v >= 0 for v in counters.values())
    outcome = game.outcome(state)
    if outcome is not None:
        assert outcome.winner in (1, 2, None)
        assert outcome.reason in OUTCOME_REASONS
        assert game.to_move(state) is None
        assert game.legal(state) == []
    else:
        assert game.to_move(state) in (1, 2)


def check_apply(game: Game[Any, Any], state: Any, text: str) -> Any:
    """Applies a legal move, checking the input is unchanged and the ply advances."""
    before = copy.deepcopy(state)
    after = game.apply(state, text)
    assert state == before, "apply must not mutate its input"
    assert game.ply(after) == game.ply(state) + 1
    return after


def check_counters_grow(game: Game[Any, Any], state: Any, after: Any) -> None:
    """Checks that no player's counter ever goes down."""
    old, new = game.counters(state), game.counters(after)
    for player, value in old.items():
        assert new[player] >= value


def check_rejects(game: Game[Any, Any], state: Any, stale: list[str]) -> None:
    """Checks that moves legal before but not now raise IllegalMoveError with a reason."""
    legal = set(game.legal(state))
    for text in stale[:10]:
        if text in legal:
            continue
        with pytest.raises(IllegalMoveError) as caught:
            game.apply(state, text)
        assert caught.value.reason


def random_playout(game: Game[Any, Any], seed: int, sample: int = 8) -> Any:
    """Plays one seeded random game to its end, checking every invariant on the way."""
    rng = random.Random(seed)
    state = game.initial_state()
    previous: list[str] = []
    for _ in range(game.max_plies() + 1):
        check_data(game, state)
        legal = check_legal_list(game, state)
        check_rejects(game, state, previous)
        if game.outcome(state) is not None:
            for text in previous[:5]:
                with pytest.raises(IllegalMoveError):
                    game.apply(state, text)
            return state
        assert legal, "a game that is not over must have a legal move"
        for text in rng.sample(legal, min(sample, len(legal))):
            check_apply(game, state, text)
        after = check_apply(game, state, rng.choice(legal))
        check_counters_grow(game, state, after)
        previous, state = legal, after
    raise AssertionError(f"{game!r} did not end within max_plies={game.max_plies()}")
