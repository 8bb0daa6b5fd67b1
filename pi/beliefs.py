"""Keeps the pipeline's belief (vision/belief.py) in step with the session.

The pipeline reads each still board with the belief and hands back the belief after acting on
the reading (`accept`). Every other change of the session is noticed when the belief is next
needed (`current`), from the session's events and its move list: moves that extend what the
belief reported (a roll, `end`, a pass, a move entered on the dashboard) go through
`Belief.play`, so every look-alike stays in step; a confirmed or corrected move goes through
`Belief.choose` (the players settled it); an undo or a new or resumed game restarts the belief,
certain, on the session's state. The keeper also holds the last observation read as a move or as
no change (`seen`), which tells a misreading that lasts from a change; it is dropped whenever the
belief restarts or the players choose a move, since it may show what they took back or settled.
"""

from __future__ import annotations

import threading
from typing import Any

from pi.events import Event
from pi.session import Session
from rules import Game, RulesError
from vision.belief import Belief
from vision.infer import Reading
from vision.observation import Observation

RESETS = frozenset({"undo", "new-game", "resumed"})
CHOSEN = frozenset({"confirm", "correction"})


class BeliefKeeper:
    """The belief over the session's game, following the session (see module doc)."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self._lock = threading.Lock()
        self._reset = False
        self._chosen: set[tuple[int, str]] = set()
        self.moves: tuple[str, ...] = ()
        self.seen: Observation | None = None
        self.epoch = 0  # counts restarts and chosen moves: what makes `seen` void
        self._belief = self._restart(*session.position())
        session.events.subscribe(self._on_event)

    def _on_event(self, event: Event) -> None:
        """Notes what the belief must follow: a reset, or a move the players chose."""
        with self._lock:
            if event.type in RESETS:
                self._reset = True
            elif event.type == "move" and event.data.get("kind") in CHOSEN:
                self._chosen.add((event.data["ply"], event.data["move"]))

    def _taken(self) -> tuple[bool, set[tuple[int, str]]]:
        """Returns and forgets the changes noted since the belief was last brought in step."""
        with self._lock:
            noted = self._reset, self._chosen
            self._reset, self._chosen = False, set()
        return noted

    def current(self) -> Belief:
        """Returns the belief, first brought in step with the session's game and moves."""
        game, moves, state = self.session.position()
        reset, chosen = self._taken()
        known = self.moves
        if reset or game is not self._belief.game or moves[: len(known)] != known:
            return self._restart(game, moves, state)
        if chosen:
            self.seen, self.epoch = None, self.epoch + 1
        try:
            for ply in range(len(known) + 1, len(moves) + 1):
                move = moves[ply - 1]
                self._belief = (self._belief.choose([move]) if (ply, move) in chosen
                                else self._belief.play(move))
        except RulesError:
            return self._restart(game, moves, state)
        self.moves = moves
        return self._belief

    def accept(self, belief: Belief, reading: Reading, seen: Observation) -> None:
        """Takes the belief after the pipeline played a move reading, and the observation read,
        if the session now holds the moves it meant; else restarts the belief on the session's state."""
        meant = self.moves[: len(self.moves) - reading.rewind] + reading.moves
        game, moves, state = self.session.position()
        self._taken()
        if moves == meant and game is belief.game:
            self._belief, self.moves, self.seen = belief, moves, seen
        else:
            self._restart(game, moves, state)

    def unchanged(self, seen: Observation, epoch: int) -> None:
        """Keeps an observation read as no change by the belief of an epoch, if the belief has
        not restarted nor had a move chosen since."""
        self.current()
        if self.epoch == epoch:
            self.seen = seen

    def hold(self, belief: Belief) -> None:
        """Keeps the belief after a question (it remembers the candidates), if the session's
        moves did not change meanwhile."""
        game, moves, _ = self.session.position()
        if moves == self.moves and game is belief.game:
            self._belief = belief

    def _restart(self, game: Game[Any, Any], moves: tuple[str, ...], state: Any) -> Belief:
        """Returns the belief restarted, certain, on a state of the session."""
        self._belief, self.moves, self.seen = Belief.start(game, state), moves, None
        self.epoch += 1
        return self._belief
