"""Tests of the analysis-by-synthesis engine's parts: casting rays at boxes and cylinders, the
jittered casts, the shade-aware colour costs, and fitting the camera place on the pieces."""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pytest

from tests.vision.observe.block_scenes import VariantCamera
from tests.vision.observe.stack_scenes import KIT
from vision.board import BoardTracker
from vision.expect import expected_view
from vision.observe import block_arena
from vision.observe.calibrate import light_on, register
from vision.observe.context import rgb_to_lab
from vision.observe.reading import camera_place, pattern_search, unique_rows
from vision.observe.casting import (FACES, MISS, FloatArray, box_exits, cylinder_exits, passes_over, passes_over_from,
                                    shape_exits, shapes_exits, split_casts)
from vision.observe.synthesis import Frame, Placed, shade_costs
from vision.pose import CameraPlace

LO = np.array([-10.0, -10.0, 0.0], np.float32)[:, None, None]  # components first, as box_exits takes them
HI = np.array([10.0, 10.0, 20.0], np.float32)[:, None, None]
EAST, SOUTH = (300.0, 0.0, 500.0), (0.0, -300.0, 500.0)  # cameras off to +x and to -y


def rays(camera: tuple[float, float, float], *grounds: tuple[float, float]) -> tuple[np.ndarray, np.ndarray]:
    """Returns rays from ground points to a camera (components first: 3 x 1 x N)."""
    origins = np.array([[[x, y, 0.0] for x, y in grounds]], np.float32)
    return np.moveaxis(origins, -1, 0), np.moveaxis(np.array(camera, np.float32) - origins, -1, 0)


@pytest.mark.parametrize("exits_of", [box_exits, cylinder_exits])
def test_a_ray_leaves_a_solid_by_the_face_turned_to_the_camera(exits_of: object) -> None:
    origins, directions = rays(EAST, (5.0, 0.0), (-5.0, 0.0), (60.0, 0.0))
    exits, faces = exits_of(origins, directions, LO, HI)  # type: ignore[operator]
    assert faces[0, 0] == 1 and exits[0, 0] == pytest.approx(5.0 / 295.0, rel=1e-4)  # the +x side
    assert faces[0, 1] == 0 and exits[0, 1] == pytest.approx(20.0 / 500.0)  # the top
    assert exits[0, 2] == MISS
    origins, directions = rays(SOUTH, (0.0, -5.0))
    assert exits_of(origins, directions, LO, HI)[1][0, 0] == 4  # type: ignore[operator]  # the -y side


def test_shapes_cast_together_leave_where_each_cast_alone_does() -> None:
    rng = np.random.default_rng(2)
    centres = rng.uniform(0.0, 200.0, (6, 2))
    ground = centres[:, None, None, :] + rng.uniform(-20.0, 20.0, (6, 9, 3, 2))
    origins = np.moveaxis(np.concatenate([ground, np.zeros(ground.shape[:-1] + (1,))], axis=-1), -1, 0)
    directions = np.array(EAST, np.float32).reshape(3, 1, 1, 1) - origins
    shapes = [((-8.0, -4.0, 0.0), (8.0, 4.0, 30.0), False), ((-3.0, -4.0, 30.0), (3.0, 4.0, 50.0), False),
              ((-8.0, -4.0, 30.0), (8.0, 4.0, 40.0), False), ((-6.0, -6.0, 0.0), (6.0, 6.0, 20.0), True)]
    exits, faces = shapes_exits(origins.astype(np.float32), directions.astype(np.float32), centres, shapes)
    for s, shape in enumerate(shapes):
        alone = shape_exits(origins.astype(np.float32), directions.astype(np.float32), centres, shape)
        assert np.array_equal(exits[s], alone[0]) and np.array_equal(faces[s], alone[1])
    assert np.any(exits > MISS) and np.any(exits == MISS)


def test_a_cylinder_misses_the_corners_of_its_box() -> None:
    origins, directions = rays((0.0, 0.0, 500.0), (9.5, 9.5), (0.0, 0.0))
    exits, faces = cylinder_exits(origins, directions, LO, HI)
    assert exits[0, 0] == MISS and faces[0, 1] == 0


def test_jittered_casts_name_a_second_surface_only_where_they_disagree() -> None:
    primary, secondary = split_casts(np.array([[3, 3, 3, 3, 3], [3, 3, 7, 3, 3]]))
    assert primary.tolist() == [3, 3] and secondary.tolist() == [3, 7]


def test_shade_decides_between_a_top_and_a_side_of_one_colour() -> None:
    model = block_arena.arena_model(KIT)
    part = list(model.parts).index("light-block")
    maple = rgb_to_lab(KIT.colours["block-arena"]["light-block"])
    dim = rgb_to_lab(tuple(0.55 * v for v in KIT.colours["block-arena"]["light-block"]))  # type: ignore[arg-type]
    colours = np.vstack([maple, dim])
    prototypes = np.array([rgb_to_lab((float(r), float(g), float(b))) for r, g, b in model.parts.values()])
    top, side = FACES * part, FACES * part + 1
    sides = np.array([0.55, np.nan, np.nan, np.nan])
    costs = shade_costs(model, colours, prototypes, 1.0, sides, np.array([0, 0, 1, 1]),
                        np.array([top, side, top, side]))
    assert costs[0] < costs[1] and costs[3] < costs[2]
    walnut = FACES * list(model.parts).index("dark-block")
    far = shade_costs(model, colours, prototypes, 1.0, sides, np.array([0]), np.array([walnut]))
    assert far[0] == pytest.approx(model.outlier_cost)
    unknown = shade_costs(model, colours, prototypes, 1.0, None, np.array([0]), np.array([FACES * len(prototypes)]))
    assert unknown[0] == model.unknown_cost


def test_the_camera_place_is_fitted_on_the_pieces() -> None:
    camera = VariantCamera("block-arena", "9x9", "high-cool", 8)
    camera.tracker = BoardTracker(KIT, KIT.mat("block-arena", "9x9"), estimate_lens=False)
    state = camera.game.play_all(["+a1", "+a9b9", "+c1d1", "+e9", "+f1", "+g9", "+h1i1", "+h9", "M+a1", "M+e9"])
    scene = camera.scene(state)
    context = expected_view("block-arena", camera.game.board(state))
    registration = register(scene)
    frame = Frame(scene, registration, light_on(scene, context, registration))
    fitted = camera_place(block_arena.arena_model(KIT), frame, context, block_arena.new_memory(KIT))
    truth = camera.renderer.camera.centre
    prior = float(np.linalg.norm(np.array(scene.place.centre) - truth))
    assert prior > 30.0  # the board fix with the lens prior alone is far off
    assert float(np.linalg.norm(np.array(fitted.centre) - truth)) < min(25.0, prior / 2)
    assert isinstance(fitted, CameraPlace)


def test_the_distortion_the_markers_tell_places_the_camera_before_any_piece_does() -> None:
    camera = VariantCamera("block-arena", "9x9", "high-cool", 8)
    truth = camera.renderer.camera.centre
    told = camera.scene(camera.game.initial_state())
    camera.tracker = BoardTracker(KIT, KIT.mat("block-arena", "9x9"), estimate_lens=False)
    plain = camera.scene(camera.game.initial_state())
    assert float(np.linalg.norm(np.array(plain.place.centre) - truth)) > 30.0
    assert float(np.linalg.norm(np.array(told.place.centre) - truth)) < 10.0


def test_a_refit_leaves_a_kept_camera_place_that_the_pieces_show_is_wrong() -> None:
    camera = VariantCamera("block-arena", "9x9", "high-cool", 8)
    state = camera.game.play_all(["+a1", "+a9b9", "+c1d1", "+e9", "+f1", "+g9", "+h1i1", "+h9", "M+a1", "M+e9"])
    scene = camera.scene(state)
    context = expected_view("block-arena", camera.game.board(state))
    registration = register(scene)
    frame = Frame(scene, registration, light_on(scene, context, registration))
    truth = camera.renderer.camera.centre
    memory = block_arena.new_memory(KIT)
    wrong = CameraPlace((float(truth[0]), float(truth[1]) - 20.0, float(truth[2]) - 120.0), scene.place.focal_px)
    memory.placed = Placed(scene.view.homography.tobytes(), wrong, 2)  # fitted on two pieces; now ten
    fitted = camera_place(block_arena.arena_model(KIT), frame, context, memory)
    assert float(np.linalg.norm(np.array(fitted.centre) - truth)) < 25.0


def test_a_cell_whose_rays_meet_a_box_is_never_culled() -> None:
    rng = np.random.default_rng(5)
    camera = (40.0, -30.0, 600.0)
    outcomes = set()
    for _ in range(200):
        ground = rng.uniform(-100.0, 100.0, (1, 1, 2)) + rng.uniform(-10.0, 10.0, (1, 30, 2))
        origins, directions = rays(camera, *map(tuple, ground[0]))
        lo = np.append(rng.uniform(-30.0, 10.0, 2), 0.0).astype(np.float32)
        hi = (lo + rng.uniform(5.0, 60.0, 3)).astype(np.float32)
        met = bool(np.any(box_exits(origins, directions, lo[:, None, None], hi[:, None, None])[0] > MISS))
        kept = bool(passes_over(ground.min(axis=1), ground.max(axis=1), lo, hi, camera)[0])
        assert kept or not met
        outcomes.add((met, kept))
    assert {(True, True), (False, False)} <= outcomes  # cells were kept and cells were culled


def test_cells_culled_for_several_cameras_at_once_are_those_culled_for_each() -> None:
    rng = np.random.default_rng(8)
    ground = rng.uniform(-100.0, 100.0, (300, 1, 2)) + rng.uniform(-10.0, 10.0, (300, 4, 2))
    low, high = ground.min(axis=1), ground.max(axis=1)
    lo, hi = np.array([-20.0, -5.0, 0.0], np.float32), np.array([15.0, 25.0, 60.0], np.float32)
    cameras = np.array([(40.0, -30.0, 600.0), (-200.0, 10.0, 450.0), (0.0, 0.0, 40.0)])
    together = passes_over_from(low, high, lo, hi, cameras)
    for camera, kept in zip(cameras, together):
        assert np.array_equal(kept, passes_over(low, high, lo, hi, tuple(camera)))
    assert together.any() and not together.all() and not np.array_equal(together[0], together[1])


def test_distinct_rows_come_sorted_as_numpy_sorts_them() -> None:
    rng = np.random.default_rng(9)
    points = np.round(rng.uniform(-50.0, 50.0, (400, 2)), 0)
    points = np.vstack([points, points[::3], [[-0.0, 1.0], [0.0, 1.0]]])
    found = unique_rows(points)
    assert np.array_equal(found, np.unique(points, axis=0)) and len(found) < len(points)


def test_the_pattern_search_finds_the_same_point_with_or_without_the_starts_cost() -> None:
    target = np.array([30.0, -18.0, 500.0])
    asked: list[int] = []

    def costs(points: Sequence[FloatArray]) -> list[float]:
        """Returns a bowl's cost at each point (flat near the bottom), noting how many were asked at once."""
        asked.append(len(points))
        return [float(np.floor(np.sum(np.abs(point - target)) / 8.0) * 20.0) for point in points]

    start = np.array([0.0, 0.0, 540.0])
    steps = [(24.0, 48.0), (12.0, 24.0), (6.0, 12.0)]
    given = pattern_search(costs, start, costs([start])[0], steps)
    asked.clear()
    found = pattern_search(costs, start, None, steps)
    assert np.array_equal(found, given) and not np.array_equal(found, start)
    assert asked[0] == 7 and set(asked[1:]) == {6}  # the start's cost came with the first trials
