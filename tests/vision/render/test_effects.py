"""Tests of light and camera effects: white balance, locked exposure, vignetting, seeded noise, JPEG."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest

from vision.render import RenderError
from vision.render.camera import CameraSpec
from vision.render.effects import LightSpec, Sensor, kelvin_rgb, lighting, white_balance_gain

GREY = np.full((480, 640, 3), 150, np.uint8)


def sensor(camera: CameraSpec = CameraSpec(), light: LightSpec = LightSpec(), seed: int = 0) -> Sensor:
    """Returns a sensor with a seeded generator."""
    return Sensor(camera, light, np.random.default_rng(seed))


def spread(frame: np.ndarray) -> float:
    """Returns the largest per-channel standard deviation of a frame."""
    return float(frame.astype(float).std(axis=(0, 1)).max())


def test_warm_light_is_redder_than_cool_light_and_full_white_balance_removes_it() -> None:
    warm, cool = white_balance_gain(LightSpec(kelvin=2700)), white_balance_gain(LightSpec(kelvin=6500))
    assert warm[2] / warm[0] > 1.3 > 1.05 > cool[2] / cool[0]
    assert np.allclose(white_balance_gain(LightSpec(kelvin=2700, awb=1.0)), 1.0)
    assert kelvin_rgb(6500) == pytest.approx(np.ones(3), abs=0.03)


def test_exposure_locks_on_the_first_frame_and_then_follows_the_light() -> None:
    camera = sensor()
    first = camera.capture(GREY).astype(float)
    assert first[160:320, 213:426].mean() == pytest.approx(0.8 * 255, abs=2)
    locked = camera.exposure
    brighter = camera.capture(GREY // 2, lux=1000).astype(float)
    assert camera.exposure == locked
    assert brighter.mean() == pytest.approx(first.mean() / 2 * 1000 / 500, rel=0.03)


def test_vignetting_darkens_the_corners_only() -> None:
    frame = sensor(CameraSpec(vignette=0.4)).capture(GREY).astype(float)
    assert frame[230:250, 310:330].mean() > frame[:10, :10].mean() * 1.4


def test_noise_is_seeded_stronger_in_dim_light_and_absent_when_off() -> None:
    noisy = CameraSpec(read_noise=2.0, shot_noise=3.0)
    one, two = sensor(noisy, seed=3).capture(GREY), sensor(noisy, seed=3).capture(GREY)
    assert np.array_equal(one, two)
    assert not np.array_equal(one, sensor(noisy, seed=4).capture(GREY))
    bright = spread(sensor(noisy, LightSpec(lux=1000), seed=3).capture(GREY))
    dim = spread(sensor(noisy, LightSpec(lux=150), seed=3).capture(GREY))
    assert dim > 1.5 * bright > 0
    assert spread(sensor().capture(GREY)) < 0.6


def test_consecutive_frames_get_fresh_noise() -> None:
    camera = sensor(CameraSpec(read_noise=3.0), seed=1)
    first, second = (frame - frame.mean(axis=(0, 1)) for frame in (camera.capture(GREY).astype(float),
                                                                    camera.capture(GREY).astype(float)))
    assert abs(np.corrcoef(first.ravel(), second.ravel())[0, 1]) < 0.2


def test_blur_and_jpeg_quality() -> None:
    edge = GREY.copy()
    edge[:, 320:] = 40
    sharp = sensor().capture(edge).astype(float)
    soft = sensor(CameraSpec(blur_px=2.0)).capture(edge).astype(float)
    assert np.abs(np.diff(soft[240, :, 1])).max() < np.abs(np.diff(sharp[240, :, 1])).max() / 2
    low, high = (sensor(replace(CameraSpec(read_noise=2.0), jpeg_quality=q)) for q in (75, 95))
    assert len(low.encode(low.capture(edge))) < len(high.encode(high.capture(edge)))
    decoded = cv2.imdecode(np.frombuffer(high.encode(sharp.astype(np.uint8)), np.uint8), cv2.IMREAD_COLOR)
    assert decoded is not None and decoded.shape == (480, 640, 3)


def test_frames_are_encoded_with_fitted_huffman_tables_and_decode_to_the_same_picture() -> None:
    camera = sensor(CameraSpec(read_noise=3.0), seed=2)
    frame = camera.capture(GREY)
    plain = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, camera.camera.jpeg_quality])[1].tobytes()
    fitted = camera.encode(frame)
    assert len(fitted) < 0.97 * len(plain)
    same = (cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR) for data in (plain, fitted))
    assert np.array_equal(*same)


def test_lighting_lights_an_upward_face_fully_and_walls_less() -> None:
    light = lighting(LightSpec(sources=((0.0, 60.0, 1.0), (180.0, 45.0, 0.5)), ambient=0.3))
    shades = light.shade(np.array([[0.0, 0.0, 1.0], [0.0, 1.0, 0.0], [0.0, 0.0, -1.0]]))
    assert shades == pytest.approx([1.0, light.ambient + 0.0, light.ambient])
    assert light.shadow_loss().sum() == pytest.approx(0.7)


@pytest.mark.parametrize("change, words", [
    ({"kelvin": 2000.0}, "kelvin"), ({"lux": 50.0}, "lux"), ({"lux_end": 5000.0}, "lux_end"),
    ({"sources": ()}, "sources"), ({"sources": ((0.0, 10.0, 1.0),)}, "elevation"), ({"ambient": 1.5}, "ambient"),
    ({"table_rgb": (1, 2)}, "table_rgb"), ({"awb": -0.1}, "awb"),
])
def test_a_light_outside_the_envelope_is_refused_by_name(change: dict[str, object], words: str) -> None:
    with pytest.raises(RenderError, match=words):
        sensor(light=replace(LightSpec(), **change))  # type: ignore[arg-type]
    with pytest.raises(RenderError, match="lux"):
        sensor().capture(GREY, lux=20.0)
