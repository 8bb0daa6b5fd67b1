"""A player's hand lifting a piece and setting it back unmoved (a touch before the move) reads as
no move: the replay gives exactly the recorded moves and raises no alert."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pi.replay import replay
from vision.render.record import Timing, record_game

SIZE = (640, 480)
QUICK = Timing(fps=10.0, lead=2, still=3, approach=3, leave=2, pause=1)
GAMES = [
    ("block-arena", "7x7", ["+a1", "+a7b7", "+b1c1", "+g7"], "neutral"),
    ("blockade", None, ["roll:b4g3", "c1-b2", "end", "roll:r1y5", "d2-e3", "end"], "neutral"),
    ("tuned", None, ["+donkey@b2", "+cat@c3", "+dog@a1"], "low-warm-tilted"),
]


@pytest.mark.slow
@pytest.mark.parametrize("game, variant, moves, preset", GAMES, ids=[game for game, *_ in GAMES])
def test_a_piece_touched_and_set_back_before_each_move_reads_as_no_move(
        tmp_path: Path, game: str, variant: str | None, moves: list[str], preset: str) -> None:
    out = tmp_path / game
    record_game(game, variant, moves, out, camera=preset, seed=5, size=SIZE, timing=QUICK, touches=1.0)
    assert len(json.loads((out / "truth.json").read_text())["touches"]) >= 2
    records: list[dict[str, Any]] = []
    replay(out, records.append)
    assert [record["move"] for record in records if "move" in record] == moves
    assert not [record for record in records if "alert" in record]
