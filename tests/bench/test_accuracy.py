"""The accuracy report's counts: right, false and skipped moves, confirmations asked and other
alerts."""

from __future__ import annotations

from bench.accuracy_bench import add, score


def test_a_replay_is_scored_against_the_truth_in_order() -> None:
    records = [{"frame": 3, "move": "a1-a2"}, {"frame": 9, "alert": "ambiguous: b1 or b2"},
               {"frame": 12, "move": "c3"}, {"frame": 20, "alert": "illegal move x"},
               {"outcome": None}]
    assert score(records, ["a1-a2", "b1", "c4"]) == {"right": 1, "total": 3, "false": 1, "skipped": 0,
                                                      "asked": 1, "alerts": 1, "taken back": 0}


def test_one_missed_move_is_counted_once_not_at_every_later_ply() -> None:
    records = [{"frame": 3, "move": "a1-a2"}, {"frame": 12, "move": "c3"}, {"frame": 15, "move": "d4"},
               {"frame": 18, "move": "e5"}]
    assert score(records, ["a1-a2", "b1", "c3", "d4", "e5"]) == {"right": 4, "total": 5, "false": 0,
                                                                  "skipped": 1, "asked": 0, "alerts": 0,
                                                                  "taken back": 0}


def test_a_move_out_of_order_is_false() -> None:
    records = [{"frame": 3, "move": "b1"}, {"frame": 6, "move": "a1-a2"}]
    assert score(records, ["a1-a2", "b1"])["false"] == 1


def test_true_moves_read_past_are_skipped_and_a_stop_skips_none() -> None:
    truth = ["a1", "b1", "c1", "d1", "e1", "f1"]
    read_past = [{"frame": 3, "move": "a1"}, {"frame": 9, "move": "d1"}]
    stopped = [{"frame": 3, "move": "a1"}, {"frame": 9, "alert": "illegal move this change"}]
    assert score(read_past, truth)["skipped"] == 2
    assert score(stopped, truth)["skipped"] == 0


def test_a_rewind_leaves_the_moves_up_to_its_ply_and_counts_what_it_took_back() -> None:
    records = [{"frame": 3, "move": "a1", "ply": 1}, {"frame": 6, "move": "b1", "ply": 2},
               {"frame": 9, "move": "c1", "ply": 3}, {"frame": 12, "move": "b2", "ply": 2},
               {"frame": 12, "move": "c1", "ply": 3}]
    counts = score(records, ["a1", "b2", "c1"])
    assert (counts["right"], counts["false"], counts["taken back"]) == (3, 0, 2)


def test_rows_add_up_per_game() -> None:
    one = {"right": 2, "total": 3, "false": 0, "skipped": 1, "asked": 1, "alerts": 0, "taken back": 1}
    assert add(add({}, one), one) == {"right": 4, "total": 6, "false": 0, "skipped": 2, "asked": 2,
                                      "alerts": 0, "taken back": 2}
