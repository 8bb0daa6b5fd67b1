"""Every committed recorded game replays to exactly its truth.json: same moves, no false move."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pi.replay import replay

FIXTURES = Path(__file__).resolve().parent.parent.parent / "fixtures"
RECORDINGS = sorted(path.parent for path in FIXTURES.glob("*/truth.json"))


def test_there_are_fixtures() -> None:
    assert len(RECORDINGS) >= 4


@pytest.mark.parametrize("directory", RECORDINGS, ids=lambda path: path.name)
def test_replay_reproduces_the_truth(directory: Path) -> None:
    records: list[dict[str, Any]] = []
    replay(directory, records.append)
    truth = json.loads((directory / "truth.json").read_text(encoding="utf-8"))
    moves = [record["move"] for record in records if "move" in record]
    assert moves == truth["moves"]
    assert [record for record in records if "alert" in record] == []
    assert records[-1] == {"outcome": truth["outcome"]}
    frames = [record["frame"] for record in records if "frame" in record]
    assert frames == sorted(frames)
