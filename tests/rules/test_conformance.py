"""Runs the conformance suite over every registered game and variant."""

from __future__ import annotations

from typing import Any

import pytest

from rules import all_games
from rules.core import Game
from tests.rules.conformance import random_playout

GAMES = all_games()
PLAYOUTS = 6


def test_every_game_is_registered() -> None:
    names = {game.name for game in GAMES}
    assert names == {"block-arena", "block-block", "blockade", "tuned", "block-pt"}


@pytest.mark.parametrize("game", GAMES, ids=lambda g: f"{g.name}-{g.variant}")
@pytest.mark.parametrize("seed", range(PLAYOUTS))
def test_random_playouts_keep_every_invariant(game: Game[Any, Any], seed: int) -> None:
    random_playout(game, seed)
