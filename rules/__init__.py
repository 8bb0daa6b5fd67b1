"""Pure referees for the five blockref games: frozen states, checked moves, outcomes as data."""

from __future__ import annotations

from rules.core import (
    Game,
    IllegalMoveError,
    InvalidMoveError,
    Outcome,
    RulesError,
    UnknownGameError,
)
from rules.registry import all_games, game_names, get_game, register

__all__ = [
    "Game",
    "IllegalMoveError",
    "InvalidMoveError",
    "Outcome",
    "RulesError",
    "UnknownGameError",
    "all_games",
    "game_names",
    "get_game",
    "register",
]

# One line per game: the registry, the CLI and the conformance suite all read from here.
