"""The registry of games by name and variant."""

from __future__ import annotations

from typing import Any, Callable

from rules.core import Game, UnknownGameError

GameFactory = Callable[[str | None], Game[Any, Any]]

_FACTORIES: dict[str, GameFactory] = {}


def register(name: str, factory: GameFactory) -> None:
    """Adds a game factory under its name (one line per game in rules/__init__.py)."""
    _FACTORIES[name] = factory


def game_names() -> list[str]:
    """Returns the registered game names, sorted."""
    return sorted(_FACTORIES)


def get_game(name: str, variant: str | None = None) -> Game[Any, Any]:
    """Returns the rules of a game by name and variant, or raises UnknownGameError."""
    factory = _FACTORIES.get(name)
    if factory is None:
        raise UnknownGameError(
            f"unknown game {name!r}; choose one of " + ", ".join(game_names())
        )
    return factory(variant)


def all_games() -> list[Game[Any, Any]]:
    """Returns one Game for every registered game and each of its variants."""
    games: list[Game[Any, Any]] = []
    for name in game_names():
        first = get_game(name)
        games.append(first)
        for variant in type(first).variants[1:]:
            games.append(get_game(name, variant))
    return games
