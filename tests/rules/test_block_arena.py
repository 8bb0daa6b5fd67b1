"""Block Arena rules, one test per rule, each built from a move sequence (RULES.md section 1)."""

from __future__ import annotations

import pytest

from rules.block_arena import ArenaState, BlockArena
from rules.core import IllegalMoveError, Outcome

NINE = BlockArena("9x9")
SEVEN = BlockArena("7x7")

# 7x7 set-up: light a1b1 c1 d1e1 g1 (meeple given), dark a7 c7 d7 e7f7 (meeple given).
SEVEN_BLOCKS = ["+a1b1", "+a7", "+c1", "+c7", "+d1e1", "+d7", "+g1", "+e7f7"]
SEVEN_OPENING = SEVEN_BLOCKS + ["M+e1", "M+a7"]
# Dark brings d7 down to d2d3 while light passes.
DARK_DESCENDS = SEVEN_OPENING + ["pass", "d7-d5d6", "pass", "d5d6-d4", "pass", "d4-d2d3"]
# Light's meeple boards d2d3 and rides it up to d6 as dark slides it.
LIGHT_RIDES = DARK_DESCENDS + [
    "Me1-d2", "pass", "Md2-d3", "d2d3-d3d4", "pass", "d3d4-d4d5", "pass", "d4d5-d5d6",
]
# Light flips c1 up to c5c6; dark's meeple (on d7) boards it and steps to c5.
LIGHT_CLIMBS = SEVEN_BLOCKS + ["M+e1", "M+d7", "c1-c2c3", "pass", "c2c3-c4", "pass", "c4-c5c6"]

NINE_BLOCKS = ["+a1", "+i9", "+b1", "+h9", "+c1", "+g9", "+d1", "+f9"]
NINE_OPENING = NINE_BLOCKS + ["M+a1", "M+i9"]


def raises(game: BlockArena, moves: list[str], move: str) -> str:
    """Returns the reason apply gives for an illegal move after a sequence."""
    state = game.play_all(moves)
    with pytest.raises(IllegalMoveError) as caught:
        game.apply(state, move)
    return caught.value.reason


def starting(legal: list[str], prefix: str) -> list[str]:
    """Returns the legal moves whose text starts with a prefix."""
    return [m for m in legal if m.startswith(prefix)]


def interleave(light: list[str], dark: list[str], limit: int) -> list[str]:
    """Returns both players' actions alternated, each padded with passes to the limit."""
    light = light + ["pass"] * (limit - len(light))
    dark = dark + ["pass"] * (limit - len(dark))
    return [move for pair in zip(light, dark) for move in pair]


# -- set-up ---------------------------------------------------------------------------------


def test_first_player_places_upright_or_lying_on_rank_1() -> None:
    assert NINE.legal(NINE.initial_state()) == [
        "+a1", "+a1b1", "+b1", "+b1c1", "+c1", "+c1d1", "+d1", "+d1e1", "+e1", "+e1f1",
        "+f1", "+f1g1", "+g1", "+g1h1", "+h1", "+h1i1", "+i1",
    ]


def test_7x7_base_rank_has_seven_squares() -> None:
    assert SEVEN.legal(SEVEN.initial_state()) == [
        "+a1", "+a1b1", "+b1", "+b1c1", "+c1", "+c1d1", "+d1", "+d1e1", "+e1", "+e1f1",
        "+f1", "+f1g1", "+g1",
    ]


def test_second_player_places_on_rank_9() -> None:
    state = NINE.play_all(["+a1"])
    assert NINE.to_move(state) == 2
    assert NINE.legal(state) == [
        "+a9", "+a9b9", "+b9", "+b9c9", "+c9", "+c9d9", "+d9", "+d9e9", "+e9", "+e9f9",
        "+f9", "+f9g9", "+g9", "+g9h9", "+h9", "+h9i9", "+i9",
    ]


def test_placements_need_free_base_squares() -> None:
    assert NINE.legal(NINE.play_all(["+b1c1", "+a9"])) == [
        "+a1", "+d1", "+d1e1", "+e1", "+e1f1", "+f1", "+f1g1", "+g1", "+g1h1", "+h1",
        "+h1i1", "+i1",
    ]


def test_setup_block_off_the_base_rank_is_illegal() -> None:
    assert raises(NINE, [], "+c2") == "c2 is not on your base rank (rank 1)"
    assert raises(NINE, [], "+c1c2") == "c2 is not on your base rank (rank 1)"
    assert raises(NINE, ["+a1"], "+c1") == "c1 is not on your base rank (rank 9)"


def test_setup_block_on_an_occupied_square_is_illegal() -> None:
    assert raises(NINE, ["+a1", "+a9"], "+a1b1") == "a1 is occupied"


def test_only_block_placements_during_setup() -> None:
    reason = "set-up: player 1 must place a block on its base rank"
    assert raises(NINE, [], "pass") == reason
    assert raises(NINE, [], "M+a1") == reason
    assert raises(NINE, ["+a1", "+a9"], "a1-a2") == reason


def test_meeples_go_on_own_blocks_after_all_blocks() -> None:
    assert NINE.legal(NINE.play_all(NINE_BLOCKS)) == ["M+a1", "M+b1", "M+c1", "M+d1"]
    assert NINE.legal(NINE.play_all(NINE_BLOCKS + ["M+a1"])) == [
        "M+f9", "M+g9", "M+h9", "M+i9",
    ]
    assert SEVEN.legal(SEVEN.play_all(SEVEN_BLOCKS)) == [
        "M+a1", "M+b1", "M+c1", "M+d1", "M+e1", "M+g1",
    ]


def test_meeple_cannot_go_on_opponent_block_or_board() -> None:
    assert raises(NINE, NINE_BLOCKS, "M+i9") == "i9 is not covered by one of your blocks"
    assert raises(NINE, NINE_BLOCKS, "M+e1") == "e1 is not covered by one of your blocks"
    assert raises(NINE, NINE_BLOCKS, "pass") == (
        "set-up: player 1 must place its meeple on one of its blocks"
    )


def test_setup_is_not_counted_and_each_action_is() -> None:
    assert NINE.counters(NINE.play_all(NINE_OPENING)) == {"1": 0, "2": 0}
    assert NINE.ply(NINE.play_all(NINE_OPENING)) == 10
    after_one = NINE.play_all(NINE_OPENING + ["pass"])
    assert (NINE.counters(after_one), NINE.to_move(after_one)) == ({"1": 1, "2": 0}, 2)
    after_two = NINE.play_all(NINE_OPENING + ["pass", "pass"])
    assert (NINE.counters(after_two), NINE.to_move(after_two)) == ({"1": 1, "2": 1}, 1)


def test_nothing_is_placed_after_setup() -> None:
    reason = "set-up is over: nothing more is placed"
    assert raises(NINE, NINE_OPENING, "+e1") == reason
    assert raises(NINE, NINE_OPENING, "M+b1") == reason


def test_scores_before_meeples_are_placed() -> None:
    assert NINE.scores(NINE.play_all(["+a1", "+a9b9"])) == {
        "1": {"meeple": None, "blocks": 8},
        "2": {"meeple": None, "blocks": 8},
    }
    assert NINE.scores(NINE.initial_state()) == {
        "1": {"meeple": None, "blocks": 0},
        "2": {"meeple": None, "blocks": 0},
    }


def test_positions_compare_by_value_whatever_the_order() -> None:
    one = NINE.play_all(["+a1", "+a9", "+b1c1"])
    other = NINE.play_all(["+b1c1", "+a9", "+a1"])
    assert one == other and hash(one) == hash(other)
    assert isinstance(one, ArenaState)


# -- block moves ----------------------------------------------------------------------------


def test_opening_position_lists_pass_meeple_and_block_moves() -> None:
    assert SEVEN.legal(SEVEN.play_all(SEVEN_OPENING)) == [
        "Me1-a1", "Me1-b1", "Me1-c1", "Me1-d1", "a1b1-a2b2", "c1-c2", "c1-c2c3", "g1-f1",
        "g1-g2", "g1-g2g3", "pass",
    ]


def test_block_carrying_own_meeple_cannot_move() -> None:
    assert raises(SEVEN, SEVEN_OPENING, "d1e1-d2e2") == (
        "the block carries your own meeple and cannot move"
    )


def test_only_own_blocks_move() -> None:
    assert raises(SEVEN, SEVEN_OPENING, "a7-a6") == "a7 is not one of your blocks"
    assert raises(SEVEN, SEVEN_OPENING, "f1-f2") == "f1 is not one of your blocks"


def test_blocks_cannot_move_onto_other_blocks() -> None:
    assert raises(SEVEN, SEVEN_OPENING, "c1-d1") == "d1 is occupied"
    assert raises(SEVEN, SEVEN_OPENING, "g1-e1f1") == "e1 is occupied"


def test_moves_other_than_slides_and_flips_are_illegal() -> None:
    assert raises(SEVEN, SEVEN_OPENING, "a1b1-a2") == "a2 is neither a slide nor a flip of a1b1"
    assert raises(SEVEN, SEVEN_OPENING, "g1-g3") == "g3 is neither a slide nor a flip of g1"


def test_lying_block_flips_along_its_axis_only() -> None:
    legal = SEVEN.legal(SEVEN.play_all(SEVEN_OPENING + ["g1-g2g3", "pass"]))
    assert starting(legal, "g2g3-") == [
        "g2g3-f2f3", "g2g3-g1", "g2g3-g1g2", "g2g3-g3g4", "g2g3-g4",
    ]


def test_upright_block_flips_and_slides_four_ways_within_the_board() -> None:
    legal = SEVEN.legal(SEVEN.play_all(SEVEN_OPENING + ["g1-g2g3", "pass", "g2g3-g4", "pass"]))
    assert starting(legal, "g4-") == [
        "g4-e4f4", "g4-f4", "g4-g2g3", "g4-g3", "g4-g5", "g4-g5g6",
    ]


def test_block_carrying_opponent_meeple_slides_but_never_flips() -> None:
    moves = DARK_DESCENDS + ["Me1-d2", "pass", "Md2-d3"]
    legal = SEVEN.legal(SEVEN.play_all(moves))
    assert starting(legal, "d2d3-") == ["d2d3-c2c3", "d2d3-d3d4", "d2d3-e2e3"]
    assert raises(SEVEN, moves, "d2d3-d4") == (
        "a block carrying the opponent's meeple may slide but not flip"
    )


def test_opponent_meeple_rides_on_the_same_part_of_a_slid_block() -> None:
    state = SEVEN.play_all(DARK_DESCENDS + ["Me1-d2", "pass", "Md2-d3", "d2d3-d3d4"])
    assert SEVEN.scores(state)["1"] == {"meeple": 3, "blocks": 24}
    assert starting(SEVEN.legal(state), "M") == ["Md4-d3"]


def test_block_carrying_both_meeples_cannot_move() -> None:
    moves = LIGHT_CLIMBS + [
        "Md7-c6", "c5c6-c4c5", "pass", "c4c5-c3c4", "pass", "c3c4-c2c3", "Mc3-c2",
        "c2c3-d2d3", "pass", "Me1-d2", "pass",
    ]
    state = SEVEN.play_all(moves)
    assert SEVEN.scores(state) == {
        "1": {"meeple": 5, "blocks": 22},
        "2": {"meeple": 1, "blocks": 24},
    }
    assert starting(SEVEN.legal(state), "d2d3-") == []
    assert raises(SEVEN, moves, "d2d3-d3d4") == (
        "the block carries your own meeple and cannot move"
    )


# -- meeple moves ---------------------------------------------------------------------------


def test_meeple_walks_own_colour_then_one_step_onto_opponent() -> None:
    legal = SEVEN.legal(SEVEN.play_all(DARK_DESCENDS))
    assert starting(legal, "M") == ["Me1-a1", "Me1-b1", "Me1-c1", "Me1-d1", "Me1-d2"]
    assert raises(SEVEN, DARK_DESCENDS, "Me1-d3") == (
        "d3 cannot be reached from e1: own-colour steps, "
        "then at most one step onto an opponent's block"
    )


def test_meeple_on_opponent_block_takes_one_step() -> None:
    moves = DARK_DESCENDS + ["Me1-d2", "pass"]
    assert starting(SEVEN.legal(SEVEN.play_all(moves)), "M") == ["Md2-d1", "Md2-d3"]
    assert raises(SEVEN, moves, "Md2-e1") == (
        "from an opponent's block the meeple takes exactly one step, not to e1"
    )


def test_opponent_meeple_steps_from_its_region_onto_light_block() -> None:
    legal = SEVEN.legal(SEVEN.play_all(LIGHT_CLIMBS))
    assert starting(legal, "M") == ["Md7-c6", "Md7-c7", "Md7-e7", "Md7-f7"]


def test_meeple_never_steps_onto_the_bare_board() -> None:
    assert raises(SEVEN, SEVEN_OPENING, "Me1-f1") == (
        "f1 is not covered by a block: meeples never step onto the board"
    )


def test_meeple_move_must_start_on_the_meeple_and_end_elsewhere() -> None:
    assert raises(SEVEN, SEVEN_OPENING, "Md1-c1") == "your meeple is not on d1"
    assert raises(SEVEN, SEVEN_OPENING, "Me1-e1") == "a meeple move must end on another square"


def test_meeples_share_squares() -> None:
    moves = LIGHT_CLIMBS + [
        "Md7-c6", "c5c6-c4c5", "pass", "c4c5-c3c4", "pass", "c3c4-c2c3", "Mc3-c2",
        "c2c3-d2d3", "pass",
    ]
    assert starting(SEVEN.legal(SEVEN.play_all(moves)), "M") == [
        "Me1-d1", "Me1-d2", "Me1-d3",
    ]


# -- the end --------------------------------------------------------------------------------


def test_meeple_reaching_its_goal_rank_wins() -> None:
    state = SEVEN.play_all(LIGHT_RIDES + ["pass", "d5d6-e5e6", "Me6-e7"])
    assert SEVEN.outcome(state) == Outcome(1, "goal")
    assert SEVEN.to_move(state) is None
    assert SEVEN.legal(state) == []


def test_slide_delivering_opponent_meeple_wins_for_its_owner() -> None:
    moves = LIGHT_RIDES + ["pass", "d5d6-d6d7"]
    assert SEVEN.outcome(SEVEN.play_all(moves)) == Outcome(1, "goal")
    assert raises(SEVEN, moves, "pass") == "the game is over"


def test_second_player_wins_by_reaching_rank_1() -> None:
    moves = LIGHT_CLIMBS + [
        "Md7-c6", "pass", "Mc6-c5", "c5c6-c4c5", "pass", "c4c5-c3c4", "pass", "c3c4-c2c3",
        "pass", "c2c3-c1c2",
    ]
    state = SEVEN.play_all(moves)
    assert SEVEN.outcome(state) == Outcome(2, "goal")
    assert SEVEN.scores(state)["2"] == {"meeple": 0, "blocks": 24}


def test_rulebook_example_light_15_beats_dark_20() -> None:
    light = [
        "b1-b2b3", "b2b3-a2a3", "Ma1-a3", "a1-b1", "b1-b2b3", "b2b3-b4", "b4-a4", "Ma3-a4",
        "a2a3-b2b3", "b2b3-b3b4", "b3b4-b4b5", "c1-c2c3", "c2c3-c4", "c4-c5c6", "d1-d2d3",
        "d2d3-d4", "d4-d5d6",
    ]
    dark = [
        "h9-h7h8", "h7h8-i7i8", "Mi9-i7", "g9-g7g8", "g7g8-g6g7", "g6g7-g5g6", "g5g6-h5h6",
        "h5h6-i5i6", "Mi7-i6", "i9-h9", "h9-h7h8", "f9-f7f8", "f7f8-f6", "f6-f5",
    ]
    state = NINE.play_all(NINE_OPENING + interleave(light, dark, 40))
    assert NINE.scores(state) == {
        "1": {"meeple": 5, "blocks": 4 + 5 + 3 + 3},
        "2": {"meeple": 5, "blocks": 6 + 6 + 4 + 4},
    }
    assert NINE.outcome(state) == Outcome(1, "move-limit")


def test_nearer_meeple_wins_at_the_limit_before_block_sums() -> None:
    light = ["b1-b2b3", "b2b3-a2a3", "Ma1-a3"]
    dark = ["h9-h7h8", "g9-g7g8", "f9-f7f8"]
    state = NINE.play_all(NINE_OPENING + interleave(light, dark, 40))
    assert NINE.scores(state) == {
        "1": {"meeple": 6, "blocks": 30},
        "2": {"meeple": 8, "blocks": 26},
    }
    assert NINE.outcome(state) == Outcome(1, "move-limit")


def test_full_tie_at_the_limit_goes_to_the_second_player() -> None:
    moves = NINE_OPENING + ["pass"] * 80
    before_last = NINE.play_all(moves[:-1])
    assert (NINE.outcome(before_last), NINE.to_move(before_last)) == (None, 2)
    assert NINE.counters(before_last) == {"1": 40, "2": 39}
    state = NINE.play_all(moves)
    assert NINE.outcome(state) == Outcome(2, "move-limit")
    assert NINE.counters(state) == {"1": 40, "2": 40}
    assert NINE.ply(state) == NINE.max_plies() == 90


def test_goal_on_the_last_action_beats_the_move_limit() -> None:
    moves = SEVEN_OPENING + ["pass"] * 44 + LIGHT_RIDES[len(SEVEN_OPENING):]
    state = SEVEN.play_all(moves + ["pass", "d5d6-d6d7"])
    assert SEVEN.counters(state) == {"1": 30, "2": 30}
    assert SEVEN.ply(state) == SEVEN.max_plies() == 70
    assert SEVEN.outcome(state) == Outcome(1, "goal")
