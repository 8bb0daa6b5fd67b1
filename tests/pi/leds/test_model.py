"""Tests of the pure LED model: compose(snapshot, lifted, tick) -> LedFrame."""

from __future__ import annotations

import random
from typing import Any

import pytest

from pi.leds.errors import LedError
from pi.leds.model import (
    ALERT,
    AMBER,
    BLUE,
    DRAW,
    LAST_MOVE,
    LEGAL,
    LIFTED,
    OFF,
    LedFrame,
    compose,
)
from rules import all_games, get_game


def snapshot(game: str, moves: list[str], variant: str | None = None,
             alerts: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """Returns a snapshot shaped like Session.snapshot() after some moves."""
    rules = get_game(game, variant)
    data = rules.summary(rules.play_all(moves))
    data.update(history=list(moves), alerts=alerts or [], pending=[], event_id=0)
    return data


def illegal(*squares: str) -> dict[str, Any]:
    """Returns an illegal-move alert as Session publishes it."""
    return {"kind": "illegal", "message": "no", "squares": list(squares), "frame": None}


# Player 1 (X, e9) reaches rank 1 on its 9th move, before player 2 (Y) reaches rank 9.
X_WINS = ["e9-d9", "e1-f1"] + [
    move for rank in range(9, 1, -1)
    for move in (f"d{rank}-d{rank - 1}", f"f{10 - rank}-f{11 - rank}")
][:-1]


def test_the_start_lights_only_player_one_status() -> None:
    frame = compose(snapshot("block-pt", []))
    assert frame == LedFrame((), OFF, (AMBER, OFF), (0, 0), (AMBER, BLUE))


def test_a_lifted_piece_shows_its_legal_destinations() -> None:
    frame = compose(snapshot("block-pt", []), lifted="e9")
    assert frame.cell_map() == {"e9": LIFTED, "d9": LEGAL, "e8": LEGAL, "f9": LEGAL}


def test_a_piece_without_moves_shows_only_where_it_was_lifted() -> None:
    frame = compose(snapshot("block-pt", []), lifted="e1")  # player 2's pawn, not its turn
    assert frame.cell_map() == {"e1": LIFTED}


def test_the_last_move_is_dim_and_the_turn_passes() -> None:
    frame = compose(snapshot("block-pt", ["e9-e8"]))
    assert frame.cell_map() == {"e9": LAST_MOVE, "e8": LAST_MOVE}
    assert frame.status == (OFF, BLUE)
    assert frame.counters == (1, 0)


def test_destinations_are_drawn_over_the_last_move() -> None:
    frame = compose(snapshot("block-pt", ["e9-e8", "e1-e2", "e8-e7"]), lifted="e2")
    assert frame.cell_map() == {
        "e8": LAST_MOVE, "e7": LAST_MOVE, "e2": LIFTED, "d2": LEGAL, "e3": LEGAL, "f2": LEGAL,
        "e1": LEGAL,
    }


def test_an_illegal_move_flashes_on_even_ticks() -> None:
    data = snapshot("block-pt", ["e9-e8"], alerts=[illegal("e8", "e6")])
    assert compose(data, tick=0).cell_map() == {"e9": LAST_MOVE, "e8": ALERT, "e6": ALERT}
    assert compose(data, tick=1).cell_map() == {"e9": LAST_MOVE}
    assert compose(data, tick=2) == compose(data, tick=0)


def test_only_the_newest_alert_flashes_and_only_an_illegal_one() -> None:
    ambiguous = {"kind": "ambiguous", "message": "?", "squares": ["a1"], "frame": 3}
    assert compose(snapshot("block-pt", [], alerts=[illegal("c3"), ambiguous])).cells == ()
    assert compose(snapshot("block-pt", [], alerts=[ambiguous])).cells == ()


def test_the_winner_colours_the_board() -> None:
    data = snapshot("block-pt", X_WINS)
    assert data["outcome"] == {"winner": 1, "reason": "goal"}
    frame = compose(data, lifted="d1", tick=1)
    assert frame == LedFrame((), AMBER, (AMBER, OFF), (9, 8), (AMBER, BLUE))
    assert frame.cell("e5") == AMBER


def test_a_draw_and_player_two_wins() -> None:
    data = snapshot("block-pt", [])
    data.update(outcome={"winner": None, "reason": "cap"}, to_move=None, legal=[])
    assert compose(data) == LedFrame((), DRAW, (DRAW, DRAW), (0, 0), (AMBER, BLUE))
    data.update(outcome={"winner": 2, "reason": "trapped"})
    assert compose(data).status == (OFF, BLUE) and compose(data).background == BLUE


def test_games_without_counters_and_blockade_colours() -> None:
    assert compose(snapshot("block-block", [])).counters == (None, None)
    assert compose(snapshot("blockade", [])).players == (BLUE, AMBER)


def test_the_frame_as_json() -> None:
    data = compose(snapshot("block-pt", ["e9-e8"])).as_dict()
    assert data == {
        "cells": {"e8": "#282828", "e9": "#282828"},
        "background": "#000000",
        "status": {"1": "#000000", "2": "#0046ff"},
        "counters": {"1": 1, "2": 0},
        "players": {"1": "#ff8c00", "2": "#0046ff"},
    }


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"game": "chess"}, "no known game"),
        ({"game": None}, "'game' has the wrong type"),
        ({"legal": "e9-e8"}, "'legal' has the wrong type"),
        ({"to_move": 3}, "to_move must be 1, 2 or null"),
        ({"to_move": True}, "'to_move' has the wrong type"),
        ({"counters": {"1": -1}}, "counter '1'"),
        ({"history": [7]}, "a move must be text"),
        ({"outcome": {"winner": 5}}, "winner must be 1, 2 or null"),
        ({"alerts": [{"kind": "illegal", "squares": ["zz"]}]}, "not square names"),
    ],
)
def test_bad_snapshots_raise_one_clear_error(change: dict[str, Any], message: str) -> None:
    data = snapshot("block-pt", ["e9-e8"])
    data.update(change)
    with pytest.raises(LedError, match=message):
        compose(data)


def test_missing_keys_bad_lifted_and_bad_tick() -> None:
    data = snapshot("block-pt", [])
    del data["history"]
    with pytest.raises(LedError, match="has no 'history'"):
        compose(data)
    with pytest.raises(LedError, match="must be a dict"):
        compose(["block-pt"])  # type: ignore[arg-type]
    for lifted in ("e", "E9", "e9 ", 9):
        with pytest.raises(LedError, match="lifted must be a square"):
            compose(snapshot("block-pt", []), lifted=lifted)  # type: ignore[arg-type]
    with pytest.raises(LedError, match="tick must be a whole number"):
        compose(snapshot("block-pt", []), tick="1")  # type: ignore[arg-type]


def test_random_positions_of_every_game_keep_the_invariants() -> None:
    rng = random.Random(20240611)
    checked = 0
    for game in all_games():
        state, moves = game.initial_state(), []
        for _ in range(14):
            legal = game.legal(state)
            if not legal:
                break
            moves.append(rng.choice(legal))
            state = game.apply(state, moves[-1])
        data = game.summary(state)
        data.update(history=moves, alerts=[], pending=[])
        checked += check_lifted_frames(game.name, data, rng)
    assert checked > 0


def check_lifted_frames(name: str, data: dict[str, Any], rng: random.Random) -> int:
    """Checks, for up to 8 squares that legal moves leave, that the LEGAL squares are exactly
    those reached by the legal moves leaving the lifted one; returns how many it checked."""
    game = get_game(name, data["variant"])
    sources = sorted({square for move in data["legal"] for square in game.squares(move)[0]})
    for lifted in rng.sample(sources, min(8, len(sources))):
        frame = compose(data, lifted=lifted)
        reached = {square for move in data["legal"] if lifted in game.squares(move)[0]
                   for square in game.squares(move)[1]}
        assert {s for s, colour in frame.cells if colour == LEGAL} == reached, (name, lifted)
    return min(8, len(sources))
