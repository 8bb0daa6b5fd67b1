"""Times `blockref replay` on the committed fixtures: frames per second per recorded game.

Run from the repository root:
    .venv/bin/python -m bench.replay_bench [--fixtures fixtures/tuned-neutral,...] [--repeats N]
        [--threads T] [--cpu] [--json]
Each recorded game (default: every directory under fixtures/ with a game.json) is replayed
whole, --repeats times (default 3), through pi.replay.replay: the same pipeline as the appliance
(JPEG decoding, board tracker, scene gate, the game's observer on still frames, inference,
session, simulated LEDs). Prints per fixture its frames and frame size, the median seconds per
replay, frames per second and ms per frame, and the median and 90th percentile ms of one call of
the game's observer (a still frame read, in play: the position one move on from the last read,
anticipated on the hand's trip as the appliance does; a second look is a call too), or one JSON
object with --json. OpenCV runs on
--threads threads (default 1, like one Pi core); --cpu times with the process CPU clock. The
target on this machine class is 50 frames/s or more.
"""

from __future__ import annotations

import argparse
import statistics
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator

import cv2

import pi.pipeline
from bench.report import add_options, clock_of, print_table, size_label
from pi.replay import replay
from pi.threads import limit_threads
from vision.kit import Kit

ROOT = Path(__file__).resolve().parent.parent
COLUMNS = (("frames", "frames", ".0f"), ("median_s", "median s", ".2f"), ("fps", "frames/s", ".1f"),
           ("ms_per_frame", "ms/frame", ".2f"), ("moves", "moves", ".0f"), ("read_ms", "read ms", ".1f"),
           ("read_p90", "read p90", ".1f"))
Clock = Callable[[], float]


def fixtures() -> list[Path]:
    """Returns the committed recorded games, by name."""
    return sorted(path.parent for path in (ROOT / "fixtures").glob("*/game.json"))


def frame_files(directory: Path) -> list[Path]:
    """Returns a recorded game's frame images, in order."""
    return sorted((directory / "frames").iterdir())


@contextmanager
def timed_observers(clock: Clock, spent: list[float]) -> Iterator[None]:
    """Makes every pipeline made inside the block keep the ms each call of its observer took."""
    plain = pi.pipeline.observer_for

    def timed_for(game: str, kit: Kit) -> tuple[Any, Any]:
        """Returns a game's observer, timed, and its fresh memory."""
        observe, memory = plain(game, kit)

        def timed(*args: Any, **kwargs: Any) -> Any:
            start = clock()
            try:
                return observe(*args, **kwargs)
            finally:
                spent.append(1000.0 * (clock() - start))

        return timed, memory

    pi.pipeline.observer_for = timed_for
    try:
        yield
    finally:
        pi.pipeline.observer_for = plain


def time_replay(directory: Path, repeats: int, clock: Clock) -> dict[str, float]:
    """Returns the frames, median seconds per replay, frames/s, ms/frame, moves, and the median
    and 90th percentile ms of an observer call, of a fixture."""
    frames = len(frame_files(directory))
    records: list[object] = []
    seconds: list[float] = []
    reads: list[float] = []
    for _ in range(repeats):
        records.clear()
        with timed_observers(clock, reads):
            start = clock()
            replay(directory, records.append)
            seconds.append(clock() - start)
    median = statistics.median(seconds)
    moves = sum(1 for record in records if isinstance(record, dict) and "move" in record)
    ordered = sorted(reads) or [float("nan")]
    return {"frames": float(frames), "median_s": median, "fps": frames / median,
            "ms_per_frame": 1000.0 * median / frames, "moves": float(moves),
            "read_ms": statistics.median(ordered), "read_p90": ordered[int(0.9 * (len(ordered) - 1))]}


def frame_size(directory: Path) -> str:
    """Returns the size of a fixture's first frame, as WIDTHxHEIGHT."""
    image = cv2.imread(str(frame_files(directory)[0]))
    return "?" if image is None else size_label((image.shape[1], image.shape[0]))


def main() -> None:
    """Parses the options, replays every fixture and prints the table (or JSON)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fixtures", default="", help="comma-separated recorded game directories")
    parser.add_argument("--repeats", type=int, default=3, help="replays per fixture")
    add_options(parser, threads=True, cpu=True)
    args = parser.parse_args()
    chosen = [Path(item) for item in args.fixtures.split(",") if item] or fixtures()
    missing = [str(path) for path in chosen if not (path / "game.json").is_file()]
    if missing or args.repeats < 1:
        parser.error(f"not a recorded game: {missing[0]}" if missing else "--repeats must be 1 or more")
    limit_threads(args.threads)
    results = {f"{path.name} {frame_size(path)}": time_replay(path, args.repeats, clock_of(args)) for path in chosen}
    print_table(results, COLUMNS, args.json, 32)


if __name__ == "__main__":
    main()
