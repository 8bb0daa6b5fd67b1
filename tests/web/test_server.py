"""Tests of the dashboard under waitress on a loopback port: real HTTP, real streaming."""

from __future__ import annotations

import http.client
import json
from typing import Iterator

import pytest

from pi.session import Session
from tests.web.conftest import FakeClock, make_app
from web.server import DashboardServer


@pytest.fixture
def server(session: Session, clock: FakeClock) -> Iterator[DashboardServer]:
    """Returns a running server of the session's dashboard on a free loopback port."""
    running = DashboardServer(make_app(session, clock, max_streams=4), port=0).start()
    yield running
    running.stop()


def read_message(answer: http.client.HTTPResponse) -> str:
    """Returns the next SSE block (up to a blank line), without its trailing blank line."""
    lines: list[str] = []
    while True:
        line = answer.readline().decode("utf-8")
        if not line:
            return "\n".join(lines)
        if line == "\n":
            if lines:
                return "\n".join(lines)
            continue
        lines.append(line.rstrip("\n"))


def connect(server: DashboardServer, path: str = "/events") -> http.client.HTTPResponse:
    """Opens a GET request to the server and returns its response."""
    link = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    link.request("GET", path)
    return link.getresponse()


def test_state_over_http(server: DashboardServer, session: Session) -> None:
    answer = connect(server, "/api/state")
    assert answer.status == 200
    assert json.loads(answer.read())["game"] == "block-pt"
    assert server.url.startswith("http://127.0.0.1:")


def test_events_stream_live_and_stop_with_the_server(server: DashboardServer, session: Session) -> None:
    answer = connect(server)
    assert answer.status == 200 and answer.getheader("Content-Type", "").startswith("text/event-stream")
    assert read_message(answer).startswith(": hello")
    state = read_message(answer)
    assert '"type":"state"' in state
    session.play("e9-e8")
    moved = read_message(answer).split("\n")
    assert moved[0] == f"id: {session.events.last_id}"
    assert json.loads(moved[1].removeprefix("data: "))["move"] == "e9-e8"
    server.stop()
    assert read_message(answer) == ""
    assert not server._thread.is_alive()
