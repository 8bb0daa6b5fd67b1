"""Bad recorded-game directories give one clear error and exit status 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pi.cli import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """Runs the command line in-process and returns status, stdout and stderr."""
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.mark.parametrize("game_json, words", [
    (None, "is missing"),
    ("not json", "not valid JSON"),
    (json.dumps({"game": "chess"}), "chess"),
    (json.dumps({"game": "block-arena", "variant": "8x8"}), "8x8"),
    (json.dumps(["block-pt"]), "must be an object"),
    (json.dumps({"game": "tuned", "kit": "../default"}), "a bundled kit's name or a .toml file"),
    (json.dumps({"game": "tuned", "kit": "deluxe"}), "no bundled kit named 'deluxe'"),
    (json.dumps({"game": "tuned", "kit": "kit.toml"}), "cannot be read"),
])
def test_bad_game_json(capsys: pytest.CaptureFixture[str], tmp_path: Path, game_json: str | None,
                       words: str) -> None:
    (tmp_path / "frames").mkdir()
    if game_json is not None:
        (tmp_path / "game.json").write_text(game_json, encoding="utf-8")
    status, out, err = run(capsys, "replay", str(tmp_path))
    assert status == 2 and out == "" and words in err and len(err.strip().splitlines()) == 1


def test_not_a_directory(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    status, out, err = run(capsys, "replay", str(tmp_path / "nothing"))
    assert status == 2 and out == "" and "not a directory" in err


def test_no_frames(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    (tmp_path / "game.json").write_text(json.dumps({"game": "tuned"}), encoding="utf-8")
    status, out, err = run(capsys, "replay", str(tmp_path))
    assert status == 2 and out == "" and "frames" in err


def test_bad_events_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    (tmp_path / "frames").mkdir()
    (tmp_path / "game.json").write_text(json.dumps({"game": "blockade"}), encoding="utf-8")
    (tmp_path / "events.jsonl").write_text('{"frame": 3, "event": "roll", "value": "roll:b1g1"}\n{oops\n',
                                            encoding="utf-8")
    status, out, err = run(capsys, "replay", str(tmp_path))
    assert status == 2 and out == "" and "line 2" in err


@pytest.mark.parametrize("calibration, words", [
    (None, "cannot be read"),
    ("{}", "must be an object with camera_matrix and dist_coeffs"),
    ('{"camera_matrix": [[1, 0, 0], [0, 1, 0], [0, 0, 1]], "dist_coeffs": [0, 0, 0, 0], "size": 3}', "unknown key"),
])
def test_bad_calibration_file(capsys: pytest.CaptureFixture[str], tmp_path: Path, calibration: str | None,
                              words: str) -> None:
    (tmp_path / "frames").mkdir()
    (tmp_path / "game.json").write_text(json.dumps({"game": "tuned"}), encoding="utf-8")
    if calibration is not None:
        (tmp_path / "lens.json").write_text(calibration, encoding="utf-8")
    status, out, err = run(capsys, "replay", str(tmp_path), "--calibration", str(tmp_path / "lens.json"))
    assert status == 2 and out == "" and words in err and len(err.strip().splitlines()) == 1
