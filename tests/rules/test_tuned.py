"""Rule-by-rule tests of Tuned (RULES.md section 4), each built from a move sequence."""

from __future__ import annotations

import random

import pytest

from rules.core import IllegalMoveError, Outcome
from rules.tuned import CAP, CAT, DOG, DONKEY, Tuned, TunedState
from tests.rules.conformance import random_playout

GAME = Tuned()
EMPTY = [f"{file}{rank}" for file in "abc" for rank in "123"]

# Player 1 and player 2 each add all six animals, no line appears; player 1 is to move.
ALL_ADDED = (
    "+donkey@a1 +donkey@b1 +donkey@c2 +dog@b1 +dog@a1 +cat@b1 "
    "+dog@c2 +donkey@a3 +cat@a1 +dog@a3 +cat@c2 +cat@b2"
).split()

# Player 2 moved last, so must Add, holds only donkeys, and the board is full.
NO_ROOM = (
    "+donkey@b1 +cat@a3 +dog@c3 +dog@b2 a3-a1 +cat@b3 "
    "+donkey@c1 +dog@a3 +cat@a2 b1-c2 +dog@b1"
).split()


def play(moves: str) -> TunedState:
    """Returns the state after a space-separated move list, checked move by move."""
    return GAME.play_all(moves.split())


def rejection(state: TunedState, move: str) -> str:
    """Returns the reason apply gives for an illegal move."""
    with pytest.raises(IllegalMoveError) as caught:
        GAME.apply(state, move)
    return caught.value.reason


def moves_only(state: TunedState) -> list[str]:
    """Returns the legal Moves (not Adds) of a state."""
    return [text for text in GAME.legal(state) if not text.startswith("+")]


def calm_game(seed: int, plies: int) -> TunedState:
    """Returns the state after a seeded random game that avoids every ending before the cap."""
    rng = random.Random(seed)
    state = GAME.initial_state()
    while GAME.ply(state) < plies:
        options = GAME.legal(state)
        rng.shuffle(options)
        state = next(
            after
            for after in (GAME.play(state, GAME.parse(text)) for text in options)
            if GAME.outcome(after) is None or GAME.ply(after) == 2 * CAP
        )
    return state


# -- start and the rooster ----------------------------------------------------------------


def test_initial_position_offers_every_add_and_no_move() -> None:
    state = GAME.initial_state()
    expected = sorted(f"+{animal}@{square}" for animal in ("cat", "dog", "donkey") for square in EMPTY)
    assert GAME.legal(state) == expected
    assert GAME.to_move(state) == 1
    assert GAME.ply(state) == 0


def test_first_action_must_be_add() -> None:
    state = play("+donkey@a1")
    assert GAME.to_move(state) == 2
    assert moves_only(state) == []
    assert rejection(state, "a1-b1") == "your first action must be an Add (the rooster starts on Move)"


def test_after_an_add_a_player_may_move() -> None:
    state = play("+donkey@a1 +dog@b2")
    assert moves_only(state) == [
        "a1-a2", "a1-a3", "a1-b1", "a1-b3", "a1-c1", "a1-c2", "a1-c3",
        "b2-a1", "b2-a2", "b2-a3", "b2-b1", "b2-b3", "b2-c1", "b2-c2", "b2-c3",
    ]  # fmt: skip
    assert "+cat@b2" in GAME.legal(state)


def test_after_a_move_a_player_holding_animals_must_add() -> None:
    state = play("+donkey@a1 +dog@b2 b2-c3 +cat@a3")
    assert moves_only(state) == []
    assert rejection(state, "c3-a1") == "you Moved on your last turn and still hold animals, so you must Add"


def test_a_player_may_add_twice_in_a_row() -> None:
    state = play("+donkey@a1 +dog@b2 +donkey@c3 +cat@b2")
    assert GAME.scores(state) == {"1": 4, "2": 4}
    assert "+dog@a1" in GAME.legal(state)


def test_player_with_no_animals_only_moves_every_turn() -> None:
    state = GAME.play_all(ALL_ADDED)
    assert GAME.scores(state) == {"1": 0, "2": 0}
    assert all(not text.startswith("+") for text in GAME.legal(state))
    state = GAME.play_all(["a1-c1", "a3-a2"], state)
    assert moves_only(state) == GAME.legal(state) != []
    assert rejection(state, "+cat@c3") == "you have no animals left in hand, so you must Move"


# -- placement ------------------------------------------------------------------------------


def test_donkey_only_on_an_empty_square() -> None:
    state = play("+donkey@a1 +dog@b2")
    assert "+donkey@a1" not in GAME.legal(state)
    assert rejection(state, "+donkey@b2") == "a donkey goes only on an empty square, and b2 has a dog on top"


def test_dog_on_an_empty_square_or_a_donkey() -> None:
    state = play("+donkey@a1 +cat@b2")
    dogs = [text for text in GAME.legal(state) if text.startswith("+dog@")]
    assert dogs == ["+dog@a1"] + [f"+dog@{sq}" for sq in EMPTY if sq not in ("a1", "b2")]
    assert rejection(state, "+dog@b2") == (
        "a dog goes only on an empty square or onto a donkey, and b2 has a cat on top"
    )


def test_cat_on_an_empty_square_or_a_dog() -> None:
    state = play("+donkey@a1 +dog@b2")
    assert "+cat@b2" in GAME.legal(state)
    assert rejection(state, "+cat@a1") == (
        "a cat goes only on an empty square or onto a dog, and a1 has a donkey on top"
    )


def test_an_animal_not_in_hand_cannot_be_added() -> None:
    state = play("+cat@a1 +donkey@b2 +cat@b3 +donkey@c2")
    assert GAME.scores(state) == {"1": 4, "2": 4}
    assert not any(text.startswith("+cat@") for text in GAME.legal(state))
    assert rejection(state, "+cat@c1") == "you have no cat left in hand"


# -- moving stacks ----------------------------------------------------------------------------


def test_moving_part_of_a_stack_keeps_its_order() -> None:
    state = play("+donkey@a1 +dog@a1 +cat@a1 a1-b2/2")
    assert state.board[0] == (DONKEY,)
    assert state.board[4] == (DOG, CAT)


def test_moves_from_a_stack_of_three() -> None:
    state = play("+donkey@a1 +dog@a1 +cat@b2 +cat@a1 +donkey@c3")
    from_a1 = [text for text in moves_only(state) if text.startswith("a1-")]
    empty = [sq for sq in EMPTY if sq not in ("a1", "b2", "c3")]
    assert from_a1 == sorted(
        [f"a1-{sq}" for sq in empty]
        + [f"a1-{sq}/2" for sq in empty + ["c3"]]
        + [f"a1-{sq}/3" for sq in empty]
    )


def test_whole_stack_needs_an_empty_square() -> None:
    state = play("+donkey@a1 +dog@a1 +cat@b2 +cat@a1 +donkey@c3")
    assert rejection(state, "a1-c3/3") == (
        "a donkey goes only on an empty square, and c3 has a donkey on top"
    )


def test_moved_part_bottom_obeys_the_placement_rule() -> None:
    state = play("+donkey@a1 +dog@a1 +cat@b2 +cat@a1 +donkey@c3")
    assert "a1-c3/2" in GAME.legal(state)
    assert rejection(state, "a1-b2/2") == (
        "a dog goes only on an empty square or onto a donkey, and b2 has a cat on top"
    )


def test_cannot_move_more_animals_than_the_stack_holds() -> None:
    state = play("+donkey@a1 +dog@a1 +cat@b2")
    assert rejection(state, "a1-c3/3") == "a1 holds only 2 animals"
    assert rejection(state, "b2-c3/2") == "b2 holds only 1 animal"


def test_cannot_move_from_an_empty_square() -> None:
    state = play("+donkey@a1 +dog@b2")
    assert rejection(state, "c3-a2") == "c3 is empty"


# -- no undo ----------------------------------------------------------------------------------


def test_opponent_cannot_undo_the_last_move() -> None:
    state = play("+donkey@a1 +dog@b2 a1-c1")
    assert "c1-a1" not in GAME.legal(state)
    assert rejection(state, "c1-a1") == "c1-a1 would undo the opponent's last move a1-c1"


def test_undo_rule_counts_the_number_of_animals() -> None:
    state = play("+donkey@a1 +dog@a1 +cat@c3 a1-b1/2")
    assert "b1-a1/2" not in GAME.legal(state)
    assert "b1-a1" in GAME.legal(state)
    assert rejection(state, "b1-a1/2") == "b1-a1/2 would undo the opponent's last move a1-b1/2"


def test_an_add_in_between_lifts_the_undo_rule() -> None:
    state = play("+donkey@a1 +dog@b2 a1-c1 +cat@b2 +dog@a3")
    assert "c1-a1" in GAME.legal(state)
    assert GAME.apply(state, "c1-a1").board[0] == (DONKEY,)


# -- endings ----------------------------------------------------------------------------------


def test_add_completing_a_row_wins() -> None:
    state = play("+dog@a1 +dog@b1 +donkey@a3")
    assert GAME.outcome(state) is None
    state = GAME.apply(state, "+dog@c1")
    assert GAME.outcome(state) == Outcome(2, "line")
    assert GAME.to_move(state) is None
    assert GAME.legal(state) == []


def test_move_completing_a_diagonal_wins() -> None:
    state = play("+dog@a1 +dog@b2 +donkey@c3 +dog@c2")
    assert GAME.outcome(state) is None
    state = GAME.apply(state, "c2-c3")
    assert GAME.outcome(state) == Outcome(1, "line")


def test_line_revealed_by_uncovering_wins_for_the_mover() -> None:
    state = play("+dog@a1 +dog@b1 +cat@a1 +dog@c1")
    assert GAME.outcome(state) is None
    state = GAME.apply(state, "a1-b3")
    assert GAME.outcome(state) == Outcome(1, "line")


def test_empty_squares_make_no_line() -> None:
    state = play("+donkey@a1")
    assert GAME.outcome(state) is None
    assert GAME.to_move(state) == 2


def test_must_add_but_cannot_place_loses() -> None:
    state = GAME.play_all(NO_ROOM)
    assert state.hands[1] == (2, 0, 0)
    assert GAME.outcome(state) == Outcome(1, "no-move")
    assert GAME.legal(state) == []


def test_finished_game_rejects_every_move() -> None:
    state = GAME.play_all(NO_ROOM)
    assert rejection(state, "+donkey@a1") == "the game is over"
    assert rejection(state, "a1-b1") == "the game is over"


def test_cap_is_a_draw_when_both_players_reach_it() -> None:
    before = calm_game(0, 2 * CAP - 1)
    assert GAME.counters(before) == {"1": CAP, "2": CAP - 1}
    assert GAME.outcome(before) is None
    after = GAME.apply(before, GAME.legal(before)[0])
    assert GAME.outcome(after) == Outcome(None, "cap")
    assert GAME.ply(after) == GAME.max_plies() == 2 * CAP


def test_line_on_the_capping_action_beats_the_cap() -> None:
    before = calm_game(2, 2 * CAP - 1)
    endings = {text: GAME.outcome(GAME.apply(before, text)) for text in GAME.legal(before)}
    assert set(endings.values()) == {Outcome(None, "cap"), Outcome(2, "line")}


# -- scores, counters, ply --------------------------------------------------------------------


def test_scores_count_animals_in_hand() -> None:
    state = play("+donkey@a1 +dog@b2 +cat@c1")
    assert GAME.scores(state) == {"1": 4, "2": 5}


def test_counters_and_ply_count_every_action() -> None:
    state = play("+donkey@a1 +dog@b2 a1-c1 +cat@b2 +dog@a3")
    assert GAME.counters(state) == {"1": 3, "2": 2}
    assert GAME.ply(state) == 5


def test_states_compare_by_value() -> None:
    first = play("+donkey@a1 +dog@b2")
    second = play("+donkey@a1 +dog@b2")
    assert first == second and hash(first) == hash(second)


@pytest.mark.parametrize("seed", range(8))
def test_conformance_random_playouts(seed: int) -> None:
    random_playout(GAME, seed)
