"""`python -m vision.render GAME --moves "..." --out DIR`: writes one synthetic recorded game.

Prints one JSON line summarising what was written; bad input gets one sentence on stderr and
exit status 2, and nothing is written.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from typing import NoReturn, Sequence

from pi.cli import UsageError, read_moves_file
from vision.render import RenderError
from vision.render.record import PRESETS, record_game

SIZE = re.compile(r"([0-9]{3,4})x([0-9]{3,4})")


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one sentence and exit status 2."""

    def error(self, message: str) -> NoReturn:
        fail(f"{self.prog}: {message}")


def fail(message: str) -> NoReturn:
    """Prints one error sentence to stderr and exits with status 2."""
    print(message, file=sys.stderr)
    raise SystemExit(2)


def parser() -> argparse.ArgumentParser:
    """Returns the command's argument parser."""
    command = _Parser(prog="python -m vision.render", description=__doc__.splitlines()[0])
    command.add_argument("game", help="block-arena, block-block, blockade, tuned or block-pt")
    command.add_argument("--variant", help="the game's variant (block-arena: 9x9 or 7x7)")
    moves = command.add_mutually_exclusive_group(required=True)
    moves.add_argument("--moves", help='the moves in RULES.md notation, space-separated, e.g. "+c1 +g9"')
    moves.add_argument("--moves-file", help="a file of whitespace-separated moves ('#' starts a comment)")
    command.add_argument("--out", required=True, help="the directory to write (must not exist or be empty)")
    command.add_argument("--preset", default="neutral", help="camera and light preset: " + ", ".join(PRESETS))
    command.add_argument("--seed", type=int, default=0, help="the seed of hands and noise (default 0)")
    command.add_argument("--size", help="frame size WxH, replacing the preset's (e.g. 640x480)")
    command.add_argument("--no-events", action="store_true", help="leave out events.jsonl (rolls and done buttons)")
    return command


def frame_size(text: str | None) -> tuple[int, int] | None:
    """Returns the frame size given as WxH, or fails."""
    if text is None:
        return None
    match = SIZE.fullmatch(text)
    if match is None:
        fail(f"--size must look like 640x480, not {text!r}")
    return (int(match.group(1)), int(match.group(2)))


def main(argv: Sequence[str] | None = None) -> int:
    """Runs the command line; returns the exit status."""
    args = parser().parse_args(argv)
    try:
        moves = read_moves_file(args.moves_file) if args.moves_file else args.moves.split()
    except UsageError as error:
        fail(str(error))
    try:
        summary = record_game(args.game, args.variant, moves, args.out, camera=args.preset, seed=args.seed,
                              events=not args.no_events, size=frame_size(args.size))
    except RenderError as error:
        fail(str(error))
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
