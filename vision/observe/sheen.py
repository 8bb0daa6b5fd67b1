"""A neutral sheen on a surface: how oiled wood or glossy toner looks under a lamp.

A real surface reflects a little white light off its skin (a few percent, the more the
glossier, and from tops the most, as they face the lamps) on top of its own colour. That
light adds to the colour in linear light, so it hardly moves a light colour but lifts a dark
one a lot and greys it: walnut (92, 60, 38) under 4 % sheen reads about Lab (37, 8, 12), not
(28, 11, 19), and a brightness factor alone (a shade) can never turn one into the other. The
pixel observers (vision.observe.synthesis) score a surface against its prototype at a few
sheen levels and take the likeliest.
"""

from __future__ import annotations

from typing import Iterator, Sequence

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.observe.calibrate import weighted
from vision.observe.context import converted
from vision.observe.stack_colours import FloatArray, encode, lab_to_rgbs, linear


def sheened(labs: FloatArray, level: float) -> FloatArray:
    """Returns Lab colours (N x 3, OpenCV float scale) as they look with a sheen: `level` of
    white light (0-1) added to each in linear light."""
    rgb = lab_to_rgbs(labs)
    lit = (encode(linear(rgb) + level) / 255.0).astype(np.float32).reshape(1, -1, 3)
    return np.asarray(converted(lit, cv2.COLOR_RGB2LAB)[0], np.float64)


def sheens(prototypes: FloatArray, levels: Sequence[float],
           least: float) -> Iterator[tuple[FloatArray, NDArray[np.bool_]]]:
    """Yields, for each sheen level, the prototypes (parts x 3, Lab) under that sheen and which
    parts it moves by `least` at least (weighted Lab, as the costs compare them); levels that
    move no part are left out."""
    base = weighted(prototypes)
    for level in levels:
        glossy = sheened(prototypes, level)
        moved = np.linalg.norm(weighted(glossy) - base, axis=1) >= least
        if moved.any():
            yield glossy, moved
