"""Tests for BLOCK.BLOCK set files: the shipped default set and malformed sets."""

from __future__ import annotations

import copy
import tomllib
from importlib import resources
from typing import Any, Callable

import pytest

from rules.block_block import BlockBlock
from rules.block_block_set import SetFileError, load_set, orientations, parse_set, read_set
from rules.core import RulesError, UnknownGameError

DEFAULT_TEXT = (resources.files("rules") / "sets" / "default.toml").read_text(encoding="utf-8")
DEFAULT_DATA: dict[str, Any] = tomllib.loads(DEFAULT_TEXT)


def test_default_set_holds_the_house_blocks() -> None:
    block_set = load_set("default")
    counts = {shape.name: shape.count for shape in block_set.shapes}
    assert block_set.board == 5
    assert counts == {"bar2": 3, "bar3": 1, "bar4": 1, "slab": 1, "ell": 2, "tee": 1, "ess": 1}
    assert block_set.blocks_each == 10
    assert [s.name for s in block_set.shapes if s.opponent_ends] == ["bar3", "bar4"]
    assert block_set.extra.name == "half" and block_set.extra.cubes == ((0, 0, 0),)
    assert block_set.extra_points == 0.5


def test_orientations_count_rotations_and_mirror_images_once() -> None:
    block_set = load_set("default")
    found = {s.name: len(s.orientations) for s in (*block_set.shapes, block_set.extra)}
    assert found == {
        "bar2": 3, "bar3": 3, "bar4": 3, "slab": 3, "ell": 12, "tee": 12, "ess": 12, "half": 1,
    }
    s_piece = ((0, 0, 0), (1, 0, 0), (1, 1, 0), (2, 1, 0))
    z_piece = ((0, 1, 0), (1, 0, 0), (1, 1, 0), (2, 0, 0))
    assert orientations(s_piece) == orientations(z_piece)


def test_game_loads_the_default_variant() -> None:
    assert BlockBlock().variant == "default"
    assert BlockBlock("default").block_set.board == 5
    with pytest.raises(UnknownGameError):
        BlockBlock("giant")


def test_game_built_from_a_parsed_set_takes_its_name() -> None:
    data = {"board": 2, "shapes": {"bar2": {"cubes": [[0, 0, 0], [0, 0, 1]], "count": 1}},
            "extra": {"name": "half", "cubes": [[0, 0, 0]], "points": 1}}
    game = BlockBlock(block_set=parse_set(data, "tiny"))
    assert game.variant == "tiny"
    assert game.max_plies() == 3
    assert game.block_set.extra_points == 1.0


def _mutated(change: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    """Returns a deep copy of the default set's data with one change applied."""
    data = copy.deepcopy(DEFAULT_DATA)
    change(data)
    return data


MALFORMED: list[tuple[str, Callable[[dict[str, Any]], None], str]] = [
    ("no board", lambda d: d.pop("board"), "missing key(s): board"),
    ("unknown key", lambda d: d.update(colour="red"), "unknown key(s): colour"),
    ("board 0", lambda d: d.update(board=0), "board must be an integer from 1 to 26"),
    ("board bool", lambda d: d.update(board=True), "board must be an integer"),
    ("board text", lambda d: d.update(board="5"), "board must be an integer"),
    ("shapes list", lambda d: d.update(shapes=[]), "shapes must be a table"),
    ("no shapes", lambda d: d.update(shapes={}), "has no shapes"),
    ("bad name", lambda d: d["shapes"].update(Bar={"cubes": [[0, 0, 0]], "count": 1}),
     "lower-case name"),
    ("no cubes", lambda d: d["shapes"]["bar2"].update(cubes=[]), "must list 1 to 64"),
    ("flat cube", lambda d: d["shapes"]["bar2"].update(cubes=[[0, 0]]), "[x, y, z]"),
    ("negative", lambda d: d["shapes"]["bar2"].update(cubes=[[0, 0, -1]]), "coordinate"),
    ("twice", lambda d: d["shapes"]["bar2"].update(cubes=[[0, 0, 0], [0, 0, 0]]),
     "lists a cube twice"),
    ("apart", lambda d: d["shapes"]["bar2"].update(cubes=[[0, 0, 0], [2, 0, 0]]),
     "not joined face to face"),
    ("diagonal", lambda d: d["shapes"]["bar2"].update(cubes=[[0, 0, 0], [1, 1, 0]]),
     "not joined face to face"),
    ("count 0", lambda d: d["shapes"]["bar2"].update(count=0), "the count of shape 'bar2'"),
    ("no count", lambda d: d["shapes"]["bar2"].pop("count"), "missing key(s): count"),
    ("ends text", lambda d: d["shapes"]["bar3"].update(opponent_ends="yes"), "true or false"),
    ("ends on ell", lambda d: d["shapes"]["ell"].update(opponent_ends=True),
     "not a straight bar"),
    ("shape key", lambda d: d["shapes"]["ell"].update(colour="red"), "unknown key(s): colour"),
    ("no extra", lambda d: d.pop("extra"), "missing key(s): extra"),
    ("extra clash", lambda d: d["extra"].update(name="bar2"), "already a shape"),
    ("extra points", lambda d: d["extra"].update(points=2), "points must be a number"),
    ("extra no name", lambda d: d["extra"].pop("name"), "missing key(s): name"),
]


@pytest.mark.parametrize(
    ("change", "message"), [(c, m) for _, c, m in MALFORMED], ids=[i for i, _, _ in MALFORMED]
)
def test_malformed_set_raises_set_file_error(
    change: Callable[[dict[str, Any]], None], message: str
) -> None:
    with pytest.raises(SetFileError) as caught:
        parse_set(_mutated(change), "broken")
    assert message in str(caught.value)


def test_set_file_error_is_a_rules_error() -> None:
    assert issubclass(SetFileError, RulesError)


def test_bad_toml_text_raises_set_file_error() -> None:
    with pytest.raises(SetFileError, match="not valid TOML"):
        read_set("board = = 5", "broken")
    assert read_set(DEFAULT_TEXT, "copy").board == 5


@pytest.mark.parametrize(
    ("name", "message"), [("missing", "no set file named missing.toml"), ("../x", "not a set name")]
)
def test_unknown_set_files_raise_set_file_error(name: str, message: str) -> None:
    with pytest.raises(SetFileError) as caught:
        load_set(name)
    assert message in str(caught.value)
