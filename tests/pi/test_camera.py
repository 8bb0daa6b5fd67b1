"""Tests of the frame sources: recorded directories with real broken files, the picamera2
exposure lock with a fake Picamera2, and the webcam source with a fake and a real capture."""

from __future__ import annotations

import importlib.util
import json
from dataclasses import replace
from pathlib import Path
from typing import Any, Iterator

import cv2
import numpy as np
import pytest

from pi.camera import (
    CameraError,
    Frame,
    OpenCVSource,
    PiCameraSource,
    RecordedSource,
    Settling,
    open_camera,
)
from pi.camera.picam import load_controls, load_picamera2
from pi.config import load_config

SIZE = (64, 48)
QUICK = Settling(min_frames=3, stable_frames=2, max_frames=12, tolerance=0.03)


def picture(seed: int, size: tuple[int, int] = SIZE) -> np.ndarray[Any, np.dtype[np.uint8]]:
    """Returns a smooth seeded BGR test picture of the given (width, height)."""
    rng = np.random.default_rng(seed)
    noise = rng.integers(0, 256, (size[1], size[0], 3), dtype=np.uint8)
    return np.asarray(cv2.GaussianBlur(noise, (5, 5), 0), dtype=np.uint8)


def encoded(image: np.ndarray[Any, Any], ext: str = ".jpg") -> bytes:
    """Returns an image encoded by OpenCV."""
    ok, data = cv2.imencode(ext, image)
    assert ok
    return bytes(data.tobytes())


def clock(step: float = 0.1) -> Iterator[float]:
    """Yields a fake monotonic clock advancing by step seconds per reading."""
    now = 100.0
    while True:
        yield now
        now += step


def make_recording(root: Path, files: dict[str, bytes], csv: str | None = None) -> Path:
    """Returns a recorded game directory holding the given frame files."""
    frames = root / "game" / "frames"
    frames.mkdir(parents=True)
    for name, data in files.items():
        (frames / name).write_bytes(data)
    if csv is not None:
        (root / "game" / "frames.csv").write_text(csv, encoding="utf-8")
    return root / "game"


# -- recorded games ----------------------------------------------------------------------


def broken_recording(root: Path) -> Path:
    """Returns a recording whose frames 3-10 are broken in every way the source must survive."""
    good = encoded(picture(1))
    corrupt_header = bytearray(good)
    corrupt_header[2:40] = b"\xab" * 38
    bad_marker = bytearray(good)
    bad_marker[len(good) // 2:len(good) // 2 + 2] = b"\xff\x13"
    png = encoded(picture(5), ".png")
    bad_png = bytearray(png)
    bad_png[60] ^= 0xFF
    recording = make_recording(root, {
        "000001.jpg": good, "000002.png": png,
        "000003.jpg": good[: len(good) // 2],  # truncated
        "000004.jpg": bytes(corrupt_header), "000005.jpg": bytes(bad_marker),
        "000006.jpg": b"", "000008.jpg": b"hello, not a picture",
        "000009.jpg": encoded(picture(2, (32, 24))),  # the wrong size
        "000010.png": bytes(bad_png), "000011.jpg": encoded(picture(3)),
    })
    (recording / "frames" / "000007.jpg").mkdir()  # a name that cannot be read as a file
    return recording


def test_a_recording_yields_every_frame_and_survives_broken_ones(tmp_path: Path) -> None:
    recording = broken_recording(tmp_path)
    frames = list(RecordedSource(recording, fps=4))
    statuses = {frame.number: frame.status for frame in frames}
    assert [frame.number for frame in frames] == list(range(1, 12))
    assert [frame.t_ms for frame in frames] == [250.0 * i for i in range(11)]
    assert statuses[1] == statuses[2] == statuses[11] == "ok"
    expected = {3: "is truncated", 4: "not an image", 5: "is corrupt", 6: "is empty",
                7: "cannot be read", 8: "not an image", 9: "is 32x24, not the expected 64x48",
                10: "is corrupt"}
    for number, words in expected.items():
        assert statuses[number].startswith(str(recording / "frames" / f"{number:06d}.")), number
        assert words in statuses[number], (number, statuses[number])
    for frame in frames:
        assert (frame.image is None) == (frame.status != "ok") == (not frame.ok)


def test_good_frames_are_bgr_pixels_as_recorded(tmp_path: Path) -> None:
    expected = picture(5)
    recording = make_recording(tmp_path, {"000001.png": encoded(expected, ".png")})
    (frame,) = list(RecordedSource(recording))
    assert frame.image is not None and frame.size == SIZE
    assert np.array_equal(frame.image, expected)


def test_frames_csv_gives_the_times_and_names_missing_frames(tmp_path: Path) -> None:
    good = encoded(picture(1))
    recording = make_recording(tmp_path, {"000001.jpg": good, "000003.jpg": good},
                               "frame,t_ms\n1,0\n2,40.5\n3,81\n")
    frames = list(RecordedSource(recording))
    assert [(f.number, f.t_ms) for f in frames] == [(1, 0.0), (2, 40.5), (3, 81.0)]
    assert frames[1].image is None and "frame 2 is missing" in frames[1].status


@pytest.mark.parametrize(("files", "csv", "message"), [
    ({}, None, "holds no frames"),
    ({"notes.txt": b"x"}, None, "is not a frame file"),
    ({"000001.jpg": b"x", "000001.png": b"x"}, None, "frame 1 already has the file"),
    ({"000000.jpg": b"x"}, None, "frame numbers start at 000001"),
    ({"000001.jpg": b"x"}, "frame;t\n1;0\n", "must start with the header line frame,t_ms"),
    ({"000001.jpg": b"x"}, "frame,t_ms\n1,soon\n", "frames.csv:2: expected a frame number"),
    ({"000001.jpg": b"x"}, "frame,t_ms\n1,nan\n", "is not a frame time"),
    ({"000001.jpg": b"x", "000002.jpg": b"x"}, "frame,t_ms\n1,0\n", "gives no time for frame 2"),
    ({"000001.jpg": b"x"}, "frame,t_ms\n1,0\n1,5\n", "frame 1 is listed twice"),
    ({"000001.jpg": b"x", "000002.jpg": b"x"}, "frame,t_ms\n1,50\n2,10\n", "is earlier than"),
])
def test_a_bad_recording_is_one_clear_error(tmp_path: Path, files: dict[str, bytes],
                                            csv: str | None, message: str) -> None:
    recording = make_recording(tmp_path, files, csv)
    with pytest.raises(CameraError, match=message):
        RecordedSource(recording)


def test_a_directory_without_frames_is_refused(tmp_path: Path) -> None:
    with pytest.raises(CameraError, match="has no frames/ folder"):
        RecordedSource(tmp_path)
    with pytest.raises(CameraError, match="fps must be positive"):
        RecordedSource(make_recording(tmp_path, {"000001.jpg": b"x"}), fps=0)


def test_realtime_replay_waits_for_each_frame(tmp_path: Path) -> None:
    good = encoded(picture(1))
    recording = make_recording(tmp_path, {"000001.jpg": good, "000002.jpg": good,
                                          "000003.jpg": good}, "frame,t_ms\n1,0\n2,500\n3,750\n")
    now = [10.0]
    slept: list[float] = []

    def sleep(seconds: float) -> None:
        slept.append(round(seconds, 6))
        now[0] += seconds

    source = RecordedSource(recording, realtime=True, clock=lambda: now[0], sleep=sleep)
    assert len(list(source)) == 3
    assert slept == [0.0, 0.5, 0.25]


def test_closing_ends_a_replay(tmp_path: Path) -> None:
    good = encoded(picture(1))
    recording = make_recording(tmp_path, {f"{n:06d}.jpg": good for n in range(1, 6)})
    seen: list[Frame] = []
    with RecordedSource(recording) as source:
        for frame in source:
            seen.append(frame)
            if frame.number == 2:
                source.close()
    assert [frame.number for frame in seen] == [1, 2]


def test_jpegs_as_encoders_write_them_are_read(tmp_path: Path) -> None:
    image = picture(7, (160, 120))
    files = {}
    for number, params in enumerate(([], [cv2.IMWRITE_JPEG_PROGRESSIVE, 1],
                                     [cv2.IMWRITE_JPEG_RST_INTERVAL, 2],
                                     [cv2.IMWRITE_JPEG_QUALITY, 75]), start=1):
        ok, data = cv2.imencode(".jpg", image, params)
        assert ok
        files[f"{number:06d}.jpg"] = bytes(data.tobytes()) + b"\0\0"  # padding after the end
    frames = list(RecordedSource(make_recording(tmp_path, files)))
    assert [frame.status for frame in frames] == ["ok"] * 4


# -- picamera2 ---------------------------------------------------------------------------


class FakePicamera2:
    """Stands in for picamera2.Picamera2: scripted metadata, BGR frames, recorded calls."""

    def __init__(self, camera_num: int, metadata: list[dict[str, Any]],
                 frames: list[Any] | None = None) -> None:
        self.camera_num = camera_num
        self.metadata = iter(metadata)
        self.frames = iter(frames or [])
        self.calls: list[tuple[str, Any]] = []

    def create_video_configuration(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        self.calls.append(("create_video_configuration", kwargs))
        return {"made": kwargs}

    def configure(self, config: Any) -> None:
        self.calls.append(("configure", config))

    def start(self) -> None:
        self.calls.append(("start", None))

    def capture_metadata(self) -> dict[str, Any]:
        self.calls.append(("capture_metadata", None))
        return next(self.metadata)

    def capture_array(self, name: str = "main") -> Any:
        frame = next(self.frames)
        if isinstance(frame, Exception):
            raise frame
        return frame

    def set_controls(self, controls: dict[str, Any]) -> None:
        self.calls.append(("set_controls", dict(controls)))

    def stop(self) -> None:
        self.calls.append(("stop", None))

    def close(self) -> None:
        self.calls.append(("close", None))

    def named(self, name: str) -> list[Any]:
        """Returns the arguments of every call of a method, in order."""
        return [value for called, value in self.calls if called == name]


def settling_metadata() -> list[dict[str, Any]]:
    """Returns metadata in which auto exposure wanders, then settles."""
    wandering = [{"ExposureTime": 4000 * (i + 1), "AnalogueGain": 1.0 + i,
                  "ColourGains": (1.2 + i / 10, 1.5)} for i in range(4)]
    settled = [{"ExposureTime": 20000 + i, "AnalogueGain": 2.5, "ColourGains": (1.8, 1.4),
                "Lux": 300.0} for i in range(4)]
    return wandering + settled


def pi_camera(fake: FakePicamera2, controls: Path | None, **kwargs: Any) -> PiCameraSource:
    """Returns a PiCameraSource driving the fake."""
    return PiCameraSource(1280, 960, 10, controls, 0, picamera2_class=lambda n: fake,
                          settling=QUICK, **kwargs)


def test_first_start_settles_locks_and_saves_the_exposure(tmp_path: Path) -> None:
    fake = FakePicamera2(0, settling_metadata())
    controls = tmp_path / "state" / "camera-controls.json"
    source = pi_camera(fake, controls)
    (made,) = fake.named("create_video_configuration")
    assert made == {"main": {"size": (1280, 960), "format": "RGB888"},
                    "controls": {"FrameRate": 10.0}}
    assert fake.named("configure") == [{"made": made}] and fake.named("start") == [None]
    assert fake.named("set_controls") == [
        {"AeEnable": True, "AwbEnable": True},
        {"AeEnable": False, "AwbEnable": False, "ExposureTime": 20002, "AnalogueGain": 2.5,
         "ColourGains": (1.8, 1.4)},
    ]
    saved = json.loads(controls.read_text(encoding="utf-8"))
    assert saved == {"ExposureTime": 20002, "AnalogueGain": 2.5, "ColourGains": [1.8, 1.4]}
    assert source.locked == {"ExposureTime": 20002, "AnalogueGain": 2.5,
                             "ColourGains": (1.8, 1.4)}
    assert not list(tmp_path.glob("state/*.tmp"))


def test_the_next_start_passes_the_saved_exposure_at_configure_time(tmp_path: Path) -> None:
    controls = tmp_path / "camera-controls.json"
    pi_camera(FakePicamera2(0, settling_metadata()), controls).close()
    again = FakePicamera2(0, [])
    pi_camera(again, controls)
    (made,) = again.named("create_video_configuration")
    assert made["controls"] == {"FrameRate": 10.0, "AeEnable": False, "AwbEnable": False,
                                "ExposureTime": 20002, "AnalogueGain": 2.5,
                                "ColourGains": (1.8, 1.4)}
    assert again.named("capture_metadata") == [] and again.named("set_controls") == []


def test_a_damaged_controls_file_is_measured_again(tmp_path: Path) -> None:
    controls = tmp_path / "camera-controls.json"
    for damaged in ("{not json", '{"ExposureTime": -5}', '{"Brightness": 1}', "[1, 2]"):
        controls.write_text(damaged, encoding="utf-8")
        assert load_controls(controls) is None
        fake = FakePicamera2(0, settling_metadata())
        pi_camera(fake, controls)
        assert fake.named("create_video_configuration")[0]["controls"] == {"FrameRate": 10.0}
        assert json.loads(controls.read_text(encoding="utf-8"))["ExposureTime"] == 20002


def test_exposure_that_never_settles_is_locked_at_the_last_frame(tmp_path: Path) -> None:
    wandering = [{"ExposureTime": 1000 * (i + 1), "AnalogueGain": 1.0} for i in range(20)]
    fake = FakePicamera2(0, wandering)
    source = pi_camera(fake, tmp_path / "c.json")
    assert len(fake.named("capture_metadata")) == QUICK.max_frames
    assert source.locked == {"ExposureTime": 12000, "AnalogueGain": 1.0}


def test_without_a_controls_file_nothing_is_locked() -> None:
    fake = FakePicamera2(0, [])
    source = pi_camera(fake, None)
    assert fake.named("set_controls") == [] and source.locked is None


def test_pi_camera_frames_are_numbered_timed_and_stay_bgr(tmp_path: Path) -> None:
    blue = np.zeros((960, 1280, 3), dtype=np.uint8)
    blue[..., 0] = 255
    ticks = clock(0.1)
    fake = FakePicamera2(0, [], [blue, RuntimeError("timeout"), blue.copy()])
    source = pi_camera(fake, None, clock=lambda: next(ticks))
    frames = [frame for _, frame in zip(range(3), source)]
    assert [f.number for f in frames] == [1, 2, 3]
    assert [round(f.t_ms) for f in frames] == [100, 200, 300]
    assert frames[0].image is blue and frames[0].image[0, 0].tolist() == [255, 0, 0]
    assert frames[1].image is None and frames[1].status == "camera error: timeout"
    source.close()
    source.close()
    assert fake.named("stop") == [None] and fake.named("close") == [None]


def test_a_dead_camera_ends_with_one_error() -> None:
    fake = FakePicamera2(0, [], [RuntimeError("gone")] * 5)
    source = pi_camera(fake, None, max_failures=3)
    seen: list[Frame] = []
    with pytest.raises(CameraError, match="no good frame 3 times in a row .*camera error: gone"):
        for frame in source:
            seen.append(frame)
    assert len(seen) == 3


class BusyPicamera2(FakePicamera2):
    """A camera that another program holds."""

    def start(self) -> None:
        raise RuntimeError("Device or resource busy")


def test_a_camera_that_cannot_open_or_start_is_one_clear_error() -> None:
    def missing(camera_num: int) -> FakePicamera2:
        raise IndexError("list index out of range")

    with pytest.raises(CameraError, match="cannot open Raspberry Pi camera 0: list index"):
        PiCameraSource(640, 480, 10, None, picamera2_class=missing)
    busy = BusyPicamera2(0, [])
    with pytest.raises(CameraError, match="cannot start the Raspberry Pi camera: Device"):
        pi_camera(busy, None)
    assert busy.named("close") == [None]


@pytest.mark.skipif(importlib.util.find_spec("picamera2") is not None,
                    reason="picamera2 is installed here")
def test_without_picamera2_the_error_says_how_to_install_it(tmp_path: Path) -> None:
    with pytest.raises(CameraError, match="sudo apt install python3-picamera2"):
        load_picamera2()
    with pytest.raises(CameraError, match="picamera2 cannot be imported"):
        open_camera(load_config(None, {"STATE_DIRECTORY": str(tmp_path)}).camera)


# -- webcams -----------------------------------------------------------------------------


class FakeCapture:
    """Stands in for cv2.VideoCapture: scripted reads, recorded settings."""

    def __init__(self, device: int | str, frames: list[Any], opened: bool = True) -> None:
        self.device = device
        self.frames = iter(frames)
        self.opened = opened
        self.settings: dict[int, float] = {}
        self.released = 0

    def isOpened(self) -> bool:  # noqa: N802 - OpenCV's name
        return self.opened

    def set(self, prop: int, value: float) -> bool:
        self.settings[prop] = value
        return True

    def get(self, prop: int) -> float:
        return self.settings.get(prop, 0.0)

    def read(self) -> tuple[bool, Any]:
        frame = next(self.frames, None)
        return (frame is not None, frame)

    def release(self) -> None:
        self.released += 1


def test_a_webcam_is_asked_for_its_mode_and_gives_checked_frames() -> None:
    frames: list[Any] = [picture(1), picture(2, (32, 24)), np.zeros((48, 64), np.uint8)]
    fake = FakeCapture("/dev/video2", frames)
    ticks = clock(0.05)
    source = OpenCVSource("/dev/video2", 640, 480, 15, capture_class=lambda d: fake,
                          clock=lambda: next(ticks), max_failures=2)
    assert fake.settings[cv2.CAP_PROP_FRAME_WIDTH] == 640
    assert fake.settings[cv2.CAP_PROP_FRAME_HEIGHT] == 480 and fake.settings[cv2.CAP_PROP_FPS] == 15
    seen: list[Frame] = []
    with pytest.raises(CameraError, match="no good frame 2 times"):
        for frame in source:
            seen.append(frame)
    assert [f.status for f in seen] == ["ok", "the image is 32x24, expected 64x48",
                                        "the image is uint8 of shape (48, 64), not 8-bit BGR"]
    assert [round(f.t_ms) for f in seen] == [50, 100, 150]
    source.close()
    assert fake.released == 1


def test_a_webcam_that_does_not_open_is_one_clear_error() -> None:
    fake = FakeCapture(3, [], opened=False)
    with pytest.raises(CameraError, match="cannot open webcam 3"):
        OpenCVSource(3, 640, 480, 10, capture_class=lambda d: fake)
    assert fake.released == 1


def test_the_real_videocapture_reads_a_video_file(tmp_path: Path) -> None:
    video = tmp_path / "clip.avi"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter.fourcc(*"MJPG"), 10, SIZE)
    if not writer.isOpened():
        pytest.skip("this OpenCV build cannot write MJPG video")
    for seed in range(3):
        writer.write(picture(seed))
    writer.release()
    source = OpenCVSource(str(video), SIZE[0], SIZE[1], 10, max_failures=1)
    frames: list[Frame] = []
    with pytest.raises(CameraError):  # the clip ends: the "camera" gives no more frames
        frames.extend(source)
    assert [f.size for f in frames[:3]] == [SIZE] * 3
    assert frames[3].status == "camera error: the webcam gave no frame"
    source.close()


def test_open_camera_follows_the_config(tmp_path: Path) -> None:
    recording = make_recording(tmp_path, {"000001.jpg": encoded(picture(1))})
    config = tmp_path / "config.toml"
    config.write_text(f'[camera]\nsource = "recorded"\nrecorded_dir = "{recording}"\nfps = 5\n',
                      encoding="utf-8")
    camera = load_config(config, {}).camera
    source = open_camera(camera, realtime=False)
    assert isinstance(source, RecordedSource) and [f.number for f in source] == [1]
    missing = replace(camera, recorded_dir=tmp_path / "nowhere")
    with pytest.raises(CameraError, match="has no frames/ folder"):
        open_camera(missing)
