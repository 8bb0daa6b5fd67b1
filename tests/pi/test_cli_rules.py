"""Tests of `blockref rules`: the JSON it prints and its one-sentence errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from pi.cli import main

KEYS = ["game", "variant", "to_move", "ply", "legal", "outcome", "scores", "counters"]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """Runs the command line in-process and returns status, stdout and stderr."""
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def assert_one_error(status: int, out: str, err: str, *words: str) -> None:
    """Checks an error: status 2, nothing on stdout, one line on stderr naming the input."""
    assert status == 2
    assert out == ""
    assert len(err.strip().splitlines()) == 1
    for word in words:
        assert word in err


def test_initial_block_arena_prints_the_documented_object(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "rules", "block-arena")
    data = json.loads(out)
    assert status == 0
    assert list(data) == KEYS
    assert data["game"] == "block-arena" and data["variant"] == "9x9"
    assert data["to_move"] == 1 and data["ply"] == 0 and data["outcome"] is None
    assert "+a1" in data["legal"] and "+a1b1" in data["legal"]
    assert data["counters"] == {"1": 0, "2": 0}


@pytest.mark.parametrize(
    "game, variant, expected",
    [("block-arena", "7x7", "7x7"), ("block-block", None, "default"), ("blockade", None, None),
     ("tuned", None, None), ("block-pt", None, None)],
)
def test_variant_is_reported(capsys: pytest.CaptureFixture[str], game: str, variant: str | None,
                             expected: str | None) -> None:
    argv = ["rules", game] + (["--variant", variant] if variant else [])
    status, out, _ = run(capsys, *argv)
    assert status == 0
    assert json.loads(out)["variant"] == expected


def test_moves_are_played_in_order(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "rules", "block-pt", "--moves", "e9-e8 e1-e2 +a1")
    data = json.loads(out)
    assert status == 0
    assert data["ply"] == 3 and data["to_move"] == 2
    assert data["counters"] == {"1": 2, "2": 1}
    assert data["scores"] == {"1": 6, "2": 7}


def test_moves_file_with_comments(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    moves = tmp_path / "game.txt"
    moves.write_text("# opening\ne9-e8 e1-e2\n+a1  # first blocker\n", encoding="utf-8")
    status, out, _ = run(capsys, "rules", "block-pt", "--moves-file", str(moves))
    assert status == 0
    assert json.loads(out)["ply"] == 3


def test_unknown_game(capsys: pytest.CaptureFixture[str]) -> None:
    assert_one_error(*run(capsys, "rules", "chess"), "chess")


def test_unknown_variant(capsys: pytest.CaptureFixture[str]) -> None:
    assert_one_error(*run(capsys, "rules", "block-arena", "--variant", "8x8"), "8x8")


def test_variant_for_a_game_without_variants(capsys: pytest.CaptureFixture[str]) -> None:
    assert_one_error(*run(capsys, "rules", "tuned", "--variant", "9x9"), "9x9")


def test_unparsable_move_names_move_and_ply(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "rules", "block-pt", "--moves", "e9-e8 e1-e9x")
    assert_one_error(status, out, err)
    assert err.startswith("illegal move 'e1-e9x' at ply 2: ")


def test_illegal_move_names_the_rule(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "rules", "block-pt", "--moves", "+a1")
    assert_one_error(status, out, err)
    assert err.startswith("illegal move '+a1' at ply 1: ")
    assert len(err) > len("illegal move '+a1' at ply 1: ") + 5


def test_non_canonical_spelling_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert_one_error(*run(capsys, "rules", "block-arena", "--moves", "+b1a1"), "at ply 1")


def test_missing_moves_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    missing = str(tmp_path / "nope.txt")
    assert_one_error(*run(capsys, "rules", "tuned", "--moves-file", missing), "nope.txt")


def test_binary_moves_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    binary = tmp_path / "moves.bin"
    binary.write_bytes(b"\xff\xfe\x00\x01garbage")
    assert_one_error(*run(capsys, "rules", "tuned", "--moves-file", str(binary)), "moves.bin")


def test_moves_file_that_is_a_directory(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert_one_error(*run(capsys, "rules", "tuned", "--moves-file", str(tmp_path)), "moves file")


def test_both_move_sources(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    moves = tmp_path / "m.txt"
    moves.write_text("e9-e8", encoding="utf-8")
    assert_one_error(*run(capsys, "rules", "block-pt", "--moves", "e9-e8", "--moves-file", str(moves)))


def test_unknown_option(capsys: pytest.CaptureFixture[str]) -> None:
    assert_one_error(*run(capsys, "rules", "tuned", "--bogus"), "--bogus")


def test_help_names_every_house_ruling(capsys: pytest.CaptureFixture[str]) -> None:
    from rules import all_games

    with pytest.raises(SystemExit) as exited:
        main(["rules", "--help"])
    out = capsys.readouterr().out
    assert exited.value.code == 0
    for game in all_games():
        assert game.name in out
        for ruling in game.house_rules:
            assert ruling in out


def test_console_script_runs_as_a_process() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "pi.cli", "rules", "tuned", "--moves", "+donkey@a1"],
        capture_output=True, text=True, check=False,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["ply"] == 1
    bad = subprocess.run(
        [sys.executable, "-m", "pi.cli", "rules", "tuned", "--moves", "jump"],
        capture_output=True, text=True, check=False,
    )
    assert bad.returncode == 2 and bad.stdout == ""
    assert bad.stderr.startswith("illegal move 'jump' at ply 1: ")
