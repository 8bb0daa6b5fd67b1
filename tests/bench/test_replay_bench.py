"""Tests of the replay benchmark's timing of the observer (bench.replay_bench)."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

import pi.pipeline
from bench.replay_bench import time_replay, timed_observers
from vision.kit import kit_named

DEMO = Path(__file__).resolve().parents[2] / "fixtures" / "tuned-neutral"


def test_each_observer_call_is_timed_and_the_plain_observer_comes_back() -> None:
    plain, spent, ticks = pi.pipeline.observer_for, [], itertools.count()
    with timed_observers(lambda: float(next(ticks)), spent):
        observe, _ = pi.pipeline.observer_for("tuned", kit_named())
        assert observe is not plain("tuned", kit_named())[0]
    assert pi.pipeline.observer_for is plain
    assert spent == []  # made, not called


def test_a_replay_reports_how_long_its_still_frames_took_to_read() -> None:
    ticks = itertools.count()
    result = time_replay(DEMO, 1, lambda: float(next(ticks)) / 1000.0)  # every clock read: 1 ms on
    assert result["moves"] == 14
    assert result["read_ms"] == pytest.approx(1.0) and result["read_p90"] == pytest.approx(1.0)  # a tick a call
    assert pi.pipeline.observer_for.__name__ == "observer_for"
