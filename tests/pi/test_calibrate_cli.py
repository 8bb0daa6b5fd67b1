"""`blockref calibrate` writes the lens calibration the appliance and replay read, or one clear error."""

from __future__ import annotations

from pathlib import Path

import cv2
import pytest

from pi.cli import main
from tests.vision.test_lens import POSES, frames_of
from vision.board import Calibration


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """Runs the command line in-process and returns status, stdout and stderr."""
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_frames_of_the_mat_give_a_calibration_file_that_loads(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    frames, truth = frames_of(-0.15)
    (tmp_path / "shots").mkdir()
    for index, frame in enumerate(frames):
        cv2.imwrite(str(tmp_path / "shots" / f"{index:02d}.png"), frame)
    (tmp_path / "shots" / "broken.png").write_bytes(b"not a picture")
    status, out, err = run(capsys, "calibrate", str(tmp_path / "shots"), "--out", str(tmp_path / "lens.json"))
    assert status == 0 and err == "" and f"from {len(POSES)} of {len(POSES) + 1} frames (1 unreadable)" in out
    lens = Calibration.load(tmp_path / "lens.json")
    assert lens.camera_matrix[0, 0] == pytest.approx(truth["camera_matrix"][0][0], rel=0.02)  # type: ignore[index]
    assert lens.image_size == (640, 480)


@pytest.mark.parametrize("argv, words", [
    (["--game", "chess"], "cannot calibrate: "),
    (["--kit", "none.toml"], "cannot calibrate: kit file none.toml"),
    ([], "at least 4 frames"),
])
def test_unusable_input_gets_one_clear_error(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                            argv: list[str], words: str) -> None:
    status, out, err = run(capsys, "calibrate", str(tmp_path), "--out", str(tmp_path / "lens.json"), *argv)
    assert status == 2 and out == "" and words in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "lens.json").exists()
