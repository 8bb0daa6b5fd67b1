"""Rendered still frames for the Block (PT) and Block Arena observers' tests: stack_scenes'
seeded games and still path (renderer, BoardTracker, locate_camera, prepare) with the game's
variant, and the cells the renderer itself does not show as the position holds them.

The renderer's painter draws solids far to near from the point under the camera by their
anchors; a meeple whose anchor lies farther than its block's (a meeple on a lying block, the
outer one of two meeples) is drawn first and the block's top paints over it. Such cells show
something else than their expected view, so they are left out of the accuracy (and counted).
"""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType
from typing import Any, Callable

import numpy as np

from rules.registry import get_game
from tests.vision.observe.stack_scenes import CONFIDENT, KIT, LOCK_FRAMES, Camera, Read, random_steps
from vision.board import BoardTracker
from vision.expect import expected_view
from vision.observe.context import Scene, prepare
from vision.pose import locate_camera
from vision.render.record import PRESETS
from vision.render.scene import Renderer, position_solids
from vision.render.solids import Solid


@dataclass(frozen=True)
class Sight:
    """One frame read, with the squares the renderer drew otherwise than the position holds."""

    read: Read
    hidden: frozenset[str]


class VariantCamera(Camera):
    """A preset's synthetic camera for one variant of a game, with the still path behind it."""

    def __init__(self, game: str, variant: str | None, preset: str, seed: int) -> None:
        camera, light = PRESETS[preset]
        self.game = get_game(game, variant)
        self.renderer = Renderer(game, variant, camera, light, seed=seed)
        self.tracker = BoardTracker(KIT, KIT.mat(game, variant))
        self.locked = False

    def scene(self, state: Any) -> Scene:
        """Returns the prepared still frame of a state of the game."""
        return self.board_scene(self.game.board(state))

    def board_scene(self, board: dict[str, Any]) -> Scene:
        """Returns the prepared still frame of a position in the board format (the tracker locks
        on the first)."""
        frame = self.renderer.frame(board)
        for _ in range(1 if self.locked else LOCK_FRAMES):
            fix = self.tracker.update(frame)
        self.locked = True
        assert fix.view is not None, fix.message
        return prepare(frame, fix.view, locate_camera(fix.view), KIT)


def painter_key(renderer: Renderer, solid: Solid) -> tuple[float, float]:
    """Returns the renderer's drawing order key of a solid (smaller: drawn earlier)."""
    eye = renderer.canvas.camera.centre
    return (-float(np.hypot(*(solid.anchor[:2] - eye[:2]))), float(solid.anchor[2]))


def hidden_meeples(renderer: Renderer, position: dict[str, Any]) -> frozenset[str]:
    """Returns the squares whose meeple the renderer draws before the block it stands on."""
    if renderer.setting.game != "block-arena":
        return frozenset()
    items, _ = position_solids(renderer.setting, position)
    kinds = {(item, key): position["cells"][key[0]][key[1]]["kind"] for item in items for key in item.keys}
    blocks = {key[0]: painter_key(renderer, item.solids[0]) for (item, key), kind in kinds.items() if kind == "block"}
    return frozenset(key[0] for (item, key), kind in kinds.items()
                     if kind == "meeple" and painter_key(renderer, item.solids[0]) < blocks[key[0]])


def read_sights(observer: ModuleType, game: str, variant: str | None, preset: str, seed: int, count: int,
                memory: Callable[[], Any]) -> list[Sight]:
    """Returns each frame of a seeded game read by an observer, with one memory kept."""
    camera = VariantCamera(game, variant, preset, seed)
    kept = memory()
    sights = []
    for step in random_steps(camera.game, seed, count):
        board, after = camera.game.board(step.before), camera.game.board(step.after)
        seen = observer.observe(camera.scene(step.after), board, kept)
        read = Read(step, expected_view(game, board), expected_view(game, after), seen)
        sights.append(Sight(read, hidden_meeples(camera.renderer, after)))
    return sights


def wrong(sights: list[Sight]) -> list[tuple[str, str, str, float]]:
    """Returns every misread cell the renderer drew truly: square, truth, label read, confidence."""
    return [(square, sight.read.truth[square], cell.label, round(cell.confidence, 3))
            for sight in sights for square, cell in sight.read.seen.cells.items()
            if square not in sight.hidden and cell.label != sight.read.truth[square]]


def confidently_wrong(sights: list[Sight]) -> list[tuple[str, str, str, float]]:
    """Returns the misread cells whose wrong label was read with confidence over CONFIDENT."""
    return [item for item in wrong(sights) if item[3] > CONFIDENT]


def accuracy(sights: list[Sight]) -> float:
    """Returns the share of the truly drawn cells read right."""
    cells = sum(len(sight.read.truth) - len(sight.hidden) for sight in sights)
    return 1.0 - len(wrong(sights)) / cells
