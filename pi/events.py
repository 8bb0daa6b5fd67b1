"""The session's event stream: numbered events kept in a ring, waited on by SSE clients."""

from __future__ import annotations

import threading
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Callable

Listener = Callable[["Event"], None]


@dataclass(frozen=True, slots=True)
class Event:
    """One change of the running game: its number, its type and its JSON-ready data."""

    id: int
    type: str
    data: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        """Returns the event as a JSON-ready dict."""
        return {"id": self.id, "type": self.type, **self.data}


class EventLog:
    """Keeps the last events, numbers them, wakes waiters and calls listeners in order."""

    def __init__(self, keep: int = 2000) -> None:
        self._events: deque[Event] = deque(maxlen=keep)
        self._next_id = 1
        self._changed = threading.Condition()
        self._listeners: list[Listener] = []
        self._closed = False

    def subscribe(self, listener: Listener) -> None:
        """Adds a listener called synchronously with each new event."""
        self._listeners.append(listener)

    def publish(self, type_: str, data: dict[str, Any]) -> Event:
        """Numbers and stores an event, wakes waiters, and calls listeners."""
        with self._changed:
            event = Event(self._next_id, type_, data)
            self._next_id += 1
            self._events.append(event)
            self._changed.notify_all()
        for listener in list(self._listeners):
            listener(event)
        return event

    @property
    def last_id(self) -> int:
        """Returns the number of the newest event (0 before any)."""
        return self._next_id - 1

    def since(self, last_id: int) -> list[Event]:
        """Returns the kept events numbered after last_id."""
        with self._changed:
            return [event for event in self._events if event.id > last_id]

    def wait_since(self, last_id: int, timeout: float) -> list[Event]:
        """Waits up to timeout seconds for events after last_id and returns them."""
        with self._changed:
            self._changed.wait_for(lambda: self._closed or self.last_id > last_id, timeout)
            return [event for event in self._events if event.id > last_id]

    def close(self) -> None:
        """Wakes every waiter for good (used at shutdown)."""
        with self._changed:
            self._closed = True
            self._changed.notify_all()

    @property
    def closed(self) -> bool:
        """Tells whether the log was closed."""
        return self._closed
