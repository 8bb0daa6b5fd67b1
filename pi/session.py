"""The running game: checked moves, alerts, confirmations and undo, journalled before shown."""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from typing import Any

from pi.events import EventLog
from pi.journal import Journal, JournalGame
from rules import Game, RulesError, get_game


class SessionError(RuntimeError):
    """Raised for a control that makes no sense now (nothing to undo, nothing to confirm)."""


@dataclass(frozen=True, slots=True)
class Alert:
    """Something the players must see: its kind, message, squares involved and frame."""

    kind: str
    message: str
    squares: tuple[str, ...] = ()
    frame: int | None = None

    def as_dict(self) -> dict[str, Any]:
        """Returns the alert as JSON-ready data."""
        return {"kind": self.kind, "message": self.message, "squares": list(self.squares),
                "frame": self.frame}


class Session:
    """Owns the game being played; every change is journalled first, then published."""

    def __init__(self, journal: Journal, events: EventLog | None = None) -> None:
        self.journal = journal
        self.events = events or EventLog()
        self._lock = threading.RLock()
        self.game: Game[Any, Any] = get_game("block-arena")
        self._states: list[Any] = [self.game.initial_state()]
        self._moves: list[str] = []
        self._game_id = 0
        self.alerts: list[Alert] = []
        self._alerts_before_move = 0  # alerts raised before the last move or undo
        self.pending: tuple[str, ...] = ()
        self.deferred: tuple[str, ...] = ()  # moves from events that came while a question stood

    # -- reading -------------------------------------------------------------------------

    @property
    def state(self) -> Any:
        """Returns the current game state."""
        return self._states[-1]

    @property
    def moves(self) -> list[str]:
        """Returns the accepted moves of the current game, in order."""
        return list(self._moves)

    def position(self) -> tuple[Game[Any, Any], tuple[str, ...], Any]:
        """Returns the game, its accepted moves and its current state, read together."""
        with self._lock:
            return self.game, tuple(self._moves), self.state

    def snapshot(self) -> dict[str, Any]:
        """Returns the whole current state as JSON-ready data (the dashboard's /api/state)."""
        with self._lock:
            summary = self.game.summary(self.state)
            summary.update(
                history=list(self._moves),
                alerts=[alert.as_dict() for alert in self.alerts[-10:]],
                alerts_since_move=min(len(self.alerts) - self._alerts_before_move, 10),
                pending=list(self.pending),
                event_id=self.events.last_id,
            )
            return summary

    # -- controls ------------------------------------------------------------------------

    def new_game(self, name: str, variant: str | None = None) -> None:
        """Starts a new game (raises RulesError for an unknown game or variant)."""
        game = get_game(name, variant)
        with self._lock:
            self._game_id = self.journal.start_game(game.name, game.variant)
            self._reset(game, [game.initial_state()], [])
        self.events.publish("new-game", self.snapshot())

    def resume(self) -> bool:
        """Restores the most recent unfinished game from the journal; tells whether it did."""
        record = self.journal.unfinished()
        if record is None:
            return False
        game, states = replay_record(record)
        with self._lock:
            self._game_id = record.id
            self._reset(game, states, record.moves())
        self.events.publish("resumed", self.snapshot())
        return True

    def play(self, move: str, frame: int | None = None, kind: str = "move") -> str:
        """Applies a checked move, journals it, publishes it; raises RulesError and changes
        nothing if it is invalid or illegal. Returns the canonical move."""
        with self._lock:
            self._require_game()
            after = self.game.apply(self.state, move)
            canonical = str(self.game.coerce(move))
            if kind != "move":
                self.journal.append(self._game_id, kind, canonical, frame)
            self.journal.append(self._game_id, "move", canonical, frame)
            self._states.append(after)
            self._moves.append(canonical)
            self.pending = ()
            self._alerts_before_move = len(self.alerts)
            if self.game.outcome(after) is not None:
                self.journal.finish(self._game_id)
            data = {"move": canonical, "ply": len(self._moves), "frame": frame, "kind": kind,
                    "state": self.game.summary(after)}
        self.events.publish("move", data)
        return canonical

    def undo(self) -> str:
        """Takes back the last accepted move and returns it; raises SessionError if none."""
        with self._lock:
            self._require_game()
            if not self._moves:
                raise SessionError("there is no move to undo")
            self.journal.append(self._game_id, "undo", self._moves[-1])
            undone = self._moves.pop()
            self._states.pop()
            self.pending, self.deferred = (), ()
            self._alerts_before_move = len(self.alerts)
        self.events.publish("undo", {"move": undone, "state": self.snapshot()})
        return undone

    def ask(self, candidates: list[str], frame: int | None = None) -> None:
        """Records an ambiguous reading: the players must confirm one of the candidates."""
        with self._lock:
            legal = set(self.game.legal(self.state))
            self.pending = tuple(sorted(c for c in candidates if c in legal))
        self.alert("ambiguous", "confirm the move: " + " or ".join(self.pending), (), frame)

    def confirm(self, move: str) -> str:
        """Plays the confirmed (or corrected) reading of an ambiguous move, then the moves from
        events kept while it stood (those still legal)."""
        with self._lock:
            kind = "confirm" if move in self.pending else "correction"
            canonical = self.play(move, kind=kind)
            for deferred in self.take_deferred():
                try:
                    self.play(deferred)
                except RulesError:
                    continue
            return canonical

    def defer(self, move: str) -> None:
        """Keeps a move from an event (a done's `end`, a roll) that came while a question
        stands, to be played once the question is answered; raises RulesError if it is not a
        move of the game."""
        with self._lock:
            self.deferred += (str(self.game.coerce(move)),)

    def take_deferred(self) -> tuple[str, ...]:
        """Returns and forgets the moves kept while a question stood."""
        with self._lock:
            taken, self.deferred = self.deferred, ()
            return taken

    def alert(self, kind: str, message: str, squares: tuple[str, ...] = (),
              frame: int | None = None) -> Alert:
        """Journals and publishes an alert (illegal move, ambiguity, camera trouble)."""
        alert = Alert(kind, message, squares, frame)
        with self._lock:
            self._require_game()
            self.journal.append(self._game_id, "alert", json.dumps(alert.as_dict()), frame)
            self.alerts.append(alert)
        self.events.publish("alert", alert.as_dict())
        return alert

    # -- internals -----------------------------------------------------------------------

    def _require_game(self) -> None:
        """Raises SessionError unless a game was started or resumed."""
        if self._game_id == 0:
            raise SessionError("no game has been started")

    def _reset(self, game: Game[Any, Any], states: list[Any], moves: list[str]) -> None:
        """Replaces the current game wholesale."""
        self.game = game
        self._states = states
        self._moves = moves
        self.alerts = []
        self._alerts_before_move = 0
        self.pending, self.deferred = (), ()


def replay_record(record: JournalGame) -> tuple[Game[Any, Any], list[Any]]:
    """Returns the game and every state of a journalled game, re-checking each move."""
    game = get_game(record.game, record.variant)
    states = [game.initial_state()]
    for move in record.moves():
        try:
            states.append(game.apply(states[-1], move))
        except RulesError as error:
            raise SessionError(f"journal game {record.id} holds an illegal move: {error}") from None
    return game, states
