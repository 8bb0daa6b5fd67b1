"""Tests of the shared protocol: registry errors, square parsing, squares of a move."""

from __future__ import annotations

import pytest

from rules import UnknownGameError, get_game
from rules.core import InvalidMoveError, move_squares, parse_square, square_name


def test_unknown_game_names_the_choices() -> None:
    with pytest.raises(UnknownGameError, match="chess"):
        get_game("chess")


def test_unknown_variant_is_refused() -> None:
    with pytest.raises(UnknownGameError, match="8x8"):
        get_game("block-arena", "8x8")


def test_games_compare_by_name_and_variant() -> None:
    assert get_game("block-arena", "7x7") == get_game("block-arena", "7x7")
    assert get_game("block-arena", "7x7") != get_game("block-arena")


@pytest.mark.parametrize("text, square", [("a1", (0, 0)), ("i9", (8, 8)), ("c3", (2, 2))])
def test_parse_square(text: str, square: tuple[int, int]) -> None:
    assert parse_square(text, 9) == square
    assert square_name(*square) == text


@pytest.mark.parametrize("text", ["", "a", "a0", "j1", "A1", "a10", "a²", "a 1", "1a", "a01"])
def test_parse_square_refuses(text: str) -> None:
    with pytest.raises(InvalidMoveError):
        parse_square(text, 9)


@pytest.mark.parametrize(
    "move, left, reached",
    [("+c1d1", (), ("c1", "d1")), ("c3c4-d3d4", ("c3", "c4"), ("d3", "d4")),
     ("Mc3-c6", ("c3",), ("c6",)), ("a1-b2/2", ("a1",), ("b2",)), ("roll:b4g5", (), ()),
     ("bar3:c3.0c3.1c3.2", (), ("c3",)), ("+donkey@a1", (), ("a1",)), ("pass", (), ())],
)
def test_move_squares(move: str, left: tuple[str, ...], reached: tuple[str, ...]) -> None:
    assert move_squares(move) == (left, reached)
