"""What every frame source yields: numbered, timed BGR frames, or a status saying why not."""

from __future__ import annotations

import logging
import time
from abc import ABC, abstractmethod
from dataclasses import dataclass
from types import TracebackType
from typing import Callable, Iterator, cast

import numpy as np
from numpy.typing import NDArray

Image = NDArray[np.uint8]
Clock = Callable[[], float]
OK = "ok"

log = logging.getLogger(__name__)


class CameraError(RuntimeError):
    """Raised when a frame source cannot be opened, or stops giving frames for good."""


@dataclass(frozen=True, slots=True, eq=False)
class Frame:
    """One frame: number (from 1), ms since the start, BGR image (or None) and status ("ok")."""

    number: int
    t_ms: float
    image: Image | None
    status: str = OK

    @property
    def ok(self) -> bool:
        """Tells whether the frame holds a usable image."""
        return self.image is not None

    @property
    def size(self) -> tuple[int, int] | None:
        """Returns the image's (width, height), or None without an image."""
        return None if self.image is None else (self.image.shape[1], self.image.shape[0])


def image_problem(image: object, expected: tuple[int, int] | None) -> str | None:
    """Returns why an array is not a BGR frame of the expected (width, height), or None."""
    if not isinstance(image, np.ndarray):
        return f"the camera gave {type(image).__name__}, not an image array"
    if image.dtype != np.uint8 or image.ndim != 3 or image.shape[2] != 3:
        return f"the image is {image.dtype} of shape {image.shape}, not 8-bit BGR"
    width, height = image.shape[1], image.shape[0]
    if expected is not None and (width, height) != expected:
        return f"the image is {width}x{height}, expected {expected[0]}x{expected[1]}"
    return None


class FrameSource(ABC):
    """A source of frames: iterate it for Frame records; close() releases the device."""

    @abstractmethod
    def __iter__(self) -> Iterator[Frame]:
        """Returns an iterator over the frames, ending when the source is closed or exhausted."""

    @abstractmethod
    def close(self) -> None:
        """Releases the device or files; iteration ends. Calling it twice is harmless."""

    def __enter__(self) -> FrameSource:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.close()


class LiveSource(FrameSource):
    """A live camera: numbered, timed frames; CameraError after max_failures bad ones in a row."""

    def __init__(self, clock: Clock = time.monotonic, max_failures: int = 10) -> None:
        self._clock = clock
        self._max_failures = max_failures
        self._closed = False
        self._size: tuple[int, int] | None = None

    @abstractmethod
    def _grab(self) -> object:
        """Returns the next image from the device (raises when there is none)."""

    @abstractmethod
    def _release(self) -> None:
        """Releases the device."""

    def close(self) -> None:
        """Releases the device once; iteration ends."""
        if not self._closed:
            self._closed = True
            self._release()

    def __iter__(self) -> Iterator[Frame]:
        """Returns the frames as they come, until close() or too many failures."""
        start = self._clock()
        number = failures = 0
        while not self._closed:
            number += 1
            frame = self._next_frame(number, (self._clock() - start) * 1000.0)
            failures = 0 if frame.ok else failures + 1
            yield frame
            if failures >= self._max_failures:
                raise CameraError(f"the camera gave no good frame {failures} times in a row "
                                  f"(last: {frame.status})")

    def _next_frame(self, number: int, t_ms: float) -> Frame:
        """Returns frame `number`: the grabbed image, or a status saying what went wrong."""
        try:
            image = self._grab()
        except Exception as error:  # noqa: BLE001 - any driver failure becomes a frame status
            log.warning("camera error on frame %d: %s", number, error)
            return Frame(number, t_ms, None, f"camera error: {error}")
        problem = image_problem(image, self._size)
        if problem is not None:
            return Frame(number, t_ms, None, problem)
        good = cast(Image, image)
        self._size = self._size or (good.shape[1], good.shape[0])
        return Frame(number, t_ms, good)
