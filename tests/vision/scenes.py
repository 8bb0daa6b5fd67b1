"""Synthetic board-region frame sequences for the gate tests: hands, pieces, lamps, noise."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

import cv2

Image = NDArray[np.uint8]
SIDE = 320
MAT = (185, 192, 195)  # the mat as a camera with locked exposure sees it
SKIN = (120, 150, 205)
SLEEVE = (150, 60, 40)


def board(pieces: tuple[tuple[int, int, tuple[int, int, int]], ...] = ()) -> Image:
    """Returns a top-down 9x9 board region with pieces as (file, rank, BGR colour) squares."""
    image = np.empty((SIDE, SIDE, 3), np.uint8)
    image[:] = MAT
    step = SIDE / 9
    for index in range(10):
        at = int(round(index * step))
        cv2.line(image, (at, 0), (at, SIDE - 1), (120, 120, 120), 1)
        cv2.line(image, (0, at), (SIDE - 1, at), (120, 120, 120), 1)
    for file, rank, colour in pieces:
        x0, y0 = int(file * step + 5), int((8 - rank) * step + 5)
        cv2.rectangle(image, (x0, y0), (x0 + int(step) - 10, y0 + int(step) - 10), colour, -1)
    return image


def with_hand(image: Image, reach: int, row: int = 160, half_width: int = 28) -> Image:
    """Returns the image with an arm reaching `reach` pixels in from the left edge (0: none)."""
    if reach <= 0:
        return image
    out = image.copy()
    cv2.rectangle(out, (0, row - half_width), (max(0, reach - 40), row + half_width), SLEEVE, -1)
    cv2.ellipse(out, (max(0, reach - 25), row), (30, 22), 0, 0, 360, SKIN, -1)
    return out


def leaning(image: Image, row: int, half_height: int, colour: tuple[int, int, int]) -> Image:
    """Returns the image with a tall piece's lean or shadow: a band from the left edge into the board."""
    out = image.copy()
    cv2.rectangle(out, (0, row - half_height), (45, row + half_height), colour, -1)
    return out


def tinted(image: Image, gains: tuple[float, float, float]) -> Image:
    """Returns the image under a tinted light: each of B, G and R scaled by its gain."""
    return np.clip(image.astype(np.float32) * np.array(gains, np.float32), 0, 255).astype(np.uint8)


def lit(image: Image, gain: float, ramp: float = 0.0) -> Image:
    """Returns the image under brighter or dimmer light: a gain, optionally ramping left to right."""
    factor = gain + ramp * np.linspace(-0.5, 0.5, image.shape[1], dtype=np.float32)[None, :, None]
    return np.clip(image.astype(np.float32) * factor, 0, 255).astype(np.uint8)


def noisy(image: Image, rng: np.random.Generator, sigma: float = 4.0) -> Image:
    """Returns the image with seeded Gaussian sensor noise."""
    return np.clip(image + rng.normal(0, sigma, image.shape), 0, 255).astype(np.uint8)
