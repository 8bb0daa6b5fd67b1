"""Block Arena notation (parse round-trips or raises InvalidMoveError) and conformance playouts."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.block_arena import BlockArena
from rules.block_arena_moves import BlockMove, MeepleMove, PlaceBlock, PlaceMeeple
from rules.core import InvalidMoveError
from tests.rules.conformance import random_playout

GAMES = [BlockArena("9x9"), BlockArena("7x7")]
IDS = ["9x9", "7x7"]
ALPHABET = "abcdefghijz0123456789+-M pas\n"
SQUARE_NAMES = st.builds(
    lambda f, r: f + r, st.sampled_from("abcdefghij"), st.sampled_from(["0", "1", "7", "9", "10"])
)
MOVE_LIKE = st.lists(
    st.one_of(SQUARE_NAMES, st.sampled_from(["+", "-", "M", "M+", "pass"])), max_size=6
).map("".join)


def check_parse(game: BlockArena, text: str) -> None:
    """Checks that parse raises only InvalidMoveError or returns a round-tripping move."""
    try:
        move = game.parse(text)
    except InvalidMoveError:
        return
    assert str(move) == text
    assert game.parse(str(move)) == move


@pytest.mark.parametrize("game", GAMES, ids=IDS)
@settings(max_examples=300, deadline=None)
@given(text=st.text(max_size=60))
def test_parse_any_text(game: BlockArena, text: str) -> None:
    check_parse(game, text)


@pytest.mark.parametrize("game", GAMES, ids=IDS)
@settings(max_examples=400, deadline=None)
@given(text=st.one_of(st.text(alphabet=ALPHABET, max_size=20), MOVE_LIKE))
def test_parse_notation_like_text(game: BlockArena, text: str) -> None:
    check_parse(game, text)


def test_parse_gives_typed_moves() -> None:
    game = GAMES[0]
    assert game.parse("+c1") == PlaceBlock(((2, 0),))
    assert game.parse("+c1d1") == PlaceBlock(((2, 0), (3, 0)))
    assert game.parse("M+c1") == PlaceMeeple((2, 0))
    assert game.parse("Mc3-c6") == MeepleMove((2, 2), (2, 5))
    assert game.parse("c3-c4c5") == BlockMove(((2, 2),), ((2, 3), (2, 4)))
    assert game.parse("c3c4-d3d4") == BlockMove(((2, 2), (2, 3)), ((3, 2), (3, 3)))
    assert str(game.parse("pass")) == "pass"


@pytest.mark.parametrize(
    "text",
    [
        "", "Pass", " pass", "pass\n", "+d1c1", "+c1c1", "+c1e1", "+c1d2", "+C1", "+c01",
        "+j1", "+a10", "M+c1d1", "m+c1", "Mc3c4-c5", "c4c3-c5", "c3-c5c4", "c3-", "-c3",
        "c3--c4", "c3-c4-c5", "M c3-c6", "+c1 ", "c3-c4c5c6", "+c1d1e1", "\u0663",
        "+c\u0661", "a" * 10_000,
    ],
)
def test_parse_rejects_non_canonical_text(text: str) -> None:
    with pytest.raises(InvalidMoveError):
        GAMES[0].parse(text)


def test_7x7_rejects_squares_beyond_g7() -> None:
    for text in ("+h1", "M+a8", "a7-a8", "Mg7-h7"):
        with pytest.raises(InvalidMoveError):
            GAMES[1].parse(text)


@pytest.mark.parametrize("game", GAMES, ids=IDS)
@pytest.mark.parametrize("seed", range(6))
def test_conformance(game: BlockArena, seed: int) -> None:
    random_playout(game, seed)


def test_max_plies_cover_setup_and_both_limits() -> None:
    assert [game.max_plies() for game in GAMES] == [90, 70]
