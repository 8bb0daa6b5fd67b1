"""Blockade notation (canonical spellings only, fuzzed) and seeded random playouts."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.blockade import Blockade
from rules.blockade_moves import End, Roll, Step
from rules.core import InvalidMoveError
from tests.rules.conformance import random_playout
from tests.rules.test_parsers import check_parse

GAME = Blockade()
ALPHABET = "roll:bgryabcdef0123456789-end "


def test_canonical_moves_parse_to_typed_moves() -> None:
    assert GAME.parse("roll:b4g5") == Roll(1, 4, 5)
    assert GAME.parse("roll:r2y3") == Roll(2, 2, 3)
    assert GAME.parse("b1-d3") == Step(1, 13)
    assert GAME.parse("d3-b1") == Step(13, 1)
    assert GAME.parse("end") == End()
    for text in ("roll:b6g1", "roll:r1y6", "e5-a1", "a1-e5", "end"):
        assert str(GAME.parse(text)) == text


@pytest.mark.parametrize(
    "text",
    [
        "roll:g5b4",  # colours out of order
        "roll:b4r5",  # one die of each side
        "roll:b0g7",  # no such pips
        "roll:b4g5 ",
        "roll:B4g5",
        "roll:b4g",
        "roll:b10g1",
        "roll:b٤g5",  # a non-ASCII digit
        "b1-b1",  # a move must go somewhere
        "b1-f1",  # off the board
        "b1-d0",
        "b01-d3",
        "B1-d3",
        "b1d3",
        "b1-d3-e4",
        "END",
        " end",
        "end\n",
        "pass",
        "",
        "x" * 10_000,
    ],
)
def test_non_canonical_texts_are_invalid(text: str) -> None:
    with pytest.raises(InvalidMoveError):
        GAME.parse(text)


@settings(max_examples=400, deadline=None)
@given(text=st.text(max_size=40))
def test_any_text_parses_or_raises_invalid(text: str) -> None:
    check_parse(GAME, text)


@settings(max_examples=600, deadline=None)
@given(text=st.text(alphabet=ALPHABET, max_size=14))
def test_notation_like_text_parses_or_raises_invalid(text: str) -> None:
    check_parse(GAME, text)


@settings(max_examples=200, deadline=None)
@given(
    parts=st.tuples(
        st.sampled_from(["roll:", "rol:", ""]),
        st.sampled_from("bgryx"),
        st.integers(-1, 12),
        st.sampled_from("bgryx"),
        st.integers(-1, 12),
    )
)
def test_roll_like_text_parses_or_raises_invalid(parts: tuple[str, str, int, str, int]) -> None:
    check_parse(GAME, "".join(str(part) for part in parts))


@pytest.mark.parametrize("seed", range(4))
def test_random_playouts_keep_every_invariant(seed: int) -> None:
    state = random_playout(GAME, seed)
    assert GAME.outcome(state) is not None


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(4, 10))
def test_more_random_playouts_keep_every_invariant(seed: int) -> None:
    random_playout(GAME, seed)
