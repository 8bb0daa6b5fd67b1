"""Tests of the JSON API: the state, the snapshot, the controls, and hostile input."""

from __future__ import annotations

from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from pi.session import Session
from tests.web.boards import SAMPLES
from tests.web.conftest import FakeClock, fresh_session, log_in, make_app

User = tuple[FlaskClient, dict[str, str]]


def test_state_is_the_snapshot_plus_the_view(client: FlaskClient, session: Session) -> None:
    session.play("e9-e8")
    state = client.get("/api/state").get_json()
    snapshot = session.snapshot()
    assert {key: state[key] for key in snapshot} == snapshot
    assert state["last_move"] == {"move": "e9-e8", "from": ["e9"], "to": ["e8"]}
    assert state["hints"]["from"] == ["e1"] and "e2" in state["hints"]["to"]
    assert state["leds"] is None


def test_state_board_is_null_until_the_game_draws_it(client: FlaskClient, session: Session,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    def not_yet(state: Any) -> dict[str, Any]:
        raise NotImplementedError

    monkeypatch.setattr(session.game, "board", not_yet)
    assert client.get("/api/state").get_json()["board"] is None


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_state_board_comes_from_the_game(client: FlaskClient, session: Session, name: str) -> None:
    moves, expected = SAMPLES[name]
    session.new_game(name)
    for move in moves.split():
        session.play(move)
    assert client.get("/api/state").get_json()["board"] == expected


def test_state_carries_the_latest_led_frame(client: FlaskClient, session: Session) -> None:
    session.events.publish("leds", {"leds": ["#ff0000"], "width": 1})
    session.events.publish("leds", {"leds": ["#00ff00"], "width": 1})
    assert client.get("/api/state").get_json()["leds"] == {"leds": ["#00ff00"], "width": 1}


def test_games_lists_names_and_variants(client: FlaskClient) -> None:
    games = {game["name"]: game["variants"] for game in client.get("/api/games").get_json()["games"]}
    assert games["block-pt"] == [] and games["tuned"] == []
    assert "default" in games["block-block"]


def test_snapshot_image(session: Session, clock: FakeClock) -> None:
    jpeg = b"\xff\xd8\xff\xe0fake-jpeg"
    client = make_app(session, clock, snapshot=lambda: jpeg).test_client()
    answer = client.get("/api/snapshot.jpg")
    assert answer.status_code == 200 and answer.data == jpeg
    assert answer.mimetype == "image/jpeg" and answer.headers["Cache-Control"] == "no-store"


def test_snapshot_missing(client: FlaskClient, session: Session, clock: FakeClock) -> None:
    assert client.get("/api/snapshot.jpg").status_code == 404
    empty = make_app(session, clock, snapshot=lambda: None).test_client()
    assert empty.get("/api/snapshot.jpg").status_code == 404


def test_snapshot_failure_is_a_clear_error(session: Session, clock: FakeClock) -> None:
    def broken() -> bytes:
        raise OSError("camera unplugged")

    answer = make_app(session, clock, snapshot=broken).test_client().get("/api/snapshot.jpg")
    assert answer.status_code == 503
    assert answer.get_json() == {"error": "the camera snapshot failed: camera unplugged"}


def test_new_game(user: User, session: Session) -> None:
    client, headers = user
    answer = client.post("/api/new", json={"game": "block-block", "variant": "default"}, headers=headers)
    assert answer.status_code == 200
    assert answer.get_json()["state"]["game"] == "block-block"
    assert session.game.name == "block-block"
    assert client.post("/api/new", json={"game": "tuned"}, headers=headers).status_code == 200
    assert session.game.name == "tuned"


@pytest.mark.parametrize("body", [{"game": "chess"}, {"game": "tuned", "variant": "9x9"},
                                  {"game": "block-block", "variant": "nonsense"}])
def test_new_game_refused_by_the_rules(user: User, session: Session, body: dict[str, str]) -> None:
    client, headers = user
    session.play("e9-e8")
    answer = client.post("/api/new", json=body, headers=headers)
    assert answer.status_code == 400 and answer.get_json()["error"]
    assert session.game.name == "block-pt" and session.moves == ["e9-e8"]


def test_undo(user: User, session: Session) -> None:
    client, headers = user
    session.play("e9-e8")
    answer = client.post("/api/undo", headers=headers)
    assert answer.status_code == 200 and answer.get_json()["state"]["history"] == []
    again = client.post("/api/undo", json={}, headers=headers)
    assert again.status_code == 400 and again.get_json() == {"error": "there is no move to undo"}


def test_confirm_a_pending_reading(user: User, session: Session) -> None:
    client, headers = user
    session.ask(["e9-d9", "e9-f9"])
    answer = client.post("/api/confirm", json={"move": "e9-f9"}, headers=headers)
    assert answer.status_code == 200
    assert session.moves == ["e9-f9"] and session.pending == ()
    assert answer.get_json()["state"]["pending"] == []


@pytest.mark.parametrize("move", ["e9-e7", "+a1", "roll:b4g5", "zz"])
def test_confirm_refused_by_the_rules(user: User, session: Session, move: str) -> None:
    client, headers = user
    before = session.snapshot()
    answer = client.post("/api/confirm", json={"move": move}, headers=headers)
    assert answer.status_code == 400
    assert move in answer.get_json()["error"]
    assert session.snapshot() == before


def test_roll_in_blockade(user: User, session: Session) -> None:
    client, headers = user
    session.new_game("blockade")
    answer = client.post("/api/roll", json={"roll": "roll:b4g5"}, headers=headers)
    assert answer.status_code == 200 and session.moves == ["roll:b4g5"]
    again = client.post("/api/roll", json={"roll": "roll:b1g1"}, headers=headers)
    assert again.status_code == 400 and "already rolled" in again.get_json()["error"]
    assert session.moves == ["roll:b4g5"]


@pytest.mark.parametrize("roll", ["e9-e8", "end", "roll:r2y3x", "roll:b7g1"])
def test_roll_must_be_a_roll(user: User, session: Session, roll: str) -> None:
    client, headers = user
    session.new_game("blockade")
    answer = client.post("/api/roll", json={"roll": roll}, headers=headers)
    assert answer.status_code == 400 and answer.get_json()["error"]
    assert session.moves == []


HOSTILE_BODIES: list[tuple[bytes, str]] = [
    (b"{not json", "application/json"),
    (b"[1, 2, 3]", "application/json"),
    (b'"e9-e8"', "application/json"),
    (b"null", "application/json"),
    (b'{"move": 12}', "application/json"),
    (b'{"move": ["e9-e8"]}', "application/json"),
    (b'{"move": {"$ne": 1}}', "application/json"),
    (b'{"move": "e9-e8", "extra": 1}', "application/json"),
    (b'{"move": "e9 e8"}', "application/json"),
    (b'{"move": "e9-e8\\u0000"}', "application/json"),
    (b'{"move": "\xff\xfe"}', "application/json"),
    (b"[" * 3000 + b"]" * 3000, "application/json"),
    (b"[" * 2040 + b"]" * 2040, "application/json"),
    (b"move=e9-e8", "application/x-www-form-urlencoded"),
    (b'{"move": "e9-e8"}', "text/plain"),
    (b"{}", "application/json"),
]


@pytest.mark.parametrize(("body", "kind"), HOSTILE_BODIES)
def test_hostile_bodies_change_nothing(user: User, session: Session, body: bytes, kind: str) -> None:
    client, headers = user
    before = session.snapshot()
    answer = client.post("/api/confirm", data=body, content_type=kind, headers=headers)
    assert answer.status_code in (400, 413, 415)
    assert list(answer.get_json()) == ["error"]
    assert session.snapshot() == before


def test_huge_body_is_refused(user: User, session: Session) -> None:
    client, headers = user
    answer = client.post("/api/confirm", json={"move": "e9-e8" + " " * 100_000}, headers=headers)
    assert answer.status_code == 413
    assert answer.get_json() == {"error": "the request body is too large"}
    assert session.moves == []


def test_a_long_field_is_refused(user: User, session: Session) -> None:
    client, headers = user
    answer = client.post("/api/confirm", json={"move": "a" * 65}, headers=headers)
    assert answer.status_code == 400
    assert answer.get_json() == {"error": "field 'move' must be a string of 1 to 64 visible characters"}


def test_wrong_method_and_address(client: FlaskClient) -> None:
    assert client.get("/api/undo").status_code == 405
    assert client.put("/api/state").status_code == 405
    missing = client.get("/api/nothing")
    assert missing.status_code == 404 and missing.get_json()["error"]


def test_controls_without_a_game_are_refused(clock: FakeClock) -> None:
    client = make_app(fresh_session(), clock).test_client()
    headers = {"X-CSRF-Token": log_in(client)}
    answer = client.post("/api/undo", headers=headers)
    assert answer.status_code == 400 and answer.get_json() == {"error": "no game has been started"}


def test_state_is_computed_once_per_event(app: Flask, session: Session) -> None:
    view = app.extensions["blockref"].view
    first = view.current()
    assert view.current() is first
    session.play("e9-e8")
    assert view.current() is not first and view.current()["history"] == ["e9-e8"]
