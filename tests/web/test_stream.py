"""Tests of GET /events: hello, whole state first, live events, resume, keepalive, shutdown."""

from __future__ import annotations

import json
from typing import Any, Iterable, Iterator, cast

import pytest
from flask import Flask
from flask.testing import FlaskClient
from werkzeug.test import TestResponse

from pi.events import EventLog
from pi.session import Session
from tests.web.conftest import FakeClock, fresh_session, make_app

Message = tuple[int, dict[str, Any]]


def parse(chunk: bytes) -> tuple[list[Message], list[str]]:
    """Returns the (id, data) messages and the comments of an SSE chunk; checks the framing."""
    messages: list[Message] = []
    comments: list[str] = []
    for block in chunk.decode("utf-8").split("\n\n"):
        lines = [line for line in block.split("\n") if line]
        if not lines:
            continue
        if all(line.startswith((":", "retry:")) for line in lines):
            comments += [line[1:].strip() for line in lines if line.startswith(":")]
            continue
        assert len(lines) == 2 and lines[0].startswith("id: ") and lines[1].startswith("data: "), block
        messages.append((int(lines[0][4:]), json.loads(lines[1][6:])))
    return messages, comments


def open_stream(client: FlaskClient, **kwargs: Any) -> tuple[TestResponse, Iterator[bytes]]:
    """Returns the streaming response of /events and an iterator over its chunks."""
    answer = client.get("/events", buffered=False, **kwargs)
    assert answer.status_code == 200
    assert answer.mimetype == "text/event-stream"
    return answer, iter(cast(Iterable[bytes], answer.response))


def next_messages(chunks: Iterator[bytes]) -> list[Message]:
    """Returns the messages of the next chunk."""
    return parse(next(chunks))[0]


def test_hello_then_the_whole_state(client: FlaskClient, session: Session) -> None:
    session.play("e9-e8")
    answer, chunks = open_stream(client)
    assert parse(next(chunks))[1] == ["hello"]
    [(event_id, data)] = next_messages(chunks)
    assert data["type"] == "state" and event_id == data["id"] == session.events.last_id
    assert data["history"] == ["e9-e8"] and data["to_move"] == 2
    assert {"board", "last_move", "hints", "leds", "legal", "alerts"} <= set(data)
    answer.close()


def test_live_events_follow_with_ids(client: FlaskClient, session: Session) -> None:
    answer, chunks = open_stream(client)
    next(chunks), next(chunks)
    session.play("e9-e8")
    session.alert("camera", "the camera sees no markers")
    messages = next_messages(chunks)
    if len(messages) == 1:
        messages += next_messages(chunks)
    assert [data["type"] for _, data in messages] == ["move", "alert"]
    assert [event_id for event_id, _ in messages] == [data["id"] for _, data in messages]
    assert messages[0][1]["move"] == "e9-e8" and messages[1][1]["kind"] == "camera"
    answer.close()


@pytest.mark.parametrize("how", ["header", "query"])
def test_resume_sends_exactly_what_was_missed(client: FlaskClient, session: Session, how: str) -> None:
    seen = session.events.last_id
    session.play("e9-e8")
    session.play("e1-e2")
    kwargs: dict[str, Any] = ({"headers": {"Last-Event-ID": str(seen)}} if how == "header"
                              else {"query_string": {"last": seen}})
    answer, chunks = open_stream(client, **kwargs)
    next(chunks)
    messages = next_messages(chunks)
    assert [data["move"] for _, data in messages] == ["e9-e8", "e1-e2"]
    assert [event_id for event_id, _ in messages] == [seen + 1, seen + 2]
    answer.close()


def test_resume_when_nothing_was_missed_waits_quietly(session: Session, clock: FakeClock) -> None:
    client = make_app(session, clock, keepalive_s=0.001).test_client()
    answer, chunks = open_stream(client, headers={"Last-Event-ID": str(session.events.last_id)})
    assert parse(next(chunks))[1] == ["hello"]
    assert parse(next(chunks)) == ([], ["keepalive"])
    answer.close()


def test_resume_after_the_ring_dropped_events_sends_the_state(clock: FakeClock) -> None:
    session = fresh_session(EventLog(keep=2))
    session.new_game("block-pt")
    seen = session.events.last_id
    for move in ("e9-e8", "e1-e2", "e8-e7"):
        session.play(move)
    answer, chunks = open_stream(make_app(session, clock).test_client(),
                                 headers={"Last-Event-ID": str(seen)})
    next(chunks)
    [(event_id, data)] = next_messages(chunks)
    assert data["type"] == "state" and data["history"] == ["e9-e8", "e1-e2", "e8-e7"]
    assert event_id == session.events.last_id
    answer.close()
    session.events.close()


def test_resume_from_an_id_the_server_never_gave_sends_the_state(client: FlaskClient,
                                                                 session: Session) -> None:
    answer, chunks = open_stream(client, headers={"Last-Event-ID": "999999"})
    next(chunks)
    [(event_id, data)] = next_messages(chunks)
    assert data["type"] == "state" and event_id == session.events.last_id
    answer.close()


@pytest.mark.parametrize("sent", ["abc", "-1", "1.5", "1" * 13, " 3"])
def test_bad_last_event_id(client: FlaskClient, sent: str) -> None:
    for kwargs in ({"headers": {"Last-Event-ID": sent}}, {"query_string": {"last": sent}}):
        answer = client.get("/events", **kwargs)
        assert answer.status_code == 400
        assert answer.get_json() == {"error": "the last event id must be a whole number"}


def test_keepalive_when_nothing_happens(session: Session, clock: FakeClock) -> None:
    client = make_app(session, clock, keepalive_s=0.001).test_client()
    answer, chunks = open_stream(client)
    next(chunks), next(chunks)
    assert parse(next(chunks)) == ([], ["keepalive"])
    answer.close()


def test_closing_the_log_ends_the_stream_and_frees_the_slot(app: Flask, client: FlaskClient,
                                                             session: Session) -> None:
    slots = app.extensions["blockref"].streams
    answer, chunks = open_stream(client)
    next(chunks), next(chunks)
    assert slots.open == 1
    session.events.close()
    assert list(chunks) == []
    answer.close()
    assert slots.open == 0
    assert client.get("/events").status_code == 503


def test_stream_limit(session: Session, clock: FakeClock) -> None:
    app = make_app(session, clock, max_streams=2)
    client = app.test_client()
    first, _ = open_stream(client)
    second, chunks = open_stream(client)
    next(chunks)
    refused = client.get("/events")
    assert refused.status_code == 503 and "too many" in refused.get_json()["error"]
    first.close()  # never started: the slot comes back through call_on_close
    second.close()  # started: the generator's finally gives it back, once
    assert app.extensions["blockref"].streams.open == 0
    third, _ = open_stream(client)
    third.close()


def test_led_frames_are_forwarded_and_kept_for_late_comers(client: FlaskClient, session: Session) -> None:
    frame = {"cells": {"a1": "#ff0000"}, "width": 9, "height": 9}
    answer, chunks = open_stream(client)
    next(chunks), next(chunks)
    session.events.publish("leds", frame)
    [(_, data)] = next_messages(chunks)
    assert data == {"id": session.events.last_id, "type": "leds", **frame}
    answer.close()
    late, chunks = open_stream(client)
    next(chunks)
    assert next_messages(chunks)[0][1]["leds"] == frame
    late.close()
