"""Rendered still frames of seeded random games, read through the real still path, for the
stack observers' tests (Tuned and Blockade): renderer, BoardTracker, locate_camera, prepare."""

from __future__ import annotations

import random
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Callable

from rules.core import Game
from rules.registry import get_game
from vision.board import BoardTracker
from vision.expect import expected_view
from vision.kit import kit_named
from vision.observation import Observation
from vision.observe.context import Scene, prepare
from vision.pose import locate_camera
from vision.render.record import PRESETS
from vision.render.scene import Renderer

KIT = kit_named()
LOCK_FRAMES = 3
CONFIDENT = 0.9


@dataclass(frozen=True)
class Step:
    """One still frame of a game: the position before the move being read and after it."""

    before: Any
    after: Any
    move: str


@dataclass(frozen=True)
class Read:
    """One frame read: what the referee held, what is really there, and what was seen."""

    step: Step
    current: dict[str, str]
    truth: dict[str, str]
    seen: Observation


def random_steps(game: Game[Any, Any], seed: int, count: int, most: int = 6) -> list[Step]:
    """Returns positions of one seeded random game, a few moves apart, each with the position
    before its last move."""
    rng, state, steps = random.Random(seed), game.initial_state(), []
    for _ in range(count):
        before, move = state, ""
        for _ in range(rng.randint(1, most)):
            legal = game.legal(state)
            if not legal:
                break
            before, move = state, rng.choice(legal)
            state = game.apply(state, move)
        steps.append(Step(before, state, move))
    return steps


class Camera:
    """A preset's synthetic camera with the still path behind it, one tracker for all frames."""

    def __init__(self, game: str, preset: str, seed: int) -> None:
        camera, light = PRESETS[preset]
        self.game = get_game(game)
        self.renderer = Renderer(game, None, camera, light, seed=seed)
        self.tracker = BoardTracker(KIT, KIT.mat(game))
        self.locked = False

    def scene(self, state: Any) -> Scene:
        """Returns the prepared still frame of a position (the tracker locks on the first)."""
        frame = self.renderer.frame(self.game.board(state))
        for _ in range(1 if self.locked else LOCK_FRAMES):
            fix = self.tracker.update(frame)
        self.locked = True
        assert fix.view is not None, fix.message
        return prepare(frame, fix.view, locate_camera(fix.view), KIT)


def read_frames(observer: ModuleType, game: str, preset: str, seed: int, count: int,
                memory: Callable[[], Any] | None = None) -> list[Read]:
    """Returns each frame of a seeded game read by an observer, with one memory kept."""
    camera = Camera(game, preset, seed)
    kept = None if memory is None else memory()
    reads = []
    for step in random_steps(camera.game, seed, count):
        board = camera.game.board(step.before)
        seen = observer.observe(camera.scene(step.after), board, kept)
        reads.append(Read(step, expected_view(game, board),
                          expected_view(game, camera.game.board(step.after)), seen))
    return reads


def wrong(reads: list[Read]) -> list[tuple[str, str, str, float]]:
    """Returns every misread cell: square, truth, label read, its confidence."""
    return [(square, read.truth[square], cell.label, round(cell.confidence, 3))
            for read in reads for square, cell in read.seen.cells.items() if cell.label != read.truth[square]]


def confidently_wrong(reads: list[Read]) -> list[tuple[str, str, str, float]]:
    """Returns the misread cells whose wrong label was read with confidence over CONFIDENT."""
    return [item for item in wrong(reads) if item[3] > CONFIDENT]


def accuracy(reads: list[Read]) -> float:
    """Returns the share of cells read right."""
    cells = sum(len(read.truth) for read in reads)
    return 1.0 - len(wrong(reads)) / cells
