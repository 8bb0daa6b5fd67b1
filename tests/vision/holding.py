"""Films moves in memory with the fast renderer, the hand holding each lifted piece a while:
frames for the lift watch and pipeline tests, with what each frame shows.

The recorder's Planner plans the moves (vision.render.record); the last frame of each move's
`holding` stage (the piece in the hand, over its new square, not yet let go) is shown `hold`
more times, as a player who holds a piece before putting it down. The game may start from a
position reached by set-up moves, which are not filmed. A feint films the first move's hand
reaching for its piece, resting on it and going away without moving anything.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Sequence

import cv2
import numpy as np

from pi.camera.base import Frame
from rules import get_game
from rules.core import Game, move_squares
from vision.expect import expected_view
from vision.observation import Observation
from vision.observe.context import Scene
from vision.render.record import Script, Shot, Planner, Timing, preset
from vision.render.scene import Renderer

TIMING = Timing(fps=10.0, lead=3, still=3, approach=2, leave=2, pause=1)
SIZE = (640, 480)
ARENA_SETUP = ("+b1", "+b7", "+d1e1", "+d7e7", "+f1", "+f7", "+c1", "+c7", "M+b1", "M+f7")
# (game, variant, set-up moves, filmed moves) per game: piece moves whose source the camera sees
# while the piece is held (sideways or towards the mover), and placements.
SAMPLES: dict[str, tuple[str, str | None, tuple[str, ...], tuple[str, ...]]] = {
    "block-pt": ("block-pt", None, (), ("e9-d9", "e1-f1", "+h9")),
    "block-arena": ("block-arena", "7x7", ARENA_SETUP, ("f1-g1", "Mf7-e7")),
    "tuned": ("tuned", None, ("+donkey@a1", "+dog@a1"), ("a1-b2", "+cat@c3")),
    "blockade": ("blockade", None, ("roll:b5g1", "d5-c3"), ("c3-e1",)),
}


@dataclass(frozen=True)
class Take:
    """One filmed move: its text, the squares it lifts from, its frame numbers (from 1) from the
    hand's arrival to the last still frame, and the frames where the lifted piece is held."""

    move: str
    sources: tuple[str, ...]
    frames: range
    holding: tuple[int, ...]


@dataclass(frozen=True)
class Film:
    """Frames of moves played from a start, the positions they show, and each move's take."""

    game: Game[Any, Any]
    setup: tuple[str, ...]
    frames: list[Frame]
    positions: list[Any]
    takes: list[Take]

    def observer(self, current: list[int]) -> Any:
        """Returns an observer reporting, with certainty, the position the frame numbered
        current[0] shows (the tests are about lifts, not about reading still frames)."""

        def observe(scene: Scene, board: dict[str, Any], memory: Any) -> Observation:
            view = expected_view(self.game.name, self.positions[current[0] - 1])
            return Observation.certain(self.game.name, view)

        return observe


def script_from(game: Game[Any, Any], setup: Sequence[str], moves: Sequence[str]) -> Script:
    """Returns the script of moves played after some set-up moves."""
    state = game.play_all(list(setup))
    positions, movers = [game.board(state)], []
    for move in moves:
        movers.append(game.to_move(state))
        state = game.apply(state, move)
        positions.append(game.board(state))
    return Script(game.name, game.variant, tuple(moves), tuple(positions), tuple(movers), None)


def _held(shot: Shot) -> bool:
    """Tells whether a shot shows a hand carrying pieces."""
    return shot.hand is not None and bool(shot.hand.held)


def _lengthened(shots: list[Shot], labels: list[dict[str, Any]], hold: int) -> tuple[list[Shot], list[Take]]:
    """Returns the shots with each move's last holding shot shown hold more times, and the takes."""
    out: list[Shot] = []
    takes = []
    for number, label in enumerate(labels):
        end = labels[number + 1]["start"] - 1 if number + 1 < len(labels) else len(shots)
        trip = shots[label["start"] - 1:end]
        last = max((i for i, shot in enumerate(trip) if _held(shot)), default=None)
        if last is not None:
            trip = trip[:last + 1] + [trip[last]] * hold + trip[last + 1:]
        if number == 0:
            out += shots[:label["start"] - 1]
        start = len(out) + 1
        sources = move_squares(label["move"])[0] if "-" in label["move"] else ()
        holding = tuple(start + i for i, shot in enumerate(trip) if _held(shot)) if sources else ()
        out += trip
        takes.append(Take(label["move"], sources, range(start, len(out) + 1), holding))
    return out, takes


def _feinted(shots: list[Shot], labels: list[dict[str, Any]], hold: int) -> tuple[list[Shot], list[Take]]:
    """Returns the shots of the first move's hand reaching its piece, resting on it hold more
    frames and going back, the position unchanged, with still frames around; and its take."""
    label = labels[0]
    before = shots[label["start"] - 2]
    trip = shots[label["start"] - 1:label["change"] - 1]
    reach = trip[:next(i for i, shot in enumerate(trip) if _held(shot))]
    out = shots[:label["start"] - 1]
    start = len(out) + 1
    out += reach + [reach[-1]] * hold + reach[::-1] + [before] * TIMING.still
    return out, [Take(label["move"], (), range(start, len(out) + 1), ())]


def film(game_name: str, variant: str | None, setup: Sequence[str], moves: Sequence[str], *,
         camera: str = "neutral", seed: int = 0, hold: int = 2, feint: bool = False,
         size: tuple[int, int] = SIZE) -> Film:
    """Films moves after set-up moves, each lifted piece held hold more frames, or feints at
    them (see the module doc)."""
    game = get_game(game_name, variant)
    camera_spec, light = preset(camera)
    renderer = Renderer(game.name, game.variant, replace(camera_spec, size=size), light, seed=seed)
    plan = Planner(renderer, TIMING, seed).run(script_from(game, setup, moves))
    shots, takes = (_feinted if feint else _lengthened)(plan.shots, plan.labels, hold)
    frames = []
    for index, shot in enumerate(shots):
        data = renderer.sensor.encode(renderer.frame(shot.position, shot.hand))
        image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
        frames.append(Frame(index + 1, index * 1000.0 / TIMING.fps, image))
    return Film(game, tuple(setup), frames, [shot.position for shot in shots], takes)
