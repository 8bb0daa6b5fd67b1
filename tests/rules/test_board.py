"""The shared position export game.board(state): exact positions, and consistency in play."""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any, Callable, Iterator

import pytest

from rules import all_games, get_game
from rules.block_arena import ArenaState
from rules.core import Game, parse_square

Board = dict[str, Any]
Piece = dict[str, Any]

GAMES = all_games()
SEEDS = (0, 1)


def board_after(name: str, moves: str, variant: str | None = None) -> Board:
    """Returns the board of a game after playing moves (space separated) from the start."""
    game = get_game(name, variant)
    return game.board(game.play_all(moves.split()))


# -- pieces as the format writes them ----------------------------------------------------


def block(owner: int, other: str | None = None) -> Piece:
    """Returns a Block Arena block square, lying with another square when one is given."""
    piece: Piece = {"kind": "block", "owner": owner, "colour": ("light", "dark")[owner - 1]}
    piece["orientation"] = "upright" if other is None else "lying"
    if other is not None:
        piece["other"] = other
    return piece


def meeple(owner: int) -> Piece:
    """Returns a Block Arena meeple."""
    return {"kind": "meeple", "owner": owner, "colour": ("light", "dark")[owner - 1]}


def blocker(owner: int) -> Piece:
    """Returns a Block (PT) blocking piece."""
    return {"kind": "blocker", "owner": owner, "label": "MN"[owner - 1]}


def pawn(owner: int) -> Piece:
    """Returns a Block (PT) pawn."""
    return {"kind": "pawn", "owner": owner, "label": "XY"[owner - 1]}


def animals(*kinds: str) -> list[Piece]:
    """Returns a Tuned stack, bottom first."""
    return [{"kind": kind} for kind in kinds]


def pyramid(colour: str, size: str, locked: bool = False) -> Piece:
    """Returns a Blockade pyramid."""
    return {"kind": "pyramid", "colour": colour, "size": size, "locked": locked}


def cube(owner: int, shape: str, index: int, top: str) -> Piece:
    """Returns a BLOCK.BLOCK cube of the index-th block."""
    colour = ("brown", "white")[owner - 1]
    return {"kind": "cube", "owner": owner, "colour": colour, "shape": shape, "block": index,
            "top": top}


# -- the default method ------------------------------------------------------------------


def test_the_base_class_has_no_position_to_export() -> None:
    game = get_game("tuned")
    with pytest.raises(NotImplementedError, match="tuned"):
        Game.board(game, game.initial_state())


# -- Block Arena -------------------------------------------------------------------------


@pytest.mark.parametrize("variant, size", [("9x9", 9), ("7x7", 7)])
def test_block_arena_starts_empty(variant: str, size: int) -> None:
    assert board_after("block-arena", "", variant) == {
        "size": size,
        "cells": {},
        "off": {"hand": {"1": 4, "2": 4}, "meeples_placed": {"1": False, "2": False}},
    }


def test_block_arena_during_set_up() -> None:
    assert board_after("block-arena", "+c1 +d7e7 +d1e1", "7x7") == {
        "size": 7,
        "cells": {"c1": [block(1)], "d1": [block(1, "e1")], "e1": [block(1, "d1")],
                  "d7": [block(2, "e7")], "e7": [block(2, "d7")]},
        "off": {"hand": {"1": 2, "2": 3}, "meeples_placed": {"1": False, "2": False}},
    }


ARENA_GAME = (
    "+c1 +c7 +d1e1 +d7e7 +a1 +a7 +g1 +g7 M+d1 M+d7 c1-c2c3 c7-c5c6 a1-b1c1 c5c6-c4 Md1-c4"
)


def test_block_arena_after_flips_and_a_meeple_move_onto_the_opponent() -> None:
    assert board_after("block-arena", ARENA_GAME, "7x7") == {
        "size": 7,
        "cells": {
            "b1": [block(1, "c1")], "c1": [block(1, "b1")], "c2": [block(1, "c3")],
            "c3": [block(1, "c2")], "d1": [block(1, "e1")], "e1": [block(1, "d1")],
            "g1": [block(1)], "a7": [block(2)], "c4": [block(2), meeple(1)],
            "d7": [block(2, "e7"), meeple(2)], "e7": [block(2, "d7")], "g7": [block(2)],
        },
        "off": {"hand": {"1": 0, "2": 0}, "meeples_placed": {"1": True, "2": True}},
    }


def test_block_arena_slide_carries_the_opponents_meeple() -> None:
    board = board_after("block-arena", ARENA_GAME + " c4-c5", "7x7")
    assert board["cells"]["c5"] == [block(2), meeple(1)]
    assert "c4" not in board["cells"]


def test_block_arena_two_meeples_on_one_square_stand_in_player_order() -> None:
    game = get_game("block-arena", "7x7")
    state = ArenaState(blocks=((((2, 3),),), (((0, 6),),)), meeples=((2, 3), (2, 3)), ply=20)
    assert game.board(state)["cells"]["c4"] == [block(1), meeple(1), meeple(2)]


# -- Block (PT) --------------------------------------------------------------------------


def test_block_pt_starts_with_the_pawns_on_e9_and_e1() -> None:
    assert board_after("block-pt", "") == {
        "size": 9, "cells": {"e9": [pawn(1)], "e1": [pawn(2)]}, "off": {"hand": {"1": 7, "2": 7}},
    }


def test_block_pt_pawn_stands_on_its_own_blocking_piece() -> None:
    assert board_after("block-pt", "e9-e8 e1-e2 +e7 +b2 e8-e7 e2-d2") == {
        "size": 9,
        "cells": {"e7": [blocker(1), pawn(1)], "b2": [blocker(2)], "d2": [pawn(2)]},
        "off": {"hand": {"1": 6, "2": 6}},
    }


# -- Tuned -------------------------------------------------------------------------------


def test_tuned_starts_empty_with_full_hands_and_no_action() -> None:
    full = {"donkey": 2, "dog": 2, "cat": 2}
    assert board_after("tuned", "") == {
        "size": 3,
        "cells": {},
        "off": {"hand": {"1": full, "2": full}, "rooster": {"1": None, "2": None}},
    }


def test_tuned_stacks_and_a_two_animal_move() -> None:
    assert board_after("tuned", "+donkey@a1 +dog@a1 +cat@a1 a1-b2/2") == {
        "size": 3,
        "cells": {"a1": animals("donkey"), "b2": animals("dog", "cat")},
        "off": {
            "hand": {"1": {"donkey": 1, "dog": 2, "cat": 1},
                     "2": {"donkey": 2, "dog": 1, "cat": 2}},
            "rooster": {"1": "add", "2": "move"},
        },
    }


# -- Blockade ----------------------------------------------------------------------------


def blockade_set_up() -> dict[str, list[Piece]]:
    """Returns the set-up stacks, built from RULES.md's diagram."""
    rows = {5: "CBBBC", 4: "RRRBY", 3: "RGCBY", 2: "RGYYY", 1: "CGGGC"}
    words = {"C": "clear", "R": "red", "Y": "yellow", "G": "green", "B": "blue"}
    corners = {"a5": "green", "e5": "red", "a1": "yellow", "e1": "blue"}
    cells: dict[str, list[Piece]] = {}
    for rank, letters in rows.items():
        for file, letter in zip("abcde", letters):
            square, colour = f"{file}{rank}", words[letter]
            small = [] if colour == "clear" else [pyramid(colour, "S")]
            mediums = [pyramid(corners[square], "M")] * 5 if square in corners else []
            cells[square] = [pyramid(colour, "L")] + small + mediums
    return cells


FULL_SUPPLY = {"L": 5, "M": 5, "S": 5}


def test_blockade_starts_at_the_set_up_with_a_roll_due() -> None:
    assert board_after("blockade", "") == {
        "size": 5,
        "cells": blockade_set_up(),
        "off": {"black_supply": FULL_SUPPLY, "points": None, "roll": None},
    }


def test_blockade_roll_of_low_dice_opens_three_allocations() -> None:
    off = board_after("blockade", "roll:b2g3")["off"]
    assert off == {"black_supply": FULL_SUPPLY, "points": [[5, 0], [2, 3], [0, 5]],
                   "roll": "roll:b2g3"}


TOWER_TURN = "roll:b4g1 d3-c3 e1-d3 c3-d3"


def test_blockade_tower_is_capped_locked_and_the_roll_kept_while_points_remain() -> None:
    cells = blockade_set_up()
    cells["e1"] = cells["e1"][:-1]
    cells["d3"] = [pyramid("blue", "L", True), pyramid("blue", "M", True),
                   pyramid("blue", "S", True), pyramid("black", "L", True)]
    assert board_after("blockade", TOWER_TURN) == {
        "size": 5,
        "cells": cells,
        "off": {"black_supply": {"L": 4, "M": 5, "S": 5}, "points": [[0, 1]],
                "roll": "roll:b4g1"},
    }


def test_blockade_end_forgets_the_points_and_the_roll() -> None:
    off = board_after("blockade", TOWER_TURN + " end")["off"]
    assert off == {"black_supply": {"L": 4, "M": 5, "S": 5}, "points": None, "roll": None}


# -- BLOCK.BLOCK -------------------------------------------------------------------------

BROWN_HAND = {"bar2": 3, "bar3": 1, "bar4": 1, "slab": 1, "ell": 2, "tee": 1, "ess": 1}


def test_block_block_starts_empty_with_brown_holding_the_half() -> None:
    assert board_after("block-block", "") == {
        "size": 5,
        "cells": {},
        "off": {"hand": {"1": {**BROWN_HAND, "half": 1}, "2": BROWN_HAND}},
    }


def test_block_block_upright_bar_shows_its_end_and_stacks_read_bottom_up() -> None:
    moves = "bar4:a1.0a1.1a1.2a1.3 ell:b1.0b2.0c1.0 bar2:b1.1b1.2 bar3:c3.0d3.0e3.0"
    assert board_after("block-block", moves) == {
        "size": 5,
        "cells": {
            "a1": [cube(1, "bar4", 0, "brown")] * 3 + [cube(1, "bar4", 0, "white")],
            "b1": [cube(2, "ell", 1, "white"), cube(1, "bar2", 2, "brown"),
                   cube(1, "bar2", 2, "brown")],
            "b2": [cube(2, "ell", 1, "white")], "c1": [cube(2, "ell", 1, "white")],
            "c3": [cube(2, "bar3", 3, "white")], "d3": [cube(2, "bar3", 3, "white")],
            "e3": [cube(2, "bar3", 3, "white")],
        },
        "off": {"hand": {"1": {**BROWN_HAND, "bar2": 2, "bar4": 0, "half": 1},
                         "2": {**BROWN_HAND, "ell": 1, "bar3": 0}}},
    }


# -- every state of seeded random games --------------------------------------------------


def random_states(game: Game[Any, Any], seed: int) -> Iterator[Any]:
    """Yields every state of one seeded random game, from the start to its end."""
    rng = random.Random(seed)
    state = game.initial_state()
    yield state
    while game.outcome(state) is None:
        state = game.apply(state, rng.choice(game.legal(state)))
        yield state


def pieces(board: Board) -> Iterator[tuple[str, int, Piece]]:
    """Yields (square, level, piece) for every piece on the grid."""
    for square, stack in board["cells"].items():
        for level, piece in enumerate(stack):
            yield square, level, piece


def check_shape(game: Game[Any, Any], board: Board) -> None:
    """Checks the common shape: JSON-ready, known keys, occupied squares of the grid only."""
    assert json.loads(json.dumps(board)) == board
    assert set(board) == {"size", "cells", "off"}
    for square, stack in board["cells"].items():
        parse_square(square, board["size"])
        assert stack and all(isinstance(piece.get("kind"), str) for piece in stack)


def check_arena(game: Game[Any, Any], state: Any, board: Board) -> None:
    """Checks blocks on the grid plus hand make 4 each, lying halves agree, meeples on top."""
    halves: Counter[tuple[int, str]] = Counter()
    for square, level, piece in pieces(board):
        if piece["kind"] == "block":
            assert level == 0
            halves[(piece["owner"], piece["orientation"])] += 1
            if "other" in piece:
                partner = board["cells"][piece["other"]][0]
                assert partner == {**piece, "other": square}
        else:
            assert level >= 1 and board["cells"][square][0]["kind"] == "block"
            halves[(piece["owner"], "meeple")] += 1
    for player in ("1", "2"):
        owner = int(player)
        blocks = halves[(owner, "upright")] + halves[(owner, "lying")] // 2
        assert blocks + board["off"]["hand"][player] == 4
        assert halves[(owner, "meeple")] == int(board["off"]["meeples_placed"][player])


def check_block_pt(game: Game[Any, Any], state: Any, board: Board) -> None:
    """Checks one pawn each, pawns only on their own pieces, pieces plus hand make 7."""
    kinds = Counter((piece["kind"], piece["owner"]) for _, _, piece in pieces(board))
    for owner in (1, 2):
        assert kinds[("pawn", owner)] == 1
        assert kinds[("blocker", owner)] + board["off"]["hand"][str(owner)] == 7
    for stack in board["cells"].values():
        owner = stack[-1]["owner"]
        assert stack in ([blocker(owner)], [pawn(owner)], [blocker(owner), pawn(owner)])


def check_tuned(game: Game[Any, Any], state: Any, board: Board) -> None:
    """Checks 4 of each animal in all, stacks larger below, roosters set once players act."""
    order = ("donkey", "dog", "cat")
    seen = Counter(piece["kind"] for _, _, piece in pieces(board))
    for animal in order:
        assert seen[animal] + sum(hand[animal] for hand in board["off"]["hand"].values()) == 4
    for stack in board["cells"].values():
        levels = [order.index(piece["kind"]) for piece in stack]
        assert levels == list(range(levels[0], levels[0] + len(levels)))
    for player, count in game.counters(state).items():
        assert (board["off"]["rooster"][player] is None) == (count == 0)


def check_blockade(game: Game[Any, Any], state: Any, board: Board) -> None:
    """Checks the kit's totals, locked towers at the bottom, and points that fit their roll."""
    seen = Counter((piece["colour"], piece["size"]) for _, _, piece in pieces(board))
    for size, count in board["off"]["black_supply"].items():
        assert seen[("black", size)] + count == 5
    for colour in ("red", "yellow", "green", "blue"):
        assert [seen[(colour, size)] for size in "LMS"] == [5, 5, 5]
    assert seen[("clear", "L")] == 5 and sum(seen.values()) == 80 - sum(
        board["off"]["black_supply"].values()
    )
    for stack in board["cells"].values():
        flags = [piece["locked"] for piece in stack]
        assert flags == sorted(flags, reverse=True) and sum(flags) in (0, 3, 4)
        assert stack[0]["size"] == "L"
    check_points(board["off"])


def check_points(off: dict[str, Any]) -> None:
    """Checks that open points come with their roll and never exceed what it gave."""
    assert (off["points"] is None) == (off["roll"] is None)
    if off["roll"] is not None:
        first, second = int(off["roll"][6]), int(off["roll"][8])
        total = first + second if max(first, second) <= 3 else max(first, second)
        for points in off["points"]:
            assert 0 <= points[0] <= total and 0 <= points[1] <= total
            assert sum(points) <= first + second


def check_block_block(game: Game[Any, Any], state: Any, board: Board) -> None:
    """Checks whole blocks in play order, hands that add up, and tops that give the scores."""
    shapes = game.block_set.by_name  # type: ignore[attr-defined]
    cubes = Counter((p["block"], p["shape"], p["owner"]) for _, _, p in pieces(board))
    for (index, shape, owner), count in cubes.items():
        assert owner == 1 + index % 2 and count == len(shapes[shape].cubes)
    for player, hand in board["off"]["hand"].items():
        placed = Counter(s for (_, s, owner) in cubes if str(owner) == player)
        assert all(hand[s] + placed[s] == shapes[s].count for s in hand)
    points = {"brown": ("1", 1.0), "white": ("2", 1.0), "half": ("1", 0.5)}
    scores = {"1": 0.0, "2": 0.0}
    for stack in board["cells"].values():
        player, value = points[stack[-1]["top"]]
        scores[player] += value
    assert scores == game.scores(state)


CHECKS: dict[str, Callable[[Game[Any, Any], Any, Board], None]] = {
    "block-arena": check_arena,
    "block-pt": check_block_pt,
    "tuned": check_tuned,
    "blockade": check_blockade,
    "block-block": check_block_block,
}


@pytest.mark.parametrize("game", GAMES, ids=lambda g: f"{g.name}-{g.variant}")
@pytest.mark.parametrize("seed", SEEDS)
def test_every_state_of_random_games_exports_a_consistent_board(
    game: Game[Any, Any], seed: int
) -> None:
    for state in random_states(game, seed):
        board = game.board(state)
        check_shape(game, board)
        CHECKS[game.name](game, state, board)


@pytest.mark.parametrize("game", GAMES, ids=lambda g: f"{g.name}-{g.variant}")
def test_boards_share_nothing_with_the_state_or_each_other(game: Game[Any, Any]) -> None:
    states = list(random_states(game, 7))
    state = states[len(states) // 2]
    first = game.board(state)
    expected = json.loads(json.dumps(first))
    for _, _, piece in pieces(first):
        piece["kind"] = "scribbled"
    first["off"].clear()
    assert game.board(state) == expected
