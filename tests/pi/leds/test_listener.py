"""Tests of the listener that keeps the LEDs following a real session's events."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from typing import Any

from pi.events import Event, EventLog
from pi.journal import Journal
from pi.leds.backends import SimulatedPanel
from pi.leds.errors import LedError
from pi.leds.layout import Layout, default_layout
from pi.leds.listener import LedListener, Ticker
from pi.leds.model import ALERT, AMBER, BLUE, LAST_MOVE, LEGAL, LIFTED, OFF, LedFrame, compose
from pi.session import Session


class BrokenPanel(SimulatedPanel):
    """A panel whose device fails on every frame after the first."""

    def _write(self, frame: LedFrame) -> None:
        if self.shown:
            raise LedError("the strip went away")
        super()._write(frame)


class CountingPanel(SimulatedPanel):
    """A panel that sets an event once it has shown a number of frames."""

    def __init__(self, layout: Layout, wanted: int) -> None:
        super().__init__(layout)
        self.wanted = wanted
        self.reached = threading.Event()

    def _write(self, frame: LedFrame) -> None:
        super()._write(frame)
        if self.shown >= self.wanted:
            self.reached.set()


@pytest.fixture
def session(tmp_path: Path) -> Session:
    """Returns a session with a Block (PT) game started."""
    made = Session(Journal(tmp_path / "journal.sqlite"))
    made.new_game("block-pt")
    return made


@pytest.fixture
def panel() -> SimulatedPanel:
    """Returns a simulated 9x9 panel."""
    return SimulatedPanel(default_layout("9x9"))


def test_attach_shows_the_state_and_moves_follow(session: Session,
                                                 panel: SimulatedPanel) -> None:
    listener = LedListener(session, panel).attach()
    assert panel.frame.status == (AMBER, OFF) and panel.frame.counters == (0, 0)
    session.play("e9-e8")
    assert panel.frame.cell_map() == {"e9": LAST_MOVE, "e8": LAST_MOVE}
    assert panel.frame.status == (OFF, BLUE) and panel.frame.counters == (1, 0)
    assert listener.frame == panel.frame
    session.undo()
    assert panel.frame.cells == () and panel.frame.status == (AMBER, OFF)
    session.new_game("tuned")
    assert panel.frame.counters == (0, 0) and panel.shown == 4


def test_lifting_shows_destinations(session: Session, panel: SimulatedPanel) -> None:
    listener = LedListener(session, panel).attach()
    listener.set_lifted("e9")
    assert panel.frame.cell_map() == {"e9": LIFTED, "d9": LEGAL, "e8": LEGAL, "f9": LEGAL}
    with pytest.raises(LedError, match="lifted must be a square"):
        listener.set_lifted("nine")
    assert listener.lifted == "e9" and panel.frame.cell("e8") == LEGAL
    session.play("e9-e8")  # the piece was put down and the move accepted
    listener.set_lifted(None)
    assert panel.frame.cell_map() == {"e9": LAST_MOVE, "e8": LAST_MOVE}


def test_an_illegal_move_flashes_until_the_next_move(session: Session,
                                                     panel: SimulatedPanel) -> None:
    listener = LedListener(session, panel).attach()
    session.alert("illegal", "a pawn moves one square", ("e9", "e7"))
    assert panel.frame.cell_map() == {"e9": ALERT, "e7": ALERT}
    listener.tick()
    assert panel.frame.cells == ()
    listener.tick()
    assert panel.frame.cell("e7") == ALERT
    session.play("e9-e8")
    assert panel.frame.cell_map() == {"e9": LAST_MOVE, "e8": LAST_MOVE}
    shown = panel.shown
    listener.tick()
    assert panel.frame.cell("e9") == LAST_MOVE and panel.shown == shown  # nothing to flash


def test_an_led_fault_never_fails_the_session(session: Session) -> None:
    faults: list[LedError] = []
    listener = LedListener(session, BrokenPanel(default_layout("9x9")), faults.append).attach()
    assert session.play("e9-e8") == "e9-e8"
    assert session.moves == ["e9-e8"]
    assert [str(fault) for fault in faults] == ["the strip went away"]
    assert listener.last_error is faults[0]


def test_a_closed_listener_ignores_events(session: Session, panel: SimulatedPanel) -> None:
    listener = LedListener(session, panel).attach()
    listener.close()
    session.play("e9-e8")
    assert panel.shown == 1
    with pytest.raises(LedError, match="listener is closed"):
        listener.refresh()


def test_the_ticker_flashes_until_stopped(session: Session) -> None:
    panel = CountingPanel(default_layout("9x9"), wanted=4)
    listener = LedListener(session, panel).attach()
    session.alert("illegal", "no", ("e9",))
    ticker = Ticker(listener, period=0.001).start()
    try:
        assert panel.reached.wait(timeout=30)
    finally:
        ticker.stop()
    assert listener.ticks >= 2
    with pytest.raises(LedError, match="more than 0 seconds"):
        Ticker(listener, period=0)


class CountingSession:
    """Wraps a session and counts the snapshots taken of it."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.events: EventLog = session.events
        self.snapshots = 0

    def snapshot(self) -> dict[str, Any]:
        """Returns the session's snapshot and counts the call."""
        self.snapshots += 1
        return self.session.snapshot()


def test_moves_ticks_and_lifts_need_no_new_snapshot(session: Session,
                                                    panel: SimulatedPanel) -> None:
    view = CountingSession(session)
    listener = LedListener(view, panel).attach()
    for move in ("e9-e8", "e1-e2", "+c5", "e2-e3"):
        session.play(move)
        assert listener.frame == compose({**session.snapshot(), "alerts": []})
    listener.set_lifted("e8")
    listener.tick()
    assert view.snapshots == 1  # the one attach() took
    assert listener.frame == compose({**session.snapshot(), "alerts": []}, "e8", 1)


def test_an_older_event_arriving_late_is_ignored(session: Session,
                                                 panel: SimulatedPanel) -> None:
    listener = LedListener(session, panel).attach()
    session.play("e9-e8")
    newest = listener.frame
    stale = Event(1, "move", {"move": "e9-d9", "state": {}})
    listener.on_event(stale)
    assert listener.frame == newest and listener.last_error is None


def test_nothing_to_show_before_attach(session: Session, panel: SimulatedPanel) -> None:
    with pytest.raises(LedError, match="attach"):
        LedListener(session, panel).tick()


def test_an_undo_settles_the_alert(session: Session, panel: SimulatedPanel) -> None:
    LedListener(session, panel).attach()
    session.play("e9-e8")
    session.alert("illegal", "a pawn moves one square", ("e1", "e3"))
    assert panel.frame.cell("e3") == ALERT
    session.undo()
    assert session.snapshot()["alerts"][-1]["kind"] == "illegal"
    assert panel.frame.cells == ()


def test_a_move_puts_the_lifted_piece_down(session: Session, panel: SimulatedPanel) -> None:
    listener = LedListener(session, panel).attach()
    listener.set_lifted("e9")
    session.alert("camera", "board not found")
    assert listener.lifted == "e9" and panel.frame.cell("e9") == LIFTED  # not a settling event
    session.play("e9-e8")
    assert listener.lifted is None
    assert panel.frame.cell_map() == {"e9": LAST_MOVE, "e8": LAST_MOVE}
