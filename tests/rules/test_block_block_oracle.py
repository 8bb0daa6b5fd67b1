"""Cross-checks the BLOCK.BLOCK referee against the independent oracle, and checks the oracle."""

from __future__ import annotations

import random
from typing import Any

import pytest

from tests.rules.oracle import block_block as oracle

SEEDS = range(10)
VARIANTS = ["default"]


def _play(moves: list[str], state: oracle.State | None = None) -> oracle.State:
    """Applies moves to the oracle, checking each one is legal there."""
    current = oracle.initial() if state is None else state
    for move in moves:
        assert move in oracle.legal(current), move
        current = oracle.apply(current, move)
    return current


# -- differential test against the real referee -------------------------------------------


def _real_outcome(game: Any, state: Any) -> dict[str, Any] | None:
    """Returns the real outcome as a dict, or None."""
    result = game.outcome(state)
    return None if result is None else result.as_dict()


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("seed", SEEDS)
def test_real_referee_agrees_with_oracle(variant: str, seed: int) -> None:
    module = pytest.importorskip("rules.block_block")
    game = module.BlockBlock(variant)
    rng = random.Random(seed)
    real = game.initial_state()
    mine = oracle.initial()
    history: list[str] = []
    for _ in range(game.max_plies() + 1):
        where = f"seed {seed} after {history}"
        real_legal = game.legal(real)
        assert real_legal == oracle.legal(mine), where
        assert game.to_move(real) == oracle.to_move(mine), where
        assert _real_outcome(game, real) == oracle.outcome(mine), where
        real_scores = game.scores(real)
        assert real_scores == oracle.scores(mine), where
        assert all(type(v) is float for v in real_scores.values()), where
        assert game.counters(real) == oracle.counters(mine), where
        if not real_legal:
            break
        move = rng.choice(real_legal)
        history.append(move)
        real = game.apply(real, move)
        mine = oracle.apply(mine, move)
    assert oracle.outcome(mine) is not None
    assert oracle.ply(mine) <= game.max_plies() == 21


# -- the oracle's own unit tests --------------------------------------------------------------


def test_orientation_counts() -> None:
    counts = {name: len(oracle.orientations(cells)) for name, cells in oracle.DEFAULT_SHAPES.items()}
    assert counts == {
        "bar2": 3, "bar3": 3, "bar4": 3, "slab": 3, "ell": 12, "tee": 12, "ess": 12,
    }


def test_first_move_count_by_hand() -> None:
    # bar2 20+20+25, bar3 15+15+25, bar4 10+10+25, slab 16 flat + 20 + 20 on edge,
    # ell 4x16 flat + 2x20 + 2x20 standing (both feet down), tee 48 flat + 15 + 15 stem up,
    # ess 48 flat (every standing ess overhangs an empty board).
    assert len(oracle.legal(oracle.initial())) == 65 + 55 + 45 + 56 + 144 + 78 + 48
    assert "bar3:c3.0c3.1c3.2" in oracle.legal(oracle.initial())
    assert "ell:a1.0a1.1a2.1" not in oracle.legal(oracle.initial())  # overhang


def test_notation_sorts_cells_by_file_rank_level() -> None:
    assert oracle.move_text("bar2", frozenset({(0, 1, 0), (0, 0, 0)})) == "bar2:a1.0a2.0"
    assert oracle.parse_move("bar3:c3.0c3.1c3.2") == ("bar3", frozenset({(2, 2, 0), (2, 2, 1), (2, 2, 2)}))
    assert oracle.parse_move("half:e5.12") == ("half", frozenset({(4, 4, 12)}))


def test_support_needs_cube_or_block_underneath() -> None:
    state = _play(["bar2:a1.0a2.0"])
    white = oracle.legal(state)
    assert "ell:a1.1a1.2b1.1" not in white  # b1.1 has nothing under it
    assert "ell:a1.1a2.1a2.2" in white
    assert "ell:a2.1a3.0a3.1" in white  # arm a2.1 rests on the bar, a3 column on the board
    assert "tee:a1.1a2.1a3.1b2.1" not in white  # a3, b2 overhang


def test_same_shape_rule_excludes_opponents_last_shape() -> None:
    state = _play(["bar2:a1.0a2.0"])
    white = oracle.legal(state)
    assert white and not any(m.startswith("bar2:") for m in white)
    state = _play(["slab:b1.0b2.0c1.0c2.0"], state)
    brown = oracle.legal(state)
    assert any(m.startswith("bar2:") for m in brown)
    assert not any(m.startswith("slab:") for m in brown)


def test_same_shape_allowed_when_no_other_shape_fits() -> None:
    tiny = oracle.BBSet(
        size=2,
        shapes={"slab": oracle.DEFAULT_SHAPES["slab"], "tee": oracle.DEFAULT_SHAPES["tee"]},
        counts={"slab": 1, "tee": 1},
    )
    state = _play(["slab:a1.0a2.0b1.0b2.0"], oracle.initial(tiny))
    # all four columns are level, so the tee fits nowhere; the slab is allowed again, but not
    # flat on the brown slab (an exact copy, colours do not matter): only on edge.
    assert oracle.legal(state) == [
        "slab:a1.1a1.2a2.1a2.2",
        "slab:a1.1a1.2b1.1b1.2",
        "slab:a2.1a2.2b2.1b2.2",
        "slab:b1.1b1.2b2.1b2.2",
    ]
    with_bar = oracle.BBSet(
        size=2,
        shapes={"slab": oracle.DEFAULT_SHAPES["slab"], "bar2": oracle.DEFAULT_SHAPES["bar2"]},
        counts={"slab": 1, "bar2": 1},
    )
    state = _play(["slab:a1.0a2.0b1.0b2.0"], oracle.initial(with_bar))
    assert all(m.startswith("bar2:") for m in oracle.legal(state))


def test_exact_copy_rule() -> None:
    state = _play(["bar2:a1.0a2.0", "ell:c1.0c2.0d1.0"])
    brown = oracle.legal(state)
    assert "bar2:a1.1a2.1" not in brown  # same cells one level up: an exact copy
    assert "bar2:a1.1a1.2" in brown  # same shape, other orientation
    assert "bar2:a2.1b2.1" not in brown  # b2 overhangs
    assert not any(m.startswith("ell:") for m in brown)  # the same-shape rule
    state = _play(["bar3:e1.0e1.1e1.2", "bar2:e2.0e3.0", "slab:a1.0a2.0b1.0b2.0"])
    white = oracle.legal(state)
    assert "bar3:e1.3e1.4e1.5" not in white  # copy of brown's bar3, shifted by its height 3
    assert "bar3:e1.2e1.3e1.4" not in white  # overlap
    assert "bar3:c1.1c2.1c3.1" not in white  # c column empty
    assert "bar3:a1.1a2.1a3.1" not in white  # a3 empty below
    assert "bar3:a1.1b1.1c1.1" not in white  # c1 empty below
    assert "bar3:e4.0e4.1e4.2" in white
    state = _play(["bar2:a1.0a1.1", "ell:c1.0c2.0d1.0", "bar2:a2.0a3.0", "slab:d4.0d5.0e4.0e5.0"])
    brown = oracle.legal(state)
    assert "bar2:a1.2a1.3" not in brown  # upright copy, shifted by its height 2
    assert "bar2:a2.1a3.1" not in brown
    assert "bar2:a1.2b1.2" not in brown  # b1 empty
    assert "bar2:a2.1a2.2" in brown


def test_exact_copy_ignores_colour_and_can_cause_no_move() -> None:
    tiny = oracle.BBSet(size=1, shapes={"bar2": oracle.DEFAULT_SHAPES["bar2"]}, counts={"bar2": 1})
    state = _play(["bar2:a1.0a1.1"], oracle.initial(tiny))
    assert oracle.legal(state) == []
    assert oracle.outcome(state) == {"winner": 1, "reason": "no-move"}
    assert oracle.to_move(state) is None


def test_scores_end_faces_of_upright_bars() -> None:
    state = _play(["bar3:a1.0a1.1a1.2"])
    assert oracle.scores(state) == {"1": 0.0, "2": 1.0}
    state = _play(["bar4:b1.0b2.0b3.0b4.0"], state)
    assert oracle.scores(state) == {"1": 0.0, "2": 5.0}
    state = _play(["bar2:c1.0c1.1"], state)  # upright bar2 shows its owner's colour
    assert oracle.scores(state) == {"1": 1.0, "2": 5.0}
    state = _play(["bar3:d1.0d1.1d1.2"], state)  # white's upright bar3 shows brown
    assert oracle.scores(state) == {"1": 2.0, "2": 5.0}
    state = _play(["bar2:a1.3a1.4"], state)  # covers the white end face at a1
    assert oracle.scores(state) == {"1": 3.0, "2": 4.0}


def test_half_comes_last_and_game_scores() -> None:
    rng = random.Random(7)
    state = oracle.initial()
    while oracle.ply(state) < 20:
        moves = oracle.legal(state)
        assert not any(m.startswith("half:") for m in moves)
        state = oracle.apply(state, rng.choice(moves))
    assert oracle.to_move(state) == 1
    moves = oracle.legal(state)
    assert len(moves) == 25 and all(m.startswith("half:") for m in moves)
    before = oracle.scores(state)
    state = oracle.apply(state, moves[0])
    after = oracle.scores(state)
    assert after["1"] % 1 == 0.5 and before["1"] % 1 == 0
    result = oracle.outcome(state)
    assert result is not None and result["reason"] == "score"
    assert result["winner"] == (1 if after["1"] > after["2"] else 2)
    assert oracle.to_move(state) is None and oracle.legal(state) == []
    assert oracle.counters(state) == {}
