"""Shared fixtures of the dashboard tests: a session on a fresh journal, the app, a PIN."""

from __future__ import annotations

from typing import Any, Iterator

import pytest
from flask import Flask
from flask.testing import FlaskClient

from pi.config import hash_pin
from pi.events import EventLog
from pi.journal import Journal
from pi.session import Session
from web import WebSettings, create_app

PIN = "2468"
PIN_HASH = hash_pin(PIN, salt=bytes(range(16)), iterations=1000)  # cheap, for tests only


class FakeClock:
    """A monotonic clock the tests move by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> FakeClock:
    """Returns a clock for the login rate limiter."""
    return FakeClock()


def fresh_session(events: EventLog | None = None) -> Session:
    """Returns a session on a new in-memory journal (no disk writes: the tests stay fast)."""
    return Session(Journal(":memory:"), events)


@pytest.fixture
def session() -> Iterator[Session]:
    """Returns a session on a fresh journal with a Block (PT) game started."""
    made = fresh_session()
    made.new_game("block-pt")
    yield made
    made.events.close()
    made.journal.close()


def make_app(session: Session, clock: FakeClock, **settings: Any) -> Flask:
    """Returns a dashboard app with the test PIN and clock (and any other settings)."""
    chosen = {"pin_hash": PIN_HASH, "clock": clock, **settings}
    app = create_app(session, WebSettings(**chosen))
    app.testing = True
    return app


@pytest.fixture
def app(session: Session, clock: FakeClock) -> Flask:
    """Returns the dashboard app of the session."""
    return make_app(session, clock)


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    """Returns a test client with no login."""
    return app.test_client()


def csrf_of(client: FlaskClient) -> str:
    """Returns the client's CSRF token (making one)."""
    token: str = client.get("/api/session").get_json()["csrf"]
    return token


def log_in(client: FlaskClient, pin: str = PIN) -> str:
    """Logs the client in and returns the CSRF token to send with controls."""
    answer = client.post("/api/login", json={"pin": pin}, headers={"X-CSRF-Token": csrf_of(client)})
    assert answer.status_code == 200, answer.get_json()
    token: str = answer.get_json()["csrf"]
    return token


@pytest.fixture
def user(client: FlaskClient) -> tuple[FlaskClient, dict[str, str]]:
    """Returns a logged-in client and the headers its controls must carry."""
    return client, {"X-CSRF-Token": log_in(client)}
