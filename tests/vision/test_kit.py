"""Tests of the kit as data: the default kit file reproduces KIT.md, and bad kit files are refused."""

from __future__ import annotations

import tomllib
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from vision.kit import (
    PYRAMID_WALL_MM, KitError, board_to_page, kit_named, kit_toml, load_kit, parse_kit, recorded_kit,
)

KIT = kit_named()
DEFAULT_FILE = Path(__file__).resolve().parents[2] / "vision" / "kits" / "default.toml"


def test_the_default_kit_has_the_marker_numbers_of_kit_md() -> None:
    assert (KIT.name, KIT.dictionary, KIT.marker_bits) == ("default", "DICT_4X4_50", 4)
    assert (KIT.marker_mm, KIT.quiet_zone_mm, KIT.corner_gap_mm) == (30, 5, 8)
    assert (KIT.game_marker_below_mm, KIT.mat_margin_mm, KIT.grid_line_mm) == (20, 55, 1)
    assert KIT.corner_ids == (0, 1, 2, 3)
    assert KIT.mat_rgb == (235, 232, 225) and KIT.grid_rgb == (150, 150, 150)


def test_the_default_kit_has_the_mats_of_kit_md() -> None:
    table = [(mat.game, mat.variant, mat.marker_id, mat.cells, mat.pitch_mm) for mat in KIT.mats]
    assert table == [
        ("block-arena", "9x9", 10, 9, 32), ("block-arena", "7x7", 11, 7, 32),
        ("block-block", None, 12, 5, 26), ("blockade", None, 13, 5, 40),
        ("tuned", None, 14, 3, 60), ("block-pt", None, 15, 9, 32),
    ]


@pytest.mark.parametrize("mat", KIT.mats, ids=lambda mat: mat.label)
def test_markers_sit_where_kit_md_puts_them(mat: object) -> None:
    side = mat.side_mm  # type: ignore[attr-defined]
    corners = KIT.marker_corners(mat)  # type: ignore[arg-type]
    inner = {0: (-8, -8), 1: (side + 8, -8), 2: (side + 8, side + 8), 3: (-8, side + 8)}
    for marker_id, point in inner.items():
        points = corners[marker_id]
        nearest = points[np.argmin(np.abs(points - [side / 2, side / 2]).sum(axis=1))]
        assert tuple(nearest) == pytest.approx(point)
        assert np.ptp(corners[marker_id], axis=0) == pytest.approx([30, 30])
    for points in corners.values():
        top_left, top_right, bottom_right, bottom_left = points
        assert top_left[1] == top_right[1] > bottom_left[1] == bottom_right[1]  # top edge faces +y
        assert top_left[0] == bottom_left[0] < top_right[0]
    game = corners[mat.marker_id]  # type: ignore[attr-defined]
    assert game.mean(axis=0) == pytest.approx([side / 2, -20])
    assert KIT.page_side_mm(mat) == side + 110  # type: ignore[arg-type]


def test_pieces_and_colours_are_those_of_kit_md() -> None:
    sizes = {(game, name): piece.size_mm
             for game, pieces in KIT.pieces.items() for name, piece in pieces.items()}
    assert sizes == {
        ("block-arena", "block"): (30, 30, 62), ("block-arena", "meeple"): (22, 8, 24),
        ("block-block", "cube"): (25, 25, 25),
        ("blockade", "large"): (25, 25, 44), ("blockade", "medium"): (19, 19, 34),
        ("blockade", "small"): (14, 14, 24),
        ("tuned", "donkey"): (50, 50, 30), ("tuned", "dog"): (38, 38, 24), ("tuned", "cat"): (28, 28, 20),
        ("block-pt", "tile"): (28, 28, 8), ("block-pt", "pawn"): (18, 18, 26),
    }
    assert KIT.colours["block-arena"] == {"light-block": (222, 196, 150), "dark-block": (92, 60, 38),
                                          "light-meeple": (245, 240, 228), "dark-meeple": (35, 30, 28)}
    assert KIT.colours["blockade"]["yellow"] == (235, 200, 40) and KIT.translucent["blockade"] == {"clear"}
    assert KIT.colours["tuned"] == {"donkey": (130, 130, 135), "dog": (150, 95, 50), "cat": (235, 130, 40)}
    assert KIT.colours["block-pt"]["N"] == (60, 60, 65)
    assert KIT.colours["block-block"]["brown"] == (120, 78, 45)
    assert KIT.pieces["block-pt"]["pawn"].shape == "cylinder"


def test_mats_are_found_by_game_variant_and_marker() -> None:
    assert KIT.mat("block-arena").variant == "9x9"
    assert KIT.mat("block-arena", "7x7").cells == 7
    assert KIT.mat("block-block", "default").marker_id == 12
    assert KIT.mat_for_marker(13) == KIT.mat("blockade") and KIT.mat_for_marker(3) is None
    with pytest.raises(KitError, match="no block-arena mat for variant '5x5'; it has 9x9, 7x7"):
        KIT.mat("block-arena", "5x5")
    with pytest.raises(KitError, match="no mat for game 'chess'"):
        KIT.mat("chess")


def test_cells_and_pages_are_placed_in_board_mm() -> None:
    mat = KIT.mat("tuned")
    assert mat.cell_centre(0, 0) == (30, 30) and mat.cell_centre(2, 1) == (150, 90)
    with pytest.raises(KitError, match="off the 3x3 grid"):
        mat.cell_centre(3, 0)
    page = board_to_page(mat, 2.0, 10.0, pixel_centres=False)
    assert page @ np.array([0.0, 0.0, 1.0]) == pytest.approx([20, 380, 1])
    assert page @ np.array([180.0, 180.0, 1.0]) == pytest.approx([380, 20, 1])
    pixels = board_to_page(mat, 2.0, 10.0, pixel_centres=True)
    assert pixels @ np.array([0.0, 0.0, 1.0]) == pytest.approx([19.5, 379.5, 1])


def test_the_default_file_loads_by_path_too() -> None:
    assert load_kit(DEFAULT_FILE) == KIT


def test_the_pyramids_wall_is_the_sets_and_defaults_to_one_and_a_half_mm(tmp_path: Path) -> None:
    assert KIT.pyramid_wall_mm == PYRAMID_WALL_MM == 1.5
    assert load_kit(variant_file(tmp_path, "pyramid_wall_mm = 1.5", "pyramid_wall_mm = 0.8")).pyramid_wall_mm == 0.8
    assert load_kit(variant_file(tmp_path, "pyramid_wall_mm = 1.5", "")) == KIT  # the key may be left out


def test_a_kit_written_as_toml_reads_back_the_same() -> None:
    other = replace(KIT, name="thick", pyramid_wall_mm=3.0, mats=(replace(KIT.mats[0], variant='9x9 "club"'),))
    assert parse_kit(tomllib.loads(kit_toml(KIT)), "written") == KIT
    assert parse_kit(tomllib.loads(kit_toml(other)), "written") == other != KIT


def test_a_recording_names_a_bundled_kit_or_a_kit_file_beside_it(tmp_path: Path) -> None:
    (tmp_path / "kit.toml").write_text(kit_toml(replace(KIT, pyramid_wall_mm=3.0)), encoding="utf-8")
    assert recorded_kit("default", tmp_path) == KIT
    assert recorded_kit("kit.toml", tmp_path).pyramid_wall_mm == 3.0
    with pytest.raises(KitError, match="cannot be read"):
        recorded_kit("other.toml", tmp_path)
    for spec in ("../kit.toml", "/etc/kit.toml", "sub/kit.toml", "kit.json"):
        with pytest.raises(KitError, match="bundled kit's name or a .toml file"):
            recorded_kit(spec, tmp_path)


def variant_file(tmp_path: Path, old: str, new: str) -> Path:
    """Returns a copy of the default kit file with one text replaced (which must be there)."""
    text = DEFAULT_FILE.read_text(encoding="utf-8")
    assert old in text
    path = tmp_path / "kit.toml"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return path


@pytest.mark.parametrize("old,new,words", [
    ("marker_mm = 30", "marker_mm = -30", "marker_mm must be a number of mm"),
    ("marker_mm = 30", "marker_mm = 'big'", "marker_mm must be a number of mm"),
    ("marker_mm = 30", "marker_size = 30", "unknown key(s): marker_size"),
    ("corner_gap_mm = 8", "corner_gap_mm = 2", "overlap"),
    ("mat_margin_mm = 55", "mat_margin_mm = 30", "stick out of the mat"),
    ("corner_ids = [0, 1, 2, 3]", "corner_ids = [0, 1, 2, 2]", "4 different IDs"),
    ("corner_ids = [0, 1, 2, 3]", "corner_ids = [0, 1, 2, 60]", "from 0 to 49"),
    ("marker_id = 11", "marker_id = 10", "its own marker_id"),
    ("marker_id = 11", "marker_id = 3", "its own marker_id"),
    ('variant = "7x7"', 'variant = "9x9"', "same game and variant"),
    ("cells = 3", "cells = 0", "cells must be an integer from 1 to 26"),
    ("pitch_mm = 60", "pitch_mm = 60\nsize = 2", "unknown key(s): size"),
    ('dictionary = "DICT_4X4_50"', 'dictionary = "DICT_3X3_9"', "ArUco name"),
    ("mat_rgb = [235, 232, 225]", "mat_rgb = [235, 232]", "mat_rgb must be a colour"),
    ("red = [200, 40, 40]", "red = [200, 40, 400]", "integer from 0 to 255"),
    ('blockade = ["clear"]', 'blockade = ["glass"]', "translucent.blockade"),
    ("size_mm = [30, 30, 62]", "size_mm = [30, 62]", "[width, depth, height]"),
    ('shape = "brick"', 'shape = "Brick!"', "shape must be a name"),
    ('name = "default"', "", "missing the key 'name'"),
    ("[[mats]]", "[[mats]\n", "not valid TOML"),
    ("pyramid_wall_mm = 1.5", "pyramid_wall_mm = 6", "pyramid_wall_mm must be from 0.3 to 4 mm"),
    ("pyramid_wall_mm = 1.5", "pyramid_wall_mm = 'thin'", "pyramid_wall_mm must be a number of mm"),
])
def test_bad_kit_files_get_one_clear_error(tmp_path: Path, old: str, new: str, words: str) -> None:
    path = variant_file(tmp_path, old, new)
    with pytest.raises(KitError) as caught:
        load_kit(path)
    assert words in str(caught.value) and str(path) in str(caught.value)


def test_missing_and_non_text_kit_files_get_one_clear_error(tmp_path: Path) -> None:
    with pytest.raises(KitError, match="cannot be read"):
        load_kit(tmp_path / "none.toml")
    (tmp_path / "binary.toml").write_bytes(b"\xff\xfe\x00")
    with pytest.raises(KitError, match="not UTF-8"):
        load_kit(tmp_path / "binary.toml")
    with pytest.raises(KitError, match="no bundled kit named 'deluxe'"):
        kit_named("deluxe")
    with pytest.raises(KitError, match="name like"):
        kit_named("../default")
