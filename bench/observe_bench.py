"""Times the still path per frame: board re-check, camera place, prepare, and each game's observer.

Run from the repository root:
    .venv/bin/python -m bench.observe_bench [--games tuned,blockade] [--preset high-cool]
        [--sizes 640x480,1280x960] [--frames N] [--seed S] [--threads T] [--cpu] [--json]
Frames are renders (vision.render) of seeded random positions of each game with one camera and
light preset (default `high-cool`), rendered at each of --sizes (the preset's camera with only its
frame size changed; default 640x480 and 1280x960); games whose observer module is not written yet
are skipped. Rows are named `game step WIDTHxHEIGHT`. Per game, size and frame it times, in ms:
`recheck` a locked BoardTracker's update, `place` locate_camera, `prepare` the white balance and
Lab conversion (vision.observe.context), `observe cold` the observer with a fresh memory (every
cell's geometry computed), `observe moved` with the memory of the previous position (only cells
near the moved pieces are recomputed: the usual case in a game), and `observe same` the same
position again (all geometry kept); `still path` is recheck + place + prepare + observe moved.
Observers with an `anticipate` (every game's) also get `anticipate`, readying a memory for the new
position on the last still scene (the appliance does it once per accepted move, on a frame of the
hand's trip), `observe warmed` the observe after it, and `still path warmed` recheck + place +
prepare + observe warmed. `observe in play` reads each frame as the appliance does: under the
position before it (the frame shows the move being read), with that position anticipated on the
last still scene when the observer can; `still path in play` is recheck + place + prepare + observe
in play: what a still frame costs in play. Prints the median and 90th percentile of each (or one
JSON object with --json). OpenCV runs on --threads threads (default 1, like one Pi core); --cpu
times with the process CPU clock (steadier on a busy machine). The target on this machine class is
10 ms for the whole still path; a Pi 4 is roughly 4-8x slower.
"""

from __future__ import annotations

import argparse
import importlib
import random
from types import ModuleType
from dataclasses import replace
from typing import Any, Callable

import numpy as np

from rules.registry import get_game
from bench.report import add_options, clock_of, parse_sizes, print_results, size_label, summary
from pi.pipeline import OBSERVER_MODULES, tracker_for
from pi.threads import limit_threads
from vision.kit import kit_named
from vision.observe.context import prepare
from vision.pose import locate_camera
from vision.render.record import PRESETS
from vision.render.scene import Renderer

STEPS = ("recheck", "place", "prepare", "observe cold", "observe moved", "observe same", "still path")
WARM_STEPS = ("anticipate", "observe warmed", "still path warmed")  # observers with `anticipate`
PLAY_STEPS = ("observe in play", "still path in play")
Clock = Callable[[], float]


def timed(function: Callable[[], Any], clock: Clock) -> tuple[float, Any]:
    """Returns the milliseconds one call took on a clock, and what it returned."""
    start = clock()
    result = function()
    return (clock() - start) * 1000.0, result


def observer(game: str) -> ModuleType | None:
    """Returns a game's observer module, or None when it is not written yet."""
    try:
        return importlib.import_module(f"vision.observe.{OBSERVER_MODULES[game]}")
    except ModuleNotFoundError:
        return None


def positions(game: str, count: int, seed: int) -> list[Any]:
    """Returns positions of a seeded random game, one to three moves apart."""
    rules, rng = get_game(game), random.Random(seed)
    state, found = rules.initial_state(), []
    for _ in range(count):
        for _ in range(rng.randint(1, 3)):
            legal = rules.legal(state)
            state = rules.apply(state, rng.choice(legal)) if legal else state
        found.append(rules.board(state))
    return found


def time_game(game: str, module: ModuleType, preset: str, size: tuple[int, int], count: int, seed: int,
              clock: Clock) -> dict[str, list[float]]:
    """Returns every step's times over the frames of one game at one frame size."""
    kit = kit_named()
    camera, light = PRESETS[preset]
    renderer = Renderer(game, None, replace(camera, size=size), light, seed=seed)
    boards = positions(game, count + 1, seed)
    frames = [renderer.frame(board) for board in boards]
    tracker = tracker_for(kit, game, None)
    for _ in range(3):
        view = tracker.update(frames[0]).view
    assert view is not None, f"the {game} bench frame was not recognised"
    anticipate = getattr(module, "anticipate", None)
    steps = STEPS + (WARM_STEPS if anticipate else ()) + PLAY_STEPS
    times: dict[str, list[float]] = {step: [] for step in steps}
    memory, warm, play = module.new_memory(kit), module.new_memory(kit), module.new_memory(kit)
    last = prepare(frames[0], view, locate_camera(view), kit)
    for kept in (memory, warm, play):
        module.observe(last, boards[0], kept)
    for held, board, frame in zip(boards, boards[1:], frames[1:]):
        recheck, fix = timed(lambda: tracker.update(frame), clock)
        place_ms, place = timed(lambda: locate_camera(fix.view), clock)
        prepare_ms, scene = timed(lambda: prepare(frame, fix.view, place, kit), clock)
        cold, _ = timed(lambda: module.observe(scene, board, module.new_memory(kit)), clock)
        moved, _ = timed(lambda: module.observe(scene, board, memory), clock)
        same, _ = timed(lambda: module.observe(scene, board, memory), clock)
        for step, value in zip(STEPS, (recheck, place_ms, prepare_ms, cold, moved, same)):
            times[step].append(value)
        times["still path"].append(recheck + place_ms + prepare_ms + moved)
        if anticipate:
            ahead, _ = timed(lambda: anticipate(last, board, warm), clock)
            warmed, _ = timed(lambda: module.observe(scene, board, warm), clock)
            for step, value in zip(WARM_STEPS, (ahead, warmed, recheck + place_ms + prepare_ms + warmed)):
                times[step].append(value)
        if anticipate:
            anticipate(last, held, play)
        read, _ = timed(lambda: module.observe(scene, held, play), clock)
        for step, value in zip(PLAY_STEPS, (read, recheck + place_ms + prepare_ms + read)):
            times[step].append(value)
        last = scene
    return times


def run(games: list[str], preset: str, sizes: list[tuple[int, int]], count: int, seed: int,
        clock: Clock) -> dict[str, dict[str, float]]:
    """Returns the timing summary of every step for every game that has an observer, per size."""
    results = {}
    for game in games:
        module = observer(game)
        if module is None:
            continue
        for size in sizes:
            for step, samples in time_game(game, module, preset, size, count, seed, clock).items():
                results[f"{game} {step} {size_label(size)}"] = summary(samples)
    return results


def main() -> None:
    """Parses the options, runs the bench and prints the table (or JSON)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default=",".join(OBSERVER_MODULES), help="comma-separated game names")
    parser.add_argument("--preset", default="high-cool", choices=list(PRESETS))
    parser.add_argument("--sizes", default="640x480,1280x960", help="comma-separated frame sizes, WIDTHxHEIGHT")
    parser.add_argument("--frames", type=int, default=10, help="positions per game")
    add_options(parser, seed=True, threads=True, cpu=True)
    args = parser.parse_args()
    unknown = sorted(set(args.games.split(",")) - set(OBSERVER_MODULES))
    if unknown:
        parser.error(f"unknown game {unknown[0]!r}; choose from {', '.join(OBSERVER_MODULES)}")
    try:
        sizes = parse_sizes(args.sizes)
    except ValueError as error:
        parser.error(str(error))
    limit_threads(args.threads)
    np.random.seed(args.seed)
    results = run(args.games.split(","), args.preset, sizes, args.frames, args.seed, clock_of(args))
    print_results(results, args.json, 44)


if __name__ == "__main__":
    main()
