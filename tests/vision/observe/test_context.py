"""Tests of the prepared still frame: sampling only where asked gives what converting and
remapping the whole frame would, and the white balance reads the mat's margin."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.observe.context import balanced_lab, bilinear, converted
from vision.observe.sheen import sheened
from vision.observe.stack_colours import lab_to_rgbs, rgbs_to_lab

SIZE = (48, 64)  # rows, columns


def frame(seed: int) -> np.ndarray:
    """Returns a seeded random BGR frame, smooth enough to look like a photograph's."""
    noise = np.random.default_rng(seed).integers(0, 256, (*SIZE, 3)).astype(np.uint8)
    return np.asarray(cv2.GaussianBlur(noise, (5, 5), 1.0), np.uint8)


def positions(seed: int, count: int = 400) -> np.ndarray:
    """Returns sub-pixel positions across the frame and beyond its border on every side."""
    rng = np.random.default_rng(seed)
    return np.column_stack([rng.uniform(-3.0, SIZE[1] + 3.0, count), rng.uniform(-3.0, SIZE[0] + 3.0, count)])


def remapped(image: np.ndarray, pixels: np.ndarray) -> np.ndarray:
    """Returns cv2.remap's bilinear values at positions, the border replicated."""
    pts = np.asarray(pixels, np.float32).reshape(1, -1, 2)
    mapped = cv2.remap(image, pts[..., 0], pts[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return np.asarray(mapped.reshape(-1, image.shape[2]), np.float64)


@pytest.mark.parametrize("seed", [1, 2])
def test_sampling_a_frame_matches_remapping_it_whole(seed: int) -> None:
    image, pixels = frame(seed), positions(seed)
    assert np.allclose(bilinear(image, pixels), remapped(image.astype(np.float32), pixels), atol=1e-3)


@pytest.mark.parametrize("gains", [(1.0, 1.0, 1.0), (1.3, 0.9, 0.7)])
def test_lab_sampled_sparsely_matches_the_whole_frame_in_lab(gains: tuple[float, float, float]) -> None:
    image, pixels = frame(3), positions(3)
    whole = balanced_lab(image.astype(np.float32), gains)
    sparse = bilinear(image, pixels, lambda patch: balanced_lab(patch, gains))
    assert np.allclose(sparse, remapped(whole, pixels), atol=1e-3)


def test_a_sample_on_a_pixel_is_that_pixel() -> None:
    image = frame(4)
    assert np.array_equal(bilinear(image, np.array([[5.0, 7.0], [0.0, 0.0]])), image[[7, 0], [5, 0]].astype(float))


def test_colours_convert_as_opencv_converts_them_and_none_convert_to_none() -> None:
    pixels = np.array([[[0.2, 0.5, 0.9], [1.0, 1.0, 1.0]]], np.float32)
    assert np.array_equal(converted(pixels, cv2.COLOR_BGR2LAB), cv2.cvtColor(pixels, cv2.COLOR_BGR2LAB))
    none = np.zeros((0, 3))
    assert converted(np.zeros((0, 1, 3), np.float32), cv2.COLOR_BGR2LAB).shape == (0, 1, 3)
    assert lab_to_rgbs(none).shape == rgbs_to_lab(none).shape == sheened(none, 0.2).shape == (0, 3)
    assert balanced_lab(np.zeros((0, 1, 3), np.float32), (1.0, 1.0, 1.0)).shape == (0, 1, 3)
