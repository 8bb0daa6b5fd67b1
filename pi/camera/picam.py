"""The Raspberry Pi camera through picamera2: BGR video frames with exposure and white balance
measured once, locked, saved in the state directory and reused at the next start."""

from __future__ import annotations

import importlib
import json
import logging
import math
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping, Protocol

from pi.camera.base import CameraError, Clock, LiveSource

log = logging.getLogger(__name__)

Metadata = Mapping[str, Any]
Controls = dict[str, Any]
LOCK_KEYS = ("ExposureTime", "AnalogueGain", "ColourGains")


class Picamera2Like(Protocol):
    """The part of picamera2.Picamera2 the backend uses (so a fake can stand in for it)."""

    def create_video_configuration(self, *args: Any, **kwargs: Any) -> Any: ...

    def configure(self, config: Any) -> None: ...

    def start(self) -> None: ...

    def capture_array(self, name: str = "main") -> Any: ...

    def capture_metadata(self) -> Metadata: ...

    def set_controls(self, controls: Controls) -> None: ...

    def stop(self) -> None: ...

    def close(self) -> None: ...


Picamera2Class = Callable[[int], Picamera2Like]


@dataclass(frozen=True, slots=True)
class Settling:
    """When exposure has settled: stable_frames agree after min_frames, or max_frames passed."""

    min_frames: int = 10
    stable_frames: int = 5
    max_frames: int = 90
    tolerance: float = 0.03


def load_picamera2() -> Picamera2Class:
    """Returns the Picamera2 class, imported only now; raises CameraError saying how to get it."""
    try:
        module = importlib.import_module("picamera2")
    except ImportError as error:
        raise CameraError(
            f"picamera2 cannot be imported ({error}): on Raspberry Pi OS install it with "
            "`sudo apt install python3-picamera2` into a venv made with "
            "--system-site-packages (docs/raspberry-pi.md), or set camera.source = \"opencv\""
        ) from None
    except ValueError as error:  # "numpy.dtype size changed": a pip numpy 2 over apt's camera
        raise CameraError(f"picamera2 does not load with this numpy ({error}); keep apt's "
                          "numpy in the venv (docs/raspberry-pi.md, the numpy trap)") from None
    camera_class: Picamera2Class = module.Picamera2
    return camera_class


def exposure_values(metadata: Metadata) -> tuple[float, ...]:
    """Returns the exposure time, gain and colour gains in a frame's metadata, as numbers."""
    values: list[float] = []
    for key in LOCK_KEYS:
        value = metadata.get(key)
        if isinstance(value, (int, float)):
            values.append(float(value))
        elif isinstance(value, (tuple, list)):
            values.extend(float(v) for v in value)
    return tuple(values)


def agree(one: tuple[float, ...], two: tuple[float, ...], tolerance: float) -> bool:
    """Tells whether two sets of exposure values agree within a relative tolerance."""
    return len(one) == len(two) and all(
        math.isclose(a, b, rel_tol=tolerance) for a, b in zip(one, two))


def settled_metadata(capture: Callable[[], Metadata], rule: Settling) -> Metadata:
    """Returns the metadata of the first frame with settled exposure (or the last one allowed)."""
    previous: tuple[float, ...] | None = None
    stable = 0
    metadata: Metadata = {}
    for count in range(1, rule.max_frames + 1):
        metadata = capture()
        values = exposure_values(metadata)
        stable = stable + 1 if previous and agree(values, previous, rule.tolerance) else 0
        previous = values
        if count >= rule.min_frames and stable >= rule.stable_frames:
            return metadata
    log.warning("auto exposure did not settle in %d frames; locking the last values",
                rule.max_frames)
    return metadata


def locked_controls(metadata: Metadata) -> Controls:
    """Returns the controls that hold a frame's exposure and colour gains."""
    controls: Controls = {}
    if isinstance(metadata.get("ExposureTime"), (int, float)):
        controls["ExposureTime"] = int(metadata["ExposureTime"])
    if isinstance(metadata.get("AnalogueGain"), (int, float)):
        controls["AnalogueGain"] = float(metadata["AnalogueGain"])
    gains = metadata.get("ColourGains")
    if isinstance(gains, (tuple, list)) and len(gains) == 2:
        controls["ColourGains"] = (float(gains[0]), float(gains[1]))
    return controls


def _positive(value: object) -> bool:
    """Tells whether a JSON value is a positive finite number."""
    return (isinstance(value, (int, float)) and not isinstance(value, bool)
            and math.isfinite(value) and value > 0)


def parse_controls(data: object) -> Controls | None:
    """Returns the controls saved in a controls file's JSON data, or None if they are bad."""
    if not isinstance(data, dict) or not data or set(data) - set(LOCK_KEYS):
        return None
    gains = data.get("ColourGains", [1.0, 1.0])
    if not (_positive(data.get("ExposureTime", 1)) and _positive(data.get("AnalogueGain", 1))
            and isinstance(gains, list) and len(gains) == 2 and all(map(_positive, gains))):
        return None
    return locked_controls(data)


def load_controls(file: Path) -> Controls | None:
    """Returns the controls saved by an earlier start, or None (none saved, or unusable)."""
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as error:
        log.warning("ignoring camera controls file %s: %s", file, error)
        return None
    controls = parse_controls(data)
    if controls is None:
        log.warning("ignoring camera controls file %s: not exposure controls", file)
    return controls


def save_controls(file: Path, controls: Controls) -> bool:
    """Writes the controls atomically as JSON; tells whether it could (failure is logged)."""
    temporary = file.with_name(file.name + ".tmp")
    try:
        file.parent.mkdir(parents=True, exist_ok=True)
        temporary.write_text(json.dumps(controls, indent=2) + "\n", encoding="utf-8")
        os.replace(temporary, file)
        return True
    except OSError as error:
        log.warning("cannot save camera controls to %s: %s", file, error)
        return False


class PiCameraSource(LiveSource):
    """A Pi camera's video frames, exposure locked and saved in controls_file (if one is given)."""

    # The "RGB888" main stream holds B, G, R bytes in memory: frames go straight into OpenCV.
    # With a controls_file, exposure and white balance are measured once, locked with
    # AeEnable/AwbEnable off, saved there, and passed at configure time on the next start.

    def __init__(self, width: int, height: int, fps: float, controls_file: Path | None,
                 camera_num: int = 0, picamera2_class: Picamera2Class | None = None,
                 settling: Settling = Settling(), clock: Clock = time.monotonic,
                 max_failures: int = 10) -> None:
        super().__init__(clock, max_failures)
        self.controls_file = controls_file
        self._settling = settling
        self._camera = self._open(picamera2_class or load_picamera2(), camera_num)
        saved = load_controls(controls_file) if controls_file is not None else None
        self.locked: Controls | None = saved
        try:
            self._start(width, height, fps, saved)
            if controls_file is not None and saved is None:
                self.relock()
        except Exception as error:  # noqa: BLE001 - any driver failure is one clear error
            self._release()
            raise CameraError(f"cannot start the Raspberry Pi camera: {error}") from None

    @staticmethod
    def _open(camera_class: Picamera2Class, camera_num: int) -> Picamera2Like:
        """Returns the opened camera, or raises CameraError."""
        try:
            return camera_class(camera_num)
        except Exception as error:  # noqa: BLE001 - IndexError, RuntimeError ... from libcamera
            raise CameraError(f"cannot open Raspberry Pi camera {camera_num}: {error} "
                              "(is it connected? try `rpicam-hello --list-cameras`)") from None

    def _start(self, width: int, height: int, fps: float, saved: Controls | None) -> None:
        """Configures the video stream (with the saved controls, if any) and starts it."""
        controls: Controls = {"FrameRate": float(fps)}
        if saved:
            controls.update(AeEnable=False, AwbEnable=False, **saved)
        config = self._camera.create_video_configuration(
            main={"size": (width, height), "format": "RGB888"}, controls=controls)
        self._camera.configure(config)
        self._camera.start()

    def relock(self) -> Controls:
        """Lets exposure and white balance settle, then locks, saves and returns them."""
        self._camera.set_controls({"AeEnable": True, "AwbEnable": True})
        controls = locked_controls(settled_metadata(self._camera.capture_metadata,
                                                    self._settling))
        self._camera.set_controls({"AeEnable": False, "AwbEnable": False, **controls})
        if self.controls_file is not None:
            save_controls(self.controls_file, controls)
        self.locked = controls
        log.info("camera exposure locked: %s", controls)
        return controls

    def _grab(self) -> object:
        """Returns the next main-stream array."""
        return self._camera.capture_array("main")

    def _release(self) -> None:
        """Stops and closes the camera, logging (not raising) driver errors."""
        for step in (self._camera.stop, self._camera.close):
            try:
                step()
            except Exception as error:  # noqa: BLE001 - closing must not fail
                log.warning("camera %s failed: %s", step.__name__, error)
