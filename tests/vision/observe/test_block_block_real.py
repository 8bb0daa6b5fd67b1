"""Tests of BLOCK.BLOCK's pixel observer on two frames of the realistic tier (Blender/Cycles, see
docs/realistic-fixtures.md): a cool look at 640 x 480, before and after a white slab is laid on
the white mat over d2, d3, e2 and e3, read with one memory through the real still path. Under
that light e3's part of the slab has the mat's very colour; only the grid lines it covers tell."""

from __future__ import annotations

from pathlib import Path

import cv2

from rules.registry import get_game
from tests.vision.observe.stack_scenes import KIT
from vision.board import BoardTracker
from vision.infer import read_change
from vision.observation import Observation
from vision.observe import block_block
from vision.observe.context import prepare
from vision.pose import locate_camera

FRAMES = Path(__file__).resolve().parent / "frames"
GAME = get_game("block-block")
MOVES = ["ell:b1.0c1.0c1.1", "tee:a3.0b2.0b3.0c3.0", "bar4:d4.0d4.1d4.2d4.3", "bar2:d5.0d5.1",
         "bar3:b1.1b1.2b1.3"]
SLAB = "slab:d2.0d3.0e2.0e3.0"


def read_frames(*names: str) -> list[Observation]:
    """Returns stored frames read in turn with one memory under the position after MOVES."""
    tracker, memory = BoardTracker(KIT, KIT.mat("block-block")), block_block.new_memory(KIT)
    board, found = GAME.board(GAME.play_all(MOVES)), []
    for name in names:
        frame = cv2.imread(str(FRAMES / name))
        assert frame is not None, name
        fix = tracker.update(frame)
        assert fix.view is not None, fix.message
        found.append(block_block.observe(prepare(frame, fix.view, locate_camera(fix.view), KIT), board, memory))
    return found


def test_a_white_slab_the_colour_of_the_mat_is_read_by_the_grid_lines_it_covers() -> None:
    before, after = read_frames("block-block-real-cool-000060.jpg", "block-block-real-cool-000075.jpg")
    assert before.cells["e3"].label == "empty"
    assert after.cells["e3"].label == "white@1", after.cells["e3"].probs
    reading = read_change(GAME, GAME.play_all(MOVES), after)
    assert (reading.kind, reading.moves) == ("move", (SLAB,))
