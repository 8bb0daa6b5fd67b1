"""Tests for the BLOCK.BLOCK referee: placement rules, turn order, end and scoring, notation."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.block_block import BlockBlock, BlockBlockState, Placement
from rules.block_block_set import parse_set
from rules.core import IllegalMoveError, InvalidMoveError, Outcome
from tests.rules.conformance import random_playout

GAME = BlockBlock()
SLAB_FAR = "slab:d4.0d5.0e4.0e5.0"
BAR2 = [[0, 0, 0], [0, 0, 1]]
VEE = [[0, 0, 0], [1, 0, 0], [2, 0, 0], [0, 1, 0], [0, 2, 0]]  # never fits a board under 3x3

# A seeded random game up to white's 10th block; its top view is 11 to 11 (checked by hand).
TWENTY = [
    "bar4:a1.0a2.0a3.0a4.0", "slab:c3.0c4.0d3.0d4.0", "ell:c3.1c3.2c4.1", "bar2:d2.0d2.1",
    "ell:e1.0e2.0e2.1", "ess:d2.2d3.1d3.2d4.1", "slab:a1.1a1.2a2.1a2.2", "ell:c5.0d5.0d5.1",
    "bar2:b1.0b1.1", "ell:c1.0c1.1d1.0", "bar2:a1.3a2.3", "tee:c1.2d1.1d1.2d1.3",
    "bar2:e4.0e4.1", "bar4:b2.0b3.0b4.0b5.0", "ess:a3.1a4.1b4.1b5.1", "bar2:b4.2c4.2",
    "tee:b4.3b5.2b5.3b5.4", "bar3:a5.0a5.1a5.2", "bar3:d4.2d4.3d4.4", "bar2:c3.3d3.3",
]
HEIGHTS_AFTER_TWENTY = {
    "a1": 4, "a2": 4, "a3": 2, "a4": 2, "a5": 3, "b1": 2, "b2": 1, "b3": 1, "b4": 4, "b5": 5,
    "c1": 3, "c2": 0, "c3": 4, "c4": 3, "c5": 1, "d1": 4, "d2": 3, "d3": 4, "d4": 5, "d5": 2,
    "e1": 1, "e2": 2, "e3": 0, "e4": 2, "e5": 0,
}


def tiny_game(board: int, shapes: dict[str, tuple[list[list[int]], int]], points: float = 0.5
              ) -> BlockBlock:
    """Returns a game on a small set built from a parsed set dict."""
    data = {
        "board": board,
        "shapes": {name: {"cubes": cubes, "count": n} for name, (cubes, n) in shapes.items()},
        "extra": {"name": "half", "cubes": [[0, 0, 0]], "points": points},
    }
    return BlockBlock(block_set=parse_set(data, "tiny"))


def reason(game: BlockBlock, state: BlockBlockState, move: str | Placement) -> str:
    """Returns the reason apply gives for rejecting a move (fails if it is accepted)."""
    with pytest.raises(IllegalMoveError) as caught:
        game.apply(state, move)
    return caught.value.reason


# -- the start and the turn order ------------------------------------------------------------


def test_start_offers_every_placement_on_the_empty_board() -> None:
    state = GAME.initial_state()
    legal = GAME.legal(state)
    # bar2 65, bar3 55, bar4 45, slab 56, ell 144, tee 78, ess 48 (see the oracle's count)
    assert len(legal) == 491
    assert legal[:4] == ["bar2:a1.0a1.1", "bar2:a1.0a2.0", "bar2:a1.0b1.0", "bar2:a2.0a2.1"]
    assert GAME.to_move(state) == 1 and GAME.ply(state) == 0
    assert GAME.scores(state) == {"1": 0.0, "2": 0.0}
    assert GAME.counters(state) == {} and GAME.max_plies() == 21
    assert GAME.outcome(state) is None


def test_brown_and_white_alternate_and_every_block_is_a_ply() -> None:
    state = GAME.play_all(["bar2:a1.0a2.0"])
    assert (GAME.to_move(state), GAME.ply(state)) == (2, 1)
    state = GAME.play_all([SLAB_FAR], state)
    assert (GAME.to_move(state), GAME.ply(state)) == (1, 2)
    assert GAME.counters(state) == {}


# -- placement: support, overlap, hand --------------------------------------------------------


def test_overhang_over_empty_space_is_illegal() -> None:
    state = GAME.initial_state()
    assert reason(GAME, state, "ell:a1.0a1.1b1.1") == "b1.1 has empty space underneath"
    assert reason(GAME, state, "bar2:a1.1a1.2") == "a1.1 has empty space underneath"


def test_overhang_onto_a_block_top_is_legal() -> None:
    state = GAME.play_all(["bar2:b1.0c1.0", SLAB_FAR])
    assert "ell:a1.0a1.1b1.1" in GAME.legal(state)
    after = GAME.apply(state, "ell:a1.0a1.1b1.1")
    assert after.heights[:2] == (2, 0) and after.heights[5] == 2  # a1, a2, b1


def test_cube_may_not_overlap_a_block() -> None:
    state = GAME.play_all(["bar2:a1.0b1.0"])
    assert reason(GAME, state, "bar3:a1.0a1.1a1.2") == "a1.0 is occupied"


def test_lying_block_must_be_level() -> None:
    state = GAME.play_all(["bar2:a1.0a1.1", SLAB_FAR])
    assert reason(GAME, state, "bar3:a1.2b1.2c1.2") == "b1.2 has empty space underneath"
    assert "bar3:a1.2a1.3a1.4" in GAME.legal(state)


def test_a_used_up_shape_cannot_be_placed() -> None:
    state = GAME.play_all(["bar3:c3.0c3.1c3.2", SLAB_FAR])
    assert reason(GAME, state, "bar3:a1.0a1.1a1.2") == "brown has no bar3 left"
    assert not any(move.startswith("bar3:") for move in GAME.legal(state))


# -- the same-shape rule ------------------------------------------------------------------------


def test_same_shape_as_opponents_last_block_is_illegal() -> None:
    state = GAME.play_all(["bar2:a1.0b1.0"])
    assert not any(move.startswith("bar2:") for move in GAME.legal(state))
    assert reason(GAME, state, "bar2:c1.0c1.1") == (
        "brown just placed a bar2: you may place one only when no block of another shape fits"
    )
    state = GAME.play_all([SLAB_FAR], state)
    legal = GAME.legal(state)
    assert "bar2:c1.0c1.1" in legal and not any(move.startswith("slab:") for move in legal)


def test_same_shape_is_allowed_when_no_other_shape_fits() -> None:
    game = tiny_game(2, {"bar2": (BAR2, 2), "vee": (VEE, 1)})
    state = game.play_all(["bar2:a1.0b1.0"])
    assert game.legal(state) == [  # bar2:a1.1b1.1 is an exact copy; a1/a2 are not level
        "bar2:a1.1a1.2", "bar2:a2.0a2.1", "bar2:a2.0b2.0", "bar2:b1.1b1.2", "bar2:b2.0b2.1",
    ]


# -- the exact-copy rule -----------------------------------------------------------------------


def test_exact_copy_on_top_is_illegal_but_another_orientation_is_not() -> None:
    state = GAME.play_all(["bar2:a1.0b1.0", SLAB_FAR])
    assert reason(GAME, state, "bar2:a1.1b1.1") == (
        "a bar2 may not sit exactly on the bar2 at a1.0b1.0 in the same orientation and position"
    )
    legal = GAME.legal(state)
    assert "bar2:a1.1a1.2" in legal and "bar2:b1.1b1.2" in legal


def test_exact_copy_counts_the_blocks_height_and_ignores_colour() -> None:
    state = GAME.play_all(["bar3:c3.0c3.1c3.2", SLAB_FAR, "bar2:a1.0b1.0"])
    assert reason(GAME, state, "bar3:c3.3c3.4c3.5").startswith(
        "a bar3 may not sit exactly on the bar3 at c3.0c3.1c3.2"
    )
    assert reason(GAME, state, "bar3:c3.2c3.3c3.4") == "c3.2 is occupied"
    assert "bar3:a1.1b1.1c1.1" not in GAME.legal(state)  # c1 is empty below


def test_no_legal_placement_loses_at_once() -> None:
    game = tiny_game(1, {"bar2": (BAR2, 1), "vee": (VEE, 1)})
    assert game.legal(game.initial_state()) == ["bar2:a1.0a1.1"]
    state = game.play_all(["bar2:a1.0a1.1"])  # white's bar2 on top would be an exact copy
    assert game.outcome(state) == Outcome(1, "no-move")
    assert game.to_move(state) is None and game.legal(state) == []
    assert reason(game, state, "bar2:a1.2a1.3") == "the game is over"


# -- half, the end and the scores -------------------------------------------------------------


def test_half_is_not_placeable_before_the_last_action() -> None:
    state = GAME.initial_state()
    assert reason(GAME, state, "half:c3.0") == (
        "half is placed only as the last action, after white's last block"
    )
    state = GAME.play_all(TWENTY[:19])
    assert not any(move.startswith("half:") for move in GAME.legal(state))


def test_after_whites_tenth_block_brown_places_only_half() -> None:
    state = GAME.play_all(TWENTY)
    assert GAME.to_move(state) == 1 and GAME.ply(state) == 20
    assert GAME.legal(state) == sorted(f"half:{sq}.{h}" for sq, h in HEIGHTS_AFTER_TWENTY.items())
    assert GAME.scores(state) == {"1": 11.0, "2": 11.0}
    assert reason(GAME, state, "bar2:c2.0c2.1") == (
        "only half is left to place: brown's last action places it"
    )


def test_half_scores_half_a_point_and_the_higher_score_wins() -> None:
    state = GAME.play_all([*TWENTY, "half:c2.0"])
    assert GAME.scores(state) == {"1": 11.5, "2": 11.0}
    assert GAME.outcome(state) == Outcome(1, "score")
    assert GAME.to_move(state) is None and GAME.legal(state) == []
    assert reason(GAME, state, "half:e3.0") == "the game is over"


def test_half_on_browns_own_cell_can_lose() -> None:
    state = GAME.play_all([*TWENTY, "half:a1.4"])
    assert GAME.scores(state) == {"1": 10.5, "2": 11.0}
    assert GAME.outcome(state) == Outcome(2, "score")


def test_upright_bar3_and_bar4_show_the_opponents_colour() -> None:
    state = GAME.play_all(["bar3:a1.0a1.1a1.2"])
    assert GAME.scores(state) == {"1": 0.0, "2": 1.0}
    state = GAME.play_all(["bar4:b1.0b2.0b3.0b4.0"], state)  # lying: ends face sideways
    assert GAME.scores(state) == {"1": 0.0, "2": 5.0}
    state = GAME.play_all(["bar2:c1.0c1.1"], state)  # an upright bar2 shows its owner
    assert GAME.scores(state) == {"1": 1.0, "2": 5.0}
    state = GAME.play_all(["bar3:d1.0d1.1d1.2"], state)
    assert GAME.scores(state) == {"1": 2.0, "2": 5.0}
    state = GAME.play_all(["bar2:a1.3a1.4"], state)  # covers the white end face at a1
    assert GAME.scores(state) == {"1": 3.0, "2": 4.0}


def test_equal_scores_are_a_draw() -> None:
    game = tiny_game(2, {"bar2": (BAR2, 1)}, points=1.0)
    state = game.play_all(["bar2:a1.0b1.0", "bar2:a2.0b2.0", "half:a1.1"])
    assert game.scores(state) == {"1": 2.0, "2": 2.0}
    assert game.outcome(state) == Outcome(None, "score")
    state = game.play_all(["bar2:a1.0b1.0", "bar2:a2.0b2.0", "half:a2.1"])
    assert game.outcome(state) == Outcome(1, "score")


# -- notation ------------------------------------------------------------------------------------


def test_parse_reads_shape_and_sorted_cells() -> None:
    move = GAME.parse("bar3:c3.0c3.1c3.2")
    assert move == Placement("bar3", ((2, 2, 0), (2, 2, 1), (2, 2, 2)))
    assert str(move) == "bar3:c3.0c3.1c3.2"
    assert str(GAME.parse("half:e5.12")) == "half:e5.12"


@pytest.mark.parametrize(
    "text", ["ess:a1.0a2.0b2.0b3.0", "ess:a2.0a3.0b1.0b2.0", "tee:a1.1b1.0b1.1c1.1",
             "ell:a1.0a1.1b1.1", "slab:a1.0a1.1b1.0b1.1"],
)
def test_parse_accepts_any_rotation_and_mirror_image(text: str) -> None:
    assert str(GAME.parse(text)) == text


@pytest.mark.parametrize(
    "text",
    [
        "", "bar2", "bar2:", ":a1.0", "bar2:a2.0a1.0", "bar2:a1.0a1.0", "bar2:a1.0c1.0",
        "bar2:a1.00a1.1", "bar2:a01.0a1.1", "bar2:f1.0f2.0", "bar2:a6.0a6.1", "BAR2:a1.0a2.0",
        "bar2:A1.0A2.0", "box:a1.0", "bar2:a1.0a2.0 ", " bar2:a1.0a2.0", "bar2:a1.0,a2.0",
        "half:a1.63", "bar2:a1.0a2.0a3.0", "ell:a1.0a2.0a3.0", "bar2:a1.-1a1.0", "bar2:a1a2",
        "bar2:a1.0a2.0\n", "half:a1.9999999",
    ],
)
def test_parse_rejects_non_canonical_text(text: str) -> None:
    with pytest.raises(InvalidMoveError):
        GAME.parse(text)


def test_apply_rejects_a_typed_move_that_is_not_a_placement() -> None:
    state = GAME.initial_state()
    box = Placement("box", ((0, 0, 0),))
    assert reason(GAME, state, box) == "there is no shape 'box' in this set"
    unsorted = Placement("bar2", ((0, 1, 0), (0, 0, 0)))
    assert reason(GAME, state, unsorted) == "cells must be distinct and sorted by file, rank, level"


def check_parse(text: str) -> None:
    """Checks that parse either raises InvalidMoveError or returns a round-tripping move."""
    try:
        move = GAME.parse(text)
    except InvalidMoveError:
        return
    assert str(move) == text and GAME.parse(str(move)) == move


NOTATION = st.text(alphabet="abcdefgh0123456789.:-rslbtyhalfr", max_size=40)
CELL = st.tuples(st.sampled_from("abcdef"), st.integers(0, 7), st.integers(0, 70)).map(
    lambda c: f"{c[0]}{c[1]}.{c[2]}"
)
NEAR_MOVES = st.builds(
    lambda shape, cells: shape + ":" + "".join(sorted(cells)),
    st.sampled_from(["bar2", "bar3", "bar4", "slab", "ell", "tee", "ess", "half", "box"]),
    st.lists(CELL, min_size=1, max_size=4),
)


@settings(max_examples=300, deadline=None)
@given(text=st.one_of(st.text(), NOTATION, NEAR_MOVES))
def test_parse_raises_only_invalid_move_error(text: str) -> None:
    check_parse(text)


@settings(max_examples=200, deadline=None)
@given(text=st.sampled_from(GAME.legal(GAME.initial_state())))
def test_every_legal_text_round_trips(text: str) -> None:
    check_parse(text)
    assert str(GAME.parse(text)) == text


# -- conformance ---------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(4))
def test_random_playouts_keep_every_invariant(seed: int) -> None:
    state = random_playout(GAME, seed)
    assert GAME.ply(state) == 21 and GAME.outcome(state) is not None


@pytest.mark.parametrize("seed", range(3))
def test_random_playouts_on_small_sets(seed: int) -> None:
    games: list[Any] = [
        tiny_game(2, {"bar2": (BAR2, 2), "vee": (VEE, 1)}),
        tiny_game(3, {"bar2": (BAR2, 2), "ell": ([[0, 0, 0], [1, 0, 0], [0, 1, 0]], 2)}),
    ]
    for game in games:
        random_playout(game, seed)
