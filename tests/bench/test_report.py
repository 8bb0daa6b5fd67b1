"""Checks the benchmarks' shared summary, frame sizes and table printing (no timing here)."""

from __future__ import annotations

import argparse
import json
import time

import pytest

from bench.report import add_options, clock_of, parse_sizes, print_results, print_table, size_label, summary


def test_summary_gives_the_median_the_90th_percentile_and_the_count() -> None:
    assert summary([5.0, 1.0, 3.0, 2.0, 4.0]) == {"median_ms": 3.0, "p90_ms": 4.0, "count": 5.0}


def test_frame_sizes_round_trip_through_their_names() -> None:
    sizes = parse_sizes("640x480, 1280x960")
    assert sizes == [(640, 480), (1280, 960)]
    assert [size_label(size) for size in sizes] == ["640x480", "1280x960"]


@pytest.mark.parametrize("text", ["640", "640x", "x480", "640*480", "big"])
def test_a_bad_frame_size_is_refused(text: str) -> None:
    with pytest.raises(ValueError, match="WIDTHxHEIGHT"):
        parse_sizes(text)


def test_a_table_has_one_row_per_result_with_its_columns(capsys: pytest.CaptureFixture[str]) -> None:
    print_table({"tuned-neutral 640x480": {"fps": 141.25, "frames": 180.0}},
                (("frames", "frames", ".0f"), ("fps", "frames/s", ".1f")), False, 24)
    header, row = capsys.readouterr().out.splitlines()
    assert header.split() == ["step", "frames", "frames/s"]
    assert row.split() == ["tuned-neutral", "640x480", "180", "141.2"]


def test_results_print_as_one_json_object(capsys: pytest.CaptureFixture[str]) -> None:
    results = {"gate 640x480": summary([1.0, 2.0])}
    print_results(results, True, 20)
    assert json.loads(capsys.readouterr().out) == results


def test_the_shared_options_have_their_defaults_and_cpu_chooses_the_clock() -> None:
    parser = argparse.ArgumentParser()
    add_options(parser, seed=True, threads=True, cpu=True)
    args = parser.parse_args([])
    assert (args.seed, args.threads, args.json, args.cpu) == (1, 1, False, False)
    assert clock_of(args) is time.perf_counter
    args = parser.parse_args(["--seed", "7", "--threads", "2", "--json", "--cpu"])
    assert (args.seed, args.threads, args.json) == (7, 2, True) and clock_of(args) is time.process_time


def test_only_the_shared_options_asked_for_are_added() -> None:
    parser = argparse.ArgumentParser()
    add_options(parser)
    assert parser.parse_args(["--json"]).json
    with pytest.raises(SystemExit):
        parser.parse_args(["--seed", "3"])
