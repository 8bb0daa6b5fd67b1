"""Tests of trimming a recording's still spells: what is kept, and events moved with their frames."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np

from tools.trim_stills import cut_trips, kept_frames, moving_runs, write_trimmed

# One scene per frame: "a" and "b" are two board positions, "H" a hand in view.
SCENES = "aaaaaaa" + "HHH" + "bbbbbb" + "HH" + "aaaaaaa"


def scene_frame(scene: str, number: int, rng: np.random.Generator) -> np.ndarray:
    """Returns a noisy grey frame; a hand is a bright block moving on, position b has a dark piece."""
    image = np.full((120, 160, 3), 128.0)
    if scene == "b":
        image[50:70, 70:90] = 40
    if scene == "H":
        image[20:100, 30 + 10 * (number % 5):130] = 220
    image += rng.normal(0.0, 2.0, image.shape)
    return np.clip(image, 0, 255).astype(np.uint8)


def write_recording(folder: Path) -> None:
    """Writes a small recorded game with an event in the middle of two still spells."""
    rng = np.random.default_rng(5)
    (folder / "frames").mkdir(parents=True)
    for number, scene in enumerate(SCENES, start=1):
        cv2.imwrite(str(folder / "frames" / f"{number:06d}.png"), scene_frame(scene, number, rng))
    rows = ["frame,t_ms"] + [f"{number},{(number - 1) * 100}" for number in range(1, len(SCENES) + 1)]
    (folder / "frames.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    events = [{"frame": 5, "event": "roll", "value": "roll:b4g5"}, {"frame": 16, "event": "button", "value": "done"}]
    (folder / "events.jsonl").write_text("".join(json.dumps(event) + "\n" for event in events), encoding="utf-8")
    (folder / "game.json").write_text('{"game": "blockade"}', encoding="utf-8")


def test_each_still_run_keeps_its_first_frames_and_a_run_restarts_at_an_event() -> None:
    still = [False, True, True, True, True, True, False, True, True, True]
    assert kept_frames(still, set(), 3) == [1, 2, 3, 7, 8, 9]
    assert kept_frames(still, {5}, 3) == [1, 2, 3, 5, 6, 7, 8, 9]


def test_a_trimmed_recording_keeps_every_hand_frame_byte_for_byte_and_moves_the_events(tmp_path: Path) -> None:
    source, target = tmp_path / "source", tmp_path / "target"
    write_recording(source)
    before, after = write_trimmed(source, target, keep=3)
    kept = [1, 2, 3, 5, 6, 7, 8, 9, 10, 11, 12, 13, 16, 17, 18, 19, 20, 21]
    assert (before, after) == (len(SCENES), len(kept))
    for new, old in enumerate(kept, start=1):
        assert (target / "frames" / f"{new:06d}.png").read_bytes() == (source / "frames" / f"{old:06d}.png").read_bytes()
    events = [json.loads(line) for line in (target / "events.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [event["frame"] for event in events] == [4, 13]
    times = (target / "frames.csv").read_text(encoding="utf-8").splitlines()
    assert times[1:3] == ["1,0", "2,100"] and len(times) == len(kept) + 1
    assert (target / "game.json").read_text(encoding="utf-8") == '{"game": "blockade"}'


def test_a_moving_run_ends_before_the_first_frame_of_the_next_still_scene() -> None:
    still = [False, True, True, False, False, False, False, True, True]
    assert moving_runs(still) == [[4, 5, 6]]


def test_a_long_hand_trip_keeps_its_first_and_last_frames_and_any_event_frame() -> None:
    still = [False, True, False, False, False, False, False, False, False, True, True]
    kept = list(range(1, 12))
    assert cut_trips(kept, still, set(), 4) == [1, 2, 3, 4, 7, 8, 9, 10, 11]
    assert cut_trips(kept, still, {5}, 4) == [1, 2, 3, 4, 5, 7, 8, 9, 10, 11]
    assert cut_trips(kept, still, set(), 7) == kept


def test_cutting_trips_keeps_the_hand_coming_in_and_leaving_byte_for_byte(tmp_path: Path) -> None:
    source, target = tmp_path / "source", tmp_path / "target"
    write_recording(source)
    write_trimmed(source, target, keep=3, keep_moving=2)
    kept = [1, 2, 3, 5, 6, 7, 8, 10, 11, 12, 13, 16, 17, 18, 19, 20, 21]
    assert sorted(path.name for path in (target / "frames").iterdir())[-1] == f"{len(kept):06d}.png"
    for new, old in enumerate(kept, start=1):
        assert (target / "frames" / f"{new:06d}.png").read_bytes() == (source / "frames" / f"{old:06d}.png").read_bytes()
