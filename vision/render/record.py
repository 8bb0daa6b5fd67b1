"""Recorded games from the synthetic camera: a game and its moves written as INTERFACES.md's directory.

`record_game` plays the moves through the referee, asks the game for each position in the
board format (`game.board(state)`), and films them: still frames, a hand entering from the
mover's edge, lifting the moved pieces (or bringing a new one from the table), setting them
down and leaving, still frames again. Moves the camera cannot see get an event instead: a
`roll` event per Blockade roll, a `done` button per `end` or `pass`. The directory holds
game.json, frames/000001.jpg..., frames.csv (frame,t_ms at a steady rate), events.jsonl and
truth.json ({"moves", "outcome"}, plus the labels: each move's frames and the true camera).
Everything is decided by the seed; nothing is written unless the whole recording succeeds.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from rules.core import Game, RulesError
from rules.registry import get_game
from vision.kit import Kit, KitError, kit_named, kit_toml
from vision.render import RenderError, check_number
from vision.render.camera import CameraSpec
from vision.render.effects import LightSpec
from vision.render.hands import Hand, Look, Trip, arm, back_from, pick_look, trip_moments
from vision.render.pieces import Item, Key, looks
from vision.render.scene import Renderer, position_solids
from vision.render.solids import Solid

PRESETS: dict[str, tuple[CameraSpec, LightSpec]] = {
    "neutral": (CameraSpec(height_mm=620, hfov_deg=62, k1=-0.05, vignette=0.1, read_noise=1.0, shot_noise=2.0,
                           jpeg_quality=90),
                LightSpec(kelvin=5000, lux=500)),
    "high-cool": (CameraSpec(height_mm=800, tilt_deg=6, azimuth_deg=120, roll_deg=30, hfov_deg=50, size=(1280, 960),
                             k1=-0.1, vignette=0.15, read_noise=1.5, shot_noise=2.5, jpeg_quality=90),
                  LightSpec(kelvin=6500, lux=800, sources=((200.0, 70.0, 1.0),), ambient=0.4, awb=0.6,
                            table_rgb=(150, 150, 148))),
    "low-warm-tilted": (CameraSpec(height_mm=470, tilt_deg=20, azimuth_deg=250, roll_deg=175, hfov_deg=70,
                                   size=(1024, 768), k1=-0.12, vignette=0.25, read_noise=2.0, shot_noise=3.0,
                                   jpeg_quality=85),
                        LightSpec(kelvin=2700, lux=300, sources=((60.0, 40.0, 1.0), (230.0, 55.0, 0.5)),
                                  ambient=0.3, shadow_blur_mm=10, awb=0.6, table_rgb=(70, 45, 30))),
    "dim-noisy": (CameraSpec(height_mm=650, tilt_deg=10, azimuth_deg=30, roll_deg=90, hfov_deg=58, k1=-0.25,
                             vignette=0.35, blur_px=0.8, read_noise=3.0, shot_noise=4.0, jpeg_quality=75),
                  LightSpec(kelvin=4000, lux=150, lux_end=180, sources=((300.0, 50.0, 1.0), (120.0, 75.0, 0.7)),
                            ambient=0.3, shadow_blur_mm=14, awb=0.5, table_rgb=(40, 42, 48))),
    "bright-sharp": (CameraSpec(height_mm=560, tilt_deg=3, azimuth_deg=200, roll_deg=-20, hfov_deg=66,
                                size=(1640, 1232), k1=-0.15, vignette=0.05, read_noise=0.5, shot_noise=1.5,
                                jpeg_quality=95),
                     LightSpec(kelvin=5600, lux=1000, sources=((15.0, 80.0, 1.0),), ambient=0.45,
                               shadow_blur_mm=4, awb=0.8, table_rgb=(188, 160, 120))),
}
EDGES = {1: (0.0, -1.0), 2: (0.0, 1.0)}
FLIPPED_EDGES = {"block-pt"}
DONE_MOVES = {"end", "pass"}


@dataclass(frozen=True, slots=True)
class Timing:
    """How many frames each part of a recording lasts, at fps frames a second."""

    fps: float = 10.0
    lead: int = 5
    still: int = 3
    approach: int = 5
    leave: int = 4
    pause: int = 3

    def checked(self) -> Timing:
        """Returns the timing itself if every count is sensible, or raises RenderError."""
        check_number(self.fps, 1.0, 60.0, "timing fps")
        for name in ("lead", "still", "approach", "leave", "pause"):
            check_number(getattr(self, name), 1, 100, f"timing {name}")
            if not isinstance(getattr(self, name), int):
                raise RenderError(f"timing {name} must be a whole number of frames")
        return self


@dataclass(frozen=True, slots=True)
class Script:
    """What to film: the game, the moves, the position before and after each, who made each move."""

    game: str
    variant: str | None
    moves: tuple[str, ...]
    positions: tuple[Any, ...]
    movers: tuple[int | None, ...]
    outcome: dict[str, Any] | None


@dataclass(frozen=True, slots=True, eq=False)
class Shot:
    """One frame to draw: the position on the table and the hand in view, if any."""

    position: Any
    hand: Hand | None = None


@dataclass(slots=True)
class Plan:
    """The whole recording as frames, the events that go with them, and each move's labels."""

    shots: list[Shot]
    events: list[dict[str, Any]]
    labels: list[dict[str, Any]]
    touches: list[int] = field(default_factory=list)  # the first frame of each touch (Planner)


def preset(name: str) -> tuple[CameraSpec, LightSpec]:
    """Returns a named camera and light preset, or raises RenderError listing them."""
    if name not in PRESETS:
        raise RenderError(f"there is no preset {name!r}; choose one of {', '.join(PRESETS)}")
    return PRESETS[name]


def script_for(game: str, variant: str | None, moves: Sequence[str]) -> Script:
    """Returns the script of moves played from the start, or raises RenderError naming a bad move."""
    if any(not isinstance(move, str) for move in moves):
        raise RenderError(f"moves must be texts in RULES.md notation, not {list(moves)!r}")
    try:
        rules = get_game(game, variant)
    except RulesError as error:
        raise RenderError(str(error)) from None
    state = rules.initial_state()
    positions, movers = [_board(rules, state)], []
    for ply, move in enumerate(moves, start=1):
        movers.append(rules.to_move(state))
        try:
            state = rules.apply(state, move)
        except RulesError as error:
            raise RenderError(f"illegal move {move!r} at ply {ply}: {getattr(error, 'reason', error)}") from None
        positions.append(_board(rules, state))
    outcome = rules.outcome(state)
    return Script(game, rules.variant, tuple(moves), tuple(positions), tuple(movers),
                  None if outcome is None else outcome.as_dict())


def _board(rules: Game[Any, Any], state: Any) -> Any:
    """Returns the position of a state in the board format, or raises RenderError if the game gives none."""
    try:
        return rules.board(state)
    except NotImplementedError:
        raise RenderError(f"the rules of {rules.name} cannot give a position (no board(state))") from None


# -- planning the frames ---------------------------------------------------------------------


def changes(before: Any, after: Any) -> tuple[set[Key], set[Key]]:
    """Returns the (square, index) entries that leave the board and that arrive, square by square."""
    # Above the first piece of a square that changes its look, everything leaves and arrives;
    # a change the camera cannot see (a pyramid becoming locked) moves nothing.
    lifted: set[Key] = set()
    placed: set[Key] = set()
    old, new = before["cells"], after["cells"]
    for square in set(old) | set(new):
        was, now = old.get(square, []), new.get(square, [])
        same = 0
        while same < min(len(was), len(now)) and looks(was[same]) == looks(now[same]):
            same += 1
        lifted |= {(square, index) for index in range(same, len(was))}
        placed |= {(square, index) for index in range(same, len(now))}
    return lifted, placed


def _touching(items: list[Item], keys: set[Key]) -> list[Item]:
    """Returns the items that stand for any of the keys."""
    return [item for item in items if item.keys & keys]


def _holding(before: Any, after: Any, lifted: list[Item]) -> dict[str, Any]:
    """Returns the position while pieces are in the hand: the board without them, the table as after."""
    cut: dict[str, int] = {}
    for square, index in (key for item in lifted for key in item.keys):
        cut[square] = min(index, cut.get(square, index))
    cells = {square: stack[:cut.get(square, len(stack))] for square, stack in before["cells"].items()}
    return {**before, "cells": {square: stack for square, stack in cells.items() if stack}, "off": after["off"]}


def _grip(solids: list[Solid]) -> np.ndarray:
    """Returns where fingertips close over some solids: above the middle of their top."""
    points = np.vstack([solid.points() for solid in solids])
    middle = (points.min(axis=0) + points.max(axis=0)) / 2
    return np.array([middle[0], middle[1], points[:, 2].max() + 2.0])


class Planner:
    """Turns a script into shots, events and labels for one renderer and timing, from a seed
    (touches: the share of moves before which the mover lifts a piece and sets it back unmoved)."""

    def __init__(self, renderer: Renderer, timing: Timing, seed: int, touches: float = 0.0) -> None:
        check_number(touches, 0.0, 1.0, "touches")
        self.renderer = renderer
        self.timing = timing.checked()
        self.rng = np.random.default_rng([seed, 2])
        self.looks: dict[int, Look] = {player: pick_look(self.rng) for player in (1, 2)}
        self.touches = touches
        self.touch_rng = np.random.default_rng([seed, 3])  # its own: the moves' trips stay as without touches
        self.plan = Plan([], [], [])

    def run(self, script: Script) -> Plan:
        """Returns the plan of a whole script."""
        self._hold(script.positions[0], self.timing.lead)
        for ply, move in enumerate(script.moves):
            before, after = script.positions[ply], script.positions[ply + 1]
            self._move(move, ply + 1, before, after, script.movers[ply] or 1)
        return self.plan

    def _hold(self, position: Any, frames: int) -> None:
        """Adds still frames of a position."""
        self.plan.shots += [Shot(position)] * frames

    def _move(self, move: str, ply: int, before: Any, after: Any, mover: int) -> None:
        """Adds one move: stills, the hand's trip or an event, stills again; and its labels."""
        self._hold(before, self.timing.still)
        if self.touches and self.touch_rng.random() < self.touches:
            self._touch(before, mover)
        start = len(self.plan.shots) + 1
        lifted, placed = changes(before, after)
        if lifted or placed:
            change = self._trip(before, after, lifted, placed, mover, self.rng)
        else:
            change = start
            self._event(move, start)
            self._hold(after, self.timing.pause)
        settled = len(self.plan.shots) + 1
        self._hold(after, self.timing.still)
        self.plan.labels.append({"move": move, "ply": ply, "start": start, "change": change, "settled": settled})

    def _touch(self, position: Any, mover: int) -> None:
        """Adds a hand lifting one piece on top of a stack and setting it back, then stills."""
        cells = position["cells"]
        squares = sorted(square for square, stack in cells.items() if stack)
        if not squares:
            return
        square = squares[int(self.touch_rng.integers(len(squares)))]
        key = {(square, len(cells[square]) - 1)}
        self.plan.touches.append(len(self.plan.shots) + 1)
        self._trip(position, position, key, key, mover, self.touch_rng)
        self._hold(position, self.timing.still)

    def _event(self, move: str, frame: int) -> None:
        """Adds the event that tells the pipeline about a move the camera cannot see."""
        if move.startswith("roll:"):
            self.plan.events.append({"frame": frame, "event": "roll", "value": move})
        elif move in DONE_MOVES:
            self.plan.events.append({"frame": frame, "event": "button", "value": "done"})

    def _trip(self, before: Any, after: Any, lifted: set[Key], placed: set[Key], mover: int,
              rng: np.random.Generator) -> int:
        """Adds the frames of a hand moving pieces (its way in drawn from rng); returns the frame
        where the new position first shows."""
        setting = self.renderer.setting
        taken = _touching(position_solids(setting, before)[0], lifted)
        trip, held = self._reach(taken, _touching(position_solids(setting, after)[0], placed), mover, rng)
        stages = {"before": before, "holding": _holding(before, after, taken), "after": after}
        ceiling = 0.55 * self.renderer.camera.centre[2]
        origin = trip.place if trip.pick is None else trip.pick
        change = 0
        for moment in trip_moments(trip, self.timing.approach, self.timing.leave):
            carried = tuple(solid.moved(moment.grip - origin) for solid in held) if moment.holding else ()
            hand = Hand(arm(moment.grip, trip.back, self.looks[mover], ceiling), carried)
            self.plan.shots.append(Shot(stages[moment.stage], hand))
            if moment.stage == "after" and not change:
                change = len(self.plan.shots)
        return change

    def _reach(self, taken: list[Item], given: list[Item], mover: int,
               rng: np.random.Generator) -> tuple[Trip, list[Solid]]:
        """Returns the trip that moves the taken items (or brings the given ones) and the solids it carries."""
        setting = self.renderer.setting
        lifted = [solid for item in taken for solid in item.solids]
        arriving = [solid for item in given for solid in item.solids]
        held = lifted or arriving
        place = _grip(arriving or held)
        edge = EDGES[3 - mover if setting.game in FLIPPED_EDGES else mover]
        reach = setting.mat.side_mm + 2 * setting.kit.mat_margin_mm + 150.0
        return Trip(back_from(edge, rng), _grip(lifted) if lifted else None, place, reach), held


# -- writing the directory -------------------------------------------------------------------


def _target(out_dir: str | Path) -> Path:
    """Returns the output directory if it can be created (or is empty), or raises RenderError."""
    path = Path(out_dir)
    if path.exists() and (not path.is_dir() or any(path.iterdir())):
        raise RenderError(f"output directory {str(path)!r} already exists and is not empty")
    if not path.parent.is_dir():
        raise RenderError(f"the folder {str(path.parent)!r} for the output directory does not exist")
    return path


def _write_json(path: Path, data: Any) -> None:
    """Writes one JSON document to a file."""
    path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")


def _write_frames(folder: Path, renderer: Renderer, shots: list[Shot], fps: float) -> None:
    """Renders and writes every frame as frames/NNNNNN.jpg, with frames.csv giving their times."""
    frames = folder / "frames"
    frames.mkdir()
    rows = ["frame,t_ms"]
    for index, shot in enumerate(shots):
        lux = renderer.light.lux_at(index / max(len(shots) - 1, 1))
        image = renderer.frame(shot.position, shot.hand, lux)
        (frames / f"{index + 1:06d}.jpg").write_bytes(renderer.sensor.encode(image))
        rows.append(f"{index + 1},{int(round(index * 1000 / fps))}")
    (folder / "frames.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")


def _kit_entry(folder: Path, kit: Kit) -> str:
    """Returns game.json's kit: a bundled kit's name, or for any other kit kit.toml, written into
    the folder (a set's own wall or cube is filmed and read back with the same kit)."""
    try:
        if kit_named(kit.name) == kit:
            return kit.name
    except KitError:
        pass
    (folder / "kit.toml").write_text(kit_toml(kit), encoding="utf-8")
    return "kit.toml"


def write_recording(out_dir: str | Path, script: Script, renderer: Renderer, *, seed: int = 0,
                    timing: Timing = Timing(), events: bool = True, told_kit: str | None = None,
                    touches: float = 0.0) -> dict[str, Any]:
    """Films a script into a new recorded-game directory; returns a summary. Writes nothing on
    failure. told_kit: the bundled kit game.json names instead of the kit filmed; touches: the
    share of moves before which a piece is lifted and set back unmoved (Planner)."""
    path = _target(out_dir)
    plan = Planner(renderer, timing, seed, touches).run(script)
    work = Path(tempfile.mkdtemp(prefix=f".{path.name}-", dir=path.parent))
    try:
        _write_frames(work, renderer, plan.shots, timing.fps)
        _write_json(work / "game.json", {"game": script.game, "variant": script.variant,
                                         "kit": told_kit or _kit_entry(work, renderer.kit)})
        if events:
            lines = "".join(json.dumps(event) + "\n" for event in plan.events)
            (work / "events.jsonl").write_text(lines, encoding="utf-8")
        _write_json(work / "truth.json", {"moves": list(script.moves), "outcome": script.outcome,
                                          "labels": plan.labels, "camera": renderer.camera.calibration(),
                                          "seed": seed, **({"touches": plan.touches} if plan.touches else {})})
        if path.exists():
            path.rmdir()
        os.rename(work, path)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    return {"dir": str(path), "frames": len(plan.shots), "moves": len(script.moves), "events": len(plan.events)}


def record_game(game: str, variant: str | None, moves: Sequence[str] | str, out_dir: str | Path, *,
                camera: CameraSpec | str = "neutral", light: LightSpec | str | None = None, seed: int = 0,
                events: bool = True, kit: str = "default", size: tuple[int, int] | None = None,
                timing: Timing = Timing(), touches: float = 0.0) -> dict[str, Any]:
    """Writes a recorded-game directory of moves (a list or one space-separated text); returns a summary."""
    # camera and light are specs or preset names (light defaults to the camera preset's light,
    # or the neutral one); size, if given, replaces the camera's frame size; events=False leaves
    # out events.jsonl, so that a replay sees only what the camera sees.
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise RenderError(f"seed must be a whole number from 0, not {seed!r}")
    camera_spec, light_spec = _specs(camera, light)
    if size is not None:
        camera_spec = replace(camera_spec, size=size)
    _target(out_dir)
    script = script_for(game, variant, moves.split() if isinstance(moves, str) else list(moves))
    renderer = Renderer(script.game, script.variant, camera_spec, light_spec, seed=seed, kit=kit)
    return write_recording(out_dir, script, renderer, seed=seed, timing=timing, events=events, touches=touches)


def _specs(camera: CameraSpec | str, light: LightSpec | str | None) -> tuple[CameraSpec, LightSpec]:
    """Returns the camera and light specs named or given."""
    camera_spec = preset(camera)[0] if isinstance(camera, str) else camera
    if light is None:
        light = camera if isinstance(camera, str) else "neutral"
    light_spec = preset(light)[1] if isinstance(light, str) else light
    if not isinstance(camera_spec, CameraSpec) or not isinstance(light_spec, LightSpec):
        raise RenderError("camera must be a CameraSpec or a preset name, light a LightSpec or a preset name")
    return camera_spec.checked(), light_spec.checked()
