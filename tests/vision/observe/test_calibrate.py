"""Tests of calibrating a frame against the printed mat: the grid-line registration that undoes
lens distortion, the brightness field and noise, the printed map, quiet cells."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from tests.vision.observe.block_scenes import VariantCamera
from tests.vision.observe.stack_scenes import KIT
from vision.board import BoardTracker
from vision.observation import EMPTY
from vision.observe.calibrate import (Registration, fit_brightness, flatten, ground_parts, light_on, printed,
                                      quiet_cells, register, weighted)
from vision.observe.context import Scene, rgb_to_lab

GAME = "block-arena"
BLOCK = {"kind": "block", "owner": 1, "colour": "light", "orientation": "upright"}


@pytest.fixture(scope="module")
def shot() -> tuple[VariantCamera, Scene]:
    """Returns the dim, noisy, strongly distorted (k1 -0.25) camera and its frame of two blocks,
    the board fixed without correcting the distortion (which the registration then undoes)."""
    camera = VariantCamera(GAME, "9x9", "dim-noisy", 4)
    camera.tracker = BoardTracker(KIT, KIT.mat(GAME, "9x9"), estimate_lens=False)
    board = {"size": 9, "cells": {"c3": [BLOCK], "g7": [BLOCK]}, "off": {"hand": {"1": 2, "2": 4}}}
    return camera, camera.board_scene(board)


def mat_points() -> np.ndarray:
    """Returns points spread over the grid (mm)."""
    ticks = np.linspace(10.0, 278.0, 9)
    return np.array([(x, y) for x in ticks for y in ticks])


def context(*occupied: str) -> dict[str, str]:
    """Returns a 9x9 view with blocks on some squares."""
    view = {f"{chr(97 + f)}{r + 1}": EMPTY for f in range(9) for r in range(9)}
    return {**view, **{square: "light-block-upright" for square in occupied}}


def test_registration_puts_the_mat_where_the_lens_shows_it(shot: tuple[VariantCamera, Scene]) -> None:
    camera, scene = shot
    points = mat_points()
    truth = camera.renderer.camera.project(np.column_stack([points, np.zeros(len(points))]))
    before = np.linalg.norm(scene.view.to_image(points) - truth, axis=1)
    after = np.linalg.norm(scene.view.to_image(register(scene).shift(points)) - truth, axis=1)
    assert float(np.median(before)) > 1.0
    assert float(np.median(after)) < 0.4 and float(after.max()) < 1.0


def test_the_distortion_the_markers_tell_leaves_the_registration_little_to_undo() -> None:
    camera = VariantCamera(GAME, "9x9", "dim-noisy", 4)
    scene = camera.board_scene({"size": 9, "cells": {"c3": [BLOCK]}, "off": {"hand": {"1": 2, "2": 4}}})
    points = mat_points()
    truth = camera.renderer.camera.project(np.column_stack([points, np.zeros(len(points))]))
    assert float(np.median(np.linalg.norm(scene.view.to_image(points) - truth, axis=1))) < 0.6


def test_a_zero_field_moves_nothing() -> None:
    field = Registration(np.zeros(10), np.zeros(10), 288.0)
    assert np.array_equal(field.shift(mat_points()), mat_points())


def test_light_is_read_from_quiet_cells_and_flattened(shot: tuple[VariantCamera, Scene]) -> None:
    _, scene = shot
    lighting = light_on(scene, context("c3", "g7"), register(scene))
    assert lighting is not None and 1.0 < lighting.noise < 10.0
    points = mat_points()
    seen = scene.sample(np.column_stack([points, np.zeros(len(points))]))
    flat = weighted(flatten(seen, points, lighting))
    mat = weighted(rgb_to_lab(tuple(float(v) for v in KIT.mat_rgb)))[0]  # type: ignore[arg-type]
    shade = flat @ mat / float(mat @ mat)
    assert abs(float(np.median(shade)) - 1.0) < 0.05


def test_light_read_where_a_kept_plan_says_is_the_light_read_afresh(shot: tuple[VariantCamera, Scene]) -> None:
    _, scene = shot
    registration, kept = register(scene), {}  # type: ignore[var-annotated]
    for view in (context("c3", "g7"), context("c3"), context("c3", "g7")):
        fresh, planned = light_on(scene, view, registration), light_on(scene, view, registration, kept)
        assert fresh is not None and planned is not None
        assert np.array_equal(fresh.coefficients, planned.coefficients) and fresh.noise == planned.noise
    assert len(kept) == 2  # one plan per set of quiet cells, the second time the first one's


def test_the_brightness_field_follows_the_lit_mat_not_a_dark_quiet_cell() -> None:
    rng = np.random.default_rng(7)
    cells = rng.uniform(-1.0, 1.0, (11, 2)).repeat(9, axis=0) + rng.normal(0.0, 0.03, (99, 2))
    radius = np.sum(cells * cells, axis=1) / 2
    basis = np.column_stack([np.ones(len(cells)), cells, radius, radius * radius])
    truth = np.array([0.95, 0.02, -0.01, -0.1, 0.0])
    lit = basis @ truth
    shade = lit + rng.normal(0.0, 0.01, len(lit))
    shade[:9] *= 0.35  # a dark piece put on one quiet cell
    shade[9:27] *= rng.uniform(0.6, 0.8, 18)  # two more lie in soft shadows
    fitted = fit_brightness(basis, shade)
    assert float(np.max(np.abs(basis @ fitted - lit))) < 0.03


def test_no_light_is_read_without_an_empty_cell(shot: tuple[VariantCamera, Scene]) -> None:
    _, scene = shot
    full = {square: "light-block-upright" for square in context()}
    assert light_on(scene, full, register(scene)) is None
    assert np.array_equal(flatten(np.ones((2, 3)), np.zeros((2, 2)), None), np.ones((2, 3)))


def test_quiet_cells_keep_away_from_pieces(shot: tuple[VariantCamera, Scene]) -> None:
    _, scene = shot
    quiet = quiet_cells(scene, context("e5"))
    assert "e5" not in quiet and "d4" not in quiet and "f6" not in quiet and "a1" in quiet
    crowded = context(*[f"{chr(97 + f)}{r + 1}" for f in range(9) for r in range(9) if (f + r) % 2 == 0])
    assert set(quiet_cells(scene, crowded)) == {square for square, label in crowded.items() if label == EMPTY}


@pytest.mark.parametrize("point, part", [((16.0, 16.0), "mat"), ((32.0, 100.0), "grid"),
                                          ((-20.0, -20.0), None), ((400.0, 400.0), "off")])
def test_the_printed_map_knows_the_mat_the_lines_and_the_markers(point: tuple[float, float], part: Any) -> None:
    found = int(printed(KIT, KIT.mat(GAME, "9x9")).at(np.array([point]))[0])
    names = list(ground_parts(KIT))
    if part is None:
        assert names[found] in ("ink", "paper")
    elif part == "off":
        assert found >= len(names)
    else:
        assert names[found] == part
