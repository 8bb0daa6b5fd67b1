"""Writes the realistic (Blender/Cycles) recorded-game fixtures from seeded random games.

Run from the repository root in the Blender environment (docs/realistic-fixtures.md):
    .venv-blender/bin/python -m tools.make_realistic [--only NAME] [--out /work/realistic-out]
Each fixture is a recorded game directory (INTERFACES.md) with truth.json, filmed by
tools.blender.render.BlenderRenderer with the fast tier's planner, hands and sensor. The list in
tools/blender/looks.py fixes game, look (camera and light), seed and number of moves, spread
over KIT.md's camera envelope; moves are chosen as tools/make_fixtures.py chooses them.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from tools.blender.looks import LOOKS, SPECS
from tools.blender.render import BlenderRenderer, Quality
from tools.make_fixtures import TIMING, Spec, capped, moves_for
from vision.render import RenderError
from vision.render.record import script_for, write_recording

VIEW_MARGIN_PX = 4


def check_in_view(renderer: BlenderRenderer) -> None:
    """Raises RenderError unless every marker of the mat lies inside the frame."""
    if not renderer.sees_every_marker(VIEW_MARGIN_PX):
        raise RenderError(f"the {renderer.setting.game} mat's markers leave the frame of this look")


def record(spec: Spec, out: Path, quality: Quality) -> dict[str, object]:
    """Renders one fixture into out/NAME; returns its summary with render times."""
    camera, light = LOOKS[spec.preset]
    camera = capped(camera)
    script = script_for(spec.game, spec.variant, moves_for(spec))
    renderer = BlenderRenderer(spec.game, spec.variant, camera, light, seed=spec.seed, quality=quality)
    check_in_view(renderer)
    started = time.monotonic()
    summary = write_recording(out / spec.name, script, renderer, seed=spec.seed, timing=TIMING)
    times = renderer.seconds_per_render()
    renders = {kind: sum(1 for k, _ in renderer.timings if k == kind) for kind in times}
    return {**summary, "seconds": round(time.monotonic() - started, 1), "renders": renders,
            "seconds_per_render": {kind: round(value, 2) for kind, value in times.items()}}


def main() -> None:
    """Writes every fixture (or the one named) under the output folder, printing one JSON line each."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", action="append", help="write only the fixture of this name (repeatable)")
    parser.add_argument("--out", default="/work/realistic-out", help="the output folder")
    default = Quality()
    parser.add_argument("--still-samples", type=int, default=default.still_samples, help="Cycles samples of stills")
    parser.add_argument("--hand-samples", type=int, default=default.hand_samples, help="samples of hand frames")
    parser.add_argument("--hand-percent", type=int, default=default.hand_percent, help="hand frames' render scale")
    args = parser.parse_args()
    quality = Quality(args.still_samples, args.hand_samples, args.hand_percent)
    for spec in SPECS:
        if args.only and spec.name not in args.only:
            continue
        print(json.dumps({"name": spec.name, **record(spec, Path(args.out), quality)}), flush=True)


if __name__ == "__main__":
    main()
