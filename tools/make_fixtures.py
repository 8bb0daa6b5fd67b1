"""Writes the committed recorded-game fixtures (fast OpenCV tier) from seeded random games.

Run from the repository root:  .venv/bin/python -m tools.make_fixtures [--only NAME] [--out fixtures]
Each fixture is a recorded game directory (INTERFACES.md) with truth.json; the list below fixes
game, camera/light preset and seed, so the same command writes the same fixtures.
"""

from __future__ import annotations

import argparse
import random
import shutil
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from rules import get_game
from tools.policy import play, whole_game
from vision.sight import visible_moves
from vision.render.camera import CameraSpec
from vision.render.record import Timing, preset, record_game

TIMING = Timing(fps=10.0, lead=2, still=3, approach=2, leave=2, pause=1)
SIZE = (640, 480)
JPEG_QUALITY = 80


@dataclass(frozen=True)
class Spec:
    """One fixture: its folder name, game, variant, preset, seed and number of moves; `full`
    asks for a whole game played by tools/policy.py (plies is then its upper bound)."""

    name: str
    game: str
    variant: str | None
    preset: str
    seed: int
    plies: int
    full: bool = False


SPECS = (
    Spec("block-arena-9x9-neutral", "block-arena", "9x9", "neutral", 1, 12),
    Spec("block-arena-7x7-warm", "block-arena", "7x7", "low-warm-tilted", 2, 10),
    Spec("block-arena-9x9-cool", "block-arena", "9x9", "high-cool", 11, 11),
    Spec("block-pt-cool", "block-pt", None, "high-cool", 3, 12),
    Spec("block-pt-dim", "block-pt", None, "dim-noisy", 4, 12),
    Spec("tuned-neutral", "tuned", None, "neutral", 5, 40),
    Spec("tuned-bright", "tuned", None, "bright-sharp", 6, 40),
    Spec("blockade-neutral", "blockade", None, "neutral", 7, 12),
    Spec("blockade-warm", "blockade", None, "low-warm-tilted", 8, 12),
    Spec("block-block-cool", "block-block", "default", "high-cool", 9, 9),
    Spec("block-block-dim", "block-block", "default", "dim-noisy", 10, 16),
)


def seen_moves(game: Any, state: Any) -> set[str]:
    """Returns the legal moves a fixture may use: those the camera can see."""
    return set(visible_moves(game, state))


def choose(legal: list[str], seen: set[str], rng: random.Random, moves_this_turn: int) -> str:
    """Returns a random move, preferring moves the camera can see to pass, and Blockade turns
    of 1-2 moves."""
    if "end" in legal and moves_this_turn >= rng.choice((1, 2)):
        return "end"
    active = [move for move in legal if move in seen] or legal
    return rng.choice(active)


def moves_for(spec: Spec) -> list[str]:
    """Returns a seeded random move list of the spec's length (shorter if the game ends), or a
    whole game for a `full` spec."""
    game = get_game(spec.game, spec.variant)
    if spec.full:
        return whole_game(game, spec.seed, spec.plies)
    rng = random.Random(spec.seed)
    return play(game, lambda state, in_turn, _: choose(game.legal(state), seen_moves(game, state), rng, in_turn),
                spec.plies)


def capped(camera: CameraSpec) -> CameraSpec:
    """Returns the camera with its JPEG quality capped at JPEG_QUALITY (small fixtures)."""
    return replace(camera, jpeg_quality=min(camera.jpeg_quality, JPEG_QUALITY))


def write_fixture(spec: Spec, out: Path) -> dict[str, Any]:
    """Writes one fixture as out/NAME (replacing any there) and returns its summary."""
    target = out / spec.name
    shutil.rmtree(target, ignore_errors=True)
    camera, light = preset(spec.preset)
    return record_game(spec.game, spec.variant, moves_for(spec), target, camera=capped(camera),
                       light=light, seed=spec.seed, size=SIZE, timing=TIMING)


def main() -> None:
    """Writes every fixture (or the one named) under the output folder."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="write only the fixture of this name")
    parser.add_argument("--out", default="fixtures", help="the output folder")
    args = parser.parse_args()
    for spec in SPECS:
        if args.only and spec.name != args.only:
            continue
        summary = write_fixture(spec, Path(args.out))
        print(spec.name, summary["frames"], "frames", summary["moves"], "moves")


if __name__ == "__main__":
    main()
