"""Times legal-move generation and checked apply over positions from seeded random games.

Run from the repository root:  .venv/bin/python -m bench.rules_bench [--games N] [--seed S]
Prints one table row per game (median and 99th percentile, in milliseconds) and, with --json,
one JSON object. Targets (issue 2 and 3): block-arena 9x9 legal <= 1 ms median, block-pt
<= 0.5 ms, tuned <= 1 ms, blockade after a roll <= 20 ms, block-block <= 50 ms.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from typing import Any

from bench.report import JSON_ALSO, add_options
from rules import all_games
from rules.core import Game

TARGETS_MS = {"block-arena-9x9": 1.0, "block-pt": 0.5, "tuned": 1.0,
              "blockade-after-roll": 20.0, "block-block-default": 50.0}


def percentile(samples: list[float], fraction: float) -> float:
    """Returns the sample at a fraction of the sorted list (nearest rank)."""
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def timed(function: Any, *args: Any) -> tuple[float, Any]:
    """Returns the milliseconds a call took and its result."""
    start = time.perf_counter()
    result = function(*args)
    return (time.perf_counter() - start) * 1000.0, result


def play_and_time(game: Game[Any, Any], seed: int, samples: dict[str, list[float]], label: str) -> None:
    """Plays one seeded random game, adding legal and apply timings to samples."""
    rng = random.Random(seed)
    state = game.initial_state()
    last = ""
    while game.outcome(state) is None:
        legal_ms, legal = timed(game.legal, state)
        samples.setdefault(f"{label}/legal", []).append(legal_ms)
        if last.startswith("roll:"):
            samples.setdefault(f"{game.name}-after-roll/legal", []).append(legal_ms)
        last = rng.choice(legal)
        apply_ms, state = timed(game.apply, state, last)
        samples.setdefault(f"{label}/apply", []).append(apply_ms)


def run(games_per_kind: int, seed: int) -> dict[str, dict[str, float]]:
    """Returns median, p99 and count for every timed series."""
    samples: dict[str, list[float]] = {}
    for game in all_games():
        label = game.name if game.variant is None else f"{game.name}-{game.variant}"
        for index in range(games_per_kind):
            play_and_time(game, seed + index, samples, label)
    return {
        series: {"median_ms": statistics.median(values), "p99_ms": percentile(values, 0.99),
                 "n": float(len(values))}
        for series, values in sorted(samples.items())
    }


def main() -> None:
    """Runs the benchmark and prints the table (and JSON on request)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10, help="random games per game/variant")
    add_options(parser, seed=True, json_help=JSON_ALSO)
    args = parser.parse_args()
    figures = run(args.games, args.seed)
    print(f"{'series':36} {'median ms':>10} {'p99 ms':>10} {'n':>7}  target")
    for series, row in figures.items():
        target = TARGETS_MS.get(series.removesuffix("/legal")) if series.endswith("/legal") else None
        verdict = "" if target is None else f"<= {target} ms: {'met' if row['median_ms'] <= target else 'MISSED'}"
        print(f"{series:36} {row['median_ms']:10.3f} {row['p99_ms']:10.3f} {int(row['n']):7d}  {verdict}")
    if args.json:
        print(json.dumps(figures))


if __name__ == "__main__":
    main()
