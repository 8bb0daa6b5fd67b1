"""Shortens the still spells (and optionally the hand trips) of a recorded game, to keep fixtures small.

The renderers film each move as still frames, the hand's trip and still frames again, so between
two moves the board stands still for twice `Timing.still` frames, and the gate needs fewer. This
copies a recording with every run of still frames cut to its first KEEP frames (counted afresh
after each event's frame), renumbers the frames, rewrites frames.csv at the same steady rate and
moves the events to their frames' new numbers. Kept frames are copied byte for byte.

    python -m tools.trim_stills SRC DST [--keep 4] [--keep-moving 4]

With --keep-moving M, every run of moving frames (a hand's trip: frames that differ from the one
before, up to but not including the first frame of the next still scene) longer than M keeps
only its first M // 2 and last M - M // 2 frames: the hand coming in and the hand leaving with
the camera settling after it, which are what the gate must not mistake for a still board. A
frame that carries an event is never dropped.

A frame is still when it differs from the one before by no more than STILL_FACTOR times the
sensor's noise, taken as the NOISE_QUANTILE of the recording's differences (most pairs of frames
are two stills; a camera still settling its exposure after a hand left differs by more). Check the copy with `blockref replay DST` against truth.json before it
replaces the original.
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

import cv2
import numpy as np

from pi.camera.recorded import list_frames, read_times
from pi.recording import Event, load_recording

STILL_FACTOR = 1.1
NOISE_QUANTILE = 0.1
SMALL_WIDTH = 160


def small_gray(path: Path) -> np.ndarray:
    """Returns the frame as a small grey float image."""
    image = cv2.imread(str(path), cv2.IMREAD_GRAYSCALE)
    if image is None:
        raise SystemExit(f"{path}: not a readable image")
    height = round(image.shape[0] * SMALL_WIDTH / image.shape[1])
    return cv2.resize(image, (SMALL_WIDTH, height), interpolation=cv2.INTER_AREA).astype(np.float32)


def changes(paths: list[Path]) -> list[float]:
    """Returns each frame's mean absolute difference from the frame before (the first gets inf)."""
    result, before = [float("inf")], small_gray(paths[0])
    for path in paths[1:]:
        now = small_gray(path)
        result.append(float(np.mean(np.abs(now - before))))
        before = now
    return result


def still_flags(differences: list[float]) -> list[bool]:
    """Returns for each frame whether it shows the same scene as the frame before."""
    noise = float(np.quantile(differences[1:], NOISE_QUANTILE))
    return [difference <= STILL_FACTOR * noise for difference in differences]


def kept_frames(still: list[bool], event_frames: set[int], keep: int) -> list[int]:
    """Returns the 1-based numbers of the frames to keep: each still run's first `keep` frames."""
    kept, run = [], 0
    for number, is_still in enumerate(still, start=1):
        run = run + 1 if is_still and number not in event_frames else 0
        if run < keep:
            kept.append(number)
    return kept


def moving_runs(still: list[bool]) -> list[list[int]]:
    """Returns the 1-based numbers of each run of moving frames; a still scene's first frame is not moving."""
    runs: list[list[int]] = [[]]
    for number, is_still in enumerate(still, start=1):
        starts_scene = number < len(still) and still[number]
        if is_still or starts_scene:
            runs.append([])
        else:
            runs[-1].append(number)
    return [run for run in runs if run]


def cut_trips(kept: list[int], still: list[bool], event_frames: set[int], keep_moving: int) -> list[int]:
    """Returns the kept frames without the middle of every moving run longer than keep_moving."""
    head, tail = keep_moving // 2, keep_moving - keep_moving // 2
    dropped: set[int] = set()
    for run in moving_runs(still):
        if len(run) > keep_moving:
            dropped.update(run[head:len(run) - tail])
    dropped -= event_frames
    return [number for number in kept if number not in dropped]


def frame_step_ms(recording: Path) -> float:
    """Returns the time between frames from frames.csv, or 100 ms when there is none."""
    path = recording / "frames.csv"
    if not path.exists():
        return 100.0
    times = sorted(read_times(path).values())
    return (times[-1] - times[0]) / max(1, len(times) - 1)


def renumbered(kept: list[int]) -> dict[int, int]:
    """Returns each old frame number's new number; a dropped frame maps to the next kept one."""
    mapping, new, keeping = {}, 1, set(kept)
    for old in range(1, kept[-1] + 1):
        mapping[old] = new
        if old in keeping:
            new += 1
    return mapping


def event_line(event: Event, frame: int) -> dict[str, object]:
    """Returns an event as its events.jsonl line says it, moved to a frame."""
    return {"frame": frame, "event": event.kind, "value": event.value}


def write_trimmed(source: Path, target: Path, keep: int, keep_moving: int | None = None) -> tuple[int, int]:
    """Writes the trimmed copy of source into target; returns the frame counts before and after."""
    paths = [path for _, path in sorted(list_frames(source / "frames").items())]
    events = load_recording(source).events
    event_frames = {event.frame for event in events}
    still = still_flags(changes(paths))
    kept = kept_frames(still, event_frames, keep)
    if keep_moving is not None:
        kept = cut_trips(kept, still, event_frames, keep_moving)
    mapping = renumbered(kept)
    (target / "frames").mkdir(parents=True)
    for new, old in enumerate(kept, start=1):
        shutil.copyfile(paths[old - 1], target / "frames" / f"{new:06d}{paths[old - 1].suffix}")
    step = frame_step_ms(source)
    rows = ["frame,t_ms"] + [f"{number},{round((number - 1) * step)}" for number in range(1, len(kept) + 1)]
    (target / "frames.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    if events:
        lines = [json.dumps(event_line(event, mapping[event.frame])) + "\n" for event in events]
        (target / "events.jsonl").write_text("".join(lines), encoding="utf-8")
    for name in ("game.json", "truth.json", *(path.name for path in source.glob("*.toml"))):  # a kit file too
        if (source / name).exists():
            shutil.copyfile(source / name, target / name)
    return len(paths), len(kept)


def main() -> None:
    """Trims one recording into a new directory."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", type=Path)
    parser.add_argument("target", type=Path)
    parser.add_argument("--keep", type=int, default=4, help="still frames kept of each still run")
    parser.add_argument("--keep-moving", type=int, default=None,
                        help="frames kept of each hand trip (its first half and last half); default all")
    args = parser.parse_args()
    if args.keep_moving is not None and args.keep_moving < 2:
        parser.error("--keep-moving must be at least 2: the hand coming in and the hand leaving")
    if args.target.exists():
        raise SystemExit(f"{args.target} exists; trim into a new directory")
    before, after = write_trimmed(args.source, args.target, args.keep, args.keep_moving)
    print(f"{args.source}: {before} -> {after} frames")


if __name__ == "__main__":
    main()
