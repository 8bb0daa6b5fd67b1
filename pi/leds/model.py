"""What the LEDs show: a pure function from the session's snapshot to a frozen LED frame.

The frame names colours per board square (squares not named show the background), the
status LED colour of each player, each player's move counter and the players' colours (used
to draw the counters). The layout and the encoder turn it into bytes; this module knows
neither LEDs nor devices.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Iterable, Mapping, TypeGuard

from pi.leds.errors import LedError
from rules import Game, RulesError, get_game

RGB = tuple[int, int, int]

# -- colours (logical, full scale; gamma and brightness caps are applied by the encoder) ----
OFF: RGB = (0, 0, 0)
AMBER: RGB = (255, 140, 0)
BLUE: RGB = (0, 70, 255)
LAST_MOVE: RGB = (40, 40, 40)
LIFTED: RGB = (255, 255, 255)
LEGAL: RGB = (0, 220, 0)
ALERT: RGB = (255, 0, 0)
DRAW: RGB = (150, 0, 150)
OVERFLOW: RGB = (255, 0, 255)

PLAYER_COLOURS: tuple[RGB, RGB] = (AMBER, BLUE)
# Blockade's player 1 is "cool" (blue and green), player 2 "warm" (red and yellow).
GAME_PLAYER_COLOURS: dict[str, tuple[RGB, RGB]] = {"blockade": (BLUE, AMBER)}

# Alert kinds whose squares flash while the alert is the newest.
FLASHING_ALERTS: frozenset[str] = frozenset({"illegal", "illegal-move"})

_SQUARE = re.compile(r"[a-z][1-9][0-9]?")


@dataclass(frozen=True, slots=True)
class LedFrame:
    """What the LEDs show: lit squares, the colour of the rest, status LEDs and counters."""

    cells: tuple[tuple[str, RGB], ...] = ()
    background: RGB = OFF
    status: tuple[RGB, RGB] = (OFF, OFF)
    counters: tuple[int | None, int | None] = (None, None)
    players: tuple[RGB, RGB] = PLAYER_COLOURS

    def cell_map(self) -> dict[str, RGB]:
        """Returns the lit squares as a dict from square name to colour."""
        return dict(self.cells)

    def cell(self, square: str) -> RGB:
        """Returns the colour a board square shows."""
        return self.cell_map().get(square, self.background)

    def as_dict(self) -> dict[str, Any]:
        """Returns the frame as JSON-ready data (colours as #rrggbb)."""
        return {
            "cells": {square: hex_colour(colour) for square, colour in self.cells},
            "background": hex_colour(self.background),
            "status": {"1": hex_colour(self.status[0]), "2": hex_colour(self.status[1])},
            "counters": {"1": self.counters[0], "2": self.counters[1]},
            "players": {"1": hex_colour(self.players[0]), "2": hex_colour(self.players[1])},
        }


def hex_colour(colour: RGB) -> str:
    """Returns a colour as #rrggbb."""
    return "#{:02x}{:02x}{:02x}".format(*colour)


def check_frame(frame: object) -> LedFrame:
    """Returns the frame if it is a well-formed LedFrame, or raises LedError."""
    if not isinstance(frame, LedFrame):
        raise LedError(f"expected an LedFrame, got {type(frame).__name__}")
    colours = [colour for _, colour in frame.cells]
    colours += [frame.background, *frame.status, *frame.players]
    for colour in colours:
        check_colour(colour)
    for square, _ in frame.cells:
        if not isinstance(square, str) or not _SQUARE.fullmatch(square):
            raise LedError(f"frame names {square!r}, which is not a square")
    for value in frame.counters:
        if value is not None and (not is_whole(value) or value < 0):
            raise LedError(f"a counter must be a whole number from 0 up, got {value!r}")
    return frame


def check_colour(colour: object) -> RGB:
    """Returns the colour if it is three whole numbers from 0 to 255, or raises LedError."""
    if (
        not isinstance(colour, tuple)
        or len(colour) != 3
        or not all(is_whole(c) and 0 <= c <= 255 for c in colour)
    ):
        raise LedError(f"a colour must be three whole numbers from 0 to 255, got {colour!r}")
    return (colour[0], colour[1], colour[2])


def is_whole(value: object) -> TypeGuard[int]:
    """Tells whether a value is an int and not a bool."""
    return isinstance(value, int) and not isinstance(value, bool)


# -- compose ------------------------------------------------------------------------------


def compose(snapshot: Mapping[str, Any], lifted: str | None = None, tick: int = 0) -> LedFrame:
    """Returns the frame for a snapshot, the square a piece was lifted from and a flash tick."""
    # An illegal move's squares are lit on even ticks and dark on odd ones.
    game = _game(snapshot)
    if lifted is not None and (not isinstance(lifted, str) or not _SQUARE.fullmatch(lifted)):
        raise LedError(f"lifted must be a square name such as 'c3', got {lifted!r}")
    if not is_whole(tick):
        raise LedError(f"tick must be a whole number, got {tick!r}")
    players = GAME_PLAYER_COLOURS.get(game.name, PLAYER_COLOURS)
    counters = _counters(_field(snapshot, "counters", dict))
    status = _turn(snapshot, players)
    cells = _cells(game, snapshot, lifted, tick)
    outcome = _field(snapshot, "outcome", (dict, type(None)))
    if outcome is not None:
        return _finished(outcome, counters, players)
    return LedFrame(cells, OFF, status, counters, players)


def _cells(game: Game[Any, Any], snapshot: Mapping[str, Any], lifted: str | None,
           tick: int) -> tuple[tuple[str, RGB], ...]:
    """Returns the lit squares of a game in progress, later layers painted over earlier."""
    # Layers: the last move, the lifted square, its destinations, the flashing alert.
    history, legal = _field(snapshot, "history", list), _field(snapshot, "legal", list)
    alerts = _field(snapshot, "alerts", list)
    cells: dict[str, RGB] = {}
    _paint(cells, last_move_squares(game, history), LAST_MOVE)
    if lifted is not None:
        _paint(cells, (lifted,), LIFTED)
        _paint(cells, destinations(game, legal, lifted), LEGAL)
    _paint(cells, flashing_squares(alerts), ALERT if tick % 2 == 0 else OFF)
    return tuple(sorted((square, colour) for square, colour in cells.items() if colour != OFF))


def _paint(cells: dict[str, RGB], squares: Iterable[str], colour: RGB) -> None:
    """Sets the colour of some squares."""
    for square in squares:
        cells[square] = colour


def last_move_squares(game: Game[Any, Any], history: list[Any]) -> tuple[str, ...]:
    """Returns the squares the last accepted move left and reached (none before a move)."""
    if not history:
        return ()
    left, reached = _squares(game, history[-1])
    return tuple(dict.fromkeys(left + reached))


def destinations(game: Game[Any, Any], legal: list[Any], lifted: str) -> tuple[str, ...]:
    """Returns the squares reached by the legal moves that leave the lifted square."""
    found: dict[str, None] = {}
    for move in legal:
        left, reached = _squares(game, move)
        if lifted in left:
            found.update(dict.fromkeys(reached))
    return tuple(found)


def flashing_squares(alerts: list[Any]) -> tuple[str, ...]:
    """Returns the squares of the newest alert if it is an illegal-move alert."""
    if not alerts:
        return ()
    newest = alerts[-1]
    if not isinstance(newest, Mapping) or newest.get("kind") not in FLASHING_ALERTS:
        return ()
    squares = newest.get("squares", [])
    if not isinstance(squares, (list, tuple)) or not all(
        isinstance(s, str) and _SQUARE.fullmatch(s) for s in squares
    ):
        raise LedError(f"the newest alert's squares are not square names: {squares!r}")
    return tuple(squares)


def _squares(game: Game[Any, Any], move: object) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Returns the squares a move text leaves and reaches, or raises LedError."""
    if not isinstance(move, str):
        raise LedError(f"a move must be text, got {move!r}")
    return game.squares(move)


def _finished(outcome: Mapping[str, Any], counters: tuple[int | None, int | None],
              players: tuple[RGB, RGB]) -> LedFrame:
    """Returns the frame of a finished game: the board in the winner's colour."""
    winner = outcome.get("winner")
    if winner is None:
        return LedFrame((), DRAW, (DRAW, DRAW), counters, players)
    if winner not in (1, 2):
        raise LedError(f"the outcome's winner must be 1, 2 or null, got {winner!r}")
    colour = players[winner - 1]
    status = (colour, OFF) if winner == 1 else (OFF, colour)
    return LedFrame((), colour, status, counters, players)


def _turn(snapshot: Mapping[str, Any], players: tuple[RGB, RGB]) -> tuple[RGB, RGB]:
    """Returns the status LEDs: the player to move lit in its colour."""
    to_move = _field(snapshot, "to_move", (int, type(None)))
    if to_move == 1:
        return (players[0], OFF)
    if to_move == 2:
        return (OFF, players[1])
    if to_move is None:
        return (OFF, OFF)
    raise LedError(f"to_move must be 1, 2 or null, got {to_move!r}")


def _counters(counters: Mapping[str, Any]) -> tuple[int | None, int | None]:
    """Returns each player's move counter, None where the game keeps none."""
    values: list[int | None] = []
    for key in ("1", "2"):
        value = counters.get(key)
        if value is not None and (not is_whole(value) or value < 0):
            raise LedError(f"counter {key!r} must be a whole number from 0 up, got {value!r}")
        values.append(value)
    return (values[0], values[1])


def _field(snapshot: Mapping[str, Any], key: str, types: type | tuple[type, ...]) -> Any:
    """Returns a snapshot field of the expected type, or raises LedError."""
    if not isinstance(snapshot, Mapping):
        raise LedError(f"a snapshot must be a dict, got {type(snapshot).__name__}")
    if key not in snapshot:
        raise LedError(f"the snapshot has no {key!r}")
    value = snapshot[key]
    if not isinstance(value, types) or isinstance(value, bool):
        raise LedError(f"the snapshot's {key!r} has the wrong type: {value!r}")
    return value


def _game(snapshot: Mapping[str, Any]) -> Game[Any, Any]:
    """Returns the rules named by a snapshot, or raises LedError."""
    name = _field(snapshot, "game", str)
    variant = _field(snapshot, "variant", (str, type(None)))
    try:
        return _cached_game(name, variant)
    except RulesError as error:
        raise LedError(f"the snapshot names no known game: {error}") from None


@lru_cache(maxsize=32)
def _cached_game(name: str, variant: str | None) -> Game[Any, Any]:
    """Returns the rules of a game, built once (games are pure)."""
    return get_game(name, variant)
