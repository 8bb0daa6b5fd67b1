"""Power-cut test: `blockref run` killed with SIGKILL at random points loses no accepted move."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pi.journal import Journal
from rules import get_game
from tools.make_fixtures import SPECS, write_fixture

SPEC = next(spec for spec in SPECS if spec.name == "block-pt-cool")


def write_config(tmp_path: Path, recording: Path) -> Path:
    """Writes an appliance config that reads the recorded fixture with no hardware."""
    config = tmp_path / "config.toml"
    config.write_text(
        f'[game]\nname = "block-pt"\n'
        f'[camera]\nsource = "recorded"\nrecorded_dir = "{recording}"\nfps = 40\n'
        f'[leds]\nbackend = "simulated"\n[buttons]\nenabled = false\n'
        f'[web]\nhost = "127.0.0.1"\nport = 18765\n'
        f'[journal]\npath = "{tmp_path / "journal.sqlite"}"\n',
        encoding="utf-8",
    )
    return config


def journal_moves(path: Path) -> list[str]:
    """Returns the moves of the journal's latest game (none before the journal exists)."""
    if not path.exists():
        return []
    journal = Journal(path)
    try:
        record = journal.latest()
        return [] if record is None else record.moves()
    finally:
        journal.close()


def run_until_killed(config: Path, journal: Path, kill_at: int | None, extra_s: float = 0.0) -> None:
    """Starts the appliance and SIGKILLs it once the journal holds kill_at moves (plus a random
    extra delay), or lets it run to the end of the recording when kill_at is None."""
    process = subprocess.Popen([sys.executable, "-m", "pi.cli", "run", "--config", str(config)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 90
    try:
        while process.poll() is None and time.monotonic() < deadline:
            if kill_at is not None and len(journal_moves(journal)) >= kill_at:
                time.sleep(extra_s)
                break
            time.sleep(0.02)
    finally:
        if process.poll() is None:
            os.kill(process.pid, signal.SIGKILL)
        process.wait()


@pytest.mark.slow
def test_sigkill_at_random_points_loses_no_accepted_move(tmp_path: Path) -> None:
    write_fixture(SPEC, tmp_path)  # the fast-tier recording, rendered as tools/make_fixtures.py does
    recording = tmp_path / SPEC.name
    config = write_config(tmp_path, recording)
    truth = json.loads((recording / "truth.json").read_text(encoding="utf-8"))["moves"]
    rng = random.Random(7)
    seen: list[list[str]] = []
    journal = tmp_path / "journal.sqlite"
    for kill_at in sorted(rng.sample(range(1, len(truth)), 4)):
        run_until_killed(config, journal, kill_at, rng.uniform(0.0, 0.3))
        moves = journal_moves(journal)
        assert moves == truth[: len(moves)], "the journal must hold a prefix of the true moves"
        assert not seen or len(moves) >= len(seen[-1]), "no accepted move may be lost"
        seen.append(moves)
    assert any(0 < len(moves) < len(truth) for moves in seen), "a kill must land mid-game"
    run_until_killed(config, journal, None)
    record = Journal(journal).latest()
    assert record is not None and record.moves() == truth
    game = get_game("block-pt")
    assert game.play_all(record.moves()) == game.play_all(truth)
