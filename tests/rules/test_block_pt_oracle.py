"""Cross-checks the Block (block-pt) referee against the oracle, and checks the oracle itself."""

from __future__ import annotations

import collections
import random
from typing import Any

import pytest

from tests.rules.oracle import block_pt as oracle

UNIFORM_SEEDS = range(4)
BIASED_SEEDS = range(40)
BIAS = 0.6  # chance of a placement next to the opponent's pawn, when one is legal


def real_game() -> Any:
    """Returns the real referee, or skips the test when the module does not exist yet."""
    module = pytest.importorskip("rules.block_pt")
    return module.BlockPT(None)


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


def adjacent(a: str, b: str) -> bool:
    """Tells whether two squares are orthogonal neighbours."""
    return abs(ord(a[0]) - ord(b[0])) + abs(int(a[1:]) - int(b[1:])) == 1


def choose(rng: random.Random, legal: list[str], mine: oracle.State, bias: float) -> str:
    """Picks a move: with probability `bias` a placement next to the opponent's pawn."""
    if bias:
        opponent = oracle.pawn(mine, 3 - oracle.mover(mine))
        near = [m for m in legal if m.startswith("+") and adjacent(m[1:], opponent)]
        if near and rng.random() < bias:
            return rng.choice(near)
    return rng.choice(legal)


def play_both(seed: int, bias: float) -> oracle.State:
    """Plays one seeded game on the real referee and the oracle, comparing after every ply."""
    game = real_game()
    rng = random.Random(seed)
    real, mine = game.initial_state(), oracle.initial()
    history: list[str] = []
    for _ in range(game.max_plies() + 1):
        legal = compare(game, real, mine, history)
        if not legal:
            break
        move = choose(rng, legal, mine, bias)
        history.append(move)
        real, mine = game.apply(real, move), oracle.apply(mine, move)
    assert oracle.outcome(mine) is not None
    assert oracle.ply(mine) <= game.max_plies() == 400
    return mine


def ending(state: oracle.State) -> str:
    """Names how a finished game ended: goal, trapped-one, trapped-both or cap."""
    result = oracle.outcome(state)
    assert result is not None
    if result["reason"] != "trapped":
        return str(result["reason"])
    both = oracle.trapped(state, 1) and oracle.trapped(state, 2)
    return "trapped-both" if both else "trapped-one"


def play_sequence_both(moves: list[str]) -> oracle.State:
    """Plays a fixed sequence on the oracle (and on the real referee, comparing, if present)."""
    mine = oracle.initial()
    try:
        import rules.block_pt as module
    except ImportError:  # pragma: no cover - the real referee is optional for oracle tests
        module = None  # type: ignore[assignment]
    game = None if module is None else module.BlockPT(None)
    real = None if game is None else game.initial_state()
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


@pytest.mark.parametrize("seed", UNIFORM_SEEDS)
def test_uniform_random_games_agree_with_oracle(seed: int) -> None:
    play_both(seed, 0.0)


def test_biased_games_agree_and_reach_trapped_endings() -> None:
    tally = collections.Counter(ending(play_both(seed, BIAS)) for seed in BIASED_SEEDS)
    print(f"block-pt endings over {len(BIASED_SEEDS)} biased games: {dict(tally)}")
    assert tally["trapped-one"] > 0
    assert tally["trapped-both"] > 0


@pytest.mark.slow
@pytest.mark.parametrize("bias", [0.0, 0.3, 0.6, 0.9])
def test_more_random_games_agree_with_oracle(bias: float) -> None:
    tally = collections.Counter(ending(play_both(100 + seed, bias)) for seed in range(25))
    print(f"block-pt endings, bias {bias}: {dict(tally)}")


# -- the oracle's own unit tests (also replayed on the real referee when present) -----------

# X walks to c7 and Y to g4; X puts M on f4, h4, g5 (and a spare on a9 to fix the parity),
# Y puts N on c6, b5, a4. X is to play: the RULES.md "Check" position.
CHECK = [
    "e9-e8", "e1-f1", "e8-d8", "f1-g1", "d8-c8", "g1-g2", "c8-c7", "g2-g3",
    "+f4", "g3-g4", "+h4", "+c6", "+g5", "+b5", "+a9", "+a4",
]


def test_rules_md_check_example() -> None:
    state = play_sequence_both(CHECK)
    assert oracle.pawn(state, 1) == "c7" and oracle.pawn(state, 2) == "g4"
    assert oracle.to_move(state) == 1 and not oracle.trapped(state, 2)
    state = play_sequence_both([*CHECK, "+g3"])
    assert oracle.trapped(state, 2) and oracle.hand(state, 2) == 4
    assert oracle.outcome(state) is None
    assert not any("-" in m or m == "pass" for m in oracle.legal(state))  # Y can only place
    tail = ["+i1", "c7-d7", "+i2", "d7-c7", "+i3", "c7-d7"]
    state = play_sequence_both([*CHECK, "+g3", *tail])
    assert oracle.outcome(state) is None and oracle.hand(state, 2) == 1
    state = play_sequence_both([*CHECK, "+g3", *tail, "+h1"])
    assert oracle.outcome(state) == {"winner": 1, "reason": "trapped"}
    assert oracle.to_move(state) is None and oracle.legal(state) == []


def test_first_turn_must_be_a_pawn_move() -> None:
    assert oracle.legal(oracle.initial()) == ["e9-d9", "e9-e8", "e9-f9"]
    state = play_sequence_both(["e9-e8"])
    assert oracle.legal(state) == ["e1-d1", "e1-e2", "e1-f1"]
    state = play_sequence_both(["e9-e8", "e1-e2"])
    legal = oracle.legal(state)
    assert "+a1" in legal and "+e2" not in legal and "+e8" not in legal
    assert len(legal) == 4 + 81 - 2


def test_pawns_on_own_pieces_not_on_the_opponents_nor_the_other_pawn() -> None:
    # X to e6 with an M on e5; Y to e4 with an N on d6.
    moves = ["e9-e8", "e1-e2", "e8-e7", "e2-e3", "e7-e6", "e3-e4", "+e5", "+d6"]
    state = play_sequence_both(moves)
    legal = oracle.legal(state)
    assert "e6-e5" in legal  # onto its own blocking piece
    assert "e6-d6" not in legal  # never onto the opponent's
    assert "+e5" not in legal and "+d6" not in legal
    state = play_sequence_both([*moves, "e6-e5"])
    assert "e4-e5" not in oracle.legal(state)  # the other pawn (and an M) stands there
    state = play_sequence_both([*moves, "e6-e5", "e4-d4"])
    assert "+e5" not in oracle.legal(state)  # a piece under a pawn is still a piece
    assert "+e6" in oracle.legal(state)


def test_pass_only_when_nothing_else() -> None:
    # Y walks to a4, X to b4; X walls Y with M on a3 and a5 and spends all 7 far away,
    # Y spends all 7 N far away: Y, not trapped (pawns ignored), has no action and passes.
    x = ["e9-d9", "d9-c9", "c9-b9", "b9-b8", "b8-b7", "b7-b6", "b6-b5", "b5-b4",
         "+g2", "+h2", "+i2", "+g3", "+h3", "+a5", "+a3"]
    y = ["e1-d1", "d1-c1", "c1-b1", "b1-a1", "a1-a2", "a2-a3", "a3-a4",
         "+g5", "+h5", "+i5", "+g6", "+h6", "+i6", "+g7"]
    moves = [m for pair in zip(x, y) for m in pair] + x[len(y):]
    state = play_sequence_both(moves)
    assert not oracle.trapped(state, 2) and oracle.hand(state, 2) == 0
    assert oracle.to_move(state) == 2 and oracle.legal(state) == ["pass"]
    state = play_sequence_both([*moves, "pass"])
    assert oracle.counters(state) == {"1": 15, "2": 15}
    assert oracle.legal(state) == ["b4-b3", "b4-b5", "b4-c4"]
    state = play_sequence_both([*moves, "pass", "b4-b3"])
    assert oracle.legal(state) == ["a4-b4"]


CORNERS = ["e9-d9", "e1-f1", "d9-c9", "f1-g1", "c9-b9", "g1-h1", "b9-a9", "h1-i1"]


def test_both_trapped_equal_everything_is_a_draw() -> None:
    # X in a9 walled by N b9, a8; Y in i1 walled by M h1, i2: 5 pieces each, no room each.
    state = play_sequence_both([*CORNERS, "+h1", "+b9", "+i2"])
    assert oracle.trapped(state, 2) and oracle.outcome(state) is None
    state = play_sequence_both([*CORNERS, "+h1", "+b9", "+i2", "+a8"])
    assert oracle.outcome(state) == {"winner": None, "reason": "trapped"}


def test_both_trapped_more_pieces_in_hand_wins() -> None:
    # As above but X steps to a8 instead of placing a third piece; N on a7, b8, b9 wall it.
    moves = [*CORNERS, "+h1", "+a7", "+i2", "+b8", "a9-a8", "+b9"]
    state = play_sequence_both(moves)
    assert oracle.scores(state) == {"1": 5, "2": 4}
    assert oracle.outcome(state) == {"winner": 1, "reason": "trapped"}


def test_both_trapped_equal_hands_more_room_wins() -> None:
    # X (room a8: 1 square besides its own) and Y (room 0), 4 pieces each.
    moves = [*CORNERS, "+e5", "+a7", "+h1", "+b8", "+i2", "+b9"]
    state = play_sequence_both(moves)
    assert oracle.scores(state) == {"1": 4, "2": 4}
    assert len(oracle.enclosure(state, 1)) - 1 == 1 and len(oracle.enclosure(state, 2)) - 1 == 0
    assert oracle.outcome(state) == {"winner": 1, "reason": "trapped"}


def test_goal_wins_for_the_mover() -> None:
    # Y first leaves e1 for the a-file so that X can walk straight down the e-file.
    y = ["e1-d1", "d1-c1", "c1-b1", "b1-a1", "a1-a2", "a2-a1", "a1-a2", "a2-a1"]
    x = [f"e{r}-e{r - 1}" for r in range(9, 1, -1)]
    moves = [m for pair in zip(x, y) for m in pair][:-1]
    state = play_sequence_both(moves)
    assert oracle.pawn(state, 1) == "e1"
    assert oracle.outcome(state) == {"winner": 1, "reason": "goal"}


def test_cap_draw_after_both_two_hundredth_actions() -> None:
    shuffle = ["e9-e8", "e1-e2", "e8-e9", "e2-e1"] * 100
    state = play_sequence_both(shuffle)
    assert oracle.outcome(state) == {"winner": None, "reason": "cap"}
    assert oracle.counters(state) == {"1": 200, "2": 200}
    before = oracle.initial()
    for move in shuffle[:399]:
        before = oracle.apply(before, move)
    assert oracle.outcome(before) is None and oracle.counters(before) == {"1": 200, "2": 199}


def test_goal_on_the_capping_action_wins_over_the_cap() -> None:
    # X leaves the e-file and shuffles; Y shuffles 192 times, then walks e1-e9 on actions 193-200.
    x = ["e9-d9"] + ["d9-d8", "d8-d9"] * 99 + ["d9-d8"]
    y = ["e1-e2", "e2-e1"] * 96 + [f"e{r}-e{r + 1}" for r in range(1, 9)]
    moves = [m for pair in zip(x, y) for m in pair]
    assert len(moves) == 400
    state = play_sequence_both(moves)
    assert oracle.outcome(state) == {"winner": 2, "reason": "goal"}


def test_opponent_pawn_on_its_own_piece_still_walls() -> None:
    # Pawns are ignored by the trapped test, blocking pieces are not: X stands on its own M on
    # i2 and puts M on h1, so Y in i1 is trapped (the M under X still walls it; RULES.md also
    # says "once trapped, always trapped", which a pawn stepping off could not undo).
    x = ["e9-f9", "f9-g9", "g9-h9", "h9-i9", "i9-i8", "i8-i7", "i7-i6", "i6-i5", "i5-i4",
         "i4-i3", "+i2", "i3-i2", "+h1"]
    y = ["e1-f1", "f1-g1", "g1-h1", "h1-i1", "i1-i2", "i2-i1",
         "+a5", "+b5", "+c5", "+d5", "+e5", "+f5"]
    moves = [m for pair in zip(x, y) for m in pair] + x[len(y):]
    state = play_sequence_both(moves)
    assert oracle.pawn(state, 1) == "i2" and oracle.trapped(state, 2)
    assert oracle.hand(state, 2) == 1 and oracle.outcome(state) is None
    state = play_sequence_both([*moves, "+g5"])
    assert oracle.outcome(state) == {"winner": 1, "reason": "trapped"}
