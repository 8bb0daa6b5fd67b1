"""Tests of the shadows pyramids cast (vision.observe.shadows) on synthetic mats: a shadow's
outline, the darkening one pyramid adds, a light found from the shadows it casts, a cell's rise
read from the change of its shadow even where a neighbour's shadow changes too, and a rise read
so scores the candidates."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.observe.shadows import (
    Casters, Darkening, Light, added_shadow, brightness, darkening, fit_lights, joint_rises, outlines_of,
    window_around,
)
from vision.observe.stacks import block

SIDE = 200.0


def pyramids(heights: dict[tuple[float, float], float]) -> Casters:
    """Returns opaque pyramids (base 25 mm) of some heights standing at some points."""
    rows = [block(x, y, 0.0, (25.0, 25.0, height), True, 0) for (x, y), height in heights.items()]
    return Casters(np.array(rows), np.ones(len(rows)))


def mat(step: float = 3.0) -> np.ndarray:
    """Returns board points over the grid."""
    ticks = np.arange(step / 2, SIDE, step)
    return np.array([(x, y) for x in ticks for y in ticks])


def test_a_light_is_found_from_the_shadows_it_casts() -> None:
    casters = pyramids({(x, y): 44.0 + 5.0 * ((x + y) % 3) for x in (20.0, 100.0, 180.0) for y in (20.0, 100.0, 180.0)})
    points = mat()
    truth = Light((-0.4, -0.25), 6.0, 40.0)
    lit = 90.0 + 0.01 * points[:, 0] - darkening([truth], casters, window_around(points, 0.0), points)
    lit += np.random.default_rng(3).normal(0.0, 0.5, len(points))
    lights = fit_lights(points, lit, casters, SIDE)
    assert len(lights) == 1
    assert lights[0].reach == pytest.approx(truth.reach, abs=0.06)
    assert lights[0].depth == pytest.approx(truth.depth, rel=0.25)


def test_no_shadow_means_no_light() -> None:
    casters = pyramids({(100.0, 100.0): 44.0})
    points = mat()
    assert fit_lights(points, 90.0 + np.zeros(len(points)), casters, SIDE) == ()


def test_each_cells_rise_is_read_apart_from_a_neighbours() -> None:
    points = mat(2.0)
    light = [Light((-0.5, 0.0), 5.0, 40.0)]
    window = window_around(points, 0.0)
    spots = {"left": (60.0, 100.0), "right": (100.0, 100.0)}
    base = {spot: 44.0 for spot in spots.values()}
    before = darkening(light, pyramids(base), window, points)
    units = {name: (before - darkening(light, pyramids({**base, spot: 49.0}), window, points)) / 5.0
             for name, spot in spots.items()}
    change = before - darkening(light, pyramids({**base, spots["right"]: 49.0}), window, points)
    rises = joint_rises(change + np.random.default_rng(4).normal(0.0, 0.3, len(points)), units, 0.3)
    assert rises["right"][0] == pytest.approx(5.0, rel=0.2)
    assert abs(rises["left"][0]) < 1.0 and rises["left"][1] > 0.0


def test_a_rise_read_from_a_shadow_scores_the_candidates() -> None:
    reading = Darkening(5.0, 1.0, np.array([0.0, 5.1, -5.1, np.nan]))
    scores = [reading.log_likelihood(index) for index in range(4)]
    assert scores[1] > scores[0] > scores[2] and scores[3] == 0.0


@pytest.mark.parametrize("reach", [(0.0, 0.0), (0.1, -0.05), (0.6, 0.2), (-0.9, -1.1), (0.0, 1.5)])
def test_a_shadows_outline_is_the_hull_of_the_pushed_base_and_apex(reach: tuple[float, float]) -> None:
    rows = np.array([block(50.0, 60.0, 0.0, (25.0, 25.0, 44.0), True, 0),
                     block(50.0, 60.0, 20.0, (14.0, 14.0, 24.0), True, 1)])
    for row, outline in zip(rows, outlines_of(rows, reach)):
        half, shift = row[3], np.array(reach)
        corners = [row[:2] + (sx * half, sy * half) + row[2] * shift for sx in (-1, 1) for sy in (-1, 1)]
        hull = cv2.convexHull(np.array(corners + [row[:2] + (row[2] + row[4]) * shift], np.float32))
        assert cv2.contourArea(outline.astype(np.float32)) == pytest.approx(cv2.contourArea(hull), rel=1e-5)
        assert all(cv2.pointPolygonTest(hull, (float(x), float(y)), True) > -1e-3 for x, y in outline)


def test_a_pyramid_added_darkens_the_mat_as_drawing_every_shadow_again_does() -> None:
    base = {(x, y): 44.0 for x in (40.0, 80.0, 120.0) for y in (60.0, 100.0)}
    casters = pyramids({**base, (80.0, 100.0): 60.0})
    added = list(base).index((80.0, 100.0))
    without = Casters(np.delete(casters.blocks, added, axis=0), np.delete(casters.opacity, added))
    points = mat(2.0)
    lights = [Light((-0.5, 0.3), 5.0, 40.0), Light((0.4, 0.4), 9.0, 10.0)]
    window = window_around(points, 60.0, snapped=True)
    again = darkening(lights, casters, window, points) - darkening(lights, without, window, points)
    assert np.abs(again).max() > 1.0
    assert added_shadow(lights, casters, added, points) == pytest.approx(again, abs=1e-4)


def test_brightness_grows_with_lightness() -> None:
    values = brightness(np.array([0.0, 20.0, 50.0, 100.0]))
    assert values[0] == pytest.approx(0.0, abs=1e-6) and values[-1] == pytest.approx(100.0, abs=0.1)
    assert np.all(np.diff(values) > 0.0)


def test_a_shadow_falling_off_the_sampled_mat_adds_nothing_there() -> None:
    """A tall stack's shadow cast far from every mat point sampled (a low lamp) meets none of
    them: no darkening, and no error from drawing it."""
    casters = pyramids({(40.0, 40.0): 44.0, (160.0, 160.0): 98.0})
    points = mat(2.0)[:10]  # a few points by the first stack only
    lights = [Light((4.0, 4.0), 5.0, 40.0)]  # a low lamp: the tall one's shadow falls far away
    assert added_shadow(lights, casters, 1, points) == pytest.approx(np.zeros(len(points)))
