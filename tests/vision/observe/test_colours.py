"""Tests of the shared colour prototypes: nominal priors, robust learning, distances, softmax."""

from __future__ import annotations

import math

import numpy as np
import pytest

from vision.observe.colours import (ColourError, ColourMemory, lab_distance, probabilities, probability_table,
                                    robust_centre)
from vision.observe.context import rgb_to_lab

CREAM, MAT = (240, 225, 190), (235, 232, 225)


def memory() -> ColourMemory:
    """Returns a memory of two nominal colours with the default settings."""
    return ColourMemory({"cream": CREAM, "mat": MAT})


def test_prototypes_start_at_the_nominal_colours() -> None:
    kept = memory()
    assert kept.names == ("cream", "mat")
    assert np.allclose(kept.lab("cream"), rgb_to_lab(CREAM))


def test_learning_pulls_towards_the_median_weighed_against_the_prior() -> None:
    kept = memory()
    target = rgb_to_lab(CREAM) + np.array([0.0, 2.0, -4.0])
    assert kept.learn("cream", np.tile(target, (8, 1)))
    expected = (rgb_to_lab(CREAM) * 4 + target * 8) / 12
    assert np.allclose(kept.lab("cream"), expected)


def test_a_few_wrong_cells_do_not_drag_a_prototype() -> None:
    rng = np.random.default_rng(3)
    kept = memory()
    right = rgb_to_lab(MAT) + rng.normal(0, 0.5, (20, 3))
    wrong = np.tile(rgb_to_lab((60, 60, 65)), (3, 1))
    kept.learn("mat", np.vstack([right, wrong]))
    assert float(lab_distance(kept.lab("mat"), rgb_to_lab(MAT))[0]) < 1.0


def test_too_few_cells_or_a_colour_far_from_nominal_changes_nothing() -> None:
    kept = memory()
    assert not kept.learn("mat", np.tile(rgb_to_lab(MAT) + 3, (2, 1)))
    assert not kept.learn("mat", np.tile(rgb_to_lab((200, 40, 40)), (10, 1)))
    assert not kept.learn("mat", np.tile(rgb_to_lab(MAT) + 3, (40, 1)), cells=2)
    assert np.allclose(kept.lab("mat"), rgb_to_lab(MAT))


def test_learn_all_reports_what_moved_and_reset_forgets_it() -> None:
    kept = memory()
    moved = kept.learn_all({"cream": [rgb_to_lab(CREAM) + 1] * 5, "mat": [rgb_to_lab(MAT)]})
    assert moved == {"cream"}
    kept.reset()
    assert np.allclose(kept.lab("cream"), rgb_to_lab(CREAM))


def test_distances_count_lightness_half() -> None:
    base = rgb_to_lab(MAT)
    assert lab_distance(base, base)[0] == 0.0
    assert lab_distance(base + [10.0, 0, 0], base)[0] == pytest.approx(5.0)
    assert lab_distance(base + [0, 10.0, 0], base)[0] == pytest.approx(10.0)
    assert memory().distances(base, ["mat"]) == {"mat": 0.0}
    assert np.allclose(robust_centre(np.array([[1.0, 2, 3], [1, 2, 3], [9, 9, 9]])), [1, 2, 3])


def test_probabilities_are_a_softmax_that_can_leave_room_for_something_else() -> None:
    probs = probabilities({"a": 1.0, "b": 2.0})
    assert probs["a"] / probs["b"] == pytest.approx(math.e)
    assert sum(probs.values()) <= 1.0
    shared = probabilities({"a": 1.0, "b": 2.0}, other_cost=1.0)
    assert shared["a"] == pytest.approx(1 / (2 + math.exp(-1)))
    table = probability_table(np.array([[0.0, 5.0], [5.0, 0.0]]))
    assert table[0, 0] > 0.99 and table[1, 1] > 0.99


@pytest.mark.parametrize("call", [
    lambda: ColourMemory({}),
    lambda: ColourMemory({"mat": (1, 2)}),  # type: ignore[dict-item]
    lambda: ColourMemory({"mat": (300, 0, 0)}),
    lambda: ColourMemory({"mat": MAT}, min_cells=0),
    lambda: memory().lab("walnut"),
    lambda: probabilities({}),
    lambda: probabilities({"a": math.nan}),
    lambda: probabilities({"a": "x"}),  # type: ignore[dict-item]
    lambda: probability_table(np.zeros(3)),
    lambda: robust_centre(np.zeros((0, 3))),
])
def test_bad_input_raises_one_clear_error(call: object) -> None:
    with pytest.raises(ColourError):
        call()  # type: ignore[operator]
