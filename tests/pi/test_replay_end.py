"""The end of a recording: a last move whose still frames are cut short is still read (as a
`done` would read it, with nothing played for the button); a recording that ends while the board
still moves says so and invents no move."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from pi.replay import replay
from vision.render.record import Timing, record_game

QUICK = Timing(fps=10.0, lead=2, still=3, approach=2, leave=2, pause=1)
SIZE = (640, 480)
ARENA = ["+a1", "+a7b7", "+b1c1"]
BLOCKADE = ["roll:b4g3", "c1-b2", "end", "roll:r1y5", "d2-e3"]


def recorded(factory: pytest.TempPathFactory, game: str, variant: str | None, moves: list[str],
             preset: str, seed: int) -> Path:
    """Returns a quick recording of the moves at 640x480 (rendered once per module)."""
    out = factory.mktemp("end") / game
    record_game(game, variant, moves, out, camera=preset, seed=seed, size=SIZE, timing=QUICK)
    return out


@pytest.fixture(scope="module")
def arena(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Returns a Block Arena 7x7 recording under the low, tilted, warm camera."""
    return recorded(tmp_path_factory, "block-arena", "7x7", ARENA, "low-warm-tilted", 2)


@pytest.fixture(scope="module")
def blockade(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Returns a Blockade recording whose last turn is left open (no `end`)."""
    return recorded(tmp_path_factory, "blockade", None, BLOCKADE, "neutral", 7)


def cut(directory: Path, last: int, out: Path) -> Path:
    """Returns a copy of a recording that ends at frame `last` (frames, times and events after it dropped)."""
    shutil.copytree(directory, out)
    for path in (out / "frames").iterdir():
        if int(path.stem) > last:
            path.unlink()
    rows = (out / "frames.csv").read_text(encoding="utf-8").splitlines()
    (out / "frames.csv").write_text("\n".join(rows[:last + 1]) + "\n", encoding="utf-8")
    events = [line for line in (out / "events.jsonl").read_text(encoding="utf-8").splitlines()
              if json.loads(line)["frame"] <= last]
    (out / "events.jsonl").write_text("".join(line + "\n" for line in events), encoding="utf-8")
    return out


def last_label(directory: Path) -> dict[str, Any]:
    """Returns the labels (start, change, settled frames) of a recording's last move."""
    label: dict[str, Any] = json.loads((directory / "truth.json").read_text(encoding="utf-8"))["labels"][-1]
    return label


def run(directory: Path) -> list[dict[str, Any]]:
    """Replays a recording and returns its records."""
    records: list[dict[str, Any]] = []
    replay(directory, records.append)
    return records


def moves_and_alerts(records: list[dict[str, Any]]) -> tuple[list[str], list[str]]:
    """Returns the moves and the alerts of a replay's records."""
    return [r["move"] for r in records if "move" in r], [r["alert"] for r in records if "alert" in r]


def test_a_last_move_cut_after_its_first_still_frame_is_read(arena: Path, tmp_path: Path) -> None:
    last = last_label(arena)["settled"]
    records = run(cut(arena, last, tmp_path / "cut"))
    moves, alerts = moves_and_alerts(records)
    assert moves == ARENA and alerts == []
    assert records[-2] == {"frame": last, "move": ARENA[-1], "ply": len(ARENA)}


def test_an_open_blockade_turn_at_the_end_is_read_and_not_ended(blockade: Path, tmp_path: Path) -> None:
    records = run(cut(blockade, last_label(blockade)["settled"], tmp_path / "cut"))
    assert moves_and_alerts(records) == (BLOCKADE, [])


def test_a_recording_that_ends_while_the_board_moves_says_so_and_reads_nothing(arena: Path, tmp_path: Path) -> None:
    last = last_label(arena)["change"]  # the hand is still over the board
    records = run(cut(arena, last, tmp_path / "cut"))
    moves, alerts = moves_and_alerts(records)
    assert moves == ARENA[:-1]
    assert len(alerts) == 1 and "still moving" in alerts[0]
    assert records[-2]["frame"] == last
