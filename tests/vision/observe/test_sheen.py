"""Tests of the neutral sheen (vision.observe.sheen): white gloss lifts and greys dark colours."""

from __future__ import annotations

import numpy as np

from vision.observe.context import rgb_to_lab
from vision.observe.sheen import sheened, sheens

WALNUT, MAPLE, INK = (92.0, 60.0, 38.0), (222.0, 196.0, 150.0), (0.0, 0.0, 0.0)


def labs(*colours: tuple[float, float, float]) -> np.ndarray:
    """Returns the Lab colours of sRGB triples, one a row."""
    return np.vstack([rgb_to_lab(colour) for colour in colours])


def test_no_sheen_leaves_colours_as_they_are() -> None:
    colours = labs(WALNUT, MAPLE, INK)
    assert np.allclose(sheened(colours, 0.0), colours, atol=0.3)


def test_a_sheen_lifts_and_greys_a_dark_colour_and_hardly_moves_a_light_one() -> None:
    before = labs(WALNUT, MAPLE)
    after = sheened(before, 0.04)
    walnut_chroma, glossy_chroma = (float(np.hypot(*lab[1:])) for lab in (before[0], after[0]))
    assert after[0, 0] > before[0, 0] + 6.0 and glossy_chroma < walnut_chroma - 4.0
    moves = np.linalg.norm(after - before, axis=1)
    assert moves[1] < 3.0 and moves[0] > 3 * moves[1]


def test_only_the_levels_and_parts_a_sheen_moves_are_tried() -> None:
    colours = labs(MAPLE, WALNUT)
    tried = list(sheens(colours, (0.0, 0.04), least=3.0))
    assert len(tried) == 1
    glossy, moved = tried[0]
    assert moved.tolist() == [False, True] and glossy.shape == colours.shape
