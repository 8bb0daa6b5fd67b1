"""Times the vision's foundations per frame on synthetic camera frames of the default kit.

Run from the repository root:
    .venv/bin/python -m bench.vision_bench [--frames N] [--threads T] [--cpu] [--json]
Prints one table row per step and frame size with the median and 90th percentile time in ms
(and with --json one JSON object). Steps: `detect+fit` is a whole-frame ArUco detection plus
the homography fit (what a first look or a bumped camera costs); `recheck+rectify` is the
cached homography's per-frame marker check plus the rectified 2 px/mm board image (the steady
state); `gate` is the scene gate's update on that rectified board; `motion gate` is what the
appliance's pipeline adds to the re-check on every frame (pi/pipeline.py): the gate's coarse
rectified region (GATE_PX_PER_MM, GATE_MARGIN_MM) plus the gate's update on it (target on this
machine class: 1 ms). Frames are noisy JPEG-75
renders of the block-arena 9x9 mat from seeded poses across KIT.md's camera envelope
(tests/vision/synth.py). OpenCV runs on --threads threads (default 1, like one Pi core);
--cpu times with the process CPU clock instead of the wall clock (steadier on a busy machine).
VISION.md's figures for this machine class: detection 4-10 ms, cached path about 1.2 ms,
motion check 0.23 ms; a Pi 4 is roughly 4-8x slower.
"""

from __future__ import annotations

import argparse
from typing import Any, Callable

import numpy as np

from pi.pipeline import GATE_MARGIN_MM, GATE_PX_PER_MM
from pi.threads import limit_threads
from tests.vision import synth
from bench.report import add_options, clock_of, print_results, size_label, summary
from vision.board import BoardTracker
from vision.gate import SceneGate
from vision.kit import kit_named
from vision.markers import MarkerDetector, fit_homography

SIZES = ((640, 480), (1280, 960))


Clock = Callable[[], float]


def timed(function: Callable[[], Any], clock: Clock) -> float:
    """Returns the milliseconds one call took on a clock."""
    start = clock()
    function()
    return (clock() - start) * 1000.0


def frames_for(size: tuple[int, int], count: int, seed: int) -> list[np.ndarray]:
    """Returns count frames of the 9x9 mat, each from its own seeded camera pose."""
    kit = kit_named()
    mat = kit.mat("block-arena", "9x9")
    rng = np.random.default_rng(seed)
    frames = []
    for _ in range(count):
        camera = synth.random_camera(rng, kit, mat, size)
        frames.append(synth.jpeg(synth.add_noise(synth.render(camera, kit, mat), rng), 75))
    return frames


def time_detect_fit(frames: list[np.ndarray], clock: Clock) -> list[float]:
    """Returns the time of whole-frame detection plus homography fit on each frame."""
    kit = kit_named()
    board = kit.marker_corners(kit.mat("block-arena", "9x9"))
    detector = MarkerDetector(kit)
    return [timed(lambda: fit_homography(board, detector.detect(frame)), clock) for frame in frames]


def time_cached(frames: list[np.ndarray], repeats: int,
                clock: Clock) -> tuple[list[float], list[np.ndarray]]:
    """Returns the time of a locked tracker's re-check plus rectification, and the boards."""
    kit = kit_named()
    samples, boards = [], []
    for frame in frames:
        tracker = BoardTracker(kit, kit.mat("block-arena", "9x9"))
        view = tracker.update(frame).view
        assert view is not None, "the bench frame was not recognised"
        view.rectify(frame)
        def step() -> None:
            """Re-checks the fix on the frame and keeps the rectified board."""
            tracker.update(frame)
            boards.append(view.rectify(frame))

        samples += [timed(step, clock) for _ in range(repeats)]
    return samples, boards


def time_gate(boards: list[np.ndarray], clock: Clock) -> list[float]:
    """Returns the gate's update time over the rectified boards, one frame 100 ms after another."""
    gate = SceneGate()
    return [timed(lambda: gate.update(board, 100.0 * index), clock)
            for index, board in enumerate(boards)]


def time_motion_gate(frames: list[np.ndarray], repeats: int, clock: Clock) -> list[float]:
    """Returns the time of the pipeline's per-frame gate work: its rectified region plus the
    gate's update, each frame fed repeats times 100 ms apart."""
    kit = kit_named()
    samples: list[float] = []
    for frame in frames:
        view = BoardTracker(kit, kit.mat("block-arena", "9x9")).update(frame).view
        assert view is not None, "the bench frame was not recognised"
        view.rectify(frame, GATE_PX_PER_MM, GATE_MARGIN_MM)
        gate = SceneGate()

        def step(t_ms: float) -> None:
            """Rectifies the gate's region of the frame and feeds it to the gate."""
            gate.update(view.rectify(frame, GATE_PX_PER_MM, GATE_MARGIN_MM), t_ms)

        samples += [timed(lambda: step(100.0 * index), clock) for index in range(repeats)]
    return samples


def run(count: int, seed: int, clock: Clock) -> dict[str, dict[str, float]]:
    """Returns the timing summary of every step at every frame size."""
    results = {}
    for width, height in SIZES:
        frames = frames_for((width, height), count, seed)
        cached, boards = time_cached(frames, 3, clock)
        size = size_label((width, height))
        results[f"detect+fit {size}"] = summary(time_detect_fit(frames, clock))
        results[f"recheck+rectify {size}"] = summary(cached)
        results[f"gate {size}"] = summary(time_gate(boards, clock))
        results[f"motion gate {size}"] = summary(time_motion_gate(frames, 3, clock))
    return results


def main() -> None:
    """Parses the options, runs the bench and prints the table (or JSON)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=30, help="frames (camera poses) per size")
    add_options(parser, seed=True, threads=True, cpu=True)
    args = parser.parse_args()
    limit_threads(args.threads)
    results = run(args.frames, args.seed, clock_of(args))
    print_results(results, args.json, 28)


if __name__ == "__main__":
    main()
