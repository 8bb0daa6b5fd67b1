"""The accuracy report: how every recorded game replays against its truth.json, per game.

Run from the repository root:  .venv/bin/python -m bench.accuracy_bench [DIR ...] [--calibrated] [--json]
With no directory it reads every committed fixture (fixtures/*). Each recording is replayed
through the appliance's pipeline (pi.replay), with --calibrated given the camera's true lens
calibration as the appliance's vision.calibration would (a rendered recording's truth.json holds it); the accepted moves are lined up with truth.json's
moves as the longest common subsequence, so one missed move is counted once and does not shift
every later ply: `right` counts truth moves accepted in order, `false` counts accepted moves that
line up with no truth move, `skipped` counts true moves the replay read past (a later true move
was accepted while they never were, so the referee's position lacks them), `asked` counts
confirmations asked (ambiguous readings), `alerts` every other alert and `taken back` the moves
a later look took back (a rewind: the move list is the moves up to a record's `ply` - 1, then its
move, so a corrected move counts once, as the correction). One row per
recording, then one per game with the totals.
"""

from __future__ import annotations

import argparse
import json
from difflib import SequenceMatcher
from pathlib import Path
from typing import Any

from bench.replay_bench import fixtures
from bench.report import add_options, print_table
from pi.replay import replay
from pi.threads import limit_threads
from vision.board import Calibration

COLUMNS = (("right", "right", ".0f"), ("total", "total", ".0f"), ("false", "false", ".0f"),
           ("skipped", "skipped", ".0f"), ("asked", "asked", ".0f"), ("alerts", "alerts", ".0f"),
           ("taken back", "taken back", ".0f"))
COUNTS = tuple(key for key, _, _ in COLUMNS)


def aligned(moves: list[str], truth: list[str]) -> tuple[int, int]:
    """Returns how many accepted moves line up with the true moves in order (longest common
    subsequence) and how many true moves that alignment passes over before its last match."""
    matcher = SequenceMatcher(None, truth, moves, autojunk=False)
    blocks = [block for block in matcher.get_matching_blocks() if block.size]
    right = sum(block.size for block in blocks)
    return right, (blocks[-1].a + blocks[-1].size - right if blocks else 0)


def played(records: list[dict[str, Any]]) -> tuple[list[str], int]:
    """Returns the moves the records leave played and how many were taken back: a move at `ply`
    follows the moves up to `ply` - 1 (pi.pipeline: a rewind takes back the later ones and plays
    corrections)."""
    moves: list[str] = []
    taken = 0
    for record in records:
        if "move" in record:
            ply = int(record.get("ply", len(moves) + 1))
            taken += max(len(moves) - (ply - 1), 0)
            moves[ply - 1:] = [record["move"]]
    return moves, taken


def score(records: list[dict[str, Any]], truth: list[str]) -> dict[str, float]:
    """Returns the counts of one replay's records against the true moves."""
    moves, taken = played(records)
    right, skipped = aligned(moves, truth)
    alerts = [str(record["alert"]) for record in records if "alert" in record]
    asked = sum(1 for alert in alerts if alert.startswith("ambiguous"))
    return {"right": right, "total": len(truth), "false": len(moves) - right, "skipped": skipped,
            "asked": asked, "alerts": len(alerts) - asked, "taken back": taken}


def measure(directory: Path, calibrated: bool = False) -> tuple[str, dict[str, float]]:
    """Returns a recording's game name and its counts (calibrated: given the true lens calibration)."""
    game = json.loads((directory / "game.json").read_text(encoding="utf-8"))
    truth = json.loads((directory / "truth.json").read_text(encoding="utf-8"))
    records: list[dict[str, Any]] = []
    replay(directory, records.append, calibration=true_lens(truth) if calibrated else None)
    name = game["game"] + (f" {game['variant']}" if game.get("variant") else "")
    return name, score(records, truth["moves"])


def true_lens(truth: dict[str, Any]) -> Calibration:
    """Returns the camera's lens calibration a rendered recording's truth.json holds."""
    camera = truth["camera"]
    return Calibration(camera["camera_matrix"], camera["dist_coeffs"], camera.get("image_size"))


def add(total: dict[str, float], counts: dict[str, float]) -> dict[str, float]:
    """Returns the sum of two rows of counts."""
    return {key: total.get(key, 0) + counts[key] for key in COUNTS}


def main() -> None:
    """Replays every recording given (or every fixture) and prints the accuracy table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("directories", nargs="*", type=Path)
    parser.add_argument("--calibrated", action="store_true",
                        help="give the pipeline each camera's true lens calibration (from truth.json)")
    add_options(parser)
    args = parser.parse_args()
    limit_threads()
    rows: dict[str, dict[str, float]] = {}
    games: dict[str, dict[str, float]] = {}
    for directory in args.directories or fixtures():
        game, counts = measure(directory, args.calibrated)
        rows[directory.name] = counts
        games[f"all {game}"] = add(games.get(f"all {game}", {}), counts)
    print_table({**rows, **dict(sorted(games.items()))}, COLUMNS, args.json, 32)


if __name__ == "__main__":
    main()
