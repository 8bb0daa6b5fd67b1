"""Reads random positions of every game under random looks of KIT.md's envelope and reports any
observer fault (an exception: in the appliance it would cost that reading).

Run from the repository root:
    .venv/bin/python -m tools.fuzz_observers --seeds 700 712 [--games blockade] [--walls 0.5,3,4]
        [--positions 25]
Per game and seed: the envelope sweep's look for that seed (tools/envelope_sweep.py; Blockade
once per pyramid wall), a seeded random game, and `--positions` positions a few random moves
apart (default POSITIONS; more reach the tall stacks of a late game), each rendered, located and
observed with one memory (and the next position anticipated, for the observers that can). Prints
each fault with its game, seed, wall and position, then the totals.
"""

from __future__ import annotations

import argparse
import importlib
import random
import traceback
from typing import Any

from pi.pipeline import OBSERVER_MODULES, tracker_for
from pi.threads import limit_threads
from rules.registry import get_game
from tools.envelope_sweep import GAMES, seeing_renderer, set_kit
from vision.observe.context import prepare
from vision.pose import locate_camera

POSITIONS = 6
LOCK_FRAMES = 3


def fuzz_one(game: str, variant: str | None, seed: int, wall_mm: float = 1.5,
             positions: int = POSITIONS) -> tuple[int, list[str]]:
    """Returns how many positions one look and game were read at, and a line per fault (the
    pyramids drawn with a wall and read with a kit that says so)."""
    kit = set_kit(wall_mm)
    module = importlib.import_module(f"vision.observe.{OBSERVER_MODULES[game]}")
    rules = get_game(game, variant)
    renderer = seeing_renderer(game, variant, seed, kit)[0]
    tracker = tracker_for(kit, game, variant)
    memory = module.new_memory(kit)
    rng, state, read, faults = random.Random(seed), rules.initial_state(), 0, []
    for position in range(positions):
        state = _played(rules, state, rng)
        board = rules.board(state)
        frame = renderer.frame(board)
        for _ in range(LOCK_FRAMES):
            fix = tracker.update(frame)
        if fix.view is None:
            continue
        try:
            scene = prepare(frame, fix.view, locate_camera(fix.view), kit)
            module.observe(scene, board, memory)
            if hasattr(module, "anticipate"):
                module.anticipate(scene, board, memory)
            read += 1
        except Exception:  # the point: every fault is reported, none stops the run
            faults.append(f"{game} {variant} seed {seed} wall {wall_mm} position {position}:\n"
                          + traceback.format_exc(limit=-3))
    return read, faults


def _played(rules: Any, state: Any, rng: random.Random) -> Any:
    """Returns a state one to four random legal moves on (fewer when the game ends)."""
    for _ in range(rng.randint(1, 4)):
        legal = rules.legal(state)
        if not legal:
            break
        state = rules.apply(state, rng.choice(legal))
    return state


def main() -> None:
    """Reads every game and seed asked for and prints the faults and the totals."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs=2, default=(700, 704), help="first and past-last seed")
    parser.add_argument("--games", default="", help="comma-separated game names (default: all)")
    parser.add_argument("--walls", default="1.5", help="comma-separated Blockade pyramid walls, mm")
    parser.add_argument("--positions", type=int, default=POSITIONS, help="positions read per game and look")
    args = parser.parse_args()
    limit_threads(1)
    wanted = set(filter(None, args.games.split(",")))
    walls = [float(wall) for wall in args.walls.split(",")]
    read, faults = 0, list[str]()
    for game, variant in GAMES:
        if wanted and game not in wanted:
            continue
        for seed in range(*args.seeds):
            for wall in walls if game == "blockade" else [1.5]:
                count, found = fuzz_one(game, variant, seed, wall, args.positions)
                read, faults = read + count, faults + found
    for fault in faults:
        print(fault)
    print(f"read {read} positions, {len(faults)} faults")


if __name__ == "__main__":
    main()
