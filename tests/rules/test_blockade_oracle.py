"""Cross-checks the Blockade referee against the independent oracle, and checks the oracle."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import pytest

from tests.rules.oracle import blockade as oracle
from tests.rules.oracle.blockade import State

# With the oracle's random choices, seed 9 empties the black supply (an uncapped tower) and
# seed 27 runs to the 100-turn cap; the others end by `towers` after 300-600 plies.
SEEDS = [0, 1, 2, 9, 27]
SLOW_SEEDS = range(10, 27)

CODE_COLOUR = {
    "r": "red",
    "y": "yellow",
    "g": "green",
    "b": "blue",
    "k": "black",
    "c": "clear",
}


def stack(text: str) -> oracle.Stack:
    """Returns a stack from codes like 'gL gM gS kL' (colour letter, size; bottom first)."""
    return tuple((CODE_COLOUR[code[0]], code[1]) for code in text.split())


def position(
    stacks: dict[str, str],
    towers: dict[str, str] | None = None,
    capped: set[str] | None = None,
    player: int = 1,
    roll: str | None = None,
    **fields: Any,
) -> State:
    """Returns the initial position with some stacks replaced, optionally after a roll."""
    base = oracle.initial()
    board = dict(base.board)
    for square, text in stacks.items():
        board[square] = stack(text)
    state = replace(
        base,
        board=board,
        tower=dict(towers or {}),
        capped=frozenset(capped or set()),
        player=player,
        **fields,
    )
    if roll is not None:
        state = oracle.apply(state, roll)
    return state


def real_game() -> Any:
    """Returns the real referee, or skips when rules/blockade.py does not exist yet."""
    module = pytest.importorskip("rules.blockade")
    return module.Blockade(None)


# -- differential test --------------------------------------------------------------------


def compare(game: Any, real: Any, mine: State, history: list[str]) -> None:
    """Asserts that the referee and the oracle agree on everything observable."""
    where = f"after {len(history)} moves: {' '.join(history)}"
    real_outcome = game.outcome(real)
    assert (None if real_outcome is None else real_outcome.as_dict()) == oracle.outcome(
        mine
    ), where
    assert game.to_move(real) == oracle.to_move(mine), where
    assert game.scores(real) == oracle.scores(mine), where
    assert game.counters(real) == oracle.counters(mine), where
    assert game.ply(real) == mine.ply, where
    real_legal, oracle_legal = game.legal(real), oracle.legal(mine)
    if real_legal != oracle_legal:
        only_real = sorted(set(real_legal) - set(oracle_legal))
        only_oracle = sorted(set(oracle_legal) - set(real_legal))
        raise AssertionError(f"{where}\nonly real: {only_real}\nonly oracle: {only_oracle}")


def play_both(seed: int) -> None:
    """Plays one seeded random game with the referee, checking the oracle after every ply."""
    game = real_game()
    rng = random.Random(seed)
    real, mine = game.initial_state(), oracle.initial()
    history: list[str] = []
    for _ in range(game.max_plies() + 1):
        compare(game, real, mine, history)
        legal = game.legal(real)
        if not legal:
            return
        move = rng.choice(legal)
        history.append(move)
        real, mine = game.apply(real, move), oracle.apply(mine, move)
    raise AssertionError("the game outlived max_plies")


@pytest.mark.parametrize("seed", SEEDS)
def test_random_games_agree_with_oracle(seed: int) -> None:
    play_both(seed)


@pytest.mark.slow
@pytest.mark.parametrize("seed", SLOW_SEEDS)
def test_more_random_games_agree_with_oracle(seed: int) -> None:
    play_both(seed)


def test_real_rejects_non_canonical_rolls() -> None:
    from rules.core import IllegalMoveError, InvalidMoveError

    game = real_game()
    start = game.initial_state()
    for text in ("roll:g5b4", "roll:b4r5", "roll:b0g7"):
        with pytest.raises(InvalidMoveError):
            game.apply(start, text)
    with pytest.raises(IllegalMoveError):
        game.apply(start, "roll:r2y3")


# -- the oracle on its own ----------------------------------------------------------------


def test_initial_position() -> None:
    state = oracle.initial()
    pieces = [piece for s in state.board.values() for piece in s]
    assert sum(1 for _, size in pieces if size == "L") == 25
    assert sum(1 for _, size in pieces if size == "M") == 20
    assert sum(1 for _, size in pieces if size == "S") == 20
    assert state.board["a5"] == stack("cL gM gM gM gM gM")
    assert state.board["e5"] == stack("cL rM rM rM rM rM")
    assert state.board["a1"] == stack("cL yM yM yM yM yM")
    assert state.board["e1"] == stack("cL bM bM bM bM bM")
    assert state.board["c3"] == stack("cL")
    assert state.board["d4"] == stack("bL bS")
    assert state.board["a3"] == stack("rL rS")
    assert state.board["c2"] == stack("yL yS")
    assert len(oracle.legal(state)) == 36
    assert oracle.legal(state)[0] == "roll:b1g1"
    assert "roll:r1y1" not in oracle.legal(state)
    assert oracle.to_move(state) == 1
    assert oracle.scores(state) == {
        "1": {"blue": 0, "green": 0},
        "2": {"red": 0, "yellow": 0},
    }
    assert oracle.counters(state) == {"1": 0, "2": 0}


def test_allocations_and_sum_rule() -> None:
    state = oracle.apply(oracle.initial(), "roll:b2g3")
    assert state.allocations == {(2, 3), (5, 0), (0, 5)}
    assert oracle.apply(oracle.initial(), "roll:b4g2").allocations == {(4, 2)}
    # b1-a5: a green Small onto the green Medium stack, 4 steps: only the (0, 5) sum fits.
    assert "b1-a5" in oracle.legal(state)
    after = oracle.apply(state, "b1-a5")
    assert after.allocations == {(0, 1)}
    assert "b1-a5" not in oracle.legal(oracle.apply(oracle.initial(), "roll:b6g3"))
    assert "end" in oracle.legal(after)


def test_end_passes_the_turn_and_counts() -> None:
    state = oracle.apply(oracle.apply(oracle.initial(), "roll:b6g6"), "end")
    assert oracle.to_move(state) == 2
    assert oracle.counters(state) == {"1": 1, "2": 0}
    assert oracle.legal(state) == sorted(
        f"roll:r{x}y{y}" for x in range(1, 7) for y in range(1, 7)
    )


def test_landing_table() -> None:
    state = position(
        {
            "b3": "gL gM",  # green Medium top
            "b2": "gL gS",  # green Small top
            "c3": "cL",  # clear
            "c2": "bL bM",  # blue Medium top (friendly colour, still not landable)
            "a2": "cL gM",  # a green Medium to move
        },
        roll="roll:b6g6",
    )
    legal = oracle.legal(state)
    assert "a2-b3" in legal  # M on own M
    assert "a2-b2" not in legal  # M on own S: too small
    assert "b2-b3" in legal  # S on own M
    assert "a2-c3" in legal  # anything on clear
    assert "a2-c2" not in legal and "b2-c2" not in legal  # other colour, even friendly
    assert "b3-a2" in legal  # M on own M
    assert not any(m.startswith("a1-") for m in legal)  # yellow is not cool's colour
    assert not any(m.startswith("c3-") for m in legal)  # a lone Large never moves


def test_tower_takes_largest_black_and_locks() -> None:
    state = position({"b3": "gL gM", "b2": "gL gS"}, roll="roll:b1g1")
    after = oracle.apply(state, "b2-b3")
    assert after.board["b3"] == stack("gL gM gS kL")
    assert after.tower == {"b3": "green"} and after.capped == {"b3"}
    assert after.supply.count("L") == 4
    assert oracle.scores(after)["1"] == {"blue": 0, "green": 1}
    # Only M and S blacks left: the M goes on.
    state = position({"b3": "gL gM", "b2": "gL gS"}, roll="roll:b1g1", supply=("S", "M"))
    assert oracle.apply(state, "b2-b3").board["b3"] == stack("gL gM gS kM")


def test_tower_with_empty_supply_is_locked_but_no_blockade() -> None:
    state = position({"b3": "gL gM", "b2": "gL gS"}, roll="roll:b1g1", supply=())
    after = oracle.apply(state, "b2-b3")
    assert after.board["b3"] == stack("gL gM gS")
    assert after.tower == {"b3": "green"} and after.capped == frozenset()
    assert oracle.scores(after)["1"]["green"] == 1
    again = oracle.apply(oracle.apply(after, "end"), "roll:r1y1")
    again = oracle.apply(oracle.apply(again, "end"), "roll:b6g6")
    assert not any(m.startswith("b3-") for m in oracle.legal(again))  # locked Small
    assert not oracle.is_blockade_against(again, "b3", 2)


def test_opponent_blockade_blocks_passing_own_does_not() -> None:
    red_wall = {sq: "rL rM rS kL" for sq in ("b2", "b3", "b4")}
    stacks = {"a3": "cL bS", "c3": "cL", **red_wall}
    towers = {sq: "red" for sq in red_wall}
    # a3 to c3 must go round: a3-a2-b1-c2-c3, 4 steps.
    state = position(stacks, towers, set(red_wall), roll="roll:b4g1")
    assert oracle.path_cost(state, "a3", "c3", 1) == 4
    assert "a3-c3" in oracle.legal(state)
    assert "a3-c3" not in oracle.legal(position(stacks, towers, set(red_wall), roll="roll:b3g4"))
    assert "a3-c3" in oracle.legal(position(stacks, towers, set(red_wall), roll="roll:b3g1"))
    # The owner passes over its own blockades.
    warm = position({**stacks, "a3": "cL rS"}, towers, set(red_wall), player=2)
    assert oracle.path_cost(warm, "a3", "c3", 2) == 2
    # Uncapped towers (empty supply) are no blockade.
    uncapped = {sq: "rL rM rS" for sq in red_wall}
    state = position({**stacks, **uncapped}, towers, set(), roll="roll:b2g4")
    assert "a3-c3" in oracle.legal(state)
    # Something sitting on the black cap does not lift the blockade.
    topped = {sq: "rL rM rS kL rS" for sq in red_wall}
    state = position({**stacks, **topped}, towers, set(red_wall))
    assert oracle.path_cost(state, "a3", "c3", 1) == 4


def test_landing_on_black_caps() -> None:
    stacks = {
        "b3": "gL gM gS kL",
        "b4": "gL gM gS kM",
        "c4": "gL gM gS kS",
        "d3": "bL bM bS kL",
        "c3": "cL gM",
        "c2": "cL gS",
    }
    towers = {"b3": "green", "b4": "green", "c4": "green", "d3": "blue"}
    state = position(stacks, towers, set(towers), roll="roll:b6g6")
    legal = oracle.legal(state)
    assert "c3-b3" in legal and "c2-b3" in legal  # black L takes M and S of the tower colour
    assert "c3-b4" not in legal and "c2-b4" in legal  # black M: only strictly smaller
    assert "c3-c4" not in legal and "c2-c4" not in legal  # black S: nothing
    assert "c2-d3" not in legal and "c3-d3" not in legal  # green on a blue tower's black
    assert not any(m.startswith(("b3-", "b4-", "c4-", "d3-")) for m in legal)
    # A piece sitting on the black is free to move on.
    after = oracle.apply(state, "c2-b3")
    assert after.board["b3"] == stack("gL gM gS kL gS")
    assert "b3-c2" in oracle.legal(after)
    assert oracle.scores(after)["1"]["green"] == 3


def test_five_towers_win_at_once() -> None:
    done = {sq: "gL gM gS kL" for sq in ("b1", "c1", "d1", "b2")}
    state = position(
        {**done, "b3": "gL gM", "a3": "cL gS"},
        {sq: "green" for sq in done},
        set(done),
        roll="roll:b1g1",
    )
    assert oracle.outcome(state) is None
    after = oracle.apply(state, "a3-b3")
    assert oracle.outcome(after) == {"winner": 1, "reason": "towers"}
    assert oracle.to_move(after) is None
    assert oracle.legal(after) == []
    assert oracle.scores(after)["1"]["green"] == 5


def test_cap_draw_after_both_hundredth_turns() -> None:
    state = position({}, player=2, turns=(100, 99), roll="roll:r6y6")
    assert oracle.outcome(state) is None
    after = oracle.apply(state, "end")
    assert oracle.counters(after) == {"1": 100, "2": 100}
    assert oracle.outcome(after) == {"winner": None, "reason": "cap"}
    assert oracle.legal(after) == [] and oracle.to_move(after) is None
