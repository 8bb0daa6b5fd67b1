"""Tests of recorded games: the directory, its frames and labels, events, determinism, bad input."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from rules.registry import get_game
from vision.render import RenderError
from vision.render.__main__ import main
from vision.render.camera import CameraSpec
from vision.render.record import Planner, Timing, changes, record_game, script_for
from vision.render.scene import Renderer
from vision.render.effects import LightSpec

QUICK = Timing(lead=2, still=1, approach=2, leave=2, pause=2)
SMALL = (640, 480)


def record(tmp_path: Path, game: str, moves: str, name: str = "game", **options: Any) -> Path:
    """Records a game quickly at 640x480 and returns its directory."""
    out = tmp_path / name
    record_game(game, None, moves, out, size=SMALL, timing=QUICK, **options)
    return out


def lines(path: Path) -> list[dict[str, object]]:
    """Returns the JSON objects of a JSON-lines file."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_a_recorded_game_has_every_file_and_frame_the_labels_name(tmp_path: Path) -> None:
    moves = ["+donkey@b2", "+dog@b2", "b2-a1/2"]
    out = record(tmp_path, "tuned", " ".join(moves), seed=4)
    assert sorted(path.name for path in out.iterdir()) == ["events.jsonl", "frames", "frames.csv", "game.json", "truth.json"]
    assert json.loads((out / "game.json").read_text()) == {"game": "tuned", "variant": None, "kit": "default"}
    frames = sorted(path.name for path in (out / "frames").iterdir())
    rows = (out / "frames.csv").read_text().splitlines()
    assert rows[0] == "frame,t_ms" and len(rows) == len(frames) + 1
    assert frames == [f"{index:06d}.jpg" for index in range(1, len(frames) + 1)]
    assert [row.split(",") for row in rows[1:4]] == [["1", "0"], ["2", "100"], ["3", "200"]]
    truth = json.loads((out / "truth.json").read_text())
    rules = get_game("tuned")
    assert truth["moves"] == moves and truth["outcome"] == rules.summary(rules.play_all(moves))["outcome"]
    labels = truth["labels"]
    assert [label["move"] for label in labels] == moves and [label["ply"] for label in labels] == [1, 2, 3]
    assert all(label["start"] < label["change"] < label["settled"] for label in labels)
    assert labels[-1]["settled"] + QUICK.still - 1 == len(frames)
    assert (out / "events.jsonl").read_text() == ""
    assert truth["camera"]["image_size"] == [640, 480]


def test_each_move_films_stills_a_hand_and_stills_again(tmp_path: Path) -> None:
    script = script_for("tuned", None, ["+donkey@b2", "+cat@c3"])
    renderer = Renderer("tuned", None, CameraSpec(), LightSpec(), seed=1)
    plan = Planner(renderer, QUICK, seed=1).run(script)
    hands = [shot.hand is not None for shot in plan.shots]
    assert hands[:QUICK.lead + QUICK.still] == [False] * (QUICK.lead + QUICK.still)
    for label in plan.labels:
        trip = hands[label["start"] - 1:label["settled"] - 1]
        assert all(trip) and len(trip) >= QUICK.approach + QUICK.leave + 2
        assert not hands[label["settled"] - 1]
        assert plan.shots[label["change"] - 1].position == script.positions[label["ply"]]
        assert plan.shots[label["change"] - 2].position != script.positions[label["ply"]]
    held = [shot.hand.held for shot in plan.shots if shot.hand is not None]
    assert any(held) and not all(held)


def test_a_moved_piece_leaves_its_square_while_it_is_in_the_hand(tmp_path: Path) -> None:
    script = script_for("tuned", None, ["+donkey@b2", "+dog@b2", "b2-a1/2"])
    renderer = Renderer("tuned", None, CameraSpec(), LightSpec(), seed=1)
    plan = Planner(renderer, QUICK, seed=2).run(script)
    label = plan.labels[2]
    carrying = [(shot.position, shot.hand.held) for shot in plan.shots[label["start"] - 1:label["change"] - 1]
                if shot.hand is not None and shot.hand.held]
    assert carrying
    for position, held in carrying:
        assert "b2" not in position["cells"] and "a1" not in position["cells"]
        assert len(held) == 2
    path = [held[0].anchor[:2] for _, held in carrying]
    a1, b2 = np.array(renderer.setting.centre("a1")), np.array(renderer.setting.centre("b2"))
    distances = [float(np.linalg.norm(point - a1)) for point in path]
    assert distances == sorted(distances, reverse=True) and distances[-1] < 1.0
    assert distances[0] > 10.0 and np.linalg.norm(path[0] - b2) <= distances[0]


def test_changes_name_what_leaves_and_what_arrives() -> None:
    rules = get_game("tuned")
    before, after = (rules.board(rules.play_all(moves)) for moves in (["+donkey@b2", "+dog@b2"],
                                                                       ["+donkey@b2", "+dog@b2", "b2-a1/2"]))
    assert changes(before, after) == ({("b2", 0), ("b2", 1)}, {("a1", 0), ("a1", 1)})
    assert changes(after, after) == (set(), set())


def test_blockade_rolls_and_ends_come_as_events_with_no_hand(tmp_path: Path) -> None:
    out = record(tmp_path, "blockade", "roll:b3g4 b5-c3 end")
    events = lines(out / "events.jsonl")
    labels = json.loads((out / "truth.json").read_text())["labels"]
    assert events == [{"frame": labels[0]["start"], "event": "roll", "value": "roll:b3g4"},
                      {"frame": labels[2]["start"], "event": "button", "value": "done"}]
    assert labels[0]["settled"] - labels[0]["start"] == QUICK.pause
    assert labels[1]["settled"] - labels[1]["start"] > QUICK.pause


def test_a_pass_sends_done_and_changes_nothing_on_the_board(tmp_path: Path) -> None:
    moves = "+c1 +e7 +d1 +c7 +f1 +f7 +a1 +a7 M+c1 M+e7 pass"
    script = script_for("block-arena", "7x7", moves.split())
    assert script.positions[-1]["cells"] == script.positions[-2]["cells"]
    renderer = Renderer("block-arena", "7x7", CameraSpec(), LightSpec(), seed=1)
    plan = Planner(renderer, QUICK, seed=1).run(script)
    assert plan.events == [{"frame": plan.labels[-1]["start"], "event": "button", "value": "done"}]
    assert len(plan.labels) == 11


def test_the_same_seed_writes_the_same_bytes_and_another_seed_does_not(tmp_path: Path) -> None:
    runs = [record(tmp_path, "tuned", "+cat@c3", name=f"run{index}", seed=seed, camera="dim-noisy")
            for index, seed in enumerate((7, 7, 8))]
    files = [sorted(path for path in run.rglob("*") if path.is_file()) for run in runs]
    first, again, other = ([path.read_bytes() for path in group] for group in files)
    assert first == again
    assert first != other


@pytest.mark.parametrize("game, moves, options, words", [
    ("tuned", "+donkey@b2 +donkey@b2", {}, "illegal move '\\+donkey@b2' at ply 2"),
    ("chess", "e4", {}, "unknown game"),
    ("tuned", "+donkey@b2", {"camera": "sunny"}, "no preset 'sunny'"),
    ("tuned", "+donkey@b2", {"seed": -1}, "seed"),
    ("tuned", "+donkey@b2", {"camera": CameraSpec(tilt_deg=40.0)}, "tilt_deg"),
])
def test_bad_input_gets_one_error_and_writes_nothing(tmp_path: Path, game: str, moves: str,
                                                     options: dict[str, Any], words: str) -> None:
    with pytest.raises(RenderError, match=words):
        record(tmp_path, game, moves, **options)
    assert list(tmp_path.iterdir()) == []


def test_an_existing_directory_is_never_overwritten(tmp_path: Path) -> None:
    (tmp_path / "game").mkdir()
    (tmp_path / "game" / "keep.txt").write_text("mine")
    with pytest.raises(RenderError, match="not empty"):
        record(tmp_path, "tuned", "+donkey@b2")
    assert [path.name for path in (tmp_path / "game").iterdir()] == ["keep.txt"]
    with pytest.raises(RenderError, match="does not exist"):
        record(tmp_path / "missing", "tuned", "+donkey@b2")


def test_the_command_line_writes_a_game_and_refuses_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "cli"
    assert main(["tuned", "--moves", "+cat@c3", "--out", str(out), "--size", "640x480", "--seed", "3",
                 "--preset", "high-cool"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["moves"] == 1 and summary["frames"] == len(list((out / "frames").iterdir()))
    with pytest.raises(SystemExit) as stop:
        main(["tuned", "--moves", "+cat@z9", "--out", str(tmp_path / "bad")])
    assert stop.value.code == 2
    error = capsys.readouterr().err.strip()
    assert "+cat@z9" in error and "\n" not in error
    assert not (tmp_path / "bad").exists()


def arm_of(shot: Any) -> list[tuple[float, ...]]:
    """Returns where a shot's hand is drawn: each capsule's two ends (none without a hand)."""
    capsules = shot.hand.capsules if shot.hand is not None else ()
    return [tuple(np.round(np.concatenate([capsule.start, capsule.end]), 6)) for capsule in capsules]


def test_a_touch_lifts_a_piece_and_sets_it_back_before_the_move(tmp_path: Path) -> None:
    moves = ["+donkey@b2", "+cat@c3", "+dog@a1"]
    script = script_for("tuned", None, moves)
    renderer = Renderer("tuned", None, CameraSpec(), LightSpec(), seed=1)
    plain = Planner(renderer, QUICK, seed=1).run(script)
    plan = Planner(renderer, QUICK, seed=1, touches=1.0).run(script)
    assert len(plan.touches) == 2  # none before the first move: the board is empty
    assert [label["move"] for label in plan.labels] == moves and not plain.touches
    for ply, first in zip((1, 2), plan.touches):
        label = plan.labels[ply]
        touch = plan.shots[first - 1:label["start"] - 1]
        assert touch[0].hand is not None and touch[-1].hand is None
        assert any(shot.hand is not None and shot.hand.held for shot in touch)
        held = [shot.position for shot in touch if shot.hand is not None and shot.hand.held]
        assert all(len(position["cells"]) == ply - 1 for position in held)  # the touched piece is in the hand
        assert touch[-1].position == script.positions[ply]
    assert len(plan.shots) > len(plain.shots)
    for touched, untouched in zip(plan.labels, plain.labels):  # the moves' own trips are as without touches
        assert [arm_of(shot) for shot in plan.shots[touched["start"] - 1:touched["settled"]]] == \
            [arm_of(shot) for shot in plain.shots[untouched["start"] - 1:untouched["settled"]]]
    with pytest.raises(RenderError, match="touches"):
        Planner(renderer, QUICK, seed=1, touches=1.5)


def test_touches_are_listed_in_the_truth(tmp_path: Path) -> None:
    out = record(tmp_path, "tuned", "+donkey@b2 +cat@c3", seed=3, touches=1.0)
    truth = json.loads((out / "truth.json").read_text())
    assert len(truth["touches"]) == 1 and truth["touches"][0] < truth["labels"][1]["start"]
    assert "touches" not in json.loads((record(tmp_path, "tuned", "+donkey@b2", "plain").joinpath(
        "truth.json")).read_text())
