"""Times read_change (vision/infer.py) per game on noisy observations from seeded random games.

Run from the repository root:
    .venv/bin/python -m bench.infer_bench [--games N] [--seed S] [--cpu] [--json]
Prints one table row per game and kind of observation with the median and 90th percentile time
in ms and the count (with --json also one JSON object). Kinds: `still` is an observation of the
unchanged board (the most common reading: nothing happened), `move` the board after one random
legal move the camera can see, and for Blockade `turn2`/`turn3` a whole turn of 2 or 3 piece
moves seen in one observation (tests/vision/play.py: pieces landing where they show).
Observations come from vision.observation.noisy_observation (confidences 0.6-0.99, two steady
cells mislabelled).
Measured on the shared x86 build machine under load (--cpu, 2 games each): medians 0.04-0.3 ms
still, 0.6-2.5 ms move, Blockade 10 ms for 2 piece moves and 22 ms for 3 (p90 31 ms).
--cpu times with the process CPU clock instead of the wall clock (steadier on a busy machine).
Target (issue "Overhead-camera vision", item 5): median well under 50 ms per reading, so that
replay keeps 50 frames/s (readings only happen on still frames).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
from typing import Any, Callable

from bench.report import JSON_ALSO, add_options, clock_of
from rules import get_game
from rules.core import Game
from tests.vision.play import piece_turn
from vision.infer import read_change
from vision.observation import noisy_observation
from vision.sight import view_of, visible_moves

GAMES = ["block-arena", "block-pt", "tuned", "blockade", "block-block"]
TARGET_MS = 50.0
Clock = Callable[[], float]


def timed(clock: Clock, game: Game[Any, Any], before: Any, after: Any,
          rng: random.Random) -> float:
    """Returns the milliseconds one read_change of the state after takes."""
    seen = noisy_observation(game.name, view_of(game, after), rng,
                             previous=view_of(game, before))
    start = clock()
    read_change(game, before, seen)
    return (clock() - start) * 1000.0


def play_game(name: str, seed: int, clock: Clock, samples: dict[str, list[float]]) -> None:
    """Plays one seeded random game, timing still, move and (Blockade) turn readings."""
    game, rng = get_game(name), random.Random(seed)
    state = game.initial_state()
    for _ in range(120):
        if game.outcome(state) is not None:
            break
        samples.setdefault(f"{name}/still", []).append(timed(clock, game, state, state, rng))
        options = visible_moves(game, state)
        if options:
            move = rng.choice(options)
            after = game.apply(state, move)
            samples.setdefault(f"{name}/move", []).append(timed(clock, game, state, after, rng))
        if name == "blockade" and state.points is not None:
            for count in (2, 3):
                whole, moves, _ = piece_turn(game, state, count, rng)
                if len(moves) == count:
                    samples.setdefault(f"{name}/turn{count}", []).append(
                        timed(clock, game, state, whole, rng))
        state = game.apply(state, rng.choice(game.legal(state)))


def run(games: int, seed: int, clock: Clock) -> dict[str, dict[str, float]]:
    """Returns median, 90th percentile and count per series."""
    samples: dict[str, list[float]] = {}
    for name in GAMES:
        for index in range(games):
            play_game(name, seed + index, clock, samples)
    return {
        series: {"median_ms": statistics.median(values),
                 "p90_ms": sorted(values)[int(0.9 * (len(values) - 1))],
                 "n": float(len(values))}
        for series, values in samples.items()
    }


def main() -> None:
    """Runs the benchmark and prints the table (and JSON on request)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2, help="random games per game")
    add_options(parser, seed=True, cpu=True, json_help=JSON_ALSO)
    args = parser.parse_args()
    figures = run(args.games, args.seed, clock_of(args))
    print(f"{'series':22} {'median ms':>10} {'p90 ms':>10} {'n':>6}  target")
    for series, row in figures.items():
        verdict = "met" if row["median_ms"] < TARGET_MS else "MISSED"
        print(f"{series:22} {row['median_ms']:10.2f} {row['p90_ms']:10.2f} {int(row['n']):6d}"
              f"  < {TARGET_MS:.0f} ms: {verdict}")
    if args.json:
        print(json.dumps(figures))


if __name__ == "__main__":
    main()
