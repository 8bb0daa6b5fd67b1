"""The observer fuzzer reads random positions under a random look and reports faults."""

from __future__ import annotations

import pytest

import tools.fuzz_observers as fuzz


def test_random_positions_of_a_game_are_read_without_a_fault() -> None:
    read, faults = fuzz.fuzz_one("tuned", None, 700)
    assert (read, faults) == (fuzz.POSITIONS, [])
    assert fuzz.fuzz_one("tuned", None, 700, positions=2) == (2, [])


def test_an_observer_fault_is_reported_not_raised(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*_: object, **__: object) -> None:
        raise ValueError("zero-size array")

    monkeypatch.setattr("vision.observe.tuned.observe", broken)
    read, faults = fuzz.fuzz_one("tuned", None, 700)
    assert read == 0 and len(faults) == fuzz.POSITIONS and "zero-size array" in faults[0]
