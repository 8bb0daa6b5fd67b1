"""Camera frames in and out of bytes: decoding, integrity and exposure checks, grayscale.

A frame that cannot be used (empty, truncated or corrupt file, black or blown-out picture,
wrong size) comes back as a FrameStatus with a clear message and no image: nothing here lets
an exception escape while decoding, and no observation is ever made of a bad frame.
"""

from __future__ import annotations

import os
import sys
import threading
from dataclasses import dataclass
from enum import Enum
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

Image = NDArray[np.uint8]
Size = tuple[int, int]

JPEG_START = b"\xff\xd8\xff"
JPEG_END = b"\xff\xd9"
PNG_START = b"\x89PNG\r\n\x1a\n"
PNG_END = b"\x00\x00\x00\x00IEND\xaeB`\x82"
DARK_LEVEL = 16
SATURATED_LEVEL = 250
BLACK_FRACTION = 0.98
BLOWN_FRACTION = 0.5
MAX_SIDE = 16384
JPEG_WARNINGS = ("Corrupt JPEG data", "Premature end of JPEG file",
                 "Invalid JPEG file structure", "Unsupported marker", "Bogus")
CODEC_NOISE = (*JPEG_WARNINGS, "Invalid JPEG", "libpng", "Warning: ", "JPEG", "Not a JPEG")
_STDERR_LOCK = threading.Lock()
_BAD_AFTER_FF = np.zeros(256, bool)
_BAD_AFTER_FF[0x01:0xC0] = True  # reserved codes: never a marker
_BAD_AFTER_FF[[0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF]] = True
_BAD_AFTER_FF[[0xD8, 0xD9]] = True  # a frame header, a start or an end inside the image data


class FrameError(ValueError):
    """Raised when something that is not an image array is passed where a frame is needed."""


class FrameCode(str, Enum):
    """What is wrong with a frame, if anything."""

    OK = "ok"
    EMPTY = "empty"
    UNREADABLE = "unreadable"
    NOT_AN_IMAGE = "not-an-image"
    TRUNCATED = "truncated"
    CORRUPT = "corrupt"
    BLACK = "black"
    BLOWN_OUT = "blown-out"
    WRONG_SIZE = "wrong-size"


@dataclass(frozen=True, slots=True)
class FrameStatus:
    """A frame's verdict: a code and one clear sentence naming the frame."""

    code: FrameCode
    message: str

    @property
    def ok(self) -> bool:
        """Tells whether the frame may be used."""
        return self.code is FrameCode.OK


@dataclass(frozen=True, slots=True)
class DecodedFrame:
    """A decoded frame: the BGR image when the status is ok, else None."""

    image: Image | None
    status: FrameStatus


def _status(code: FrameCode, name: str, detail: str) -> FrameStatus:
    """Returns a status whose message names the frame."""
    return FrameStatus(code, f"{name}: {detail}")


def _segments_end(data: bytes) -> int | None:
    """Returns where a JPEG's first scan's entropy-coded data begins, or None if malformed."""
    position = 2
    while position + 4 <= len(data):
        if data[position] != 0xFF:
            return None
        marker = data[position + 1]
        if marker == 0xFF:
            position += 1
            continue
        if 0xD0 <= marker <= 0xD7 or marker == 0x01:
            position += 2
            continue
        length = int.from_bytes(data[position + 2:position + 4], "big")
        if length < 2:
            return None
        position += 2 + length
        if marker == 0xDA:
            return position if position <= len(data) else None
    return None


def jpeg_problem(data: bytes) -> tuple[FrameCode, str] | None:
    """Returns what is wrong with a JPEG's structure (truncation, bad markers), or None."""
    body = data.rstrip(b"\x00")
    if not body.endswith(JPEG_END):
        return FrameCode.TRUNCATED, "the JPEG is truncated (it has no end-of-image marker)"
    start = _segments_end(body)
    if start is None:
        return FrameCode.CORRUPT, "the JPEG is corrupt (its header segments are malformed)"
    scan = np.frombuffer(body, np.uint8)[start:len(body) - 2]
    marks = np.flatnonzero(scan[:-1] == 0xFF)
    bad = marks[_BAD_AFTER_FF[scan[marks + 1]]]
    if bad.size:
        where = start + int(bad[0])
        return FrameCode.CORRUPT, ("the JPEG is corrupt (an invalid marker in its image data "
                                   f"at byte {where})")
    return None


def png_problem(data: bytes) -> tuple[FrameCode, str] | None:
    """Returns what is wrong with a PNG's framing (no IEND chunk at the end), or None."""
    if not data.endswith(PNG_END):
        return FrameCode.TRUNCATED, "the PNG is truncated (it does not end with an IEND chunk)"
    return None


def format_problem(data: bytes) -> tuple[FrameCode, str] | None:
    """Returns what is wrong with encoded frame bytes before decoding them, or None."""
    if not data:
        return FrameCode.EMPTY, "the file is empty"
    if data.startswith(JPEG_START):
        return jpeg_problem(data)
    if data.startswith(PNG_START):
        return png_problem(data)
    return None


def check_image(image: Image, name: str = "frame",
                expected_size: Size | None = None) -> FrameStatus:
    """Returns whether a decoded frame is usable: the expected size, neither black nor blown out."""
    height, width = image.shape[:2]
    if expected_size is not None and (width, height) != tuple(expected_size):
        want = f"{expected_size[0]}x{expected_size[1]}"
        return _status(FrameCode.WRONG_SIZE, name,
                       f"the frame is {width}x{height}, not the expected {want}")
    sample = to_gray(image[::4])[:, ::4]  # only every 4th row is made gray
    if _share(sample < DARK_LEVEL) >= BLACK_FRACTION:
        return _status(FrameCode.BLACK, name, "the frame is black (mean brightness "
                       f"{sample.mean():.0f} of 255): is the lens covered or the light off?")
    saturated = _share(sample >= SATURATED_LEVEL)
    if saturated >= BLOWN_FRACTION:
        return _status(FrameCode.BLOWN_OUT, name, f"the frame is blown out ({saturated:.0%} "
                       "of it saturated): lower the exposure or the light")
    return _status(FrameCode.OK, name, "ok")


def _share(mask: NDArray[np.bool_]) -> float:
    """Returns the fraction of a mask that is set (the same number as its mean, sooner)."""
    return np.count_nonzero(mask) / mask.size


def decode_quietly(data: bytes) -> tuple[Image | None, str]:
    """Returns OpenCV's decoding of the bytes and what its codecs printed on stderr meanwhile."""
    # libjpeg reports corrupt data it can still decode only as a warning printed on stderr
    # (fd 2): fd 2 is pointed at a non-blocking pipe meanwhile, so that a damaged frame is
    # refused instead of read; other text printed meanwhile is passed on. Without a usable
    # fd 2 the bytes are decoded as they are.
    try:
        read_end, write_end = os.pipe()
    except OSError:
        return _imdecode(data), ""
    try:
        os.set_blocking(read_end, False)
        os.set_blocking(write_end, False)
        image = _imdecode_into(data, write_end)
        printed = _drain(read_end)
    finally:
        os.close(read_end)
        os.close(write_end)
    lines = printed.splitlines(keepends=True)
    others = [line for line in lines if not line.startswith(CODEC_NOISE)]
    if others:
        os.write(2, "".join(others).encode("utf-8"))
    return image, printed


def _imdecode(data: bytes) -> Image | None:
    """Returns the image OpenCV decodes from the bytes, or None."""
    image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    return None if image is None else np.asarray(image, np.uint8)


def _imdecode_into(data: bytes, target: int) -> Image | None:
    """Returns the decoded image while fd 2 points at target (restored afterwards)."""
    with _STDERR_LOCK:
        sys.stderr.flush()
        try:
            saved = os.dup(2)
        except OSError:
            return _imdecode(data)
        os.dup2(target, 2)
        try:
            return _imdecode(data)
        finally:
            os.dup2(saved, 2)
            os.close(saved)


def _drain(source: int) -> str:
    """Returns everything waiting in a non-blocking pipe."""
    chunks = []
    while True:
        try:
            chunk = os.read(source, 65536)
        except BlockingIOError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks).decode("utf-8", "replace")


def _decode(data: bytes, name: str) -> DecodedFrame:
    """Returns the frame decoded by OpenCV, or a status saying it could not be decoded."""
    problem = format_problem(data)
    if problem is not None:
        return DecodedFrame(None, _status(problem[0], name, problem[1]))
    image, printed = decode_quietly(data)
    if image is not None and any(warning in printed for warning in JPEG_WARNINGS):
        detail = printed.strip().splitlines()[0]
        status = _status(FrameCode.CORRUPT, name, f"the JPEG is corrupt (libjpeg: {detail})")
        return DecodedFrame(None, status)
    if image is None:
        known = data.startswith(JPEG_START) or data.startswith(PNG_START)
        if known:
            code, detail = FrameCode.CORRUPT, "the image data is corrupt (OpenCV cannot decode it)"
        else:
            code, detail = FrameCode.NOT_AN_IMAGE, "the file is not an image OpenCV can decode"
        return DecodedFrame(None, _status(code, name, detail))
    return DecodedFrame(image, _status(FrameCode.OK, name, "ok"))


def decode_frame(data: bytes, name: str = "frame",
                 expected_size: Size | None = None) -> DecodedFrame:
    """Returns a frame decoded from JPEG or PNG bytes with its status; never raises on bad data."""
    try:
        decoded = _decode(bytes(data), name)
        if decoded.image is None:
            return decoded
        status = check_image(decoded.image, name, expected_size)
    except Exception as error:  # noqa: BLE001 - a bad frame must never stop the camera loop
        status = _status(FrameCode.CORRUPT, name, f"the frame could not be decoded ({error})")
        return DecodedFrame(None, status)
    return DecodedFrame(decoded.image if status.ok else None, status)


def read_frame(path: str | Path, expected_size: Size | None = None) -> DecodedFrame:
    """Returns the frame stored in a JPEG or PNG file with its status; never raises."""
    name = str(path)
    try:
        data = Path(path).read_bytes()
    except OSError as error:
        return DecodedFrame(None, _status(FrameCode.UNREADABLE, name,
                                          f"the file cannot be read ({error.strerror or error})"))
    return decode_frame(data, name, expected_size)


def require_image(frame: object) -> Image:
    """Returns frame if it is an 8-bit gray, BGR or BGRA image array, or raises FrameError."""
    if not isinstance(frame, np.ndarray):
        raise FrameError(f"a frame must be a numpy image array, not {type(frame).__name__}")
    if frame.dtype != np.uint8:
        raise FrameError(f"a frame must hold 8-bit pixels (uint8), not {frame.dtype}")
    shape_ok = frame.ndim == 2 or (frame.ndim == 3 and frame.shape[2] in (1, 3, 4))
    if not shape_ok or frame.shape[0] < 1 or frame.shape[1] < 1:
        raise FrameError("a frame must be a gray, BGR or BGRA image, not an array of shape "
                         f"{frame.shape}")
    if max(frame.shape[:2]) > MAX_SIDE:
        raise FrameError(f"a frame of {frame.shape[1]}x{frame.shape[0]} pixels is too large")
    return frame


def to_gray(frame: Image) -> Image:
    """Returns the grayscale version of a gray, BGR or BGRA frame (the frame itself if gray)."""
    image = require_image(frame)
    if image.ndim == 2:
        return image
    if image.shape[2] == 1:
        return image[:, :, 0]
    code = cv2.COLOR_BGR2GRAY if image.shape[2] == 3 else cv2.COLOR_BGRA2GRAY
    return np.asarray(cv2.cvtColor(image, code), np.uint8)
