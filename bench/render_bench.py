"""Times the synthetic camera: milliseconds per frame (render, lens, sensor, JPEG), per game and preset.

Run from the repository root:  .venv/bin/python -m bench.render_bench [--size 640x480] [--moves N]
Plays N seeded random moves of every game, plans the recording as record_game would and times
each frame from the scene to the JPEG bytes (nothing is written to disk). Prints the median and
99th percentile per game and preset, split into still frames and frames with a hand (a still
frame right after a move redraws the position: that cost is in the p99), and the process CPU
time per frame (all threads), which a busy machine disturbs less than the wall clock. Target (issue
"Overhead-camera vision", item 6): a few tens of ms per 640x480 frame, median.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from dataclasses import replace

from bench.report import JSON_ALSO, add_options
from bench.rules_bench import percentile
from rules import all_games
from vision.render.record import PRESETS, Planner, Timing, script_for
from vision.render.scene import Renderer


def random_moves(game_name: str, variant: str | None, count: int, seed: int) -> list[str]:
    """Returns up to count seeded random legal moves from the start of a game."""
    game = next(game for game in all_games() if (game.name, game.variant) == (game_name, variant))
    rng, state = random.Random(seed), game.initial_state()
    moves: list[str] = []
    while game.outcome(state) is None and len(moves) < count:
        moves.append(rng.choice(game.legal(state)))
        state = game.apply(state, moves[-1])
    return moves


def time_frames(game: str, variant: str | None, preset: str, size: tuple[int, int], moves: int,
                seed: int) -> dict[str, list[float]]:
    """Returns the milliseconds of every frame of one planned recording, still and with a hand."""
    camera, light = PRESETS[preset]
    renderer = Renderer(game, variant, replace(camera, size=size), light, seed=seed)
    script = script_for(game, variant, random_moves(game, variant, moves, seed))
    plan = Planner(renderer, Timing(), seed).run(script)
    renderer.frame(plan.shots[0].position)
    samples: dict[str, list[float]] = {"still": [], "hand": [], "cpu": []}
    for shot in plan.shots:
        start, cpu = time.perf_counter(), time.process_time()
        renderer.sensor.encode(renderer.frame(shot.position, shot.hand))
        samples["still" if shot.hand is None else "hand"].append((time.perf_counter() - start) * 1000)
        samples["cpu"].append((time.process_time() - cpu) * 1000)
    return samples


def main() -> None:
    """Runs the benchmark and prints the table (and JSON on request)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", default="640x480", help="frame size WxH (default 640x480)")
    parser.add_argument("--moves", type=int, default=12, help="random moves per game (default 12)")
    parser.add_argument("--presets", default="neutral,dim-noisy", help="comma-separated presets")
    add_options(parser, seed=True, json_help=JSON_ALSO)
    args = parser.parse_args()
    width, height = (int(part) for part in args.size.split("x"))
    figures: dict[str, dict[str, float]] = {}
    every: list[float] = []
    print(f"{'game / preset / frames':44} {'median ms':>10} {'p99 ms':>10} {'n':>6}")
    for game in all_games():
        for preset in args.presets.split(","):
            samples = time_frames(game.name, game.variant, preset, (width, height), args.moves, args.seed)
            for kind, values in samples.items():
                every += values if kind != "cpu" else []
                label = f"{game.name}{'-' + game.variant if game.variant else ''} / {preset} / {kind}"
                row = {"median_ms": statistics.median(values), "p99_ms": percentile(values, 0.99), "n": len(values)}
                figures[label] = row
                print(f"{label:44} {row['median_ms']:10.1f} {row['p99_ms']:10.1f} {len(values):6d}")
    print(f"{'all frames':44} {statistics.median(every):10.1f} {percentile(every, 0.99):10.1f} {len(every):6d}")
    if args.json:
        print(json.dumps(figures))


if __name__ == "__main__":
    main()
