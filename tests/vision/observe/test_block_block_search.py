"""Tests for BLOCK.BLOCK's search moves that change neighbouring columns together."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import numpy as np

from vision.observation import EMPTY
from vision.observe.block_block_looks import Looks
from vision.observe.block_block_rays import Rays, cast, first_hits, near_edge, pair_heights, ray_grid
from vision.observe.block_block_search import (
    EARLY_HALF_NATS, Cell, Column, Sight, cell_scores, changed_groups, either, group_trials, guess_arrays, hits_for, search_cells,
    posterior, sight_of, solve,
)
from vision.observe import block_block_search as search
from vision.pose import CameraPlace

PITCH = 26.0


def cells_of(columns: list[Column]) -> list[Cell]:
    """Returns a row of cells (one file apart) for some columns, with no rays."""
    sight: Any = SimpleNamespace(rays=SimpleNamespace(col=np.zeros(0, np.int64)))
    centres = [(PITCH * i, 0.0) for i in range(len(columns))]
    return search_cells(sight, columns, [f"{chr(97 + i)}1" for i in range(len(columns))], centres, 4)


def choice(cells: list[Cell], labels: list[str]) -> list[int]:
    """Returns the choice of some labels."""
    return [cell.labels.index(label) for cell, label in zip(cells, labels)]


def test_groups_are_the_changed_columns_neighbours_and_all_changed() -> None:
    cells = cells_of([Column(1, "white")] * 4)
    chosen = choice(cells, ["white@1", "white@2", "white@2", "white@2"])
    assert changed_groups(cells, chosen) == [(0, 1), (1, 2), (2, 3), (1, 2, 3)]


def test_no_group_when_nothing_changed() -> None:
    cells = cells_of([Column(1, "white"), Column(0, "empty")])
    assert changed_groups(cells, choice(cells, ["white@1", "empty"])) == []


def test_a_pair_is_tried_a_cube_up_a_cube_down_and_level() -> None:
    cells = cells_of([Column(1, "white")] * 2)
    chosen = choice(cells, ["white@2", "white@3"])
    tried = [[cells[i].labels[k] for i, k in enumerate(trial)] for trial in group_trials(cells, chosen, (0, 1))]
    assert tried == [["white@3", "white@4"], ["white@1", "white@2"], ["white@3", "white@3"], ["white@2", "white@2"]]


def test_an_empty_column_is_never_moved() -> None:
    cells = cells_of([Column(1, "brown"), Column(0, "empty")])
    chosen = choice(cells, ["brown@2", "empty"])
    assert group_trials(cells, chosen, (0, 1)) == []


START = [Column(1, "brown"), Column(0, EMPTY), Column(2, "white")]


def three_column_rays() -> Rays:
    """Returns the rays of a camera over three columns (a1, b1, a2) on a 26 mm grid."""
    place = CameraPlace((30.0, -40.0, 500.0), 600.0)
    boxes = np.array([[0.0, 25.5, 0.0, 25.5], [26.5, 52.0, 0.0, 25.5], [0.0, 25.5, 26.5, 52.0]])
    return cast(ray_grid(np.array([-20.0, 150.0, -20.0, 150.0]), 1.0, 40000), boxes, place, np.full(3, 150.0))


def three_cells(sight: Sight) -> list[Cell]:
    """Returns the searches of the three columns (a1, b1, a2) from START, three cubes ahead."""
    return search_cells(sight, START, ["a1", "b1", "a2"], [(12.75, 12.75), (39.25, 12.75), (12.75, 39.25)], 3)


def test_each_candidates_score_is_the_whole_guess_likelihood_with_edges_either_way() -> None:
    start, rays = START, three_column_rays()
    rng = np.random.default_rng(3)
    look = Looks(-rng.uniform(0, 9, rays.count), -rng.uniform(0, 9, (3, rays.count)),
                 -rng.uniform(0, 9, (3, rays.count)))
    sight = sight_of(rays, look, rng.integers(0, 3, (3, 8, 4)), start, 25.0, 1.0)
    cells = three_cells(sight)
    held = ["brown@3", "white@2", "white@4"]
    hits = hits_for(sight, *guess_arrays(held, 25.0))
    edges = 0
    for cell in cells:
        scores = cell_scores(sight, hits, cell) - cell.prior
        whole = []
        for label in cell.labels[:-len(cell.half_levels)]:
            heights, tops = guess_arrays([label if i == cell.index else other for i, other in enumerate(held)], 25.0)
            whole.append(float(hits_for(sight, heights, tops).ll.sum()))
            edges += int(near_edge(rays.rate, rays.high, heights[rays.col]).sum())
        assert np.allclose(scores[:len(whole)] - scores[0], np.array(whole) - whole[0])
    assert edges > 0


def remembering_sight() -> Sight:
    """Returns a sight of three columns with random looks that keep some of a last frame's."""
    start, rays = START, three_column_rays()
    rng = np.random.default_rng(5)
    same = np.where(rng.uniform(size=rays.count) < 0.5, -rng.uniform(0, 9, rays.count), np.nan)
    look = Looks(-rng.uniform(0, 9, rays.count), -rng.uniform(0, 9, (3, rays.count)),
                 -rng.uniform(0, 9, (3, rays.count)), same, rng.integers(0, 4, rays.count))
    return sight_of(rays, look, rng.integers(0, 3, (3, 8, 4)), start, 25.0, 1.0)


def test_a_sights_tops_are_the_looks_tops_on_every_call() -> None:
    sight = remembering_sight()
    for tops in ([0, 1, 2], [2, 0, 1], [1, 1, 0], [0, 2, 2]):
        wanted = sight.look.pair_top(sight.rays, np.array(tops, np.int64))
        assert np.array_equal(sight.pair_top(np.array(tops, np.int64)), wanted)
    assert "tops" in sight.kept


def test_hits_show_either_surface_just_by_a_tops_edge() -> None:
    sight, rays = remembering_sight(), remembering_sight().rays
    for labels in (["brown@3", "white@2", "white@4"], ["half@2", EMPTY, "brown@1"]):
        heights, tops = guess_arrays(labels, 25.0)
        z, on_top = pair_heights(rays, heights)
        top = sight.look.pair_top(rays, tops)
        near = near_edge(rays.rate, rays.high, heights[rays.col])
        pair_ll = np.where(near, either(top, sight.side), np.where(on_top, top, sight.side))
        wanted, found = first_hits(rays, pair_ll, sight.mat, z), hits_for(sight, heights, tops)
        assert near.any()
        for name in ("pair", "z", "ll", "second_z", "second_ll"):
            assert np.array_equal(getattr(found, name), getattr(wanted, name)), name


def test_a_new_half_costs_more_only_while_it_cannot_come() -> None:
    columns = [Column(0, EMPTY), Column(2, "white"), Column(1, "half")]
    sight: Any = SimpleNamespace(rays=SimpleNamespace(col=np.zeros(0, np.int64)))
    centres = [(PITCH * i, 0.0) for i in range(3)]
    due = search_cells(sight, columns, ["a1", "b1", "c1"], centres, 4)
    early = search_cells(sight, columns, ["a1", "b1", "c1"], centres, 4, half_due=False)
    for now, before, column in zip(early, due, columns):
        new = now.labels.index(f"half@{column.height + 1}")
        assert now.prior[new] == before.prior[new] - EARLY_HALF_NATS
        others = [i for i in range(len(now.labels)) if i != new]
        assert np.array_equal(now.prior[others], before.prior[others])
    assert early[2].prior[early[2].labels.index("half@1")] == 0.0  # a half already down stays as likely


def test_a_trial_settling_back_to_the_settled_guess_returns_it_unchanged() -> None:
    sight = remembering_sight()
    cells = three_cells(sight)
    home = solve(sight, cells)
    came_home = 0
    for index in range(len(cells)):
        for label in cells[index].labels:
            trial = list(home[0])
            trial[index] = cells[index].labels.index(label)
            plain = solve(sight, cells, trial, known=(home[1], list(range(len(cells)))))
            found = solve(sight, cells, trial, known=(home[1], list(range(len(cells)))), home=home)
            assert found[0] == plain[0]
            assert (found is home) == (plain[0] == home[0])
            came_home += found is home
    assert 0 < came_home


def test_only_lift_trials_near_the_settled_guess_are_settled(monkeypatch: Any) -> None:
    sight = remembering_sight()
    cells = three_cells(sight)
    found = solve(sight, cells, choice(cells, ["brown@2", "white@1", "white@3"]))
    value = posterior(sight, cells, found[0])
    tried = [trial for group in changed_groups(cells, found[0]) for trial in group_trials(cells, found[0], group)]
    settled: list[list[int]] = []
    monkeypatch.setattr(search, "solve", lambda s, c, trial, **kw: (settled.append(list(trial)), kw["home"])[1])
    assert search.lift_together(sight, cells, found) is found
    far = [trial for trial in tried if posterior(sight, cells, trial) < value - search.LIFT_SLACK]
    assert far and len(far) < len(tried)
    assert settled == [trial for trial in tried if trial not in far]
