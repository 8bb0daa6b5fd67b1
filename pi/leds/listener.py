"""Connects a session's event stream to an LED backend: every event recomposes and shows
the frame; a tick makes an illegal move's squares flash; the vision reports lifted pieces
(pi.pipeline's `on_lifted`), and a move, undo or new game puts them down."""

from __future__ import annotations

import logging
import threading
from typing import Any, Callable, Mapping, Protocol

from pi.events import Event, EventLog
from pi.leds.backends import LedBackend
from pi.leds.errors import LedError
from pi.leds.model import LedFrame, compose

# Events after which an earlier alert no longer flashes and no piece is held: the players
# have moved on.
SETTLING_EVENTS: frozenset[str] = frozenset({"move", "undo", "new-game", "resumed"})
TICK_SECONDS = 0.4

ErrorHandler = Callable[[LedError], None]
Change = Callable[[str | None, int], tuple[str | None, int]]
_log = logging.getLogger(__name__)


class SessionView(Protocol):
    """What the listener needs of a Session: its events and its snapshot."""

    events: EventLog

    def snapshot(self) -> dict[str, Any]:
        """Returns the whole current state as JSON-ready data."""
        ...


def log_error(error: LedError) -> None:
    """Logs an LED fault met while handling an event (the session must not fail on it)."""
    _log.error("LEDs: %s", error)


class LedListener:
    """Keeps a backend showing the session: subscribe with attach(), then it follows.

    The listener keeps the snapshot of the newest event it handled, so ticks and lifted
    pieces never wait on the session. A move event carries the new state (Session.play
    publishes the summary it computed), so the LEDs follow a move without a new snapshot;
    other events take one, outside the listener's lock (the session may publish while
    holding its own lock).
    """

    def __init__(self, session: SessionView, backend: LedBackend,
                 on_error: ErrorHandler = log_error) -> None:
        self.session = session
        self.backend = backend
        self.on_error = on_error
        self.lifted: str | None = None
        self.ticks = 0
        self.frame: LedFrame | None = None
        self.last_error: LedError | None = None
        self._snapshot: Mapping[str, Any] | None = None
        self._event_id = -1
        self._alert_open = False
        self._closed = False
        self._lock = threading.RLock()

    def attach(self) -> LedListener:
        """Subscribes to the session's events and shows the current state."""
        self.session.events.subscribe(self.on_event)
        self.refresh()
        return self

    def on_event(self, event: Event) -> None:
        """Recomposes and shows the frame after an event; an LED fault goes to on_error."""
        if self._closed:
            return
        snapshot = self._snapshot_after(event)
        with self._lock:
            if self._closed or not self._keep(snapshot, event.id):
                return
            if event.type == "alert":
                self._alert_open = True
            elif event.type in SETTLING_EVENTS:
                self._alert_open = False
        settled = event.type in SETTLING_EVENTS
        self.guarded(lambda: self._update(_put_down if settled else _same, force=True))

    def refresh(self) -> LedFrame:
        """Takes a new snapshot from the session and shows its frame."""
        snapshot = self.session.snapshot()
        with self._lock:
            event_id = snapshot.get("event_id", 0)
            self._keep(snapshot, event_id if isinstance(event_id, int) else 0)
            return self._update(_same, force=True)

    def set_lifted(self, square: str | None) -> LedFrame:
        """Shows where the piece lifted from a square may go (None: it was put down)."""
        return self._update(lambda _, ticks: (square, ticks), force=True)

    def tick(self) -> LedFrame:
        """Advances the flash phase and shows the frame if it changed."""
        return self._update(lambda lifted, ticks: (lifted, ticks + 1), force=False)

    def close(self) -> None:
        """Stops following events (the backend is closed by its owner)."""
        with self._lock:
            self._closed = True

    def show_lifted(self, record: dict[str, object]) -> None:
        """Follows a pipeline's `on_lifted` record ({"lifted": square or None}), never raising."""
        square = record.get("lifted")
        self.guarded(lambda: self.set_lifted(square if isinstance(square, str) else None))

    def guarded(self, action: Callable[[], object]) -> None:
        """Runs an action; an LedError is kept and handed to on_error, never raised."""
        try:
            action()
        except LedError as error:
            self.last_error = error
            self.on_error(error)

    def _snapshot_after(self, event: Event) -> Mapping[str, Any]:
        """Returns the session's state after an event, from a move event's own data if it can."""
        # A move event holds the new summary; its move is the last of the history, and a move
        # settles every alert. Other events take a new snapshot.
        state = event.data.get("state")
        if event.type == "move" and isinstance(state, dict) and "move" in event.data:
            return {**state, "history": [event.data["move"]], "alerts": [], "pending": []}
        return self.session.snapshot()

    def _keep(self, snapshot: Mapping[str, Any], event_id: int) -> bool:
        """Keeps a snapshot unless a newer one is kept already; tells whether it did."""
        if event_id < self._event_id:
            return False
        self._snapshot, self._event_id = snapshot, event_id
        return True

    def _update(self, change: Change, force: bool) -> LedFrame:
        """Applies a change of (lifted, ticks) and shows the frame if it changed or if forced."""
        # A bad change raises LedError from compose() before anything is kept.
        with self._lock:
            if self._closed:
                raise LedError("the LED listener is closed")
            if self._snapshot is None:
                raise LedError("the LED listener has no state yet: attach() it first")
            lifted, ticks = change(self.lifted, self.ticks)
            snapshot = self._snapshot if self._alert_open else {**self._snapshot, "alerts": []}
            frame = compose(snapshot, lifted, ticks)
            self.lifted, self.ticks = lifted, ticks
            if force or frame != self.frame:
                self.backend.show(frame)
                self.frame = frame
            return frame


def _same(lifted: str | None, ticks: int) -> tuple[str | None, int]:
    """Returns lifted and ticks unchanged."""
    return lifted, ticks


def _put_down(lifted: str | None, ticks: int) -> tuple[str | None, int]:
    """Returns no lifted square, ticks unchanged."""
    return None, ticks


class Ticker:
    """A daemon thread that ticks a listener every period seconds until stopped."""

    def __init__(self, listener: LedListener, period: float = TICK_SECONDS) -> None:
        if not period > 0:
            raise LedError(f"the tick period must be more than 0 seconds, got {period!r}")
        self.listener = listener
        self.period = period
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="led-ticker", daemon=True)

    def start(self) -> Ticker:
        """Starts ticking."""
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stops ticking and waits for the thread to end."""
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()

    def _run(self) -> None:
        """Ticks until stopped."""
        while not self._stop.wait(self.period):
            self.listener.guarded(self.listener.tick)
