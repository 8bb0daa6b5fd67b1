"""How the observers read recorded games: the replay against truth.json, and per-cell reads of settled frames.

Run from the repository root with the project's own environment (no bpy needed):
    .venv/bin/python -m tools.blender.evaluate DIR [DIR ...] [--json]
For each recorded game it replays the directory through the appliance's pipeline (pi.replay)
and compares the moves, alerts and outcome with truth.json; then it reads each move's settled
frame through the still path (BoardTracker, locate_camera, prepare, the game's observer, with
the referee's position before the move) and compares every cell with vision.expect's view of
the position after it, listing the misread cells.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import cv2

from pi.pipeline import observer_for, tracker_for
from pi.replay import replay
from vision.expect import expected_view
from vision.kit import kit_named
from vision.observe.context import prepare
from vision.pose import locate_camera
from vision.render.record import script_for

LOCK_FRAMES = 3


def replay_report(directory: Path, truth: dict[str, Any]) -> dict[str, Any]:
    """Returns the replay's moves, alerts and outcome beside the truth, and whether they agree."""
    records: list[dict[str, Any]] = []
    replay(directory, records.append)
    moves = [record["move"] for record in records if "move" in record]
    alerts = [record for record in records if "alert" in record]
    outcome = records[-1].get("outcome") if records else None
    agree = moves == truth["moves"] and not alerts and outcome == truth["outcome"]
    first = next((index for index, (a, b) in enumerate(zip(moves, truth["moves"])) if a != b), None)
    return {"replays_right": agree, "moves_read": len(moves), "moves_true": len(truth["moves"]),
            "first_difference": first, "moves": moves, "alerts": alerts[:6], "outcome": outcome}


def cell_report(directory: Path, game: dict[str, Any], truth: dict[str, Any]) -> dict[str, Any]:
    """Returns the share of cells read right on the settled frames, and every misread cell."""
    kit = kit_named(game.get("kit", "default"))
    observe, memory = observer_for(game["game"], kit)
    script = script_for(game["game"], game.get("variant"), truth["moves"])
    tracker = tracker_for(kit, game["game"], game.get("variant"))
    for number in range(1, LOCK_FRAMES + 1):
        tracker.update(_frame(directory, number))
    cells, misread = 0, []
    for label in truth["labels"]:
        frame = _frame(directory, label["settled"])
        fix = tracker.update(frame)
        if fix.view is None:
            misread.append({"ply": label["ply"], "error": f"board not found: {fix.message}"})
            continue
        before, after = script.positions[label["ply"] - 1], script.positions[label["ply"]]
        seen = observe(prepare(frame, fix.view, locate_camera(fix.view), kit), before, memory)
        expected = expected_view(game["game"], after)
        cells += len(expected)
        misread += [{"ply": label["ply"], "move": label["move"], "square": square, "truth": expected[square],
                     "seen": cell.label, "confidence": round(cell.confidence, 3)}
                    for square, cell in seen.cells.items() if cell.label != expected[square]]
    wrong = sum(1 for item in misread if "square" in item)
    return {"cell_accuracy": round(1 - wrong / max(cells, 1), 4), "cells": cells, "misread": misread}


def _frame(directory: Path, number: int) -> Any:
    """Returns one frame of a recording as a BGR image."""
    return cv2.imread(str(directory / "frames" / f"{number:06d}.jpg"), cv2.IMREAD_COLOR)


def evaluate(directory: Path) -> dict[str, Any]:
    """Returns the replay and cell reports of one recorded game directory."""
    game = json.loads((directory / "game.json").read_text(encoding="utf-8"))
    truth = json.loads((directory / "truth.json").read_text(encoding="utf-8"))
    return {"name": directory.name, **replay_report(directory, truth), **cell_report(directory, game, truth)}


def main() -> None:
    """Evaluates every directory given, printing a short summary each (or JSON lines)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("directories", nargs="+", type=Path)
    parser.add_argument("--json", action="store_true", help="print one JSON object per recording")
    args = parser.parse_args()
    for directory in args.directories:
        report = evaluate(directory)
        if args.json:
            print(json.dumps(report), flush=True)
            continue
        print(f"{report['name']}: replays right {report['replays_right']}, moves {report['moves_read']}/"
              f"{report['moves_true']} (first difference at {report['first_difference']}), "
              f"alerts {len(report['alerts'])}, cells {report['cell_accuracy']:.2%} of {report['cells']}")
        for item in report["misread"][:12]:
            print("   ", item)


if __name__ == "__main__":
    main()
