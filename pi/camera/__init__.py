"""Frame sources behind one interface: iterate for numbered, timed BGR frames; close() ends.

`open_camera(config.camera)` picks the source: the Pi camera (picamera2, imported only then),
a USB webcam (OpenCV) or a recorded game directory."""

from __future__ import annotations

from pi.camera.base import OK, CameraError, Frame, FrameSource, Image, LiveSource
from pi.camera.picam import PiCameraSource, Settling
from pi.camera.recorded import RecordedSource
from pi.camera.webcam import OpenCVSource
from pi.config import CameraConfig

__all__ = [
    "OK",
    "CameraError",
    "Frame",
    "FrameSource",
    "Image",
    "LiveSource",
    "OpenCVSource",
    "PiCameraSource",
    "RecordedSource",
    "Settling",
    "open_camera",
]


def open_camera(camera: CameraConfig, realtime: bool = True) -> FrameSource:
    """Returns the frame source the [camera] config names (realtime paces a recording)."""
    if camera.source == "recorded":
        if camera.recorded_dir is None:
            raise CameraError("camera.recorded_dir must be set when camera.source is 'recorded'")
        return RecordedSource(camera.recorded_dir, camera.fps, realtime=realtime)
    if camera.source == "opencv":
        return OpenCVSource(camera.device, camera.width, camera.height, camera.fps)
    if isinstance(camera.device, str):
        raise CameraError(f"camera.device must be a camera number for picamera2, "
                          f"not {camera.device!r}")
    controls = camera.controls_file if camera.lock_exposure else None
    return PiCameraSource(camera.width, camera.height, camera.fps, controls, camera.device)
