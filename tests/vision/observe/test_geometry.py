"""Tests that the synthesis engine's shortcuts give exactly what the long way gives: pairs listed
again after a move, geometry derived from the last position's, re-read geometry, the rays'
colours read through a geometry's kept sampling, the camera-place fit's cost table, rays cast
from several camera places at once, and pairs left unworked that cannot beat the outlier cost."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
import pytest

from tests.vision.observe.block_scenes import VariantCamera
from tests.vision.observe.stack_scenes import KIT
from vision.expect import expected_view
from vision.observation import EMPTY
from vision.observe import block_arena
from vision.observe import synthesis as synthesis_module
from vision.observe.calibrate import light_on, register
from vision.observe.casting import FACES, MISS, directions_to, shape_exits, surface_code, within_reach
from vision.observe.geometry import Geometry, ranks_in
from vision.observe.reading import RayCosts, geometry_for, near_cells, place_rays, reread_geometry
from vision.observe.synthesis import (Frame, Synthesis, headroom, matte_costs, prototypes_of, shade_costs, side_density,
                                      top_density)
from vision.pose import CameraPlace

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


def reach_codes(synthesis: Synthesis, context: dict[str, str], cells: np.ndarray, origins: np.ndarray,
                place: CameraPlace) -> np.ndarray:
    """Returns the surface each ray shows from a camera place the long way: every ray cast at every
    shape of every context solid within CONTEXT_REACH of its cell, nothing culled."""
    origin3, direction = (part.reshape(3, -1) for part in directions_to(place, origins))
    t, code = np.full(origin3.shape[1], MISS, np.float32), np.zeros(origin3.shape[1], np.int_)
    for square, label in context.items():
        if label == EMPTY:
            continue
        near = within_reach(synthesis.grid[[synthesis.index[square]]], synthesis.grid[cells], True)[0]
        centre = synthesis.centres[synthesis.index[square]]
        for shape in synthesis.model.labels[label][0]:
            exit_t, face = shape_exits(origin3, direction, centre[None], shape.geometry)
            exit_t = np.where(near, exit_t, MISS).astype(np.float32)
            code = np.where(exit_t > t, surface_code(synthesis.parts[shape.part], face), code)
            t = np.maximum(t, exit_t)
    return np.where(t == MISS, synthesis.ground_code(origins).reshape(-1), code)


def test_rays_cast_from_several_camera_places_at_once_show_what_each_place_alone_shows(arena: dict[str, Any]) -> None:
    synthesis, context = arena["synthesis"], arena["views"][1]
    points, cells = place_rays(synthesis, context)
    origins = points[:, None, None, :]
    x, y, z = synthesis.place.centre
    places = [CameraPlace((x + dx, y + dy, z + dz), synthesis.place.focal_px)
              for dx, dy, dz in ((0, 0, 0), (24, 0, 0), (0, -24, 0), (0, 0, 48), (-12, 6, -24))]
    together = synthesis.codes_from(context, cells, origins, places)
    for place, codes in zip(places, together):
        expected = reach_codes(synthesis, context, cells, origins, place)
        assert np.array_equal(codes.reshape(-1), expected)
        assert np.array_equal(synthesis.moved(place).context_codes(context, cells, origins).reshape(-1), expected)
    assert any(not np.array_equal(together[0], other) for other in together[1:])  # the places see differently
    assert np.any(together[0] < FACES * len(synthesis.ground))  # and the pieces hide some of the mat


def test_pairs_that_cannot_come_near_the_outlier_cost_get_what_working_them_out_gives(
        arena: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    synthesis = arena["synthesis"]
    geometry = synthesis.build(arena["views"][1], ("k",))
    colours = synthesis.frame.ray_colours(geometry)
    prototypes = prototypes_of(synthesis.model, block_arena.new_memory(KIT))
    sides = np.array([0.8, 0.5, np.nan, 0.9])

    def costs() -> np.ndarray:
        """Returns every pair's cost, with the sheens."""
        return shade_costs(synthesis.model, colours, prototypes, 2.0, sides, geometry.pair_ray, geometry.pair_code)

    pruned = costs()
    monkeypatch.setattr(synthesis_module, "headroom", lambda model, norms, spread: np.full(len(norms), -np.inf))
    worked = costs()
    assert np.array_equal(pruned, worked)
    assert np.mean(worked == synthesis.model.outlier_cost) > 0.3  # many pairs were left unworked


def test_no_shade_is_denser_than_the_headroom_allows() -> None:
    model = block_arena.arena_model(KIT)
    rng = np.random.default_rng(6)
    norms = rng.uniform(50.0, 9000.0, 8).astype(np.float32)
    spread = np.sqrt(np.float32(12.0) / norms)
    shade = np.linspace(-1.0, 3.0, 4001, dtype=np.float32)
    for part in range(len(norms)):
        parts = np.full(len(shade), part, np.intp)
        densest = np.exp(0.5 * np.log(float(norms[part])) - float(headroom(model, norms, spread)[part]))
        top = top_density(model, shade.copy(), spread, parts)
        faces = (parts, rng.integers(1, FACES, len(shade)))
        side = side_density(model, shade.copy(), spread, faces, np.array([0.4, 1.0, np.nan, 1.3]))
        assert top.max() <= densest and side.max() <= densest
        assert max(top.max(), side.max()) > 0.9 * densest  # and it is close: a bound that hardly prunes fails


def test_costs_tabled_for_several_sets_of_codes_at_once_are_those_tabled_one_by_one(arena: dict[str, Any]) -> None:
    synthesis = arena["synthesis"]
    rng = np.random.default_rng(7)
    colours = synthesis.frame.colours(rng.uniform(0.0, synthesis.scene.mat.side_mm, (200, 2)))
    prototypes = prototypes_of(synthesis.model, block_arena.new_memory(KIT))
    sets = [rng.integers(0, synthesis.unknown + 1, len(colours)) for _ in range(4)]
    sets.append(sets[0].copy())
    together = RayCosts(synthesis, colours, prototypes).totals(sets)
    alone = RayCosts(synthesis, colours, prototypes)
    assert together == [alone.total(codes) for codes in sets]


def test_ranks_are_where_keys_stand_among_the_known_and_minus_one_elsewhere() -> None:
    known = np.array([2, 5, 9, 40])
    keys = np.array([[9, 2, 3], [40, -1, 41]], np.int32)
    assert ranks_in(known, keys).tolist() == [[2, 0, -1], [3, -1, -1]]
    rng = np.random.default_rng(5)
    known = np.unique(rng.integers(0, 5000, 800))
    keys = rng.integers(-10, 5100, (3, 400)).astype(np.int32)
    where = np.minimum(np.searchsorted(known, keys), len(known) - 1)
    expected = np.where(known[where] == keys, where, -1)
    assert np.array_equal(ranks_in(known, keys), expected)
    assert ranks_in(np.zeros(0, np.int64), keys).tolist() == np.full(keys.shape, -1).tolist()
