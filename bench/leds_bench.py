"""Times the LEDs' reaction to a move: from the session publishing the move event to the
frame written by the backend (the listener composes the frame, the backend encodes and writes).

Run from the repository root:
    .venv/bin/python -m bench.leds_bench [--moves N] [--game NAME] [--variant V] [--seed S]
Plays N seeded random moves (default 2000; new games as needed) through a real Session with a
journal in a temporary directory, once with the simulated panel and once with the SPI backend
writing to a fake device, on the bundled layout of the game's board size (its mat in the
default kit), and prints the median and 99th percentile latency per backend in milliseconds.
Target: p99 <= 5 ms.

With --lifted it measures the lift watch instead (vision.lifted, what feeds the LEDs a lifted
piece): each game's sample moves (tests.vision.holding.SAMPLES) are rendered in memory at each
--sizes frame size, the board tracked as in the pipeline, and it prints per game and size the
time of one look at a frame while the hand is over the board (median and p90), and of the first
look after a still frame, which builds the probes. Target: a look <= 3 ms at 1280x960.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

from bench.report import JSON_ALSO, TIMES, add_options, parse_sizes, print_table, size_label, summary
from bench.rules_bench import percentile
from pi.events import Event, EventLog
from pi.journal import Journal
from pi.leds.backends import LedBackend, SimulatedPanel, SpiBackend
from pi.leds.layout import Layout, default_layout_for
from pi.leds.listener import LedListener
from pi.leds.model import LedFrame
from pi.session import Session
from rules import game_names, get_game
from vision.kit import kit_named

TARGET_MS = 5.0
LOOK_TARGET_MS = 3.0


class Clock:
    """Holds the time a move event was published and the latencies measured since."""

    def __init__(self) -> None:
        self.published: float | None = None
        self.samples_ms: list[float] = []

    def written(self) -> None:
        """Records a write that follows a published move event."""
        if self.published is not None:
            self.samples_ms.append((time.perf_counter() - self.published) * 1000.0)
            self.published = None


class TimedLog(EventLog):
    """An event log that notes when each move event starts being published."""

    def __init__(self, clock: Clock) -> None:
        super().__init__()
        self.clock = clock

    def publish(self, type_: str, data: dict[str, Any]) -> Event:
        """Notes the time of a move event, then publishes it."""
        if type_ == "move":
            self.clock.published = time.perf_counter()
        return super().publish(type_, data)


class TimedPanel(SimulatedPanel):
    """A simulated panel that tells the clock when a frame is written."""

    def __init__(self, layout: Layout, clock: Clock) -> None:
        super().__init__(layout)
        self.clock = clock

    def _write(self, frame: LedFrame) -> None:
        """Keeps the frame, then records the time."""
        super()._write(frame)
        self.clock.written()


class FakeSpi:
    """A spidev stand-in that records the time of each transfer."""

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self.max_speed_hz = 0
        self.mode = 0
        self.bytes_written = 0

    def writebytes2(self, data: bytes) -> None:
        """Counts the bytes and records the time."""
        self.bytes_written += len(data)
        self.clock.written()

    def close(self) -> None:
        """Does nothing."""


def layout_for(game: str, variant: str | None) -> Layout:
    """Returns the bundled layout of the game's board size (its mat in the default kit)."""
    return default_layout_for(kit_named().mat(game, variant).cells)


def play(session: Session, game: str, variant: str | None, moves: int, seed: int) -> None:
    """Plays seeded random legal moves, starting a new game whenever one ends."""
    rng = random.Random(seed)
    session.new_game(game, variant)
    for _ in range(moves):
        legal = session.snapshot()["legal"]
        if not legal:
            session.new_game(game, variant)
            legal = session.snapshot()["legal"]
        session.play(rng.choice(legal))


def measure(make_backend: Callable[[Layout, Clock], LedBackend], layout: Layout, game: str,
            variant: str | None, moves: int, seed: int) -> list[float]:
    """Returns the move-event-to-write latencies of one backend, in milliseconds."""
    clock = Clock()
    with tempfile.TemporaryDirectory() as folder:
        session = Session(Journal(Path(folder) / "journal.sqlite"), TimedLog(clock))
        backend = make_backend(layout, clock)
        LedListener(session, backend).attach()
        play(session, game, variant, moves, seed)
        backend.close()
        session.journal.close()
    return clock.samples_ms


BACKENDS: dict[str, Callable[[Layout, Clock], LedBackend]] = {
    "simulated": TimedPanel,
    "spi (fake device)": lambda layout, clock: SpiBackend(layout, lambda b, d: FakeSpi(clock)),
}


def lift_times(name: str, size: tuple[int, int], seed: int) -> tuple[list[float], list[float]]:
    """Returns the times (ms) of the lift watch's looks at one game's filmed sample moves, from
    the hand's arrival on, and of the first look after each move's still frame (the build)."""
    from tests.vision.holding import SAMPLES, film
    from vision.board import BoardTracker
    from vision.lifted import LiftWatch

    game, variant, setup, moves = SAMPLES[name]
    filmed = film(game, variant, setup, moves, seed=seed, size=size)
    kit = kit_named()
    tracker = BoardTracker(kit, kit.mat(filmed.game.name, filmed.game.variant))
    views = [tracker.update(frame.image).view for frame in filmed.frames]
    watch = LiftWatch(kit, every_ms=0.0)
    played = list(filmed.setup)
    looks: list[float] = []
    builds: list[float] = []
    for take in filmed.takes:
        state = filmed.game.play_all(played)
        still, still_view = filmed.frames[take.frames.start - 2], views[take.frames.start - 2]
        if still_view is not None:
            watch.rest(still.image, still_view, still.t_ms)
        for number in take.frames:
            frame, view = filmed.frames[number - 1], views[number - 1]
            if view is not None:
                started = time.perf_counter()
                watch.watch(frame.image, view, frame.t_ms, filmed.game, state)
                (looks if number > take.frames.start else builds).append((time.perf_counter() - started) * 1000.0)
        played.append(take.move)
    return looks, builds


def lifted_main(sizes: list[tuple[int, int]], seed: int, as_json: bool) -> None:
    """Prints the lift watch's times per game and frame size."""
    from tests.vision.holding import SAMPLES

    results: dict[str, dict[str, float]] = {}
    lift_times("block-pt", sizes[0], seed)  # warms up (first calls load and compile)
    for size in sizes:
        for name in SAMPLES:
            looks, builds = lift_times(name, size, seed)
            row = summary(looks)
            row["build_ms"] = statistics.median(builds) if builds else float("nan")
            results[f"{name} {size_label(size)}"] = row
    print_table(results, TIMES + (("build_ms", "build ms", ".1f"),), as_json, 24)
    if not as_json:
        print(f"target: a look <= {LOOK_TARGET_MS} ms at 1280x960 (it runs only while the board is not still)")


def main() -> None:
    """Runs the benchmark and prints one row per backend (and JSON on request)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=2000, help="moves to play per backend")
    parser.add_argument("--game", default="block-pt", choices=game_names())
    parser.add_argument("--variant", default=None)
    add_options(parser, seed=True, json_help=JSON_ALSO)
    parser.add_argument("--lifted", action="store_true", help="time the lift watch instead (see above)")
    parser.add_argument("--sizes", default="640x480,1280x960", help="frame sizes for --lifted")
    args = parser.parse_args()
    if args.lifted:
        lifted_main(parse_sizes(args.sizes), args.seed, args.json)
        return
    variant = get_game(args.game, args.variant).variant
    layout = layout_for(args.game, variant)
    figures: dict[str, dict[str, float]] = {}
    print(f"{args.game} {variant or ''} on layout {layout.name} ({layout.count} LEDs)")
    print(f"{'backend':20} {'median ms':>10} {'p99 ms':>10} {'n':>7}  target")
    for name, make in BACKENDS.items():
        samples = measure(make, layout, args.game, variant, args.moves, args.seed)
        row = {"median_ms": statistics.median(samples), "p99_ms": percentile(samples, 0.99),
               "n": float(len(samples))}
        figures[name] = row
        verdict = "met" if row["p99_ms"] <= TARGET_MS else "MISSED"
        print(f"{name:20} {row['median_ms']:10.3f} {row['p99_ms']:10.3f} {len(samples):7d}"
              f"  <= {TARGET_MS} ms: {verdict}")
    if args.json:
        print(json.dumps(figures))


if __name__ == "__main__":
    main()
