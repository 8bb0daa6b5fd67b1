"""A USB webcam through OpenCV's VideoCapture (BGR frames as they come)."""

from __future__ import annotations

import logging
import time
from typing import Any, Callable, Protocol, cast

import cv2

from pi.camera.base import CameraError, Clock, LiveSource

log = logging.getLogger(__name__)


class CaptureLike(Protocol):
    """The part of cv2.VideoCapture the backend uses (so a fake can stand in for it)."""

    def isOpened(self) -> bool: ...  # noqa: N802 - OpenCV's name

    def set(self, prop: int, value: float) -> bool: ...

    def get(self, prop: int) -> float: ...

    def read(self) -> tuple[bool, Any]: ...

    def release(self) -> None: ...


CaptureClass = Callable[[int | str], CaptureLike]


def video_capture(device: int | str) -> CaptureLike:
    """Returns an OpenCV VideoCapture on the device."""
    return cast(CaptureLike, cv2.VideoCapture(device))


class OpenCVSource(LiveSource):
    """Frames from a webcam: a device number (0 is /dev/video0) or a device path."""

    def __init__(self, device: int | str, width: int, height: int, fps: float,
                 capture_class: CaptureClass | None = None, clock: Clock = time.monotonic,
                 max_failures: int = 10) -> None:
        super().__init__(clock, max_failures)
        self._capture = (capture_class or video_capture)(device)
        if not self._capture.isOpened():
            self._capture.release()
            raise CameraError(f"cannot open webcam {device!r}: is it plugged in, and is it "
                              "free (`ls /dev/video*`; no other program using it)?")
        self._ask(width, height, fps)

    def _ask(self, width: int, height: int, fps: float) -> None:
        """Asks for MJPEG at the size and rate (webcams pick their nearest mode)."""
        self._capture.set(cv2.CAP_PROP_FOURCC, cv2.VideoWriter.fourcc(*"MJPG"))
        self._capture.set(cv2.CAP_PROP_FRAME_WIDTH, width)
        self._capture.set(cv2.CAP_PROP_FRAME_HEIGHT, height)
        self._capture.set(cv2.CAP_PROP_FPS, fps)
        got = (int(self._capture.get(cv2.CAP_PROP_FRAME_WIDTH)),
               int(self._capture.get(cv2.CAP_PROP_FRAME_HEIGHT)))
        if got != (width, height):
            log.warning("webcam gives %dx%d frames, not the %dx%d asked", *got, width, height)

    def _grab(self) -> object:
        """Returns the next frame, or raises CameraError when the webcam gives none."""
        ok, image = self._capture.read()
        if not ok:
            raise CameraError("the webcam gave no frame")
        return image

    def _release(self) -> None:
        """Releases the webcam."""
        self._capture.release()
