"""Tests for Block (block-pt): one test per rule, each built from a move sequence."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.block_pt import BlockPT, BlockPTState
from rules.core import IllegalMoveError, InvalidMoveError, Outcome
from tests.rules.conformance import random_playout

GAME = BlockPT()
ALL_SQUARES = [f"{f}{r}" for f in "abcdefghi" for r in range(1, 10)]

# X walks to c7 (with a spare M on i9 to give X the move), Y walks to g4, then the worked
# example's pieces: M on f4, h4, g5; N on c6, b5, a4. X is to play.
CHECK_EXAMPLE = [
    "e9-e8", "e1-f1", "e8-d8", "f1-g1", "d8-c8", "g1-g2", "c8-c7", "g2-g3",
    "+f4", "g3-g4", "+h4", "+c6", "+g5", "+b5", "+i9", "+a4",
]

# X to a9, Y to i1, each walled into its corner: X places h1 and i2, Y places b9 and a8.
CORNERS = [
    "e9-d9", "e1-f1", "d9-c9", "f1-g1", "c9-b9", "g1-h1", "b9-a9", "h1-i1",
]

# Y walks into the corner a1, places all seven N far away; X walks to a2 and puts M on b1.
BOXED_IN = [
    "e9-e8", "e1-d1", "e8-e7", "d1-c1", "e7-e6", "c1-b1", "e6-e5", "b1-a1",
    "+b1", "+i9", "e5-e4", "+i8", "e4-e3", "+i7", "e3-e2", "+i6",
    "e2-d2", "+h9", "d2-c2", "+h8", "c2-b2", "+h7", "b2-a2",
]


def play(moves: list[str]) -> BlockPTState:
    """Returns the state after playing moves from the start."""
    return GAME.play_all(moves)


def steps(state: BlockPTState) -> list[str]:
    """Returns the legal pawn moves of a state."""
    return [m for m in GAME.legal(state) if "-" in m]


def placements(state: BlockPTState) -> list[str]:
    """Returns the legal placements of a state."""
    return [m for m in GAME.legal(state) if m.startswith("+")]


def shuffles(count: int, there: str, back: str) -> list[str]:
    """Returns count pawn moves going there and back again."""
    return [there if i % 2 == 0 else back for i in range(count)]


def interleave(first: list[str], second: list[str]) -> list[str]:
    """Returns two players' moves alternated, player 1 first."""
    return [m for pair in zip(first, second) for m in pair] + first[len(second):]


def reason(state: BlockPTState, move: str) -> str:
    """Returns the reason apply gives for rejecting a move."""
    with pytest.raises(IllegalMoveError) as caught:
        GAME.apply(state, move)
    return caught.value.reason


# -- set-up and turn ---------------------------------------------------------------------


def test_start_x_on_e9_y_on_e1_seven_pieces_each() -> None:
    state = GAME.initial_state()
    assert GAME.summary(state) == {
        "game": "block-pt",
        "variant": None,
        "to_move": 1,
        "ply": 0,
        "legal": ["e9-d9", "e9-e8", "e9-f9"],
        "outcome": None,
        "scores": {"1": 7, "2": 7},
        "counters": {"1": 0, "2": 0},
    }


def test_first_turn_of_each_player_is_a_pawn_move() -> None:
    assert reason(GAME.initial_state(), "+a1") == "your first turn must be a pawn move"
    state = play(["e9-e8"])
    assert GAME.legal(state) == ["e1-d1", "e1-e2", "e1-f1"]
    assert reason(state, "+a9") == "your first turn must be a pawn move"


def test_second_turn_offers_steps_and_every_square_without_a_piece() -> None:
    state = play(["e9-e8", "e1-e2"])
    assert steps(state) == ["e8-d8", "e8-e7", "e8-e9", "e8-f8"]
    assert placements(state) == sorted(
        "+" + name for name in ALL_SQUARES if name not in ("e8", "e2")
    )


def test_players_alternate_and_counters_count_actions() -> None:
    state = play(["e9-e8", "e1-e2", "+a5"])
    assert GAME.to_move(state) == 2
    assert GAME.ply(state) == 3
    assert GAME.counters(state) == {"1": 2, "2": 1}
    assert GAME.scores(state) == {"1": 6, "2": 7}


# -- pawn moves --------------------------------------------------------------------------


def test_pawn_moves_one_square_orthogonally() -> None:
    state = GAME.initial_state()
    assert reason(state, "e9-e7") == "a pawn moves exactly one square orthogonally"
    assert reason(state, "e9-d8") == "a pawn moves exactly one square orthogonally"
    assert reason(state, "e9-e9") == "a pawn moves exactly one square orthogonally"


def test_only_the_movers_pawn_moves() -> None:
    state = play(["e9-e8"])
    assert reason(state, "e8-e7") == "your pawn stands on e1, not on e8"


def test_pawn_may_enter_its_own_blocking_piece() -> None:
    state = play(["e9-e8", "e1-e2", "+e7", "e2-e3"])
    assert "e8-e7" in GAME.legal(state)
    state = GAME.apply(state, "e8-e7")
    assert state.pawns[0] == 6 * 9 + 4
    assert steps(GAME.apply(state, "e3-e4")) == ["e7-d7", "e7-e6", "e7-e8", "e7-f7"]


def test_pawn_may_not_enter_an_opponents_blocking_piece() -> None:
    state = play(["e9-e8", "e1-e2", "e8-e7", "+e6"])
    assert steps(state) == ["e7-d7", "e7-e8", "e7-f7"]
    assert reason(state, "e7-e6") == "e6 holds an opponent's blocking piece"


def test_pawn_may_not_enter_the_other_pawn() -> None:
    state = play(["e9-e8", "e1-e2", "e8-e7", "e2-e3", "e7-e6", "e3-e4", "e6-e5"])
    assert steps(state) == ["e4-d4", "e4-e3", "e4-f4"]
    assert reason(state, "e4-e5") == (
        "e5 holds the other pawn (house: pawns never share a square)"
    )


# -- placements --------------------------------------------------------------------------


def test_placement_only_on_a_square_without_any_piece() -> None:
    state = play(["e9-e8", "e1-e2", "+e5", "+d5", "e8-e7"])
    assert reason(state, "+e7") == "e7 is occupied by the X pawn"
    assert reason(state, "+e2") == "e2 is occupied by the Y pawn"
    assert reason(state, "+e5") == "e5 is occupied by a blocking piece M"
    assert reason(state, "+d5") == "d5 is occupied by a blocking piece N"
    assert "+e6" in GAME.legal(state)


def test_pawn_on_its_own_piece_blocks_placement_there() -> None:
    state = play(["e9-e8", "e1-e2", "+e7", "e2-e3", "e8-e7"])
    assert "+e7" not in GAME.legal(state)
    assert reason(state, "+e7") == "e7 is occupied by the X pawn"


def test_no_placement_once_all_seven_pieces_are_placed() -> None:
    moves = ["e9-e8", "e1-e2"]
    for name in ["a5", "b5", "c5", "d5", "f5", "g5", "h5"]:
        moves += ["+" + name, "e2-e1" if moves[-1] == "e1-e2" else "e1-e2"]
    state = play(moves)
    assert GAME.scores(state) == {"1": 0, "2": 7}
    assert GAME.legal(state) == ["e8-d8", "e8-e7", "e8-e9", "e8-f8"]
    assert reason(state, "+a1") == "you have no blocking pieces left in hand"


# -- pass (house) ------------------------------------------------------------------------


def test_pass_is_illegal_while_another_action_exists() -> None:
    assert reason(GAME.initial_state(), "pass") == (
        "pass is legal only when you have no other action (house)"
    )


def test_player_with_no_other_action_must_pass_and_it_counts() -> None:
    state = play(BOXED_IN)
    assert GAME.scores(state) == {"1": 6, "2": 0}
    assert not GAME.trapped(state, 2)
    assert GAME.legal(state) == ["pass"]
    after = GAME.apply(state, "pass")
    assert GAME.counters(after) == {"1": 12, "2": 12}
    assert GAME.outcome(after) is None
    assert GAME.to_move(after) == 1
    assert after.pawns == state.pawns


# -- the goal ----------------------------------------------------------------------------


def test_x_reaching_rank_1_wins() -> None:
    x_walk = [f"e{r}-e{r - 1}" for r in range(9, 1, -1)]
    y_moves = ["e1-d1", "d1-c1", "c1-b1", "b1-a1"] + shuffles(3, "a1-a2", "a2-a1")
    state = play(interleave(x_walk, y_moves))
    assert GAME.outcome(state) == Outcome(1, "goal")
    assert GAME.to_move(state) is None
    assert GAME.legal(state) == []
    assert reason(state, "a2-a3") == "the game is over"


def test_y_reaching_rank_9_wins() -> None:
    y_walk = ["e1-d1"] + [f"d{r}-d{r + 1}" for r in range(1, 9)]
    x_moves = ["e9-f9", "f9-g9"] + shuffles(7, "g9-g8", "g8-g9")
    state = play(interleave(x_moves, y_walk))
    assert state.pawns[1] == 8 * 9 + 3
    assert GAME.outcome(state) == Outcome(2, "goal")
    assert GAME.summary(state)["outcome"] == {"winner": 2, "reason": "goal"}


# -- trapped -----------------------------------------------------------------------------


def test_worked_example_trapped_pawn_plays_out_its_pieces_then_loses() -> None:
    state = play(CHECK_EXAMPLE)
    assert GAME.to_move(state) == 1
    assert not GAME.trapped(state, 2)
    state = GAME.apply(state, "+g3")
    assert GAME.trapped(state, 2) and not GAME.trapped(state, 1)
    assert GAME.scores(state) == {"1": 2, "2": 4}
    assert GAME.outcome(state) is None
    assert steps(state) == []
    for y_move, x_move in [("+a1", "c7-d7"), ("+a2", "d7-d6"), ("+a3", "d6-d5")]:
        state = GAME.apply(GAME.apply(state, y_move), x_move)
        assert GAME.outcome(state) is None
    state = GAME.apply(state, "+b1")
    assert GAME.scores(state) == {"1": 2, "2": 0}
    assert GAME.outcome(state) == Outcome(1, "trapped")
    assert GAME.legal(state) == []


def test_trapping_a_pawn_with_no_pieces_in_hand_wins_at_once() -> None:
    x_moves = shuffles(10, "e9-e8", "e8-e9") + ["+h1", "+i2"]
    y_moves = CORNERS[1::2] + ["+a5", "+b5", "+c5", "+d5", "+f5", "+g5", "+h5"]
    state = play(interleave(x_moves, y_moves)[:-1])
    assert GAME.outcome(state) is None
    assert GAME.scores(state) == {"1": 6, "2": 0}
    state = GAME.apply(state, "+i2")
    assert GAME.outcome(state) == Outcome(1, "trapped")


def test_trapped_player_with_pieces_in_hand_plays_on() -> None:
    state = play(CORNERS + ["+h1", "+b9", "+i2"])
    assert GAME.trapped(state, 2)
    assert GAME.outcome(state) is None
    assert GAME.legal(state) == [
        "+" + name for name in sorted(ALL_SQUARES) if name not in ("a9", "b9", "h1", "i1", "i2")
    ]


def test_trapped_test_ignores_pawns() -> None:
    state = play(BOXED_IN)
    assert GAME.reach(state, 2) == 80 - 1
    assert not GAME.trapped(state, 2)


def test_both_trapped_more_pieces_in_hand_wins() -> None:
    state = play([
        "e9-e8", "e1-f1", "e8-d8", "f1-g1", "d8-c8", "g1-h1", "c8-b8", "h1-i1",
        "b8-b9", "+e5", "b9-a9", "+d5", "+h1", "+b9", "+i2",
    ])
    assert GAME.outcome(state) is None
    state = GAME.apply(state, "+a8")
    assert GAME.trapped(state, 1) and GAME.trapped(state, 2)
    assert GAME.scores(state) == {"1": 5, "2": 3}
    assert GAME.outcome(state) == Outcome(1, "trapped")


def test_both_trapped_equal_hands_larger_enclosure_wins() -> None:
    state = play(CORNERS + ["+h1", "+e5", "+h2", "+b9", "+i3", "+a8"])
    assert GAME.scores(state) == {"1": 4, "2": 4}
    assert (GAME.reach(state, 1), GAME.reach(state, 2)) == (0, 1)
    assert GAME.outcome(state) == Outcome(2, "trapped")


def test_both_trapped_equal_hands_equal_enclosures_is_a_draw() -> None:
    state = play(CORNERS + ["+h1", "+b9", "+i2", "+a8"])
    assert GAME.scores(state) == {"1": 5, "2": 5}
    assert GAME.outcome(state) == Outcome(None, "trapped")
    assert GAME.to_move(state) is None


def test_own_blocking_pieces_never_wall_in_their_owner() -> None:
    x_moves = shuffles(5, "e9-e8", "e8-e9")
    state = play(interleave(x_moves, ["e1-e2", "+d2", "+f2", "+e3", "+e1"]))
    assert not GAME.trapped(state, 2)
    assert GAME.reach(state, 2) == 80
    assert steps(GAME.apply(state, "e8-e9")) == ["e2-d2", "e2-e1", "e2-e3", "e2-f2"]


# -- the cap (house) ---------------------------------------------------------------------


def test_cap_draws_when_both_players_reach_200_actions() -> None:
    x_moves = shuffles(200, "e9-e8", "e8-e9")
    y_moves = shuffles(200, "e1-e2", "e2-e1")
    moves = interleave(x_moves, y_moves)
    state = play(moves[:-1])
    assert GAME.outcome(state) is None
    assert GAME.counters(state) == {"1": 200, "2": 199}
    state = GAME.apply(state, moves[-1])
    assert GAME.outcome(state) == Outcome(None, "cap")
    assert GAME.ply(state) == GAME.max_plies() == 400


def test_goal_on_the_capping_action_wins_over_the_cap() -> None:
    y_walk = ["e1-f1", "f1-g1"] + [f"g{r}-g{r + 1}" for r in range(1, 9)]
    y_moves = shuffles(190, "e1-e2", "e2-e1") + y_walk
    state = play(interleave(shuffles(200, "e9-e8", "e8-e9"), y_moves))
    assert GAME.counters(state) == {"1": 200, "2": 200}
    assert GAME.outcome(state) == Outcome(2, "goal")


# -- notation ----------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["e9-e8", "+g3", "pass", "a1-i9", "+i9", "+a1"])
def test_canonical_texts_round_trip(text: str) -> None:
    assert str(GAME.parse(text)) == text


@pytest.mark.parametrize(
    "text",
    ["", "Pass", "pass ", " +g3", "+G3", "+g0", "+j1", "+g10", "+g03", "e9e8", "e9-e8-e7",
     "e8-e9/1", "+", "-", "e9-", "+g3+", "g3", "+b1a1", "e9--e8", "e9–e8", "＋g3", "+g٣"],
)
def test_non_canonical_texts_are_invalid(text: str) -> None:
    with pytest.raises(InvalidMoveError):
        GAME.parse(text)


def test_huge_text_is_invalid() -> None:
    with pytest.raises(InvalidMoveError):
        GAME.parse("+" + "g3" * 100_000)


def check_parse(text: str) -> None:
    """Checks that parse either round-trips exactly or raises InvalidMoveError."""
    try:
        move = GAME.parse(text)
    except InvalidMoveError:
        return
    assert str(move) == text
    assert GAME.parse(str(move)) == move


@settings(max_examples=400, deadline=None)
@given(text=st.text(max_size=40))
def test_parse_any_text(text: str) -> None:
    check_parse(text)


NOTATION = st.one_of(
    st.text(alphabet="abcdefghij0123456789+-pas ", max_size=12),
    st.from_regex(r"\+?[a-j][0-9]{1,2}(-[a-j][0-9]{1,2})?", fullmatch=True),
)


@settings(max_examples=600, deadline=None)
@given(text=NOTATION)
def test_parse_notation_like_text(text: str) -> None:
    check_parse(text)


# -- conformance -------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(6))
def test_random_playouts_keep_every_invariant(seed: int) -> None:
    random_playout(GAME, seed)

