"""Tests of frame decoding on real broken files: each gets a clear status, never an exception."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from tests.vision.scenes import board
from vision.frames import (FrameCode, FrameError, check_image, decode_frame, read_frame, require_image,
                           to_gray)

GOOD = np.asarray(cv2.resize(board(((2, 2, (60, 120, 200)),)), (640, 480)), np.uint8)


def encoded(extension: str, image: np.ndarray = GOOD) -> bytes:
    """Returns the image encoded as .jpg or .png bytes."""
    ok, data = cv2.imencode(extension, image)
    assert ok
    return data.tobytes()


def saved(tmp_path: Path, name: str, data: bytes) -> Path:
    """Returns the path of a file written with the bytes."""
    path = tmp_path / name
    path.write_bytes(data)
    return path


def first_scan(data: bytes) -> int:
    """Returns the offset just past a JPEG's SOS header (where the image data starts)."""
    at = data.index(b"\xff\xda")
    return at + 2 + int.from_bytes(data[at + 2:at + 4], "big")


@pytest.mark.parametrize("extension", [".jpg", ".png"])
def test_good_files_decode_to_bgr_frames(tmp_path: Path, extension: str) -> None:
    frame = read_frame(saved(tmp_path, "000001" + extension, encoded(extension)), expected_size=(640, 480))
    assert frame.status.ok and frame.status.code is FrameCode.OK
    assert frame.image is not None and frame.image.shape == (480, 640, 3)
    if extension == ".png":
        assert np.array_equal(frame.image, GOOD)


def broken_files() -> list[tuple[str, bytes, FrameCode, str]]:
    """Returns (name, bytes, expected code, words in the message) for each kind of damage."""
    jpeg, png = encoded(".jpg"), encoded(".png")
    scan = first_scan(jpeg)
    middle = (scan + len(jpeg)) // 2
    header_wiped = jpeg[:20] + bytes(40) + jpeg[60:]
    idat = png.index(b"IDAT") + 40
    return [
        ("empty.jpg", b"", FrameCode.EMPTY, "empty"),
        ("half.jpg", jpeg[:len(jpeg) // 2], FrameCode.TRUNCATED, "no end-of-image marker"),
        ("half-with-end.jpg", jpeg[:middle] + b"\xff\xd9", FrameCode.CORRUPT, "libjpeg: Corrupt JPEG"),
        ("bad-marker.jpg", jpeg[:middle] + b"\xff\x02" + jpeg[middle + 2:], FrameCode.CORRUPT,
         "invalid marker"),
        ("wiped-header.jpg", header_wiped, FrameCode.CORRUPT, "corrupt"),
        ("half.png", png[:len(png) // 2], FrameCode.TRUNCATED, "IEND"),
        ("bad-data.png", png[:idat] + bytes(64) + png[idat + 64:], FrameCode.CORRUPT, "corrupt"),
        ("notes.jpg", b"these are not the pixels you are looking for\n" * 20, FrameCode.NOT_AN_IMAGE,
         "not an image"),
    ]


@pytest.mark.parametrize("name,data,code,words", broken_files(), ids=[case[0] for case in broken_files()])
def test_broken_files_get_a_clear_status_and_no_image(
        tmp_path: Path, name: str, data: bytes, code: FrameCode, words: str) -> None:
    path = saved(tmp_path, name, data)
    frame = read_frame(path)
    assert frame.image is None and not frame.status.ok
    assert frame.status.code is code
    assert words in frame.status.message and name in frame.status.message


def test_a_missing_or_unreadable_file_is_a_status_too(tmp_path: Path) -> None:
    missing = read_frame(tmp_path / "000009.jpg")
    folder = read_frame(tmp_path)
    assert missing.status.code is FrameCode.UNREADABLE and "cannot be read" in missing.status.message
    assert folder.status.code is FrameCode.UNREADABLE and folder.image is None


@pytest.mark.parametrize("image,code,words", [
    (np.full((480, 640, 3), 3, np.uint8), FrameCode.BLACK, "black"),
    (np.full((480, 640, 3), 255, np.uint8), FrameCode.BLOWN_OUT, "blown out"),
    (cv2.resize(GOOD, (320, 240)), FrameCode.WRONG_SIZE, "320x240, not the expected 640x480"),
])
def test_unusable_pictures_are_refused(image: np.ndarray, code: FrameCode, words: str) -> None:
    frame = decode_frame(encoded(".png", image), "cam", expected_size=(640, 480))
    assert frame.status.code is code and frame.image is None
    assert words in frame.status.message and frame.status.message.startswith("cam: ")
    assert check_image(image, "cam", (640, 480)).code is code


def test_a_dark_scene_with_something_lit_is_not_black() -> None:
    dim = (GOOD * 0.1).astype(np.uint8)
    dim[200:280, 280:360] = 200
    assert check_image(dim).ok


def test_decoding_never_raises_whatever_the_bytes(tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    jpeg = bytearray(encoded(".jpg"))
    for trial in range(30):
        damaged = bytearray(jpeg)
        at = int(rng.integers(0, len(jpeg) - 16))
        damaged[at:at + 16] = rng.integers(0, 256, 16, dtype=np.uint8).tobytes()
        if trial % 3 == 0:
            damaged = damaged[:int(rng.integers(1, len(jpeg)))]
        frame = decode_frame(bytes(damaged))
        assert (frame.image is None) != frame.status.ok


def test_codec_chatter_stays_off_stderr(capfd: pytest.CaptureFixture[str]) -> None:
    png = encoded(".png")
    decode_frame(png[:png.index(b"IDAT") + 40] + bytes(64) + png[png.index(b"IDAT") + 104:])
    assert "libpng" not in capfd.readouterr().err


def test_frames_handed_in_must_be_images() -> None:
    for bad, words in ((None, "numpy image array"), (np.zeros((4, 4), np.float64), "uint8"),
                       (np.zeros((4, 4, 2), np.uint8), "shape"), (np.zeros((0, 4), np.uint8), "shape")):
        with pytest.raises(FrameError, match=words):
            require_image(bad)
    assert to_gray(GOOD).shape == (480, 640)
    assert to_gray(np.dstack([GOOD, GOOD[:, :, :1]]).astype(np.uint8)).shape == (480, 640)
