"""Tests that the synthesis engine's shortcuts give exactly what the long way gives: pairs listed
again after a move, geometry derived from the last position's, re-read geometry, the rays'
colours read through a geometry's kept sampling, and the camera-place fit's cost table."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
import pytest

from tests.vision.observe.block_scenes import VariantCamera
from tests.vision.observe.stack_scenes import KIT
from vision.expect import expected_view
from vision.observe import block_arena
from vision.observe.calibrate import light_on, register
from vision.observe.geometry import Geometry
from vision.observe.reading import RayCosts, geometry_for, near_cells, reread_geometry
from vision.observe.synthesis import Frame, Synthesis, matte_costs, prototypes_of

PAIRED = ("primary", "secondary", "pair_ray", "pair_code", "primary_pair", "secondary_pair")
MOVES = ["+a1", "+a9b9", "+c1d1", "+e9", "+f1", "+g9", "+h1i1", "+h9", "M+a1", "M+e9"]


def random_geometry(rng: np.random.Generator, shape: tuple[int, int, int], surfaces: int) -> Geometry:
    """Returns a geometry whose predictions (V x C x R) are random surface codes, a few rays unsure."""
    primary = rng.integers(0, surfaces, shape).astype(np.int16)
    secondary = np.where(rng.random(shape) < 0.3, rng.integers(0, surfaces, shape), primary).astype(np.int16)
    origins = np.zeros((shape[1], shape[2], 1, 2))
    return Geometry((), {}, origins, np.zeros(0, np.float32), np.zeros(0, np.uint8), primary, secondary,
                    np.zeros((0, 2)))


def same_pairs(one: Geometry, other: Geometry) -> bool:
    """Tells whether two geometries predict alike and list the same pairs in the same order."""
    return all(np.array_equal(getattr(one, name), getattr(other, name)) for name in PAIRED)


def test_pairs_listed_again_after_some_cells_change_are_those_a_fresh_listing_gives() -> None:
    rng = np.random.default_rng(3)
    for _ in range(60):
        shape = (int(rng.integers(1, 6)), int(rng.integers(1, 12)), int(rng.integers(1, 9)))
        surfaces = int(rng.integers(2, 7))
        base = random_geometry(rng, shape, surfaces)
        base.pair_up(surfaces)
        cells = np.sort(rng.choice(shape[1], int(rng.integers(0, shape[1] + 1)), replace=False))
        changed = random_geometry(rng, shape, surfaces)
        again = replace(base, primary=base.primary.copy(), secondary=base.secondary.copy())
        again.primary[:, cells], again.secondary[:, cells] = changed.primary[:, cells], changed.secondary[:, cells]
        fresh = replace(again, primary=again.primary.copy(), secondary=again.secondary.copy())
        again.pair_again(base, cells, surfaces)
        fresh.pair_up(surfaces)
        assert same_pairs(again, fresh)


@pytest.fixture(scope="module")
def arena() -> dict[str, Any]:
    """Returns a Block Arena scene after a few moves, its synthesis and the positions before and after."""
    camera = VariantCamera("block-arena", "9x9", "high-cool", 8)
    before, after = camera.game.play_all(MOVES[:7]), camera.game.play_all(MOVES)
    scene = camera.scene(after)
    registration = register(scene)
    views = [expected_view("block-arena", camera.game.board(state)) for state in (before, after)]
    frame = Frame(scene, registration, light_on(scene, views[1], registration))
    return {"synthesis": Synthesis(block_arena.arena_model(KIT), frame, scene.place), "views": views}


def test_a_position_after_a_move_gets_the_geometry_a_fresh_build_gives(arena: dict[str, Any]) -> None:
    synthesis, (before, after) = arena["synthesis"], arena["views"]
    memory = block_arena.new_memory(KIT)
    base = geometry_for(synthesis, before, (1, 2, "before"), memory)
    derived = geometry_for(synthesis, after, (1, 2, "after"), memory)
    assert derived is not base and derived.origins is base.origins  # derived, not built
    assert same_pairs(derived, synthesis.build(after, (1, 2, "after")))


def test_predicting_only_the_rays_the_context_shows_otherwise_gives_every_rays_prediction(
        arena: dict[str, Any]) -> None:
    synthesis, (before, after) = arena["synthesis"], arena["views"]
    geometry = synthesis.build(before, ("k",))
    assert geometry.seen is not None
    cells = np.arange(len(synthesis.squares))
    quick = replace(geometry, primary=geometry.primary.copy(), secondary=geometry.secondary.copy())
    forgot = replace(geometry.seen, exit=np.full_like(geometry.seen.exit, np.nan))  # every ray looks new
    slow = replace(geometry, primary=geometry.primary.copy(), secondary=geometry.secondary.copy(), seen=forgot)
    synthesis.predict(quick, after, cells)
    synthesis.predict(slow, after, cells)
    assert np.array_equal(quick.primary, slow.primary) and np.array_equal(quick.secondary, slow.secondary)
    assert not np.array_equal(quick.primary, geometry.primary)  # the move changed some predictions
    assert quick.seen is not None and slow.seen is not None
    assert np.array_equal(quick.seen.exit, slow.seen.exit) and np.array_equal(quick.seen.code, slow.seen.code)


def test_a_re_read_copy_predicts_again_what_the_near_cells_would(arena: dict[str, Any]) -> None:
    synthesis, (before, after) = arena["synthesis"], arena["views"]
    geometry = synthesis.build(after, ("k",))
    doubted = {square: label for square, label in before.items() if after[square] != label}
    current = {**after, **doubted}
    near = near_cells(synthesis, list(doubted))
    again = reread_geometry(synthesis, geometry, current, near, ("k", "again"))
    expected = replace(geometry, primary=geometry.primary.copy(), secondary=geometry.secondary.copy())
    synthesis.predict(expected, current, near)
    expected.extend_pairs(geometry, near, synthesis.unknown + 1)
    assert same_pairs(again, expected) and again.shared == expected.shared


def test_the_rays_colours_read_through_the_kept_sampling_are_those_read_afresh(arena: dict[str, Any]) -> None:
    synthesis = arena["synthesis"]
    geometry = synthesis.build(arena["views"][1], ("k",))
    fresh = synthesis.frame.colours(geometry.origins[:, :, 0], geometry.pixels)
    assert np.array_equal(synthesis.frame.ray_colours(geometry), fresh)
    assert geometry.sampling is not None and np.array_equal(synthesis.frame.ray_colours(geometry), fresh)


def test_the_place_fits_cost_table_sums_what_the_costs_themselves_give(arena: dict[str, Any]) -> None:
    synthesis = arena["synthesis"]
    rng = np.random.default_rng(4)
    colours = synthesis.frame.colours(rng.uniform(0.0, synthesis.scene.mat.side_mm, (300, 2)))
    prototypes = prototypes_of(synthesis.model, block_arena.new_memory(KIT))
    table = RayCosts(synthesis, colours, prototypes)
    for _ in range(3):
        codes = rng.integers(0, synthesis.unknown + 1, len(colours))
        costs = matte_costs(synthesis.model, colours, prototypes, synthesis.frame.noise, None,
                            np.arange(len(colours)), codes)
        assert table.total(codes) == float(costs.sum())
