"""Blockade rules, one test per rule, each built from a move sequence."""

from __future__ import annotations

from dataclasses import replace

import pytest

from rules.blockade import Blockade, BlockadeState
from rules.blockade_board import Colour, Piece, Size, Tower, index
from rules.core import IllegalMoveError, Outcome

GAME = Blockade()
WARM_PASSES = ["roll:r1y1", "end"]
COOL_PASSES = ["roll:b1g1", "end"]

# Cool builds green towers, one a turn, warm passing in between (see test_five_towers_win).
GREEN_TOWERS = [
    ["roll:b1g6", "b3-c3", "a5-b3", "c3-b3"],
    ["roll:b1g6", "b2-c3", "a5-b2", "c3-b2"],
    ["roll:b1g6", "b1-c1", "a5-b1", "c1-b1"],
    ["roll:b1g6", "c1-d1", "a5-c1", "d1-c1"],
    ["roll:b1g6", "d1-c1", "a5-d1", "c1-d1"],
]
# Warm builds a red tower on b4 (5 of its 6 red points).
RED_TOWER_B4 = ["roll:r6y1", "b4-c4", "e5-b4", "c4-b4"]


def sq(text: str) -> int:
    """Returns the board index of a square name."""
    return index(ord(text[0]) - ord("a"), int(text[1]) - 1)


def pieces(text: str) -> tuple[Piece, ...]:
    """Returns a stack from codes like 'gL gM gS kL' (colour letter, size; bottom first)."""
    colours = {"r": Colour.RED, "y": Colour.YELLOW, "g": Colour.GREEN, "b": Colour.BLUE}
    colours |= {"k": Colour.BLACK, "c": Colour.CLEAR}
    sizes = {"L": Size.LARGE, "M": Size.MEDIUM, "S": Size.SMALL}
    return tuple(Piece(colours[code[0]], sizes[code[1]]) for code in text.split())


def play(*moves: str) -> BlockadeState:
    """Returns the state after checked moves from the set-up."""
    return GAME.play_all(list(moves))


def reason(state: BlockadeState, move: str) -> str:
    """Returns the reason the referee gives for refusing a move."""
    with pytest.raises(IllegalMoveError) as caught:
        GAME.apply(state, move)
    return caught.value.reason


def turns(*blocks: list[str]) -> list[str]:
    """Returns cool turns (each ended) with a warm pass after each one."""
    return [move for block in blocks for move in (*block, "end", *WARM_PASSES)]


def test_setup_matches_the_diagram() -> None:
    state = GAME.initial_state()
    assert state.stacks[sq("a5")] == pieces("cL gM gM gM gM gM")
    assert state.stacks[sq("e5")] == pieces("cL rM rM rM rM rM")
    assert state.stacks[sq("a1")] == pieces("cL yM yM yM yM yM")
    assert state.stacks[sq("e1")] == pieces("cL bM bM bM bM bM")
    assert state.stacks[sq("c3")] == pieces("cL")
    rows = {"5": "CBBBC", "4": "RRRBY", "3": "RGCBY", "2": "RGYYY", "1": "CGGGC"}
    for rank, letters in rows.items():
        for file, letter in zip("abcde", letters):
            stack = state.stacks[sq(file + rank)]
            assert stack[0] == pieces(f"{letter.lower()}L")[0]
            if letter != "C":
                assert stack == pieces(f"{letter.lower()}L {letter.lower()}S")
    assert state.supply == (Size.LARGE,) * 5 + (Size.MEDIUM,) * 5 + (Size.SMALL,) * 5


def test_cool_rolls_first_and_every_roll_is_legal() -> None:
    state = GAME.initial_state()
    assert GAME.to_move(state) == 1
    assert GAME.legal(state) == sorted(f"roll:b{x}g{y}" for x in range(1, 7) for y in range(1, 7))
    assert GAME.counters(state) == {"1": 0, "2": 0}
    assert GAME.scores(state) == {"1": {"blue": 0, "green": 0}, "2": {"red": 0, "yellow": 0}}


def test_the_other_sides_roll_is_illegal() -> None:
    assert reason(play(), "roll:r2y3") == "it is cool's turn: roll the blue and green dice"
    warm = play(*COOL_PASSES)
    assert reason(warm, "roll:b2g3") == "it is warm's turn: roll the red and yellow dice"


def test_nothing_but_a_roll_before_the_roll() -> None:
    assert reason(play(), "end") == "a roll is due"
    assert reason(play(), "b3-c3") == "a roll is due"


def test_one_roll_a_turn() -> None:
    state = play("roll:b2g5")
    assert reason(state, "roll:b2g5") == "the dice were already rolled this turn: move pieces or end"


def test_roll_opens_its_allocations() -> None:
    assert play("roll:b2g3").points == frozenset({(2, 3), (5, 0), (0, 5)})
    assert play("roll:b3g3").points == frozenset({(3, 3), (6, 0), (0, 6)})
    assert play("roll:b4g2").points == frozenset({(4, 2)})
    assert play("roll:b3g4").points == frozenset({(3, 4)})


def test_summed_dice_pay_for_a_long_move() -> None:
    state = play("roll:b2g3", "d1-a5")  # a green Small onto the green Mediums, 4 steps
    assert state.points == frozenset({(0, 1)})
    assert GAME.legal(state) == [
        "b1-b2", "b1-c1", "b2-b1", "b2-b3", "b2-c1", "b2-c3",
        "b3-b2", "b3-c3", "c1-b1", "c1-b2", "c1-d1", "end",
    ]  # fmt: skip
    assert reason(state, "d3-c3") == "c3 is 1 step away but only 0 blue points are left"


def test_dice_above_three_cannot_be_summed() -> None:
    state = play("roll:b4g2")
    assert reason(state, "d1-a5") == "a5 is 4 steps away but only 2 green points are left"
    assert reason(play("roll:b1g1"), "d1-a5") == "a5 is 4 steps away but only 2 green points are left"


def test_points_split_among_moves_of_one_piece() -> None:
    state = play("roll:b1g1", "b3-c3", "c3-b3")  # the same Small, out and back
    assert state.stacks[sq("b3")] == pieces("gL gS")
    assert state.points == frozenset({(0, 0)})
    assert GAME.legal(state) == ["end"]
    assert GAME.ply(state) == 3


def test_points_split_between_colours() -> None:
    state = play("roll:b1g1", "b3-c3", "d3-d4")
    assert state.points == frozenset({(0, 0)})
    assert GAME.legal(state) == ["end"]


def test_end_loses_unused_points_and_passes_the_turn() -> None:
    state = play("roll:b6g6", "end")
    assert GAME.to_move(state) == 2
    assert GAME.counters(state) == {"1": 1, "2": 0}
    assert GAME.legal(state) == sorted(f"roll:r{x}y{y}" for x in range(1, 7) for y in range(1, 7))
    assert GAME.counters(play("roll:b6g6", "end", "roll:r1y1", "end")) == {"1": 1, "2": 1}


def test_larges_never_move() -> None:
    assert reason(play("roll:b6g6"), "c3-b3") == "c3's top piece is a Large and never moves"
    state = play("roll:b6g6", "b3-c3")
    assert reason(state, "b3-b2") == "b3's top piece is a Large and never moves"


def test_only_the_movers_colours_move() -> None:
    state = play("roll:b6g6")
    assert reason(state, "a4-c3") == "a4's top piece is a red Small, not one of your colours"
    assert reason(state, "a1-c3") == "a1's top piece is a yellow Medium, not one of your colours"
    assert not [m for m in GAME.legal(state) if m[:2] in ("a4", "a1", "e5", "c2")]


def test_anything_lands_on_clear() -> None:
    legal = GAME.legal(play("roll:b6g6"))
    assert {"e1-c3", "a5-c3", "b3-c3", "d3-c3"} <= set(legal)


def test_own_colour_landing_needs_a_top_at_least_as_large() -> None:
    state = play("roll:b6g6")
    assert "b3-b2" in GAME.legal(state)  # Small on Small
    assert reason(state, "a5-b3") == "a green Medium cannot land on a smaller green Small"
    assert "a5-b3" in GAME.legal(GAME.apply(state, "b3-c3"))  # Medium on Large


def test_other_colours_are_never_landed_on_even_friendly_ones() -> None:
    state = play("roll:b6g6")
    assert reason(state, "b3-a3") == "a green Small cannot land on a red Small"
    assert reason(state, "d3-b3") == "a blue Small cannot land on a green Small"


def test_tower_takes_the_largest_black_and_counts() -> None:
    state = play(*GREEN_TOWERS[0])
    assert state.stacks[sq("b3")] == pieces("gL gM gS kL")
    assert state.towers[sq("b3")] == Tower(Colour.GREEN, capped=True)
    assert state.supply == (Size.LARGE,) * 4 + (Size.MEDIUM,) * 5 + (Size.SMALL,) * 5
    assert GAME.scores(state) == {"1": {"blue": 0, "green": 1}, "2": {"red": 0, "yellow": 0}}
    assert state.points == frozenset({(1, 2)})  # 1 + 2 + 1 green points spent


def test_black_caps_never_move() -> None:
    state = play(*GREEN_TOWERS[0])
    assert reason(state, "b3-c3") == "b3's top piece is black and never moves"
    assert not [m for m in GAME.legal(state) if m.startswith("b3-")]


def test_only_the_towers_colour_lands_on_its_black() -> None:
    state = play(*GREEN_TOWERS[0])
    assert "b2-b3" in GAME.legal(state)
    assert reason(state, "d3-b3") == "a blue Small may land on black only where it caps a blue tower"


def test_a_piece_on_a_black_cap_moves_freely() -> None:
    state = play(*GREEN_TOWERS[0], "b2-b3")
    assert state.stacks[sq("b3")] == pieces("gL gM gS kL gS")
    assert "b3-b2" in GAME.legal(state)
    assert GAME.scores(GAME.apply(state, "b3-b2"))["1"] == {"blue": 0, "green": 1}


# Three cool turns: towers on b5, c5, d5 (blue) and b1, c1, b2 (green); the sixth is capped
# by a black Medium, the five black Larges being gone.
SIX_TOWERS = [
    ["roll:b6g6", "b5-c5", "e1-b5", "c5-b5", "b1-c1", "a5-b1", "c1-b1"],
    ["roll:b6g6", "c5-d5", "e1-c5", "d5-c5", "c1-d1", "a5-c1", "d1-c1"],
    ["roll:b6g6", "d5-c5", "e1-d5", "c5-d5", "b2-c3", "a5-b2", "c3-b2"],
]


def test_blacks_go_on_largest_first() -> None:
    state = play(*turns(*SIX_TOWERS))
    assert [state.stacks[sq(s)][-1] for s in ("b5", "b1", "c5", "c1", "d5", "b2")] == list(
        pieces("kL kL kL kL kL kM")
    )
    assert state.supply == (Size.MEDIUM,) * 4 + (Size.SMALL,) * 5
    assert GAME.scores(state) == {"1": {"blue": 3, "green": 3}, "2": {"red": 0, "yellow": 0}}


def test_black_must_be_larger_than_the_piece_landing_on_it() -> None:
    state = play(*turns(*SIX_TOWERS), "roll:b1g6")
    assert reason(state, "a5-b2") == (
        "a green Medium cannot land on a black Medium: the black must be larger"
    )
    assert "b3-b2" in GAME.legal(state)  # a Small is smaller than the black Medium


def test_a_stack_that_is_not_exactly_large_medium_small_is_no_tower() -> None:
    doubled = play("roll:b1g6", "b3-c3", "a5-b3", "a5-b3", "c3-b3")
    assert doubled.stacks[sq("b3")] == pieces("gL gM gM gS")
    on_clear = play("roll:b1g3", "a5-c3", "b3-c3")
    assert on_clear.stacks[sq("c3")] == pieces("cL gM gS")
    for state in (doubled, on_clear):
        assert state.towers == (None,) * 25
        assert GAME.scores(state)["1"] == {"blue": 0, "green": 0}


def test_five_towers_of_one_colour_win_at_once() -> None:
    state = play(*turns(*GREEN_TOWERS[:4]), *GREEN_TOWERS[4][:-1])
    assert GAME.outcome(state) is None
    state = GAME.apply(state, GREEN_TOWERS[4][-1])
    assert GAME.outcome(state) == Outcome(1, "towers")
    assert GAME.scores(state) == {"1": {"blue": 0, "green": 5}, "2": {"red": 0, "yellow": 0}}
    assert GAME.to_move(state) is None
    assert GAME.legal(state) == []
    assert reason(state, "end") == "the game is over"


def test_opponents_blockade_cannot_be_passed_over() -> None:
    assert "a5-c3" in GAME.legal(play("roll:b4g2"))  # two steps, over b4
    blockaded = [*COOL_PASSES, *RED_TOWER_B4, "end"]
    state = play(*blockaded, "roll:b4g2")
    assert reason(state, "a5-c3") == "c3 is 3 steps away but only 2 green points are left"
    state = play(*blockaded, "roll:b1g3", "a5-c3")
    assert state.points == frozenset({(1, 0), (0, 1)})  # 3 of the 4 summed green points spent


def test_own_blockades_can_be_passed_over() -> None:
    cool_towers = ["roll:b6g6", "b5-c5", "e1-b5", "c5-b5", "b3-c3", "a5-b3", "c3-b3", "end"]
    state = play(*cool_towers, *RED_TOWER_B4, "end", *COOL_PASSES, "roll:r2y1")
    # b3 and b5 are cool blockades; red a4-c4 goes over warm's own b4 in 2 steps.
    state = GAME.apply(state, "a4-c4")
    assert state.points == frozenset({(0, 1), (1, 0)})


def test_a_blockade_stays_under_a_piece_on_its_black() -> None:
    state = play(*COOL_PASSES, *RED_TOWER_B4, "end", *COOL_PASSES, "roll:r3y1", "e5-b4", "end")
    assert state.stacks[sq("b4")] == pieces("rL rM rS kL rM")
    state = GAME.apply(state, "roll:b4g2")
    assert reason(state, "a5-c3") == "c3 is 3 steps away but only 2 green points are left"


def test_tower_without_black_is_locked_but_no_blockade() -> None:
    state = play(*COOL_PASSES, "roll:r6y1", "b4-c4", "e5-b4")
    state = GAME.apply(replace(state, supply=()), "c4-b4")
    assert state.stacks[sq("b4")] == pieces("rL rM rS")
    assert state.towers[sq("b4")] == Tower(Colour.RED, capped=False)
    assert GAME.scores(state)["2"] == {"red": 1, "yellow": 0}
    assert reason(state, "b4-c4") == "b4's top piece is part of a locked tower and never moves"
    assert "a5-c3" in GAME.legal(GAME.play_all(["end", "roll:b4g2"], state))


def test_no_path_when_blockades_wall_a_piece_in() -> None:
    wall = [sq(s) for s in ("a4", "b4", "b5")]
    state = play("roll:b6g6")
    red_tower = pieces("rL rM rS kL")
    state = replace(
        state,
        stacks=tuple(red_tower if s in wall else st for s, st in enumerate(state.stacks)),
        towers=tuple(Tower(Colour.RED, True) if s in wall else None for s in range(25)),
    )
    assert not [m for m in GAME.legal(state) if m.startswith("a5-")]
    assert reason(state, "a5-c3") == "no path avoids the opponent's blockades"


def test_cap_draws_when_both_have_a_hundred_turns() -> None:
    moves = (COOL_PASSES + WARM_PASSES) * 100
    state = play(*moves[:-1])
    assert GAME.outcome(state) is None
    assert GAME.counters(state) == {"1": 100, "2": 99}
    state = GAME.apply(state, moves[-1])
    assert GAME.outcome(state) == Outcome(None, "cap")
    assert GAME.counters(state) == {"1": 100, "2": 100}
    assert GAME.to_move(state) is None and GAME.legal(state) == []
    assert GAME.ply(state) == 400


def test_max_plies_bounds_two_hundred_full_turns() -> None:
    assert GAME.max_plies() == 200 * (1 + 12 + 1)


def test_house_rules_name_the_order_and_the_cap() -> None:
    text = " ".join(Blockade.house_rules)
    assert "cool" in text and "moves first" in text
    assert "100 completed turns each" in text
