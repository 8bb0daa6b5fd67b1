"""Tests of the piece held up on the dashboard: the pipeline's lifted reports reach the event
stream (whatever the LEDs) and /api/state while the piece is held; HTTP cannot send one."""

from __future__ import annotations

from typing import Any

import pytest
from flask.testing import FlaskClient

from pi.appliance import LedPublisher
from pi.session import Session
from tests.pi.test_appliance_lifted import E9_REACHES, Strip
from tests.web.test_stream import next_messages, open_stream


@pytest.fixture
def leds(session: Session) -> LedPublisher:
    """Returns an LED publisher on a hardware-like strip (no simulated panel, no "leds" events)."""
    return LedPublisher(session, Strip()).attach()


def lift(leds: LedPublisher, square: str | None) -> None:
    """Reports a lifted square as the pipeline does."""
    leds.on_lifted({"frame": 7, "lifted": square})


def held(client: FlaskClient) -> Any:
    """Returns the "lifted" field of /api/state."""
    return client.get("/api/state").get_json()["lifted"]


def test_the_stream_carries_the_lifted_piece_and_its_put_down(client: FlaskClient, session: Session,
                                                             leds: LedPublisher) -> None:
    answer, chunks = open_stream(client)
    next(chunks), next(chunks)
    lift(leds, "e9")
    [(event_id, data)] = next_messages(chunks)
    assert event_id == data["id"] and data["type"] == "lifted" and data["square"] == "e9"
    assert set(data["to"]) == E9_REACHES
    lift(leds, None)
    [(_, data)] = next_messages(chunks)
    assert data == {"id": session.events.last_id, "type": "lifted", "square": None, "to": []}
    answer.close()


def test_a_page_opened_mid_move_sees_the_piece_held(client: FlaskClient, session: Session,
                                                    leds: LedPublisher) -> None:
    assert held(client) is None
    lift(leds, "e9")
    assert held(client)["square"] == "e9" and set(held(client)["to"]) == E9_REACHES
    answer, chunks = open_stream(client)
    next(chunks)
    [(_, data)] = next_messages(chunks)
    assert data["type"] == "state" and data["lifted"]["square"] == "e9"
    answer.close()
    lift(leds, None)
    assert held(client) is None


@pytest.mark.parametrize("settle", ["move", "undo", "new-game"])
def test_a_move_undo_or_new_game_clears_the_piece_held(client: FlaskClient, session: Session,
                                                       leds: LedPublisher, settle: str) -> None:
    session.play("e9-e8")
    lift(leds, "e1")
    assert held(client)["square"] == "e1"
    if settle == "move":
        session.play("e1-e2")
    elif settle == "undo":
        session.undo()
    else:
        session.new_game("block-pt")
    assert held(client) is None


def test_a_lift_changes_no_game_state(client: FlaskClient, session: Session, leds: LedPublisher) -> None:
    before = client.get("/api/state").get_json()
    lift(leds, "e9")
    after = client.get("/api/state").get_json()
    for key in ("history", "legal", "to_move", "alerts", "pending", "board"):
        assert after[key] == before[key], key
    record = session.journal.unfinished()
    assert record is not None and record.entries == ()


@pytest.mark.parametrize("path", ["/api/lifted", "/events", "/api/state"])
def test_http_cannot_send_a_lifted_piece(user: tuple[FlaskClient, dict[str, str]], session: Session,
                                         path: str) -> None:
    client, headers = user
    answer = client.post(path, json={"square": "e9", "to": ["e8"]}, headers=headers)
    assert answer.status_code in (404, 405)
    assert held(client) is None
    assert [event for event in session.events.since(0) if event.type == "lifted"] == []
