"""Tests of Block Arena's pixel observer on frames of the realistic tier (Blender/Cycles, see
docs/realistic-fixtures.md): two settled frames of the block-arena-9x9-real-warm recording
(640 x 480, a warm lamp), each read from scratch (a new memory) through the real still path.
Cycles' oiled walnut shows a white sheen (lighter and greyer than the kit's nominal colour) and
its tops are lit, so a new dark block must not read as a maple one in shadow, nor a near-black
meeple on a walnut top as a shaded patch of that top."""

from __future__ import annotations

import math
from pathlib import Path

import cv2

from rules.registry import get_game
from tests.vision.observe.stack_scenes import KIT
from vision.board import BoardTracker
from vision.infer import Settings
from vision.observation import Observation
from vision.observe import block_arena
from vision.observe.context import prepare
from vision.pose import locate_camera

FRAMES = Path(__file__).resolve().parent / "frames"
GAME, VARIANT = "block-arena", "9x9"
MOVES = ["+c1d1", "+g9h9", "+i1", "+d9", "+e1f1", "+f9", "+a1b1", "+i9", "M+d1", "M+i9"]


def read_frame(name: str, plies: int) -> Observation:
    """Returns a stored frame read with a new memory, given the position after some of MOVES."""
    frame = cv2.imread(str(FRAMES / name))
    assert frame is not None, name
    fix = BoardTracker(KIT, KIT.mat(GAME, VARIANT)).update(frame)
    assert fix.view is not None, fix.message
    game = get_game(GAME, VARIANT)
    scene = prepare(frame, fix.view, locate_camera(fix.view), KIT)
    return block_arena.observe(scene, game.board(game.play_all(MOVES[:plies])), block_arena.new_memory(KIT))


def test_a_first_glossy_walnut_block_reads_dark() -> None:
    seen = read_frame("block-arena-9x9-real-warm-000025.jpg", 1)
    assert seen.cells["g9"].label == seen.cells["h9"].label == "dark-block-lying"
    assert seen.cells["c1"].label == "light-block-lying"


def test_a_dark_meeple_on_a_dark_block_is_read_beyond_the_referee_s_margin() -> None:
    seen = read_frame("block-arena-9x9-real-warm-000121.jpg", 9)
    cell = seen.cells["i9"]
    meeple, bare = cell.probability("dark-meeple/dark-block-upright"), cell.probability("dark-block-upright")
    assert cell.label == "dark-meeple/dark-block-upright"
    assert math.log(meeple / max(bare, 1e-12)) >= Settings().cell_margin + 1.0, cell.probs
