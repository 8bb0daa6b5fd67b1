"""Writes whole fast-tier games filmed by random cameras under random lights across KIT.md's envelope.

Run from the repository root:
    .venv/bin/python -m tools.envelope_sweep OUT --seeds 201 204 [--games blockade,tuned] [--fps 30]
        [--wall-mm 3] [--cube-mm 26] [--touches 0.3]
then read them with `.venv/bin/python -m bench.accuracy_bench OUT/*`. Each seed gives one
recording per game (folder GAME[-VARIANT]-envSEED, with look.json naming its camera and light): a
whole game played by tools/policy.py, filmed by a camera drawn anywhere in the envelope (height,
tilt, rotation, field of view, frame size, distortion, blur, noise, JPEG) that sees every marker,
under a light drawn the same way (colour, level and its drift, one or two lamps, table colour).
Unlike the committed fixtures these looks are not chosen by hand, so they find what the fixed
looks miss. `--fps` films at another frame rate: every part of a move lasts as long as at the
fixtures' 10 frames a second, so it has proportionally more (or fewer) frames. `--wall-mm` gives
the Blockade pyramids another wall (default the kit's 1.5 mm): KIT.md leaves how deep pieces nest
to the set, and a thicker wall stacks them taller. `--cube-mm` draws BLOCK.BLOCK's cubes another
size (KIT.md: 25 to 26 mm; the default the kit's 25). Either films the game with a kit of its own,
written into the recording (kit.toml, named by game.json), so the replay reads it with that kit;
`--told-kit default` names the bundled kit instead (a set the appliance was not told of).
`--touches 0.3` has the mover, before about that share of moves, lift the top piece of a stack
and set it back unmoved (truth.json lists each touch's first frame): no move may be read there.
Recordings already there are kept.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict, replace
from pathlib import Path
from types import MappingProxyType

import numpy as np

from rules import get_game
from tools.make_fixtures import TIMING
from tools.policy import whole_game
from vision.kit import PYRAMID_WALLS_MM, Kit, kit_named
from vision.render import RenderError, check_number
from vision.render.camera import CameraSpec
from vision.render.effects import LightSpec
from vision.render.record import Timing, script_for, write_recording
from vision.render.scene import Renderer

GAMES = (("block-arena", "9x9"), ("block-arena", "7x7"), ("block-pt", None), ("tuned", None),
         ("blockade", None), ("block-block", "default"))
SIZES = ((640, 480), (800, 600), (1024, 768), (1280, 960), (1640, 1232))
TRIES = 200  # looks drawn before giving up on one that sees every marker


def random_camera(rng: np.random.Generator) -> CameraSpec:
    """Returns a camera drawn anywhere in the envelope."""
    return CameraSpec(
        height_mm=rng.uniform(450, 800), tilt_deg=rng.uniform(0, 20), azimuth_deg=rng.uniform(0, 360),
        roll_deg=rng.uniform(-180, 180), hfov_deg=rng.uniform(50, 70), size=SIZES[int(rng.integers(len(SIZES)))],
        k1=rng.uniform(-0.25, 0), vignette=rng.uniform(0, 0.35), blur_px=rng.uniform(0, 1.0),
        read_noise=rng.uniform(0.5, 3.5), shot_noise=rng.uniform(1, 4.5), jpeg_quality=int(rng.integers(75, 96)))


def random_light(rng: np.random.Generator) -> LightSpec:
    """Returns a light drawn anywhere in the envelope, its level drifting a little."""
    lamps = int(rng.integers(1, 3))
    sources = tuple((float(rng.uniform(0, 360)), float(rng.uniform(35, 80)),
                     1.0 if lamp == 0 else float(rng.uniform(0.3, 0.8))) for lamp in range(lamps))
    lux = float(rng.uniform(150, 1000))
    table = tuple(int(channel) for channel in rng.integers(30, 200, 3))
    return LightSpec(kelvin=float(rng.uniform(2700, 6500)), lux=lux,
                     lux_end=float(np.clip(lux * rng.uniform(0.85, 1.2), 150, 1000)), sources=sources,
                     ambient=float(rng.uniform(0.25, 0.45)), shadow_blur_mm=float(rng.uniform(4, 14)),
                     awb=float(rng.uniform(0.5, 0.8)), table_rgb=(table[0], table[1], table[2]))


def seeing_renderer(game: str, variant: str | None, seed: int,
                    kit: Kit | str = "default") -> tuple[Renderer, CameraSpec, LightSpec]:
    """Returns a renderer of a random look whose camera sees every marker of the game's mat, and
    the look, or raises RenderError after TRIES looks (kit: the pieces drawn; the look does not
    depend on it)."""
    rng = np.random.default_rng([seed, len(game), len(variant or "")])
    for _ in range(TRIES):
        camera, light = random_camera(rng), random_light(rng)
        try:
            renderer = Renderer(game, variant, camera.checked(), light.checked(), seed=seed, kit=kit)
        except RenderError:
            continue
        if renderer.sees_every_marker():
            return renderer, camera, light
    raise RenderError(f"no random look in {TRIES} sees every marker of the {game} mat")


def timing_at(fps: float) -> Timing:
    """Returns the fixtures' timing at another frame rate: each part as long in seconds, with at
    least two still frames a side (the gate needs four between moves) and one of everything else."""
    scale = fps / TIMING.fps
    counts = {name: max(1, round(getattr(TIMING, name) * scale)) for name in ("lead", "approach", "leave", "pause")}
    return replace(TIMING, fps=fps, still=max(2, round(TIMING.still * scale)), **counts).checked()


def name_of(game: str, variant: str | None, seed: int) -> str:
    """Returns a recording's folder name."""
    shown = f"-{variant}" if variant and variant != "default" else ""
    return f"{game}{shown}-env{seed}"


def with_cube(kit: Kit, cube_mm: float) -> Kit:
    """Returns a kit whose BLOCK.BLOCK unit cube has another side (KIT.md: 25 to 26 mm)."""
    pieces = {game: dict(table) for game, table in kit.pieces.items()}
    pieces["block-block"]["cube"] = replace(pieces["block-block"]["cube"], size_mm=(cube_mm,) * 3)
    return replace(kit, pieces=MappingProxyType({game: MappingProxyType(table) for game, table in pieces.items()}))


def with_wall(kit: Kit, wall_mm: float) -> Kit:
    """Returns a kit whose Blockade pyramids have another wall, or raises RenderError."""
    return replace(kit, pyramid_wall_mm=check_number(wall_mm, *PYRAMID_WALLS_MM, "pyramid wall_mm"))


def set_kit(wall_mm: float | None = None, cube_mm: float | None = None) -> Kit:
    """Returns the default kit with the pyramids' wall and the cube's side given (None: the kit's)."""
    kit = kit_named()
    kit = kit if wall_mm is None else with_wall(kit, wall_mm)
    return kit if cube_mm is None else with_cube(kit, cube_mm)


def write_one(out: Path, game: str, variant: str | None, seed: int, timing: Timing = TIMING,
              kit: Kit | None = None, told_kit: str | None = None, touches: float = 0.0) -> dict[str, object]:
    """Writes one whole game under a random look, filmed with a kit (default the bundled one),
    into out and returns its summary; told_kit: the bundled kit game.json names instead;
    touches: the share of moves before which a piece is lifted and set back unmoved."""
    kit = kit or kit_named()
    renderer, camera, light = seeing_renderer(game, variant, seed, kit)
    script = script_for(game, variant, whole_game(get_game(game, variant), seed))
    target = out / name_of(game, variant, seed)
    summary = write_recording(target, script, renderer, seed=seed, timing=timing, told_kit=told_kit,
                              touches=touches)
    look = {"camera": asdict(camera), "light": asdict(light), "wall_mm": kit.pyramid_wall_mm,
            "cube_mm": kit.pieces["block-block"]["cube"].size_mm[0]}
    (target / "look.json").write_text(json.dumps(look, indent=1), encoding="utf-8")
    return summary


def main() -> None:
    """Writes the recordings of every seed and game asked for, printing one line each."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--seeds", type=int, nargs=2, default=(201, 204), help="first and past-last seed")
    parser.add_argument("--games", default="", help="comma-separated game names (default: all)")
    parser.add_argument("--fps", type=float, default=TIMING.fps, help="frames a second (default: the fixtures')")
    parser.add_argument("--wall-mm", type=float, default=None,
                        help="the Blockade pyramids' wall: how deep they nest (KIT.md: it varies by set)")
    parser.add_argument("--cube-mm", type=float, default=None,
                        help="the BLOCK.BLOCK unit cube's side (KIT.md: 25 to 26 mm; default the kit's 25)")
    parser.add_argument("--told-kit", default=None,
                        help="name this bundled kit in game.json rather than the kit filmed")
    parser.add_argument("--touches", type=float, default=0.0,
                        help="the share of moves before which the mover lifts a piece and sets it back unmoved")
    args = parser.parse_args()
    kit = set_kit(args.wall_mm, args.cube_mm)
    wanted = set(filter(None, args.games.split(",")))
    for seed in range(*args.seeds):
        for game, variant in GAMES:
            if (wanted and game not in wanted) or (args.out / name_of(game, variant, seed)).exists():
                continue
            summary = write_one(args.out, game, variant, seed, timing_at(args.fps), kit, args.told_kit, args.touches)
            print(name_of(game, variant, seed), summary["frames"], "frames", summary["moves"], "moves", flush=True)


if __name__ == "__main__":
    main()
