"""Notation tests of Tuned: canonical spellings only, round trips, and fuzzed text."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.core import InvalidMoveError, RulesError
from rules.tuned import AddAnimal, MoveAnimals, Tuned, TunedMove

GAME = Tuned()

FRAGMENTS = ["+", "donkey", "dog", "cat", "@", "-", "/", "a", "b", "c", "d", "z", "0", "1", "2",
             "3", "4", "9", " ", "\n", "A", "B"]  # fmt: skip
ALPHABET = "+@-/abcdz0123489 donkeycatDA\n\t"


def check_parse(text: str) -> None:
    """Checks that parse either raises InvalidMoveError or returns a round-tripping move."""
    try:
        move = GAME.parse(text)
    except InvalidMoveError as error:
        assert error.reason
        return
    assert str(move) == text
    assert GAME.parse(str(move)) == move


@pytest.mark.parametrize(
    ("text", "move"),
    [
        ("+donkey@a1", AddAnimal(0, 0)),
        ("+dog@b2", AddAnimal(1, 4)),
        ("+cat@c3", AddAnimal(2, 8)),
        ("+cat@c1", AddAnimal(2, 2)),
        ("a1-b2", MoveAnimals(0, 4, 1)),
        ("a1-b2/2", MoveAnimals(0, 4, 2)),
        ("c3-a1/3", MoveAnimals(8, 0, 3)),
        ("a3-c1", MoveAnimals(6, 2, 1)),
    ],
)
def test_canonical_texts_parse_and_round_trip(text: str, move: TunedMove) -> None:
    assert GAME.parse(text) == move
    assert str(move) == text


@pytest.mark.parametrize(
    "text",
    [
        "", " ", "a1-b2/1", "a1-b2/4", "a1-b2/0", "a1-b2/02", "a1-b2/", "a1-a1", "a1-a1/2",
        "+Donkey@a1", "+donkey@A1", "+donkey@d1", "+donkey@a4", "+donkey@a0", "+donkey@a01",
        "+horse@a1", "donkey@a1", "+donkey a1", "+donkey@", "+@a1", "+donkey@a1 ", " a1-b2",
        "a1-b2\n", "a1b2", "a1 - b2", "b2-a1-c3", "A1-B2", "a1-d2", "a1-b10", "a\u0661-b2",
        "a1\u2212b2", "+do\u0433@a1", "\x00", "a1-b2/3/3", "pass", "end",
    ],
)  # fmt: skip
def test_non_canonical_texts_are_rejected(text: str) -> None:
    with pytest.raises(InvalidMoveError):
        GAME.parse(text)


def test_huge_texts_are_rejected() -> None:
    for text in ("a" + "1" * 100_000, "+donkey@" + "a1" * 50_000, "\U0001f434" * 100_000):
        with pytest.raises(InvalidMoveError):
            GAME.parse(text)


def test_rejection_names_the_bad_square() -> None:
    with pytest.raises(InvalidMoveError) as caught:
        GAME.parse("+cat@d1")
    assert caught.value.text == "+cat@d1"
    assert "d1" in caught.value.reason


def test_every_square_and_count_round_trips() -> None:
    squares = [f"{file}{rank}" for file in "abc" for rank in "123"]
    texts = [f"+{animal}@{sq}" for animal in ("donkey", "dog", "cat") for sq in squares] + [
        f"{a}-{b}{suffix}" for a in squares for b in squares if a != b for suffix in ("", "/2", "/3")
    ]
    assert len({GAME.parse(text) for text in texts}) == 27 + 72 * 3
    assert all(str(GAME.parse(text)) == text for text in texts)


@settings(max_examples=400, deadline=None)
@given(text=st.text(max_size=60))
def test_any_text_raises_invalid_or_round_trips(text: str) -> None:
    check_parse(text)


@settings(max_examples=400, deadline=None)
@given(text=st.text(alphabet=ALPHABET, max_size=20))
def test_notation_alphabet_text_raises_invalid_or_round_trips(text: str) -> None:
    check_parse(text)


@settings(max_examples=400, deadline=None)
@given(parts=st.lists(st.sampled_from(FRAGMENTS), max_size=8))
def test_notation_fragments_raise_invalid_or_round_trip(parts: list[str]) -> None:
    check_parse("".join(parts))


@settings(max_examples=200, deadline=None)
@given(text=st.one_of(st.text(max_size=20), st.text(alphabet=ALPHABET, max_size=12)))
def test_apply_raises_only_rules_errors(text: str) -> None:
    state = GAME.play_all(["+donkey@a1", "+dog@b2"])
    try:
        GAME.apply(state, text)
    except RulesError:
        return
    assert text in GAME.legal(state)
