"""Light and camera effects: the room's lights, white balance, locked exposure, vignetting, noise, JPEG.

Scenes are drawn at their nominal sRGB colours under neutral light: a face turned up to the
lights shows exactly its nominal colour, walls are Lambert-shaded from one or two sources plus
an ambient share. The Sensor then does what a camera does to that picture: blur and vignetting
from the optics; the light's colour temperature as a white-balance gain (the camera's locked
white balance removes `awb` of it); exposure set on the first frame and then locked, so later
frames follow the light level (lux); shot and read noise from a seeded generator, stronger in
dim light where the analogue gain is higher; finally JPEG.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.render import RenderError, check_number
from vision.render.camera import CameraSpec, FloatArray, Image

RGB = tuple[int, int, int]
Float32Image = NDArray[np.float32]

KELVIN = (2700.0, 6500.0)
LUX = (150.0, 1000.0)
NEUTRAL_KELVIN = 6500.0
AE_TARGET = 0.8
AE_PERCENTILE = 90
UNITY_GAIN_LUX = 600.0
NOISE_SLACK = 97
LUMA_BGR = np.array([0.114, 0.587, 0.299], np.float32)


@dataclass(frozen=True, slots=True)
class LightSpec:
    """The room: light colour and level, one or two sources (azimuth, elevation, weight), the table."""

    kelvin: float = 5000.0
    lux: float = 500.0
    lux_end: float | None = None
    sources: tuple[tuple[float, float, float], ...] = ((30.0, 65.0, 1.0),)
    ambient: float = 0.35
    shadow_blur_mm: float = 6.0  # the blur of the shadow a 30 mm tall piece's top casts (scene.SHADOW_PIECE_MM)
    awb: float = 0.7
    table_rgb: RGB = (96, 80, 66)

    def checked(self) -> LightSpec:
        """Returns the spec itself if it lies in the envelope, or raises RenderError naming the field."""
        check_number(self.kelvin, *KELVIN, "light kelvin")
        check_number(self.lux, *LUX, "light lux")
        if self.lux_end is not None:
            check_number(self.lux_end, *LUX, "light lux_end")
        check_number(self.ambient, 0.05, 0.95, "light ambient")
        check_number(self.shadow_blur_mm, 0.0, 40.0, "light shadow_blur_mm")
        check_number(self.awb, 0.0, 1.0, "light awb")
        _check_sources(self.sources)
        check_rgb(self.table_rgb, "light table_rgb")
        return self

    def lux_at(self, fraction: float) -> float:
        """Returns the light level a given fraction of the way through a recording."""
        end = self.lux if self.lux_end is None else self.lux_end
        return self.lux + (end - self.lux) * fraction


def _check_sources(sources: Any) -> None:
    """Raises RenderError unless sources is one or two (azimuth, elevation, weight) triples."""
    if not isinstance(sources, tuple) or not 1 <= len(sources) <= 2:
        raise RenderError(f"light sources must be one or two (azimuth, elevation, weight) triples, not {sources!r}")
    for index, source in enumerate(sources):
        if not isinstance(source, tuple) or len(source) != 3:
            raise RenderError(f"light source {index} must be an (azimuth, elevation, weight) triple, not {source!r}")
        check_number(source[0], -360.0, 360.0, f"light source {index} azimuth")
        check_number(source[1], 25.0, 90.0, f"light source {index} elevation")
        check_number(source[2], 0.05, 1.0, f"light source {index} weight")


def check_rgb(value: Any, what: str) -> RGB:
    """Returns value if it is an (r, g, b) triple of integers 0..255, or raises RenderError."""
    good = (isinstance(value, tuple) and len(value) == 3
            and all(isinstance(part, int) and not isinstance(part, bool) and 0 <= part <= 255 for part in value))
    if not good:
        raise RenderError(f"{what} must be an (r, g, b) triple of integers 0..255, not {value!r}")
    return (value[0], value[1], value[2])


@dataclass(frozen=True, slots=True, eq=False)
class Lighting:
    """The room's sources as unit vectors towards each light, with weights that light an upward face fully."""

    directions: FloatArray
    weights: FloatArray
    ambient: float

    def shade(self, normals: FloatArray) -> FloatArray:
        """Returns the brightness factor of faces with these unit normals (1.0 for a face turned up)."""
        direct = np.clip(normals @ self.directions.T, 0.0, None) @ self.weights
        return np.asarray(self.ambient + direct, np.float64)

    def shadow_loss(self) -> FloatArray:
        """Returns, per source, the share of an upward face's light that the source's shadow takes away."""
        return np.asarray(self.weights * self.directions[:, 2], np.float64)


def lighting(light: LightSpec) -> Lighting:
    """Returns the unit directions and normalised weights of a light spec's sources."""
    directions = np.array([[math.cos(math.radians(el)) * math.cos(math.radians(az)),
                            math.cos(math.radians(el)) * math.sin(math.radians(az)),
                            math.sin(math.radians(el))] for az, el, _ in light.sources])
    raw = np.array([weight for _, _, weight in light.sources])
    weights = (1 - light.ambient) * raw / float(raw @ directions[:, 2])
    return Lighting(directions, weights, light.ambient)


def kelvin_rgb(kelvin: float) -> FloatArray:
    """Returns the sRGB colour (0..1) of black-body light at a temperature (Helland's fit)."""
    t = kelvin / 100
    red = 255.0 if t <= 66 else 329.698727446 * (t - 60) ** -0.1332047592
    green = 99.4708025861 * math.log(t) - 161.1195681661 if t <= 66 else 288.1221695283 * (t - 60) ** -0.0755148492
    blue = 255.0 if t >= 66 else (0.0 if t <= 19 else 138.5177312231 * math.log(t - 10) - 305.0447927307)
    return np.clip(np.array([red, green, blue]) / 255, 0.0, 1.0)


def white_balance_gain(light: LightSpec) -> NDArray[np.float32]:
    """Returns the B, G, R gain the light's colour leaves after the camera's locked white balance."""
    tint = kelvin_rgb(light.kelvin) / kelvin_rgb(NEUTRAL_KELVIN)
    gain = (tint ** (1 - light.awb))[::-1].astype(np.float32)
    return np.asarray(gain / float(gain @ LUMA_BGR), np.float32)


class Sensor:
    """The camera behind the lens: blur, vignetting, white balance, exposure locked on the first frame, noise."""

    # Noise is drawn once per sensor as a seeded bank of normal samples a little larger than the
    # frame; each frame reads it at a fresh seeded offset and channel order: as random per pixel
    # as fresh samples, and far cheaper.

    def __init__(self, camera: CameraSpec, light: LightSpec, rng: np.random.Generator) -> None:
        self.camera = camera.checked()
        self.light = light.checked()
        self.rng = rng
        self.exposure: float | None = None
        self.analog_gain = max(1.0, UNITY_GAIN_LUX / light.lux)
        self._response = _vignette(camera.size, camera.vignette)[..., None] * white_balance_gain(light)
        self._bank: Float32Image | None = None

    def capture(self, scene: Image, lux: float | None = None) -> Image:
        """Returns the 8-bit frame the sensor makes of a scene drawn at nominal colours, under lux."""
        level = self.light.lux if lux is None else check_number(lux, *LUX, "lux")
        image = scene.astype(np.float32)
        if self.camera.blur_px > 0:
            image = np.asarray(cv2.GaussianBlur(image, (0, 0), self.camera.blur_px), np.float32)
        image *= self._response
        image *= np.float32(self._locked_exposure(image) * level / self.light.lux)
        self._add_noise(image)
        np.maximum(image, 0, out=image)
        return np.asarray(cv2.convertScaleAbs(image), np.uint8)

    def _locked_exposure(self, image: Float32Image) -> float:
        """Returns the exposure, chosen on the first frame to bring the bright part of the centre to the target."""
        if self.exposure is None:
            height, width = image.shape[:2]
            centre = image[height // 3:2 * height // 3, width // 3:2 * width // 3] @ LUMA_BGR
            self.exposure = AE_TARGET * 255 / max(float(np.percentile(centre, AE_PERCENTILE)), 0.1)
        return self.exposure

    def _add_noise(self, image: Float32Image) -> None:
        """Adds shot noise (grows with the signal) and read noise (in 8-bit levels), both raised by the gain."""
        shot, read = self.camera.shot_noise, self.camera.read_noise
        if shot == 0 and read == 0:
            return
        variance = np.clip(image, 0, None)
        variance *= np.float32(shot * shot * self.analog_gain / 255)
        variance += np.float32((read * self.analog_gain) ** 2)
        image += np.sqrt(variance, out=variance) * self._noise(image.shape)

    def _noise(self, shape: tuple[int, ...]) -> Float32Image:
        """Returns standard normal noise of a frame's shape, read from the bank at a seeded offset."""
        height, width = shape[:2]
        if self._bank is None:
            self._bank = self.rng.standard_normal((height + NOISE_SLACK, width + NOISE_SLACK, 3), dtype=np.float32)
        dy, dx = (int(value) for value in self.rng.integers(0, NOISE_SLACK, 2))
        order = self.rng.permutation(3)
        return np.asarray(self._bank[dy:dy + height, dx:dx + width][..., order], np.float32)

    def encode(self, frame: Image) -> bytes:
        """Returns the frame as JPEG bytes at the camera's quality, with Huffman tables fitted to it."""
        params = [cv2.IMWRITE_JPEG_QUALITY, self.camera.jpeg_quality, cv2.IMWRITE_JPEG_OPTIMIZE, 1]
        ok, data = cv2.imencode(".jpg", frame, params)
        if not ok:
            raise RenderError("OpenCV could not encode a frame as JPEG")
        return bytes(data.tobytes())


def _vignette(size: tuple[int, int], strength: float) -> Float32Image:
    """Returns the falloff factor per pixel: 1 at the centre, 1 - strength in the corners."""
    width, height = size
    xs = (np.arange(width, dtype=np.float32) - (width - 1) / 2) / (width / 2)
    ys = (np.arange(height, dtype=np.float32) - (height - 1) / 2) / (height / 2)
    radius2 = (xs[None, :] ** 2 + ys[:, None] ** 2) / 2
    return np.asarray(1 - strength * radius2, np.float32)
