"""Tests of the frame loop on rendered recordings, with an observer that reads the truth.

The pixel observers have their own accuracy tests; here the observer is replaced by one that
reports the true position of each frame, so these tests check the loop itself: gating, the
referee's inference, events, bad frames and the session, on real rendered frames.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from bench.accuracy_bench import true_lens
from pi.camera.recorded import RecordedSource
from pi.pipeline import Pipeline, lens_from_markers_for, lens_needs_focal_for, tracker_for
from pi.recording import load_recording
from pi.replay import drive, open_session
from rules import get_game
from vision.board import Calibration
from vision.expect import expected_view
from vision.kit import kit_named
from vision.observation import CellSeen, Observation
from vision.observe.context import Scene
from vision.pose import lens_pinned
from vision.render.record import record_game

MOVES = ["e9-e8", "e1-e2", "+e5", "e2-d2"]


@pytest.fixture(scope="module")
def recording(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Returns a rendered Block recording of four moves (rendered once for the module)."""
    out = tmp_path_factory.mktemp("rec") / "block-pt"
    record_game("block-pt", None, MOVES, out, camera="neutral", seed=3)
    return out


def truth_observer(directory: Path, pipeline_box: list[Pipeline]) -> Any:
    """Returns an observer that reports the true position at the pipeline's current frame."""
    truth = json.loads((directory / "truth.json").read_text())
    game = get_game("block-pt")

    def observe(scene: Scene, board: dict[str, Any], memory: Any) -> Observation:
        frame = pipeline_box[0].last_frame
        assert frame is not None
        done = [label["move"] for label in truth["labels"] if label["change"] <= frame.number]
        view = expected_view("block-pt", game.board(game.play_all(done)))
        return Observation("block-pt", {sq: CellSeen.sure(label) for sq, label in view.items()})

    return observe


def failing_once(observe: Any) -> Any:
    """Returns an observer that raises a numerical error on its first call, then observes."""
    calls = []

    def flaky(scene: Scene, board: dict[str, Any], memory: Any) -> Observation:
        calls.append(1)
        if len(calls) == 1:
            raise np.linalg.LinAlgError("Singular matrix")
        return observe(scene, board, memory)  # type: ignore[no-any-return]

    return flaky


def run(directory: Path, tmp_path: Path, wrap: Any = lambda observe: observe,
        anticipator: Any = None, calibration: Calibration | None = None) -> tuple[list[dict[str, Any]], Any]:
    """Replays a directory with the truth observer (and an anticipator and a lens calibration,
    if given); returns the records and the session."""
    recording = load_recording(directory)
    session = open_session(recording, tmp_path / "journal.sqlite")
    records: list[dict[str, Any]] = []
    box: list[Pipeline] = []
    pipeline = Pipeline(session, kit_named(), records.append, observer=wrap(truth_observer(directory, box)),
                        anticipator=anticipator, calibration=calibration)
    box.append(pipeline)
    drive(pipeline, recording, RecordedSource(directory))
    assert pipeline.tracker is not None and pipeline.tracker.calibration is calibration
    return records, session


def test_every_move_is_read_once_in_order(recording: Path, tmp_path: Path) -> None:
    records, session = run(recording, tmp_path)
    assert [r["move"] for r in records if "move" in r] == MOVES
    assert [r["ply"] for r in records if "move" in r] == [1, 2, 3, 4]
    assert not [r for r in records if "alert" in r]
    assert session.moves == MOVES


def test_moves_are_read_after_the_hand_has_left(recording: Path, tmp_path: Path) -> None:
    labels = json.loads((recording / "truth.json").read_text())["labels"]
    records, _ = run(recording, tmp_path)
    frames = [r["frame"] for r in records if "move" in r]
    for frame, label in zip(frames, labels):
        assert frame >= label["settled"]


def test_corrupt_frames_raise_one_alert_and_no_move(recording: Path, tmp_path: Path) -> None:
    broken = tmp_path / "broken"
    shutil.copytree(recording, broken)
    for number in (2, 3):
        path = broken / "frames" / f"{number:06d}.jpg"
        path.write_bytes(path.read_bytes()[:200])
    records, session = run(broken, tmp_path)
    alerts = [r["alert"] for r in records if "alert" in r]
    assert len(alerts) == 1 and alerts[0].startswith("camera: ")
    assert session.moves == MOVES


def test_the_lens_calibration_reaches_the_board_tracker(recording: Path, tmp_path: Path) -> None:
    lens = true_lens(json.loads((recording / "truth.json").read_text()))
    records, session = run(recording, tmp_path, calibration=lens)
    assert session.moves == MOVES and not [r for r in records if "alert" in r]


def test_block_block_keeps_the_markers_lens_only_where_it_is_pinned_down() -> None:
    tracker = tracker_for(kit_named(), "block-block", None)
    assert tracker.estimate_lens and tracker.lens_kept is lens_pinned
    assert tracker_for(kit_named(), "block-pt", None).lens_kept is None
    assert tracker_for(kit_named(), "block-block", None, Calibration([[500, 0, 320], [0, 500, 240], [0, 0, 1]],
                                                                      [0, 0, 0, 0])).calibration is not None


def test_without_a_calibration_the_board_fix_corrects_the_distortion_the_markers_tell(
        recording: Path, tmp_path: Path) -> None:
    assert lens_from_markers_for("block-pt") and not lens_needs_focal_for("block-pt")
    loaded = load_recording(recording)
    pipeline = Pipeline(open_session(loaded, tmp_path / "journal.sqlite"), kit_named(), lambda record: None)
    drive(pipeline, loaded, RecordedSource(recording))
    view = pipeline.tracker.view
    assert view is not None and view.calibration is not None and not view.lens_known
    assert pipeline.session.moves == MOVES


def test_frames_the_lens_calibration_does_not_fit_raise_one_alert_and_no_move(recording: Path, tmp_path: Path) -> None:
    square = Calibration([[500.0, 0.0, 320.0], [0.0, 500.0, 320.0], [0.0, 0.0, 1.0]], [0.0] * 4, [640, 640])
    records, session = run(recording, tmp_path, calibration=square)
    alerts = [r["alert"] for r in records if "alert" in r]
    assert len(alerts) == 1 and alerts[0].startswith("board not found: the calibration is for 640x640 frames")
    assert session.moves == []


def test_an_observer_fault_costs_one_reading_and_one_alert(recording: Path, tmp_path: Path) -> None:
    records, session = run(recording, tmp_path, failing_once)
    alerts = [r["alert"] for r in records if "alert" in r]
    assert len(alerts) == 1 and "the observer failed" in alerts[0]
    assert session.moves == MOVES


def test_a_done_with_no_change_passes_only_where_passing_is_legal(recording: Path, tmp_path: Path) -> None:
    with_done = tmp_path / "done"
    shutil.copytree(recording, with_done)
    (with_done / "events.jsonl").write_text(json.dumps({"frame": 5, "event": "button", "value": "done"}) + "\n")
    records, session = run(with_done, tmp_path)
    alerts = [r["alert"] for r in records if "alert" in r]
    assert any("passing is not allowed" in alert for alert in alerts)
    assert session.moves == MOVES


def counting(calls: list[int]) -> Any:
    """Returns a wrapper that counts the observer's calls into a list."""
    def wrap(observe: Any) -> Any:
        def counted(scene: Scene, board: dict[str, Any], memory: Any) -> Observation:
            calls.append(1)
            return observe(scene, board, memory)  # type: ignore[no-any-return]
        return counted
    return wrap


def with_events(recording: Path, tmp_path: Path, name: str, events: list[tuple[str, str]]) -> Path:
    """Returns a copy of the recording with some events (kind, value) on its last frame."""
    copy = tmp_path / name
    shutil.copytree(recording, copy)
    last = len(list((copy / "frames").iterdir()))
    (copy / "events.jsonl").write_text("".join(json.dumps({"frame": last, "event": kind, "value": value}) + "\n"
                                               for kind, value in events))
    return copy


def test_a_done_on_a_scene_read_already_reads_nothing_again(recording: Path, tmp_path: Path) -> None:
    plain: list[int] = []
    (tmp_path / "plain").mkdir()
    run(recording, tmp_path / "plain", counting(plain))
    pressed: list[int] = []
    records, session = run(with_events(recording, tmp_path, "done", [("button", "done")]), tmp_path, counting(pressed))
    assert len(pressed) == len(plain)
    assert any("passing is not allowed" in r["alert"] for r in records if "alert" in r)
    assert session.moves == MOVES


def test_a_done_after_an_undo_reads_the_board_again(recording: Path, tmp_path: Path) -> None:
    plain: list[int] = []
    (tmp_path / "plain").mkdir()
    run(recording, tmp_path / "plain", counting(plain))
    pressed: list[int] = []
    events = [("button", "undo"), ("button", "done")]
    _, session = run(with_events(recording, tmp_path, "undone", events), tmp_path, counting(pressed))
    assert len(pressed) == len(plain) + 1
    assert session.moves == MOVES  # the board still shows the last move: read again, it is played again


def test_each_accepted_position_is_anticipated_once_between_readings(recording: Path, tmp_path: Path) -> None:
    calls: list[tuple[dict[str, Any], Scene]] = []

    def anticipate(scene: Scene, board: dict[str, Any], memory: Any) -> bool:
        calls.append((board, scene))
        return True

    records, session = run(recording, tmp_path, anticipator=anticipate)
    game = get_game("block-pt")
    assert [board for board, _ in calls] == [game.board(game.play_all(MOVES[:ply])) for ply in range(1, 5)]
    assert all(isinstance(scene, Scene) for _, scene in calls)
    assert session.moves == MOVES and not [r for r in records if "alert" in r]


def test_a_failing_anticipator_changes_nothing(recording: Path, tmp_path: Path) -> None:
    def anticipate(scene: Scene, board: dict[str, Any], memory: Any) -> bool:
        raise np.linalg.LinAlgError("Singular matrix")

    records, session = run(recording, tmp_path, anticipator=anticipate)
    assert session.moves == MOVES and not [r for r in records if "alert" in r]
