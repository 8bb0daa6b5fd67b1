"""Shared options, summary and table printing for the timing benchmarks."""

from __future__ import annotations

import argparse
import json
import statistics
import time
from typing import Callable

Columns = tuple[tuple[str, str, str], ...]  # (key, heading, format) of each column after the label
TIMES: Columns = (("median_ms", "median ms", ".2f"), ("p90_ms", "p90 ms", ".2f"), ("count", "n", ".0f"))
JSON_ALSO = "also print the figures as JSON"
JSON_ONLY = "print one JSON object instead"


def add_options(parser: argparse.ArgumentParser, *, seed: bool = False, threads: bool = False,
                cpu: bool = False, json_help: str = JSON_ONLY) -> None:
    """Adds the options the benchmarks share: --json, and --seed, --threads and --cpu where asked."""
    if seed:
        parser.add_argument("--seed", type=int, default=1)
    if threads:
        parser.add_argument("--threads", type=int, default=1, help="OpenCV threads")
    parser.add_argument("--json", action="store_true", help=json_help)
    if cpu:
        parser.add_argument("--cpu", action="store_true",
                            help="time with the process's CPU clock (steadier on a busy machine)")


def clock_of(args: argparse.Namespace) -> Callable[[], float]:
    """Returns the clock --cpu chooses: the process's CPU clock, else the wall clock."""
    return time.process_time if args.cpu else time.perf_counter


def summary(samples: list[float]) -> dict[str, float]:
    """Returns the median, the 90th percentile and the count of a series of times."""
    ordered = sorted(samples)
    return {"median_ms": statistics.median(ordered), "p90_ms": ordered[int(0.9 * (len(ordered) - 1))],
            "count": float(len(ordered))}


def size_label(size: tuple[int, int]) -> str:
    """Returns a frame size as the benchmarks name it: WIDTHxHEIGHT."""
    return f"{size[0]}x{size[1]}"


def parse_sizes(text: str) -> list[tuple[int, int]]:
    """Returns the frame sizes of a comma-separated list such as 640x480,1280x960."""
    sizes = []
    for item in text.split(","):
        width, _, height = item.strip().partition("x")
        if not (width.isdigit() and height.isdigit()):
            raise ValueError(f"a frame size is WIDTHxHEIGHT, not {item!r}")
        sizes.append((int(width), int(height)))
    return sizes


def print_table(results: dict[str, dict[str, float]], columns: Columns, as_json: bool, label_width: int) -> None:
    """Prints rows as JSON, or as a table with one column per (key, heading, format)."""
    if as_json:
        print(json.dumps(results))
        return
    widths = [max(10, len(heading) + 2) for _, heading, _ in columns]
    print(f"{'step':<{label_width}}" + "".join(f"{heading:>{width}}"
                                               for (_, heading, _), width in zip(columns, widths)))
    for name, row in results.items():
        print(f"{name:<{label_width}}" + "".join(f"{row[key]:>{width}{form}}"
                                                 for (key, _, form), width in zip(columns, widths)))


def print_results(results: dict[str, dict[str, float]], as_json: bool, label_width: int) -> None:
    """Prints summaries as JSON, or as a table of median, p90 and count per step."""
    print_table(results, TIMES, as_json, label_width)
