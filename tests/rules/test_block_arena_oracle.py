"""Cross-checks the Block Arena referee against the independent oracle, move for move.

The oracle (tests/rules/oracle/block_arena.py) is written straight from RULES.md section 1;
the hand-written tests at the top check the oracle itself on the trickiest rules.
"""

from __future__ import annotations

import random
import re
from typing import Any, Callable

import pytest

from tests.rules.oracle import block_arena as O
from tests.rules.oracle.block_arena import State

VARIANTS = ("9x9", "7x7")

# -- building positions for the oracle-only tests ----------------------------------------------


def sq(text: str) -> tuple[int, int]:
    """Returns the 0-based square of a name."""
    return O.parse_sq(text)


def position(
    size: int,
    light: list[str],
    dark: list[str],
    m1: str | None,
    m2: str | None,
    mover: int = 1,
    counters: tuple[int, int] = (5, 5),
) -> State:
    """Returns a play-phase oracle state; blocks are written like 'c3' or 'c3c4'."""
    blocks = [(1, O.split_squares(b)) for b in light] + [(2, O.split_squares(b)) for b in dark]
    ply = O.SETUP_PLIES + counters[0] + counters[1]
    assert (ply % 2 == 0) == (mover == 1), "counters must agree with the mover"
    return State(
        size,
        ply,
        tuple(sorted((o, tuple(sorted(s))) for o, s in blocks)),
        (None if m1 is None else sq(m1), None if m2 is None else sq(m2)),
        counters,
    )


def meeple_targets(state: State) -> set[str]:
    """Returns the destinations of the mover's meeple moves."""
    return {m.split("-")[1] for m in O.legal(state) if m.startswith("M") and "-" in m}


def block_moves_from(state: State, block: str) -> set[str]:
    """Returns the legal moves of one block (given by its canonical squares)."""
    return {m for m in O.legal(state) if m.startswith(block + "-")}


SETUP_9 = ["+a1", "+i9", "+b1", "+h9", "+c1", "+g9", "+d1", "+f9"]

# Light builds a bridge in files a..d; the rulebook example's light side (4+5+3+3 = 15).
LIGHT_BRIDGE = [
    "b1-b2b3", "b2b3-c2c3", "d1-d2d3", "d2d3-d3d4", "d3d4-d4d5", "d4d5-c4c5",
    "Mc1-c5", "c2c3-b2b3", "b2b3-b3b4", "a1-a2a3", "a2a3-a4", "a4-a5a6",
    "c1-d1", "d1-d2d3", "d2d3-d4", "d4-d5d6",
]  # fmt: skip


def mirror(move: str, size: int = 9) -> str:
    """Returns a move with every square turned half round the board."""

    def turn(m: re.Match[str]) -> str:
        f, r = O.parse_sq(m.group(0))
        return O.name((size - 1 - f, size - 1 - r))

    out = re.sub(r"[a-i][1-9]", turn, move)
    if "-" in out:  # re-sort the squares of each side
        head = "M" if out.startswith("M") else ""
        left, right = out[len(head) :].split("-")
        out = f"{head}{O.names(O.split_squares(left))}-{O.names(O.split_squares(right))}"
    return out


def interleave(light: list[str], dark: list[str], limit: int) -> list[str]:
    """Returns play moves alternating light and dark, padded with passes to the limit."""
    out: list[str] = []
    for i in range(limit):
        out.append(light[i] if i < len(light) else "pass")
        out.append(dark[i] if i < len(dark) else "pass")
    return out


def example_game(dark: list[str]) -> list[str]:
    """Returns a full 9x9 game: set-up, LIGHT_BRIDGE against `dark`, passes to the limit."""
    return SETUP_9 + ["M+c1", "M+g9"] + interleave(LIGHT_BRIDGE, dark, 40)


def dark_example() -> list[str]:
    """Returns dark's side of the rulebook example: meeple 4 from goal, blocks 6 + 6 + 4 + 4."""
    # The mirror of the bridge's first seven moves: h9 -> g7g8, f9 -> g5g6, meeple g9-g5.
    head = [mirror(m) for m in LIGHT_BRIDGE[:7]]
    # i9 -> i7i8 (6); g7g8 -> h7h8 (6); g9 -> f9 -> f7f8 -> f6 -> f5 (4); g5g6 carries it (4).
    return head + ["i9-i7i8", "g7g8-h7h8", "g9-f9", "f9-f7f8", "f7f8-f6", "f6-f5"]


# Goal scripts (9x9, dark meeple on g9): light walks its meeple up a bridge in file c.
LIGHT_TO_C7 = [
    "b1-b2b3", "b2b3-c2c3", "d1-d2d3", "d2d3-d3d4", "d3d4-d4d5", "d4d5-c4c5",
    "a1-a2a3", "a2a3-a4", "a4-a5a6", "a5a6-b5b6", "b5b6-b6b7", "b6b7-c6c7", "Mc1-c7",
]  # fmt: skip
LIGHT_WALKS_HOME = LIGHT_TO_C7 + [
    "c4c5-b4b5", "b4b5-b5b6", "b5b6-b6b7", "b6b7-b7b8", "b7b8-b8b9", "b8b9-c8c9", "Mc7-c9",
]  # fmt: skip
DARK_DELIVERS = ["f9-f8", "f8-e8", "e8-d8", "d8-c8"]  # then light Mc7-c8, dark c8-c9


def goal_walk_game() -> list[str]:
    """Returns a 9x9 game that light wins by walking its meeple to rank 9 (dark passes)."""
    return SETUP_9 + ["M+c1", "M+g9"] + interleave(LIGHT_WALKS_HOME, [], 20)[:-1]


def goal_delivery_game() -> list[str]:
    """Returns a 9x9 game that light wins when dark slides the block under light's meeple."""
    light = LIGHT_TO_C7 + ["Mc7-c8"]
    dark = DARK_DELIVERS + ["pass"] * (len(light) - 1 - len(DARK_DELIVERS)) + ["c8-c9"]
    return SETUP_9 + ["M+c1", "M+g9"] + interleave(light, dark, len(light))


def dark_walk_game() -> list[str]:
    """Returns the mirror of goal_walk_game: light passes, dark walks its meeple to rank 1."""
    dark = [mirror(m) for m in LIGHT_WALKS_HOME]
    return SETUP_9 + ["M+c1", "M+g9"] + interleave([], dark, len(dark))


def dark_delivered_game() -> list[str]:
    """Returns the mirror of goal_delivery_game: light's slide puts dark's meeple on rank 1."""
    dark = [mirror(m) for m in LIGHT_TO_C7 + ["Mc7-c8"]]
    light = [mirror(m) for m in DARK_DELIVERS]
    light += ["pass"] * (len(dark) - len(light)) + ["g2-g1"]
    return SETUP_9 + ["M+c1", "M+g9"] + interleave(light, dark, len(light))[:-1]


SCRIPTED_GOALS: list[tuple[Callable[[], list[str]], int]] = [
    (goal_walk_game, 1),
    (goal_delivery_game, 1),
    (dark_walk_game, 2),
    (dark_delivered_game, 2),
]


# -- oracle-only tests of the trickiest rules -------------------------------------------------


def test_setup_first_moves_are_every_base_placement() -> None:
    files9 = "abcdefghi"
    expected = [f"+{f}1" for f in files9] + [f"+{a}1{b}1" for a, b in zip(files9, files9[1:])]
    assert O.legal(O.initial("9x9")) == sorted(expected)
    assert len(O.legal(O.initial("7x7"))) == 7 + 6
    assert O.to_move(O.initial("9x9")) == 1


def test_setup_uses_own_base_rank_only_and_free_squares() -> None:
    s = O.play_all(["+c1d1"])
    assert O.to_move(s) == 2
    assert all(m.startswith("+") and m[2] == "9" for m in O.legal(s))
    assert "+c9d9" in O.legal(s) and "+c8" not in O.legal(s)
    s = O.apply(s, "+e9")
    legal = O.legal(s)
    assert "+b1c1" not in legal and "+c1" not in legal and "+d1e1" not in legal
    assert "+a1b1" in legal and "+e1f1" in legal and "+e1" in legal
    assert "pass" not in legal


def test_meeple_placement_on_any_own_block_square_and_no_counting() -> None:
    s = O.play_all(["+a1b1", "+i9", "+d1", "+h9", "+f1", "+g9", "+h1i1", "+e9f9"])
    assert O.legal(s) == ["M+a1", "M+b1", "M+d1", "M+f1", "M+h1", "M+i1"]
    s = O.apply(s, "M+b1")
    assert O.legal(s) == ["M+e9", "M+f9", "M+g9", "M+h9", "M+i9"]
    assert O.scores(s) == {"1": {"meeple": 8, "blocks": 32}, "2": {"meeple": None, "blocks": 32}}
    s = O.apply(s, "M+f9")
    assert O.counters(s) == {"1": 0, "2": 0} and O.to_move(s) == 1 and s.ply == 10
    assert "pass" in O.legal(s)
    s = O.apply(s, "pass")
    assert O.counters(s) == {"1": 1, "2": 0} and O.to_move(s) == 2


def test_scores_before_any_placement() -> None:
    assert O.scores(O.initial("7x7")) == {
        "1": {"meeple": None, "blocks": 0},
        "2": {"meeple": None, "blocks": 0},
    }


def test_meeple_own_colour_run_then_one_opponent_step() -> None:
    # Light: c3, c4c5 (lying), d5, a3 (cut off by dark b3). Dark: b3, c6, c7, e5, i9.
    s = position(9, ["c3", "c4c5", "d5", "a3"], ["b3", "c6", "c7", "e5", "i9"], "c3", "i9")
    assert meeple_targets(s) == {"c4", "c5", "d5", "b3", "c6", "e5"}


def test_meeple_run_goes_through_both_squares_of_a_lying_block() -> None:
    s = position(9, ["c3", "d3e3", "f3f4", "a1"], ["e4", "i9"], "c3", "i9")
    # c3 -> d3 -> e3 (same block) -> f3 -> f4 (same block); e4 is dark (next to e3 and f4).
    assert meeple_targets(s) == {"d3", "e3", "f3", "f4", "e4"}


def test_meeple_starting_on_opponent_colour_takes_exactly_one_step() -> None:
    # Light meeple on dark d4; neighbours: light d5 (own run must NOT continue to d6), dark
    # d3d2 -> only d3, dark e4; bare c4.
    s = position(9, ["d5d6", "a1"], ["d4", "d2d3", "e4", "i9"], "d4", "i9")
    assert meeple_targets(s) == {"d5", "d3", "e4"}


def test_meeple_may_share_or_cross_the_other_meeple() -> None:
    s = position(9, ["c3", "c4", "c5"], ["c6", "i9"], "c3", "c4")
    assert meeple_targets(s) == {"c4", "c5", "c6"}


def test_upright_block_slides_and_flips() -> None:
    s = position(9, ["e5", "a1"], ["i9"], "a1", "i9")
    assert block_moves_from(s, "e5") == {
        "e5-d5", "e5-f5", "e5-e4", "e5-e6",
        "e5-c5d5", "e5-f5g5", "e5-e6e7", "e5-e3e4",
    }  # fmt: skip


def test_lying_block_slides_and_flips_along_its_axis_only() -> None:
    s = position(9, ["e5e6", "a1"], ["i9"], "a1", "i9")
    assert block_moves_from(s, "e5e6") == {
        "e5e6-d5d6", "e5e6-f5f6", "e5e6-e4e5", "e5e6-e6e7", "e5e6-e7", "e5e6-e4",
    }  # fmt: skip
    s = position(9, ["d5e5", "a1"], ["i9"], "a1", "i9")
    assert block_moves_from(s, "d5e5") == {
        "d5e5-d4e4", "d5e5-d6e6", "d5e5-c5d5", "d5e5-e5f5", "d5e5-f5", "d5e5-c5",
    }  # fmt: skip


def test_block_moves_stay_on_board_and_off_other_blocks() -> None:
    s = position(9, ["a1", "b1c1", "i8"], ["a3", "i9"], "i8", "i9")
    # a1: a2 free (slide), b1 taken, flip up needs a2 a3 (a3 dark); flips west/south off board.
    assert block_moves_from(s, "a1") == {"a1-a2"}
    # b1c1: up b2c2; flips d1 and a1 (a1 taken); slides left a1 b1 (taken), right c1d1.
    assert block_moves_from(s, "b1c1") == {"b1c1-b2c2", "b1c1-c1d1", "b1c1-d1"}


def test_block_under_own_meeple_never_moves() -> None:
    s = position(9, ["e5", "a1"], ["i9"], "e5", "i9")
    assert block_moves_from(s, "e5") == set()
    both = position(9, ["e5", "a1"], ["i9"], "e5", "e5")
    assert block_moves_from(both, "e5") == set()
    # the dark side sees the same: its own meeple on a light block does not stop light.
    s = position(9, ["e5", "a1"], ["i9"], "a1", "e5")
    assert block_moves_from(s, "e5") == {"e5-d5", "e5-f5", "e5-e4", "e5-e6"}


def test_opponent_meeple_rides_a_slide_on_the_same_part_of_the_block() -> None:
    s = position(9, ["d4d5", "a1"], ["i9"], "a1", "d5")
    assert block_moves_from(s, "d4d5") == {
        "d4d5-c4c5", "d4d5-e4e5", "d4d5-d3d4", "d4d5-d5d6",
    }  # fmt: skip
    after = O.apply(s, "d4d5-d3d4")
    assert after.meeples[1] == sq("d4")
    after = O.apply(s, "d4d5-e4e5")
    assert after.meeples[1] == sq("e5") and after.meeples[0] == sq("a1")
    assert O.counters(after) == {"1": 6, "2": 5}


def test_slide_delivering_the_opponent_meeple_makes_the_opponent_win() -> None:
    s = position(9, ["c2c3", "a5"], ["i9"], "a5", "c2")
    after = O.apply(s, "c2c3-c1c2")
    assert after.meeples[1] == sq("c1")
    assert O.outcome(after) == {"winner": 2, "reason": "goal"}
    assert O.to_move(after) is None and O.legal(after) == []


def test_meeple_reaching_any_goal_square_wins() -> None:
    s = position(7, ["c6", "b6b7", "a1"], ["g7"], "c6", "g7")
    assert meeple_targets(s) == {"b6", "b7"}
    assert O.outcome(O.apply(s, "Mc6-b6")) is None
    assert O.outcome(O.apply(s, "Mc6-b7")) == {"winner": 1, "reason": "goal"}
    # ... also on an opponent block on the goal rank.
    s = position(7, ["c6", "a1"], ["c7"], "c6", "c7")
    assert O.outcome(O.apply(s, "Mc6-c7")) == {"winner": 1, "reason": "goal"}


def test_move_limit_waits_for_player_two() -> None:
    s = position(7, ["c3", "a1"], ["c5", "g2"], "c3", "c5", mover=2, counters=(30, 29))
    assert O.outcome(s) is None and O.to_move(s) == 2 and "pass" in O.legal(s)
    end = O.apply(s, "pass")
    # 7x7: meeples both 4 from goal; blocks 4 + 6 = 10 (light) against 4 + 1 = 5 (dark).
    assert O.outcome(end) == {"winner": 2, "reason": "move-limit"}
    assert O.to_move(end) is None and O.legal(end) == []
    assert O.counters(end) == {"1": 30, "2": 30}


def test_move_limit_full_tie_goes_to_player_two() -> None:
    s = position(7, ["c3", "a1"], ["c5", "g7"], "c3", "c5", mover=2, counters=(30, 29))
    # meeples 4 and 4; blocks 4 + 6 = 10 and 4 + 6 = 10.
    assert O.outcome(O.apply(s, "pass")) == {"winner": 2, "reason": "move-limit"}


def test_move_limit_nearer_meeple_wins_before_block_sums() -> None:
    s = position(7, ["c4", "a1"], ["c5", "g1"], "c4", "c5", mover=2, counters=(30, 29))
    # light meeple 3 from goal, dark meeple 4: light wins though its blocks (3 + 6) lose to 4 + 0.
    assert O.outcome(O.apply(s, "pass")) == {"winner": 1, "reason": "move-limit"}


def test_rulebook_example_15_against_20_light_wins() -> None:
    dark = dark_example()
    state = O.play_all(example_game(dark))
    assert O.counters(state) == {"1": 40, "2": 40} and state.ply == O.max_plies("9x9")
    assert O.scores(state) == {"1": {"meeple": 4, "blocks": 15}, "2": {"meeple": 4, "blocks": 20}}
    assert O.outcome(state) == {"winner": 1, "reason": "move-limit"}


def test_mirrored_example_ties_and_player_two_wins() -> None:
    # Dark plays the exact mirror image of the light bridge: 4 and 4, 15 and 15.
    state = O.play_all(example_game([mirror(m) for m in LIGHT_BRIDGE]))
    assert O.scores(state) == {"1": {"meeple": 4, "blocks": 15}, "2": {"meeple": 4, "blocks": 15}}
    assert O.outcome(state) == {"winner": 2, "reason": "move-limit"}


def test_scripted_goals() -> None:
    for script, winner in SCRIPTED_GOALS:
        state = O.play_all(script())
        assert O.outcome(state) == {"winner": winner, "reason": "goal"}, script.__name__
    delivered = O.play_all(goal_delivery_game())
    assert delivered.ply % 2 == 0 and delivered.counters == (14, 14)  # dark slid last
    delivered = O.play_all(dark_delivered_game())
    assert delivered.ply % 2 == 1 and delivered.counters == (15, 14)  # light slid last


def test_max_plies() -> None:
    assert O.max_plies("9x9") == 90 and O.max_plies("7x7") == 70


# -- differential tests against the real referee ----------------------------------------------


def real_game(variant: str) -> Any:
    """Returns the real BlockArena for a variant, skipping when the module does not exist yet."""
    module = pytest.importorskip("rules.block_arena")
    return module.BlockArena(variant)


def compare(game: Any, real: Any, oracle: State, history: list[str]) -> None:
    """Asserts that the real referee and the oracle agree on everything observable."""
    where = f"after {history!r}"
    outcome = game.outcome(real)
    assert (None if outcome is None else outcome.as_dict()) == O.outcome(oracle), where
    assert game.legal(real) == O.legal(oracle), where
    assert game.to_move(real) == O.to_move(oracle), where
    assert game.scores(real) == O.scores(oracle), where
    assert game.counters(real) == O.counters(oracle), where
    assert game.ply(real) == oracle.ply, where


Policy = Callable[[random.Random, list[str], int], str]


def uniform(rng: random.Random, legal: list[str], player: int) -> str:
    """Picks uniformly among the legal moves."""
    return rng.choice(legal)


def forward(rng: random.Random, legal: list[str], player: int) -> str:
    """Mostly picks the move that carries the meeple or a block furthest toward the goal."""

    def gain(move: str) -> int:
        if "-" not in move:
            return 0
        ranks = [[int(x) for x in re.findall(r"\d+", side)] for side in move.split("-")]
        pick = max if player == 1 else min
        step = pick(ranks[1]) - pick(ranks[0])
        return (10 if move.startswith("M") else 1) * (step if player == 1 else -step)

    if rng.random() < 0.7:
        best = max(gain(m) for m in legal)
        if best > 0:
            return rng.choice([m for m in legal if gain(m) == best])
    return rng.choice(legal)


def differential_playout(variant: str, seed: int, policy: Policy) -> dict[str, Any] | None:
    """Plays one seeded game on the real referee, checking the oracle after every ply."""
    game = real_game(variant)
    rng = random.Random(seed)
    real, oracle = game.initial_state(), O.initial(variant)
    history: list[str] = []
    compare(game, real, oracle, history)
    for _ in range(game.max_plies()):
        legal = game.legal(real)
        if not legal:
            break
        move = policy(rng, legal, game.to_move(real))
        history.append(move)
        real, oracle = game.apply(real, move), O.apply(oracle, move)
        compare(game, real, oracle, history)
    assert O.outcome(oracle) is not None, f"not over after {history!r}"
    return O.outcome(oracle)


def replay_both(variant: str, moves: list[str]) -> tuple[Any, Any, State]:
    """Replays a script on both sides, comparing every ply (so each move is legal on both)."""
    game = real_game(variant)
    real, oracle = game.initial_state(), O.initial(variant)
    compare(game, real, oracle, [])
    for i, move in enumerate(moves):
        real, oracle = game.apply(real, move), O.apply(oracle, move)
        compare(game, real, oracle, moves[: i + 1])
    return game, real, oracle


@pytest.mark.parametrize("variant", VARIANTS)
def test_max_plies_agree(variant: str) -> None:
    assert real_game(variant).max_plies() == O.max_plies(variant)


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("seed", range(8))
def test_uniform_random_games_agree(variant: str, seed: int) -> None:
    differential_playout(variant, seed, uniform)


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("seed", range(6))
def test_forward_biased_games_agree(variant: str, seed: int) -> None:
    differential_playout(variant, 1000 + seed, forward)


@pytest.mark.slow
@pytest.mark.parametrize("variant", VARIANTS)
def test_many_more_games_agree(variant: str) -> None:
    for seed in range(100, 140):
        differential_playout(variant, seed, uniform if seed % 2 else forward)


def test_scripted_games_agree() -> None:
    _, _, state = replay_both("9x9", example_game(dark_example()))
    assert O.outcome(state) == {"winner": 1, "reason": "move-limit"}
    _, _, state = replay_both("9x9", example_game([mirror(m) for m in LIGHT_BRIDGE]))
    assert O.outcome(state) == {"winner": 2, "reason": "move-limit"}
    for script, winner in SCRIPTED_GOALS:
        _, _, state = replay_both("9x9", script())
        assert O.outcome(state) == {"winner": winner, "reason": "goal"}
