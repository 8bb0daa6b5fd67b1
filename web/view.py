"""What the page shows, read from the session: the snapshot plus the board and move squares,
the simulated LEDs and the piece held up."""

from __future__ import annotations

import threading
from typing import Any

from pi.events import Event
from pi.leds.listener import SETTLING_EVENTS
from pi.session import Session
from rules import Game


def board_of(game: Game[Any, Any], state: Any) -> dict[str, Any] | None:
    """Returns game.board(state) in the shared position format, or None when the game has none."""
    try:
        return game.board(state)
    except NotImplementedError:
        return None


def move_squares(game: Game[Any, Any], move: str) -> dict[str, Any]:
    """Returns a move with the squares it leaves and reaches."""
    left, reached = game.squares(move)
    return {"move": move, "from": list(left), "to": list(reached)}


def hints(game: Game[Any, Any], legal: list[str]) -> dict[str, list[str]]:
    """Returns the squares the legal piece moves leave and reach (not placements: too many)."""
    left: set[str] = set()
    reached: set[str] = set()
    for move in legal:
        out, into = game.squares(move)
        if out:
            left.update(out)
            reached.update(into)
    return {"from": sorted(left), "to": sorted(reached)}


def consistent_read(session: Session) -> tuple[Game[Any, Any], Any, dict[str, Any]]:
    """Returns the game, state and snapshot read together (retried if a move slipped between)."""
    for _ in range(5):
        game, state = session.game, session.state
        snapshot = session.snapshot()
        if session.game is game and session.state is state:
            break
    return game, state, snapshot


def state_json(session: Session, leds: dict[str, Any] | None = None,
               lifted: dict[str, Any] | None = None) -> dict[str, Any]:
    """Returns /api/state: the snapshot with "board", "last_move", "hints", "leds" and "lifted"."""
    game, state, snapshot = consistent_read(session)
    history: list[str] = snapshot["history"]
    snapshot["board"] = board_of(game, state)
    snapshot["last_move"] = move_squares(game, history[-1]) if history else None
    snapshot["hints"] = hints(game, snapshot["legal"])
    snapshot["leds"] = leds
    snapshot["lifted"] = lifted
    return snapshot


class LatestEvent:
    """Remembers the data of the newest event of one type (forgotten after any event of the
    `cleared_by` types), so a page that connects late sees it."""

    def __init__(self, kind: str, cleared_by: frozenset[str] = frozenset()) -> None:
        self.kind = kind
        self.cleared_by = cleared_by
        self._data: dict[str, Any] | None = None
        self._lock = threading.Lock()

    def __call__(self, event: Event) -> None:
        if event.type == self.kind or event.type in self.cleared_by:
            with self._lock:
                self._data = dict(event.data) if event.type == self.kind else None

    @property
    def data(self) -> dict[str, Any] | None:
        """Returns the newest event's data, or None."""
        with self._lock:
            return self._data


def held(lifted: dict[str, Any] | None) -> dict[str, Any] | None:
    """Returns the newest "lifted" event's data while a piece is held up, else None."""
    return lifted if lifted is not None and lifted.get("square") is not None else None


class StateView:
    """Computes /api/state once per event and shares it between all the phones that ask."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.leds = LatestEvent("leds")
        # The piece held up ({"square", "to"}, from the pipeline only) is display state, never
        # journalled: a move, undo or new game puts it down.
        self.lifted = LatestEvent("lifted", SETTLING_EVENTS)
        session.events.subscribe(self.leds)
        session.events.subscribe(self.lifted)
        self._key = -1
        self._value: dict[str, Any] = {}
        self._lock = threading.Lock()

    def current(self) -> dict[str, Any]:
        """Returns the state as of the newest event (callers must not change it)."""
        with self._lock:
            key = self.session.events.last_id
            if key != self._key:
                self._value = state_json(self.session, self.leds.data, held(self.lifted.data))
                self._key = key
            return self._value
