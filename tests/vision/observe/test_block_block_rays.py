"""Tests of BLOCK.BLOCK's ray geometry: the pairs found near each column are every pair that
meets it, with the heights and side a direct calculation gives, and each ray's first surfaces."""

from __future__ import annotations

import numpy as np

from vision.observe.block_block_rays import (
    EDGE_HEIGHT_MM, EDGE_MM, Grid, axis_interval, cast, first_hits, meet, near_edge, pair_heights, per_ray_table,
    ray_grid, steps_of, within,
)
from vision.pose import CameraPlace

PLACE = CameraPlace((20.0, -30.0, 600.0), 600.0)
BOXES = np.array([[0.0, 25.5, 0.0, 25.5], [26.5, 52.0, 0.0, 25.5], [80.0, 105.5, 100.0, 125.5]])
REACH = np.array([100.0, 25.0, 200.0])


def grid() -> Grid:
    """Returns a 2 mm ray grid over the columns and well beyond."""
    return ray_grid(np.array([-60.0, 200.0, -60.0, 220.0]), 2.0, 30000)


def direct(ground: np.ndarray, boxes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Returns the heights (rays x columns) between which each ray runs inside each footprint."""
    step = (np.array(PLACE.centre[:2]) - ground) / PLACE.centre[2]
    rays, cols = np.meshgrid(np.arange(len(ground)), np.arange(len(boxes)), indexing="ij")
    lo_x, hi_x = axis_interval(ground[rays, 0], step[rays, 0], boxes[cols, 0], boxes[cols, 1])
    lo_y, hi_y = axis_interval(ground[rays, 1], step[rays, 1], boxes[cols, 2], boxes[cols, 3])
    return np.maximum(np.maximum(lo_x, lo_y), 0.0), np.minimum(hi_x, hi_y)


def test_every_ray_that_meets_a_column_below_its_reach_is_paired_with_it() -> None:
    rays = cast(grid(), BOXES, PLACE, REACH)
    low, high = direct(rays.grid.ground, BOXES)
    expected = {(int(r), int(c)) for r, c in zip(*np.nonzero((low < high) & (low < REACH[None, :])))}
    assert set(zip(rays.ray.tolist(), rays.col.tolist())) == expected
    assert len(expected) > 100
    assert np.allclose(rays.low, low[rays.ray, rays.col]) and np.allclose(rays.high, high[rays.ray, rays.col])


def test_a_ray_comes_in_by_the_side_that_faces_the_camera() -> None:
    rays = cast(grid(), BOXES[2:], PLACE, REACH[2:])  # the camera's nadir lies at lower x and y
    sides = set(rays.face[rays.high < 200.0].tolist())
    assert sides <= {2, 4} and sides == {2, 4}


def test_the_first_surface_is_the_highest_a_ray_meets_and_the_second_the_next() -> None:
    rays = cast(grid(), BOXES[:2], PLACE, np.array([200.0, 200.0]))
    both = np.nonzero(np.bincount(rays.ray, minlength=rays.count) == 2)[0]
    assert len(both)
    z, _ = pair_heights(rays, np.array([150.0, 150.0]))
    pair_ll = np.where(rays.col == 0, -1.0, -2.0)
    hits = first_hits(rays, pair_ll, np.full(rays.count, -9.0), z)
    ray = both[0]
    met = np.sort(z[rays.ray == ray])[::-1]
    assert hits.z[ray] == met[0] and hits.second_z[ray] == met[1]
    assert hits.ll[ray] == pair_ll[hits.pair[ray]] and hits.second_ll[ray] in (-1.0, -2.0)
    alone = np.setdiff1d(np.arange(rays.count), rays.ray)[0]
    assert hits.pair[alone] == -1 and hits.ll[alone] == -9.0


def test_the_table_lists_each_rays_pairs_in_order_and_within_trims_it() -> None:
    rays = within(cast(grid(), BOXES, PLACE, REACH), np.array([60.0, 25.0, 30.0]))
    assert np.all(rays.low < np.array([60.0, 25.0, 30.0])[rays.col])
    for row in (0, len(rays.rows) // 2, len(rays.rows) - 1):
        listed = rays.table[row][rays.table[row] >= 0]
        assert listed.tolist() == np.nonzero(rays.ray == rays.rows[row])[0].tolist()
        assert rays.row_of[rays.rows[row]] == row
    assert np.count_nonzero(rays.row_of >= 0) == len(np.unique(rays.ray)) == len(rays.rows)
    table, rows, row_of = per_ray_table(np.array([5, 2, 5, 5, 0], np.int64), 7)
    assert table.tolist() == [[4, -1, -1], [1, -1, -1], [0, 2, 3]] and rows.tolist() == [0, 2, 5]
    assert row_of.tolist() == [0, -1, 1, -1, -1, 2, -1]


def test_a_rays_step_runs_from_its_mat_point_towards_the_camera_centre() -> None:
    rays = cast(grid(), BOXES, PLACE, REACH)
    ray = rays.ray[:50]
    points = rays.grid.ground[ray] + rays.steps(ray) * PLACE.centre[2]
    assert np.allclose(points, np.array(PLACE.centre[:2]))


def test_a_ray_is_by_an_edge_only_close_to_the_top_edge_of_the_side_it_comes_in_by() -> None:
    place, top = CameraPlace((20.0, -300.0, 600.0), 600.0), 100.0  # rays come in steeply by the side y = 0
    cz = place.centre[2]
    at = np.array([[12.75, 0.5 * EDGE_MM], [12.75, 3.0 * EDGE_MM], [12.75, -0.5 * EDGE_MM],
                   [12.75, 25.5 - 0.5 * EDGE_MM], [0.5 * EDGE_MM, 12.75]])  # where each ray runs at the top's height
    ground = (at - top * np.array(place.centre[:2]) / cz) / (1.0 - top / cz)
    low, high, face, rate = meet(ground, steps_of(place, ground), np.repeat(BOXES[:1], len(at), axis=0), cz - 1.0)
    assert face[0] == 4 and low[2] < top
    assert near_edge(rate, high, np.full(len(at), top)).tolist() == [True, False, True, False, False]


def test_a_steep_rays_edge_band_never_spans_a_cubes_height() -> None:
    rays = cast(grid(), BOXES, PLACE, REACH)
    heights = rays.high[rays.high < 200.0]
    for gap in (-1.01 * EDGE_HEIGHT_MM, 1.01 * EDGE_HEIGHT_MM):
        assert not near_edge(rays.rate[rays.high < 200.0], heights, heights + gap).any()
    assert near_edge(rays.rate, rays.high, rays.high).any()
