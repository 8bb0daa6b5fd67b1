"""Frames from a recorded game directory (INTERFACES.md): frames/000001.jpg ... and an optional
frames.csv of times; a broken frame becomes a status (vision.frames decides), never an exception."""

from __future__ import annotations

import csv
import re
import time
from pathlib import Path
from typing import Callable, Iterator

import numpy as np

from pi.camera.base import OK, CameraError, Clock, Frame, FrameSource, Image
from vision.frames import read_frame

FRAME_NAME = re.compile(r"([0-9]{6})\.(jpe?g|png)", re.IGNORECASE)


def read_frame_file(path: Path, expected: tuple[int, int] | None) -> tuple[Image | None, str]:
    """Returns a frame file's image and "ok", or None and a status naming the file."""
    decoded = read_frame(path, expected)  # never raises: unreadable, truncated, corrupt ...
    if decoded.image is None or not decoded.status.ok:
        return None, decoded.status.message
    return decoded.image, OK


def list_frames(folder: Path) -> dict[int, Path]:
    """Returns the frame files of a frames/ folder by number, or raises CameraError."""
    try:
        entries = sorted(folder.iterdir())
    except OSError as error:
        raise CameraError(f"cannot list {str(folder)!r}: {error.strerror or error}") from None
    frames: dict[int, Path] = {}
    for entry in entries:
        if entry.name.startswith("."):
            continue
        match = FRAME_NAME.fullmatch(entry.name)
        if match is None:
            raise CameraError(f"{str(entry)!r} is not a frame file (expected names like "
                              "000001.jpg or 000001.png)")
        number = int(match[1])
        if number == 0:
            raise CameraError(f"{str(entry)!r}: frame numbers start at 000001")
        if number in frames:
            raise CameraError(f"{str(entry)!r}: frame {number} already has the file "
                              f"{frames[number].name!r}")
        frames[number] = entry
    return frames


def _csv_row(row: dict[str, str | None], line: int, file: Path) -> tuple[int, float]:
    """Returns (frame, t_ms) of one frames.csv row, or raises CameraError naming the line."""
    try:
        number, t_ms = int(row["frame"] or ""), float(row["t_ms"] or "")
    except ValueError:
        raise CameraError(f"{file}:{line}: expected a frame number and a time in ms, "
                          f"not {row['frame']!r}, {row['t_ms']!r}") from None
    if number < 1 or not np.isfinite(t_ms):
        raise CameraError(f"{file}:{line}: frame {number} at {t_ms} ms is not a frame time")
    return number, t_ms


def read_times(file: Path) -> dict[int, float]:
    """Returns frames.csv's time in ms of each frame, or raises CameraError."""
    try:
        with file.open(newline="", encoding="utf-8") as handle:
            reader = csv.DictReader(handle)
            if reader.fieldnames is None or not {"frame", "t_ms"} <= set(reader.fieldnames):
                raise CameraError(f"{file} must start with the header line frame,t_ms")
            times: dict[int, float] = {}
            for row in reader:
                number, t_ms = _csv_row(row, reader.line_num, file)
                if number in times:
                    raise CameraError(f"{file}:{reader.line_num}: frame {number} is listed twice")
                times[number] = t_ms
    except (OSError, UnicodeDecodeError) as error:
        raise CameraError(f"cannot read {file}: {error}") from None
    return times


def check_times(times: dict[int, float], numbers: list[int], file: Path) -> None:
    """Raises CameraError unless every frame has a time and times never go backwards."""
    last = -np.inf
    for number in numbers:
        if number not in times:
            raise CameraError(f"{file} gives no time for frame {number}")
        if times[number] < last:
            raise CameraError(f"{file}: frame {number} at {times[number]:g} ms is earlier "
                              "than the frame before it")
        last = times[number]


class RecordedSource(FrameSource):
    """A recorded game's frames, timed by frames.csv or fps; realtime=True paces them."""

    def __init__(self, directory: str | Path, fps: float = 10.0,
                 size: tuple[int, int] | None = None, realtime: bool = False,
                 clock: Clock = time.monotonic, sleep: Callable[[float], None] = time.sleep,
                 ) -> None:
        self.directory = Path(directory)
        folder = self.directory / "frames"
        if not folder.is_dir():
            raise CameraError(f"{str(self.directory)!r} is not a recorded game: it has no "
                              "frames/ folder")
        if fps <= 0:
            raise CameraError(f"fps must be positive, not {fps}")
        self._files = list_frames(folder)
        self._times = self._load_times(fps)
        if not self._times:
            raise CameraError(f"{str(folder)!r} holds no frames")
        self._size = size
        self._realtime, self._clock, self._sleep = realtime, clock, sleep
        self._closed = False

    def _load_times(self, fps: float) -> dict[int, float]:
        """Returns each frame's time: frames.csv's, or (number - 1) / fps."""
        file = self.directory / "frames.csv"
        if not file.exists():
            return {n: (n - 1) * 1000.0 / fps for n in sorted(self._files)}
        times = read_times(file)
        check_times(times, sorted(set(times) | set(self._files)), file)
        return times

    def __len__(self) -> int:
        return len(self._times)

    def close(self) -> None:
        """Ends the iteration (there is no device to release)."""
        self._closed = True

    def __iter__(self) -> Iterator[Frame]:
        """Returns the frames in order; broken or missing ones have image None and a status."""
        start = self._clock()
        for number in sorted(self._times):
            if self._closed:
                return
            t_ms = self._times[number]
            if self._realtime:
                self._sleep(max(0.0, start + t_ms / 1000.0 - self._clock()))
            yield self._frame(number, t_ms)

    def _frame(self, number: int, t_ms: float) -> Frame:
        """Returns frame `number`, read and checked against the first good frame's size."""
        path = self._files.get(number)
        if path is None:
            return Frame(number, t_ms, None, f"frame {number} is missing: frames.csv lists it "
                                             "but frames/ has no file for it")
        image, status = read_frame_file(path, self._size)
        if image is not None:
            self._size = self._size or (image.shape[1], image.shape[0])
        return Frame(number, t_ms, image, status)
