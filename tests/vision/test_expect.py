"""Expected views: every label kind of each game's vocabulary, from hand-written positions in the
shared format and from the referees' own board exports, and one clear error for bad input."""

from __future__ import annotations

import random
from typing import Any

import pytest

from rules import get_game
from vision.expect import (
    ViewError, expected_view, faint_pair, has_faint_pairs, seen_part, suggested_moves, visible, visible_rows,
)
from vision.observation import grid_squares, is_label

Piece = dict[str, Any]


def position(size: int, cells: dict[str, list[Piece]], off: dict[str, Any] | None = None
             ) -> dict[str, Any]:
    """Returns a position in the shared format."""
    return {"size": size, "cells": cells, "off": off or {}}


def occupied(view: dict[str, str]) -> dict[str, str]:
    """Returns the squares of a view that are not empty."""
    return {square: label for square, label in view.items() if label != "empty"}


# -- Block Arena -------------------------------------------------------------------------


def block(colour: str, other: str | None = None) -> Piece:
    """Returns one square of a Block Arena block, lying when it names its other square."""
    piece: Piece = {"kind": "block", "owner": 1 if colour == "light" else 2, "colour": colour,
                    "orientation": "upright" if other is None else "lying"}
    if other is not None:
        piece["other"] = other
    return piece


def meeple(colour: str) -> Piece:
    """Returns a Block Arena meeple."""
    return {"kind": "meeple", "owner": 1 if colour == "light" else 2, "colour": colour}


def test_block_arena_blocks_meeples_and_both_meeples() -> None:
    view = expected_view("block-arena", position(7, {
        "a1": [block("light")],
        "b1": [block("dark", "c1")], "c1": [block("dark", "b1")],
        "d4": [block("dark"), meeple("light")],
        "e4": [block("light", "e5"), meeple("dark")], "e5": [block("light", "e4")],
        "g7": [block("dark"), meeple("light"), meeple("dark")],
        "f2": [block("light", "g2"), meeple("light"), meeple("dark")],
        "g2": [block("light", "f2")],
    }))
    assert len(view) == 49
    assert occupied(view) == {
        "a1": "light-block-upright", "b1": "dark-block-lying", "c1": "dark-block-lying",
        "d4": "light-meeple/dark-block-upright", "e4": "dark-meeple/light-block-lying",
        "e5": "light-block-lying", "g7": "both-meeples/dark-block-upright",
        "f2": "both-meeples/light-block-lying", "g2": "light-block-lying",
    }


def test_block_arena_view_of_a_played_game() -> None:
    game = get_game("block-arena", "7x7")
    moves = "+c1 +c7 +d1e1 +d7e7 +a1 +a7 +g1 +g7 M+d1 M+d7 c1-c2c3 c7-c5c6 a1-b1c1 c5c6-c4 Md1-c4"
    view = expected_view("block-arena", game.board(game.play_all(moves.split())))
    assert view["c4"] == "light-meeple/dark-block-upright"
    assert view["d7"] == "dark-meeple/dark-block-lying"
    assert view["c2"] == view["c3"] == "light-block-lying"
    assert view["d1"] == "light-block-lying" and view["a1"] == "empty"


# -- Block (PT) --------------------------------------------------------------------------


def pt_piece(kind: str, label: str) -> Piece:
    """Returns a Block (PT) piece: a blocker M/N or a pawn X/Y."""
    return {"kind": kind, "owner": 1 if label in "MX" else 2, "label": label}


def test_block_pt_tiles_pawns_and_pawns_on_their_tiles() -> None:
    view = expected_view("block-pt", position(9, {
        "a1": [pt_piece("blocker", "M")], "b2": [pt_piece("blocker", "N")],
        "e9": [pt_piece("pawn", "X")], "e1": [pt_piece("pawn", "Y")],
        "c3": [pt_piece("blocker", "M"), pt_piece("pawn", "X")],
        "d4": [pt_piece("blocker", "N"), pt_piece("pawn", "Y")],
    }))
    assert len(view) == 81
    assert occupied(view) == {
        "a1": "cream-tile", "b2": "charcoal-tile", "e9": "red-pawn", "e1": "blue-pawn",
        "c3": "red-pawn/cream-tile", "d4": "blue-pawn/charcoal-tile",
    }


def test_block_pt_view_of_a_played_game() -> None:
    game = get_game("block-pt")
    state = game.play_all("e9-e8 e1-e2 +e7 +b2 e8-e7 e2-d2".split())
    assert occupied(expected_view("block-pt", game.board(state))) == {
        "e7": "red-pawn/cream-tile", "b2": "charcoal-tile", "d2": "blue-pawn"}


# -- Tuned -------------------------------------------------------------------------------


def animals(*kinds: str) -> list[Piece]:
    """Returns a Tuned stack, bottom first."""
    return [{"kind": kind} for kind in kinds]


def test_tuned_shows_the_stack_top_first() -> None:
    view = expected_view("tuned", position(3, {
        "a1": animals("donkey"), "b1": animals("dog"), "c1": animals("cat"),
        "a2": animals("donkey", "dog"), "b2": animals("donkey", "dog", "cat"),
        "c2": animals("dog", "cat"), "a3": animals("donkey", "cat"),
    }))
    assert occupied(view) == {
        "a1": "donkey", "b1": "dog", "c1": "cat", "a2": "dog/donkey", "b2": "cat/dog/donkey",
        "c2": "cat/dog", "a3": "cat/donkey",
    }
    assert view["c3"] == "empty" and len(view) == 9


def test_tuned_a_larger_animal_hides_a_smaller_one_below() -> None:
    view = expected_view("tuned", position(3, {"a1": animals("cat", "donkey")}))
    assert view["a1"] == "donkey"


def test_tuned_view_of_a_played_game() -> None:
    game = get_game("tuned")
    state = game.play_all("+donkey@a1 +dog@a1 +cat@a1 a1-b2/2".split())
    assert occupied(expected_view("tuned", game.board(state))) == {
        "a1": "donkey", "b2": "cat/dog"}


# -- Blockade ----------------------------------------------------------------------------


def pyramid(colour: str, size: str) -> Piece:
    """Returns a Blockade pyramid."""
    return {"kind": "pyramid", "colour": colour, "size": size, "locked": False}


def test_blockade_shows_each_size_when_nothing_as_large_is_above_or_it_nests_its_own_kind() -> None:
    view = expected_view("blockade", position(5, {
        "a5": [pyramid("clear", "L")] + [pyramid("green", "M")] * 5,
        "b5": [pyramid("red", "L"), pyramid("red", "S")],
        "c5": [pyramid("green", s) for s in "LMS"] + [pyramid("black", "L")],
        "d5": [pyramid("green", s) for s in "LMS"] + [pyramid("black", "M")],
        "e5": [pyramid("blue", s) for s in "LMS"] + [pyramid("black", "L"), pyramid("red", "S")],
        "a4": [pyramid("clear", "L"), pyramid("yellow", "M"), pyramid("yellow", "S")],
        "b4": [pyramid("clear", "L")], "c4": [pyramid("black", "S")],
        "d4": [pyramid("red", "L"), pyramid("red", "S"), pyramid("red", "S")],
    }))
    assert occupied(view) == {
        "a5": "/".join(["green-M"] * 5 + ["clear-L"]), "b5": "red-S/red-L", "c5": "black-L",
        "d5": "black-M/green-L", "e5": "red-S/black-L", "a4": "yellow-S/yellow-M/clear-L",
        "b4": "clear-L", "c4": "black-S", "d4": "red-S/red-S/red-L",
    }


def test_blockade_set_up_view() -> None:
    game = get_game("blockade")
    view = expected_view("blockade", game.board(game.initial_state()))
    assert view["a5"] == "/".join(["green-M"] * 5 + ["clear-L"])
    assert view["e1"] == "/".join(["blue-M"] * 5 + ["clear-L"])
    assert view["c3"] == "clear-L" and view["b4"] == "red-S/red-L"
    assert "empty" not in view.values()


def test_visible_keeps_strictly_growing_layers_from_the_top() -> None:
    assert visible([("L", 3), ("M", 2), ("M2", 2), ("S", 1)]) == ["S", "M2", "L"]
    assert visible([("S", 1), ("L", 3)]) == ["L"]
    assert visible([]) == []


def test_visible_nested_keeps_a_layer_right_under_a_shown_one_of_its_kind() -> None:
    layers = [("L", 3), ("M", 2), ("M", 2), ("M", 2), ("S", 1)]
    assert visible(layers, nested=True) == ["S", "M", "M", "M", "L"]
    assert visible_rows(layers, nested=True) == [4, 3, 2, 1, 0]
    assert visible([("L", 3), ("M", 2), ("M2", 2)], nested=True) == ["M2", "L"]
    assert visible([("L", 3), ("S", 1), ("L", 3)], nested=True) == ["L"]  # hidden in between


# -- BLOCK.BLOCK -------------------------------------------------------------------------


def cube(owner: int, index: int, top: str, shape: str = "bar2") -> Piece:
    """Returns a BLOCK.BLOCK cube of the index-th block."""
    return {"kind": "cube", "owner": owner, "colour": ("brown", "white")[owner - 1],
            "shape": shape, "block": index, "top": top}


def test_block_block_top_face_and_height() -> None:
    view = expected_view("block-block", position(5, {
        "a1": [cube(1, 0, "brown")],
        "a2": [cube(1, 0, "brown"), cube(2, 1, "white")],
        "c3": [cube(2, 1, "white"), cube(2, 1, "white"), cube(2, 1, "brown", "bar3")],
        "e5": [cube(1, 0, "brown"), cube(2, 1, "white"), cube(1, 2, "white"),
               cube(1, 20, "half", "half")],
    }))
    assert occupied(view) == {"a1": "brown@1", "a2": "white@2", "c3": "brown@3", "e5": "half@4"}


def test_block_block_an_upright_bar3_shows_the_opponents_colour() -> None:
    game = get_game("block-block")
    state = game.play_all(["bar2:a1.0a2.0", "bar3:c3.0c3.1c3.2"])
    assert occupied(expected_view("block-block", game.board(state))) == {
        "a1": "brown@1", "a2": "brown@1", "c3": "brown@3"}


# -- every game, every position of random play ---------------------------------------------


@pytest.mark.parametrize("name", ["block-arena", "block-pt", "tuned", "blockade", "block-block"])
def test_random_play_gives_full_views_in_the_vocabulary(name: str) -> None:
    game, rng = get_game(name), random.Random(11)
    state = game.initial_state()
    for _ in range(60):
        if game.outcome(state) is not None:
            break
        state = game.apply(state, rng.choice(game.legal(state)))
        board = game.board(state)
        view = expected_view(name, board)
        assert set(view) == set(grid_squares(board["size"]))
        assert all(is_label(name, label) for label in view.values()), view
        assert {s for s, label in view.items() if label != "empty"} == set(board["cells"])


# -- the reverse: the move a change suggests ----------------------------------------------


def test_suggested_moves_write_the_change_in_each_games_notation() -> None:
    tuned = position(3, {"a1": animals("donkey", "dog", "cat")})
    assert suggested_moves("tuned", tuned, {"a1": "donkey", "b2": "cat/dog"}) == [("a1-b2/2",)]
    assert suggested_moves("tuned", tuned, {"c3": "dog"}) == [("+dog@c3",)]
    arena = position(7, {"c3": [block("light"), meeple("light")], "c4": [block("dark")],
                         "d1": [block("light", "e1")], "e1": [block("light", "d1")]})
    assert suggested_moves("block-arena", arena, {"c3": "light-block-upright",
                                                  "c4": "light-meeple/dark-block-upright"}
                           ) == [("Mc3-c4",)]
    flipped = {"d1": "empty", "e1": "empty", "f1": "light-block-upright"}
    assert suggested_moves("block-arena", arena, flipped) == [("d1e1-f1",)]
    slid = {"d1": "empty", "f1": "light-block-lying"}
    assert suggested_moves("block-arena", arena, slid) == [("d1e1-e1f1",)]
    pt = position(9, {"e9": [pt_piece("pawn", "X")]})
    assert suggested_moves("block-pt", pt, {"e9": "empty", "e7": "red-pawn"}) == [("e9-e7",)]


def test_suggested_placements_name_every_shape_for_the_grown_columns() -> None:
    board = {"size": 5, "cells": {"c1": [cube(1, 0, "brown")]},
             "off": {"hand": {"1": {"bar2": 2, "ell": 2}, "2": {"bar2": 3, "tee": 1}}}}
    assert suggested_moves("block-block", board, {"c1": "white@3", "c2": "white@1"}) == [
        ("bar2:c1.1c1.2c2.0",), ("ell:c1.1c1.2c2.0",), ("tee:c1.1c1.2c2.0",)]
    assert suggested_moves("block-block", board, {"c1": "empty"}) == []


# -- bad input ---------------------------------------------------------------------------


@pytest.mark.parametrize("name, board, message", [
    ("chess", position(8, {}), "unknown game 'chess'"),
    ("tuned", {"cells": {}}, "size must be a whole number"),
    ("tuned", position(3, {"d1": animals("cat")}), "d1 is not a square of a 3x3 grid"),
    ("tuned", {"size": 3, "cells": []}, "cells must map squares"),
    ("tuned", {"size": 3, "cells": {"a1": "cat"}}, "a1 must hold a list of pieces"),
    ("tuned", position(3, {"a1": animals("cow")}), "a1: unreadable pieces"),
    ("blockade", position(5, {"a1": [pyramid("clear", "S")]}), "a1: unreadable pieces"),
    ("blockade", position(5, {"a1": [{"kind": "cube"}]}), "a1: expected a pyramid"),
    ("block-arena", position(9, {"a1": [meeple("light")]}), "a1: expected a block"),
    ("block-arena", position(9, {"a1": [block("light")] + [meeple("dark")] * 3}),
     "a1: at most two meeples"),
    ("block-pt", position(9, {"a1": [pt_piece("pawn", "M")]}), "a1: unreadable pieces"),
    ("block-block", position(5, {"a1": [cube(1, 0, "green")]}), "a1: bad top face"),
])
def test_bad_positions_raise_one_clear_error(name: str, board: Any, message: str) -> None:
    with pytest.raises(ViewError, match=message):
        expected_view(name, board)


@pytest.mark.parametrize("label, after, faint", [
    ("red-S/red-L", "red-L", True),  # a Small leaves a Large of its colour
    ("red-S/red-S/red-L", "red-S/red-L", True),  # one of two nested Smalls leaves
    ("green-M/green-L", "green-L", True),
    ("red-L", "red-S/red-L", True),  # a Small coming onto a Large of its colour
    ("red-M/red-L", "red-S/red-M/red-L", True),
    ("red-S/red-L", "red-M/red-S/red-L", False),  # a larger one onto a smaller shows
    ("red-L", "red-M/red-L", False),  # a Medium onto a Large of its colour shows
    ("blue-M/red-L", "red-S/blue-M/red-L", False),  # onto another colour shows
    ("green-S/clear-L", "green-S/green-S/clear-L", True),  # a Small coming into a Small of its colour
    ("red-M/red-L", "red-M/red-M/red-L", True),
    ("red-S/red-L", "blue-S/red-S/red-L", False),
    ("empty", "red-S", False),
    ("red-S/blue-L", "blue-L", False),  # a Small on a Large of another colour shows
    ("red-S/clear-L", "clear-L", False),
    ("red-S/red-L", "red-S/red-L", False),
    ("red-L", "empty", False),
])
def test_a_faint_change_is_a_pyramid_leaving_or_joining_one_of_its_colour(label: str, after: str, faint: bool) -> None:
    assert faint_pair("blockade", label, after) is faint


def test_only_blockade_has_faint_changes() -> None:
    assert not faint_pair("tuned", "dog/donkey", "donkey")
    assert [game for game in ("block-arena", "block-block", "blockade", "tuned", "block-pt")
            if has_faint_pairs(game)] == ["blockade"]


def test_a_block_carrying_a_meeple_is_seen_without_its_orientation() -> None:
    assert seen_part("block-arena", "light-meeple/dark-block-upright") == "light-meeple/dark-block"
    assert seen_part("block-arena", "both-meeples/light-block-lying") == "both-meeples/light-block"
    assert seen_part("block-arena", "light-block-lying") == "light-block-lying"
    assert seen_part("tuned", "dog/donkey") == "dog/donkey"
