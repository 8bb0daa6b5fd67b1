"""Property tests: no text makes any game's parser raise anything but InvalidMoveError."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules import all_games
from rules.core import Game, InvalidMoveError, RulesError

GAMES = all_games()
NOTATION = st.text(alphabet="abcdefghi0123456789+-:@./MNXYlrgbykwdonkeycatbarslabelteesshalfpassendoll", max_size=40)


def check_parse(game: Game[Any, Any], text: str) -> None:
    """Checks that parse either round-trips or raises InvalidMoveError."""
    try:
        move = game.parse(text)
    except InvalidMoveError:
        return
    assert str(move) == text
    assert game.parse(str(move)) == move


@pytest.mark.parametrize("game", GAMES, ids=lambda g: f"{g.name}-{g.variant}")
@settings(max_examples=300, deadline=None)
@given(text=st.text(max_size=60))
def test_any_text(game: Game[Any, Any], text: str) -> None:
    check_parse(game, text)


@pytest.mark.parametrize("game", GAMES, ids=lambda g: f"{g.name}-{g.variant}")
@settings(max_examples=500, deadline=None)
@given(text=NOTATION)
def test_notation_like_text(game: Game[Any, Any], text: str) -> None:
    check_parse(game, text)


@pytest.mark.parametrize("game", GAMES, ids=lambda g: f"{g.name}-{g.variant}")
@settings(max_examples=200, deadline=None)
@given(text=st.one_of(st.text(max_size=30), NOTATION))
def test_apply_raises_only_rules_errors_and_keeps_the_state(game: Game[Any, Any], text: str) -> None:
    state = game.initial_state()
    try:
        after = game.apply(state, text)
    except RulesError:
        assert game.initial_state() == state
        return
    assert text in game.legal(state)
    assert game.ply(after) == 1
