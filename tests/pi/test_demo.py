"""The demo runs the bundled recording through the full pipeline with the dashboard up."""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.request

import pytest


@pytest.mark.slow
def test_demo_replays_the_bundled_game_and_serves_the_dashboard() -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "pi.cli", "demo", "--port", "0", "--exit-when-done"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    assert process.stderr is not None
    banner = process.stderr.readline()
    url = banner.split(" on ", 1)[1].split(" ", 1)[0]
    with urllib.request.urlopen(url + "/api/state", timeout=10) as response:
        state = json.loads(response.read())
    assert state["game"] == "tuned"
    out, err = process.communicate(timeout=120)
    assert process.returncode == 0, err
    lines = [json.loads(line) for line in out.splitlines()]
    assert lines[-1] == {"outcome": {"winner": 2, "reason": "line"}}
    assert sum(1 for line in lines if "move" in line) == 14
