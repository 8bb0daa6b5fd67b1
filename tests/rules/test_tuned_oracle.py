"""Cross-checks the Tuned referee against the independent oracle, and checks the oracle."""

from __future__ import annotations

import collections
import random
from typing import Any

import pytest

from tests.rules.oracle import tuned as oracle

UNIFORM_SEEDS = range(200)
# Line-avoiding games (seed, chance to avoid a line): long, mostly Move-only; the first ends by
# a line after 391 plies, the second reaches the cap.
CALM_GAMES = [(0, 0.99), (2, 0.99)]


def real_game() -> Any:
    """Returns the real referee, or skips the test when the module does not exist yet."""
    module = pytest.importorskip("rules.tuned")
    return module.Tuned(None)


def real_outcome(game: Any, state: Any) -> dict[str, Any] | None:
    """Returns the real outcome as a dict, or None."""
    result = game.outcome(state)
    return None if result is None else result.as_dict()


def compare(game: Any, real: Any, mine: oracle.State, history: list[str]) -> list[str]:
    """Asserts real and oracle agree on everything observable; returns the legal list."""
    real_legal = game.legal(real)
    assert real_legal == oracle.legal(mine), f"legal after {history}"
    assert game.to_move(real) == oracle.to_move(mine), f"to_move after {history}"
    assert real_outcome(game, real) == oracle.outcome(mine), f"outcome after {history}"
    assert game.scores(real) == oracle.scores(mine), f"scores after {history}"
    assert game.counters(real) == oracle.counters(mine), f"counters after {history}"
    return list(real_legal)


def play_both(seed: int, calm: float) -> oracle.State:
    """Plays a seeded game on both, comparing every ply; `calm` = chance to avoid making a line."""
    game = real_game()
    rng = random.Random(seed)
    real, mine = game.initial_state(), oracle.initial()
    history: list[str] = []
    for _ in range(game.max_plies() + 1):
        legal = compare(game, real, mine, history)
        if not legal:
            break
        move = rng.choice(legal)
        if calm and rng.random() < calm:
            quiet = [m for m in legal if not _makes_line(game, real, m)]
            if quiet:
                move = rng.choice(quiet)
        history.append(move)
        real, mine = game.apply(real, move), oracle.apply(mine, move)
    assert oracle.outcome(mine) is not None
    assert oracle.ply(mine) <= game.max_plies() == 400
    return mine


def _makes_line(game: Any, real: Any, move: str) -> bool:
    """Tells whether a move ends the game by a line (asked of the real referee, for speed)."""
    result = game.outcome(game.apply(real, move))
    return result is not None and result.reason == "line"


def play_sequence_both(moves: list[str]) -> oracle.State:
    """Plays a fixed sequence on the oracle (and on the real referee, comparing, if present)."""
    try:
        import rules.tuned as module
    except ImportError:  # pragma: no cover - the real referee is optional for oracle tests
        module = None  # type: ignore[assignment]
    game = None if module is None else module.Tuned(None)
    real = None if game is None else game.initial_state()
    mine = oracle.initial()
    for index, move in enumerate(moves):
        if game is not None:
            compare(game, real, mine, moves[:index])
        assert move in oracle.legal(mine), (move, moves[:index])
        mine = oracle.apply(mine, move)
        if game is not None:
            real = game.apply(real, move)
    if game is not None:
        compare(game, real, mine, moves)
    return mine


# -- differential tests against the real referee -------------------------------------------


def test_uniform_random_games_agree_with_oracle() -> None:
    tally = collections.Counter(
        str(oracle.outcome(play_both(seed, 0.0))) for seed in UNIFORM_SEEDS
    )
    print(f"tuned endings over {len(UNIFORM_SEEDS)} uniform games: {dict(tally)}")


@pytest.mark.parametrize(("seed", "calm"), CALM_GAMES)
def test_line_avoiding_games_agree_with_oracle(seed: int, calm: float) -> None:
    final = play_both(seed, calm)
    print(f"tuned calm game {seed}/{calm}: {oracle.ply(final)} plies, {oracle.outcome(final)}")


@pytest.mark.slow
def test_more_random_games_agree_with_oracle() -> None:
    tally = collections.Counter(
        str(oracle.outcome(play_both(1000 + seed, 0.0))) for seed in range(400)
    )
    tally.update(str(oracle.outcome(play_both(2000 + seed, 0.99))) for seed in range(6))
    tally.update(str(oracle.outcome(play_both(3000 + seed, 1.0))) for seed in range(3))
    print(f"tuned endings: {dict(tally)}")


# -- the oracle's own unit tests (also replayed on the real referee when present) -----------


def test_first_action_is_add_then_rooster() -> None:
    start = oracle.legal(oracle.initial())
    assert len(start) == 27 and all(m.startswith("+") for m in start)  # any animal, any square
    state = play_sequence_both(["+donkey@a1"])
    legal = oracle.legal(state)
    assert all(m.startswith("+") for m in legal)  # player 2 has not acted: Add
    assert "+dog@a1" in legal and "+cat@a1" not in legal and "+donkey@a1" not in legal
    state = play_sequence_both(["+donkey@a1", "+dog@a1"])
    legal = oracle.legal(state)  # player 1 added last: Add or Move
    assert "+cat@a1" in legal and "a1-b2" in legal and "a1-b2/2" in legal
    assert "a1-b2/3" not in legal  # only two animals in the stack
    state = play_sequence_both(["+donkey@a1", "+dog@a1", "a1-b2/2"])
    legal = oracle.legal(state)  # player 2 added last: Add or Move
    assert any(m.startswith("+") for m in legal) and any("-" in m for m in legal)
    state = play_sequence_both(["+donkey@a1", "+dog@a1", "a1-b2/2", "+cat@b2"])
    assert all(m.startswith("+") for m in oracle.legal(state))  # player 1 moved last: Add


def test_move_obeys_placement_of_the_bottom_moved_animal() -> None:
    # b2: donkey, dog, cat (a full stack); a1: donkey; c3: dog.
    moves = ["+donkey@b2", "+dog@b2", "+cat@b2", "+donkey@a1", "+dog@c3"]
    state = play_sequence_both(moves)
    legal = oracle.legal(state)
    assert "b2-c3" in legal  # cat onto a dog
    assert "b2-a1" not in legal  # cat onto a donkey
    assert "b2-a1/2" in legal  # dog (with its cat) onto a donkey
    assert "b2-c3/2" not in legal  # dog onto a dog
    assert "b2-a3/3" in legal and "b2-a1/3" not in legal  # a donkey needs an empty square
    assert "b2-a3/1" not in legal  # never written /1
    after = play_sequence_both([*moves, "b2-a1/2"])
    board, _ = oracle.replay(after.history)
    assert board["a1"] == ["donkey", "dog", "cat"] and board["b2"] == ["donkey"]


def test_no_undo_only_the_exact_reverse_right_after() -> None:
    moves = ["+donkey@a1", "+dog@a1", "a1-c3/2"]
    state = play_sequence_both(moves)
    legal = oracle.legal(state)
    assert "c3-a1/2" not in legal  # the exact reverse
    assert "c3-a1" in legal  # same squares, other k: allowed
    state = play_sequence_both([*moves, "+cat@b2", "+donkey@b1"])
    assert "c3-a1/2" in oracle.legal(state)  # an Add came in between


def test_line_by_uncovering_wins_for_the_mover() -> None:
    moves = ["+donkey@a1", "+donkey@c1", "+dog@c1", "+donkey@b1"]
    state = play_sequence_both(moves)
    assert oracle.outcome(state) is None
    state = play_sequence_both([*moves, "c1-a2"])
    assert oracle.outcome(state) == {"winner": 1, "reason": "line"}
    assert oracle.to_move(state) is None and oracle.legal(state) == []


def test_line_of_any_kind_wins_for_the_player_who_made_it() -> None:
    moves = ["+cat@a1", "+cat@b2", "+cat@c3"]
    state = play_sequence_both(moves)
    assert oracle.outcome(state) == {"winner": 1, "reason": "line"}
    state = play_sequence_both(["+cat@a1", "+cat@b2", "+dog@a2", "+cat@c3"])
    assert oracle.outcome(state) == {"winner": 2, "reason": "line"}


# Found by a seeded search with the oracle, then checked by hand: the board is full, player 2
# moved last and holds one donkey only, so it must Add and cannot (tops are dogs, cats, donkeys).
NO_ROOM = [
    "+dog@b2", "+cat@b2", "b2-a2", "+cat@b2", "+cat@c3", "+dog@b1", "b1-a1",
    "+donkey@b3", "+donkey@a3", "+dog@b1", "a3-c2", "b2-a3", "+cat@c1",
]


def test_must_add_and_cannot_loses() -> None:
    before = play_sequence_both(NO_ROOM[:-1])
    assert oracle.outcome(before) is None
    state = play_sequence_both(NO_ROOM)
    board, hands = oracle.replay(state.history)
    assert all(board[sq] for sq in oracle.SQUARES)
    assert hands[2] == {"donkey": 1, "dog": 0, "cat": 0}
    assert oracle.allowed_kinds(state, 2) == {"add"}
    assert oracle.outcome(state) == {"winner": 1, "reason": "no-move"}
    assert oracle.scores(state) == {"1": 2, "2": 1}


def test_empty_hand_moves_every_turn() -> None:
    adds = [
        "+cat@a2", "+cat@b1", "+cat@b2", "+donkey@a3", "+dog@b3", "+donkey@c3",
        "+dog@c3", "+cat@c3", "+donkey@c2", "+dog@a3", "+donkey@a1", "+dog@c2",
    ]
    state = play_sequence_both(adds)
    assert oracle.scores(state) == {"1": 0, "2": 0}
    assert oracle.allowed_kinds(state, 1) == {"move"}
    state = play_sequence_both([*adds, "a1-c1"])
    assert all("-" in m for m in oracle.legal(state))  # after a Move, still Move


def test_cap_draw_after_both_two_hundredth_actions() -> None:
    adds = [
        "+cat@a2", "+cat@b1", "+cat@b2", "+donkey@a3", "+dog@b3", "+donkey@c3",
        "+dog@c3", "+cat@c3", "+donkey@c2", "+dog@a3", "+donkey@a1", "+dog@c2",
    ]
    moves = adds + ["a1-c1", "a2-a3", "c1-a1", "a3-a2"] * 97
    assert len(moves) == 400
    state = play_sequence_both(moves)
    assert oracle.counters(state) == {"1": 200, "2": 200}
    assert oracle.outcome(state) == {"winner": None, "reason": "cap"}
    before = oracle.State(state.history[:-1])
    assert oracle.outcome(before) is None and oracle.to_move(before) == 2
