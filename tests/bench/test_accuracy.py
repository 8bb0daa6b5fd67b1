"""The accuracy report's counts: right, false moves, confirmations asked and other alerts."""

from __future__ import annotations

from bench.accuracy_bench import add, score


def test_a_replay_is_scored_ply_by_ply_against_the_truth() -> None:
    records = [{"frame": 3, "move": "a1-a2"}, {"frame": 9, "alert": "ambiguous: b1 or b2"},
               {"frame": 12, "move": "c3"}, {"frame": 20, "alert": "illegal move x"},
               {"outcome": None}]
    assert score(records, ["a1-a2", "b1", "c4"]) == {"right": 1, "total": 3, "false": 1, "asked": 1,
                                                      "alerts": 1}


def test_rows_add_up_per_game() -> None:
    one = {"right": 2, "total": 3, "false": 0, "asked": 1, "alerts": 0}
    assert add(add({}, one), one) == {"right": 4, "total": 6, "false": 0, "asked": 2, "alerts": 0}
