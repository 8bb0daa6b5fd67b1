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
from rules.block_pt import BlockPT  # noqa: E402

register("block-pt", BlockPT)
from rules.tuned import Tuned  # noqa: E402

register("tuned", Tuned)
from rules.block_block import BlockBlock  # noqa: E402

register("block-block", BlockBlock)
from rules.blockade import Blockade  # noqa: E402

register("blockade", Blockade)
from rules.block_arena import BlockArena  # noqa: E402

register("block-arena", BlockArena)
