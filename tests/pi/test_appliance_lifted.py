"""Tests of LedPublisher's "lifted" events: the piece the camera sees held up and where it may go,
published for the dashboard whatever the LED backend (display state only, never journalled)."""

from __future__ import annotations

from typing import Any, Iterator

import pytest

from pi.appliance import LedPublisher
from pi.journal import Journal
from pi.leds.backends import LedBackend, SimulatedPanel
from pi.leds.layout import default_layout
from pi.leds.model import LedFrame
from pi.session import Session

# The legal moves of Block (PT)'s first player from the start leave e9 for these squares.
E9_REACHES = {"d9", "e8", "f9"}


class Strip(LedBackend):
    """A hardware-like backend (not the simulated panel): it keeps the frames it was sent."""

    name = "strip"

    def __init__(self) -> None:
        super().__init__(default_layout("9x9"))
        self.sent: list[LedFrame] = []

    def _write(self, frame: LedFrame) -> None:
        self.sent.append(frame)


@pytest.fixture
def session() -> Iterator[Session]:
    """Returns a session with a Block (PT) game started, on an in-memory journal."""
    made = Session(Journal(":memory:"))
    made.new_game("block-pt")
    yield made
    made.journal.close()


def lifted_events(session: Session) -> list[dict[str, Any]]:
    """Returns the data of every "lifted" event published so far."""
    return [event.data for event in session.events.since(0) if event.type == "lifted"]


def lift(leds: LedPublisher, square: object, frame: int = 1) -> None:
    """Sends the publisher a pipeline `on_lifted` record."""
    leds.on_lifted({"frame": frame, "lifted": square})


@pytest.mark.parametrize("backend", [Strip, lambda: SimulatedPanel(default_layout("9x9"))])
def test_a_lift_and_a_put_down_are_published_with_the_destinations(session: Session, backend: Any) -> None:
    leds = LedPublisher(session, backend()).attach()
    lift(leds, "e9")
    lift(leds, None, frame=2)
    [held, down] = lifted_events(session)
    assert held["square"] == "e9" and set(held["to"]) == E9_REACHES and len(held["to"]) == 3
    assert down == {"square": None, "to": []}


def test_only_changes_are_published(session: Session) -> None:
    leds = LedPublisher(session, Strip()).attach()
    for square in ("e9", "e9", None, None, "e9"):
        lift(leds, square)
    assert [data["square"] for data in lifted_events(session)] == ["e9", None, "e9"]


def test_a_square_the_leds_refuse_is_never_published(session: Session) -> None:
    leds = LedPublisher(session, Strip()).attach()
    lift(leds, "<script>")
    lift(leds, 42)
    assert lifted_events(session) == []
    assert leds.listener.last_error is not None


def test_a_move_puts_the_piece_down_without_another_event(session: Session) -> None:
    leds = LedPublisher(session, Strip()).attach()
    lift(leds, "e9")
    session.play("e9-e8")
    lift(leds, None, frame=2)
    assert [data["square"] for data in lifted_events(session)] == ["e9"]
    lift(leds, "e1", frame=3)
    assert lifted_events(session)[-1]["square"] == "e1"
    assert set(lifted_events(session)[-1]["to"]) == {"d1", "e2", "f1"}


def test_lifted_events_are_not_journalled_and_do_not_redraw_the_leds(session: Session) -> None:
    strip = Strip()
    leds = LedPublisher(session, strip).attach()
    lift(leds, "e9")
    shown = len(strip.sent)
    session.events.publish("lifted", {"square": "e1", "to": []})
    assert len(strip.sent) == shown
    record = session.journal.unfinished()
    assert record is not None and [entry.kind for entry in record.entries] == []
