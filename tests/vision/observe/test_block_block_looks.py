"""Tests of what BLOCK.BLOCK's rays look like: the sides' colours a position tells, and the
comparison with the last still frame (a new shadow may dim a surface; a new colour does not fit)."""

from __future__ import annotations

import numpy as np

from rules.registry import get_game
from vision.observe.block_block_looks import EITHER, MAX_D2, floored, loglik, same_looks, side_colours
from vision.observe.block_block_search import Cell, Column, tempered

GAME = get_game("block-block")
SQUARES = [f"{f}{r}" for f in "abcde" for r in range(1, 6)]


def test_a_lying_bar3_shows_the_other_colour_on_its_end_faces_only() -> None:
    state = GAME.apply(GAME.initial_state(), "bar3:a1.0b1.0c1.0")
    colours = side_colours(GAME.board(state), SQUARES, 2)
    brown, white = 0, 1
    a1, b1, c1 = (SQUARES.index(square) for square in ("a1", "b1", "c1"))
    assert colours[a1, 0].tolist() == [brown, white, brown, brown]  # +x, -x, +y, -y
    assert colours[c1, 0].tolist() == [white, brown, brown, brown]
    assert colours[b1, 0, 2:].tolist() == [brown, brown]  # its +x and -x faces are hidden
    assert (colours[:, 1] == EITHER).all() and (colours[SQUARES.index("e5")] == EITHER).all()


def test_a_surface_that_kept_its_colour_fits_better_than_one_that_changed() -> None:
    before = np.array([[90.0, 0.0, 3.0]] * 3)
    now = np.array([[90.5, 0.2, 3.1], [55.0, 0.0, 1.8], [92.0, -1.0, 10.0]])  # the same; in a new shadow; white now
    found = same_looks(now, before, np.array([True, True, True]), (1.0, 1.0))
    assert found[0] > found[1] > found[2]
    assert np.isnan(same_looks(now, before, np.array([True, False, True]), (1.0, 1.0))[1])


def test_a_changed_colour_costs_no_less_than_against_a_prototype_it_misses() -> None:
    before = np.array([[90.0, 0.0, 3.0]])
    brown = np.array([[40.0, 12.0, 22.0]])  # a brown top where the mat was
    found = same_looks(brown, before, np.array([True]), (1.0, 1.0))
    assert found[0] <= float(loglik(MAX_D2, floored((1.0, 1.0)))) + 1e-9


def test_only_the_heights_of_one_top_are_tempered() -> None:
    labels = ("empty", "brown@1", "brown@2", "white@1", "white@2")
    cell = Cell(0, np.zeros(0, np.int64), 2, (), (0.0, 0.0), Column(0, "empty"), labels, np.zeros(5),
                np.array([0, 1, 1, 2, 2]), 4.0)
    ll = np.array([0.0, 40.0, 20.0, 10.0, 30.0])
    found = tempered(ll, cell, 2.0)
    assert found.tolist() == [0.0, 20.0, 17.5, 12.5, 15.0]  # tops' best halved; heights in a top by 8
