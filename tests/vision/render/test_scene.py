"""Tests of the drawn scene: markers for every preset, pieces in their cells, stacks, bad positions."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import cv2
import numpy as np
import pytest

from vision.render import RenderError
from vision.render.camera import CameraSpec
from vision.render.effects import LightSpec, white_balance_gain
from vision.render.pieces import make_setting, nest_base
from vision.render.record import PRESETS
from vision.render.scene import Renderer, shadows
from vision.kit import kit_named

KIT = kit_named()
CLEAN = CameraSpec(height_mm=600, tilt_deg=8, azimuth_deg=40, roll_deg=15, hfov_deg=60, jpeg_quality=95)
PLAIN = LightSpec(kelvin=6500, lux=600, sources=((0.0, 90.0, 1.0),), ambient=0.4, awb=1.0)
EMPTY_OFF = {"block-arena": {"hand": {"1": 4, "2": 4}, "meeples_placed": {"1": False, "2": False}},
             "block-pt": {"hand": {"1": 7, "2": 7}},
             "tuned": {"hand": {"1": {"donkey": 2, "dog": 2, "cat": 2}, "2": {"donkey": 2, "dog": 2, "cat": 2}}},
             "blockade": {"black_supply": {"L": 5, "M": 5, "S": 5}, "points": None, "roll": None},
             "block-block": {"hand": {"1": {"bar2": 3, "tee": 1, "half": 1}, "2": {"ell": 2}}}}


def detected(frame: np.ndarray) -> list[int]:
    """Returns the sorted marker IDs OpenCV's ArUco detector finds in a frame."""
    detector = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50),
                                       cv2.aruco.DetectorParameters())
    _, ids, _ = detector.detectMarkers(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY))
    return [] if ids is None else sorted(int(marker) for marker in ids.ravel())


@pytest.mark.parametrize("name", list(PRESETS))
@pytest.mark.parametrize("game, variant", [("block-arena", "7x7"), ("blockade", None), ("tuned", None)])
def test_every_preset_shows_all_five_markers_of_an_empty_mat(name: str, game: str, variant: str | None) -> None:
    camera, light = PRESETS[name]
    renderer = Renderer(game, variant, replace(camera, size=(640, 480)), light, seed=2)
    mat = renderer.setting.mat
    frame = renderer.frame({"size": mat.cells, "cells": {}, "off": EMPTY_OFF[game]})
    assert detected(frame) == [0, 1, 2, 3, mat.marker_id]


def top_pixel(renderer: Renderer, position: dict[str, Any], square: str, height: float) -> np.ndarray:
    """Returns the frame colour (B, G, R floats) where the top of a piece on a square is seen."""
    x, y = renderer.setting.centre(square)
    u, v = renderer.camera.project([[x, y, height]])[0]
    frame = renderer.frame(position).astype(float)
    return np.asarray(frame[int(round(v)) - 1:int(round(v)) + 2, int(round(u)) - 1:int(round(u)) + 2].mean(axis=(0, 1)))


def expected_top(renderer: Renderer, rgb: tuple[int, int, int]) -> np.ndarray:
    """Returns the colour a face turned up shows: nominal, times white balance and locked exposure."""
    assert renderer.sensor.exposure is not None
    return np.array(rgb[::-1], float) * white_balance_gain(renderer.light) * renderer.sensor.exposure


@pytest.mark.parametrize("game, square, pieces, height, colour", [
    ("tuned", "b2", [{"kind": "donkey"}, {"kind": "cat"}], 50.0, "cat"),
    ("block-pt", "c7", [{"kind": "blocker", "owner": 1, "label": "M"}], 8.0, "M"),
    ("block-arena", "f3", [{"kind": "block", "owner": 2, "colour": "dark", "orientation": "upright"}], 62.0, "dark-block"),
    ("block-block", "d2", [{"kind": "cube", "owner": 2, "colour": "white", "shape": "bar2", "block": 0, "top": "white"},
                           {"kind": "cube", "owner": 2, "colour": "white", "shape": "bar2", "block": 0, "top": "brown"}],
     50.0, "brown"),
])
def test_a_piece_shows_its_top_colour_in_its_own_cell(game: str, square: str, pieces: list[dict[str, Any]],
                                                       height: float, colour: str) -> None:
    renderer = Renderer(game, None, CLEAN, PLAIN, seed=1)
    size = renderer.setting.mat.cells
    empty = {"size": size, "cells": {}, "off": EMPTY_OFF[game]}
    mat_colour = top_pixel(renderer, empty, square, 0.0)
    seen = top_pixel(renderer, {**empty, "cells": {square: pieces}}, square, height)
    expected = expected_top(renderer, renderer.setting.colour(colour))
    assert np.abs(seen - expected).max() < 10, (seen, expected)
    assert np.abs(mat_colour - expected_top(renderer, KIT.mat_rgb)).max() < 10
    assert np.abs(seen - mat_colour).max() > 25


def test_a_nested_stack_shows_its_top_piece_from_above() -> None:
    renderer = Renderer("blockade", None, CLEAN, PLAIN, seed=1)
    tower = [{"kind": "pyramid", "colour": colour, "size": size, "locked": False}
             for colour, size in (("green", "L"), ("red", "M"), ("red", "S"), ("black", "L"))]
    position = {"size": 5, "cells": {"c3": tower}, "off": EMPTY_OFF["blockade"]}
    x, y = renderer.setting.centre("c3")
    top = nest_base([(0.0, 25.0, 44.0), (15.84, 19.0, 34.0), (30.98, 14.0, 24.0)], 25.0, 44.0, 1.5) + 44.0
    u, v = renderer.camera.project([[x, y, top - 2.0]])[0]
    frame = renderer.frame(position)
    assert frame[int(round(v)), int(round(u))].max() < 70


def test_pyramids_nest_deeper_when_their_walls_are_thinner() -> None:
    large = [(0.0, 25.0, 44.0)]
    assert nest_base(large, 19.0, 34.0, 1.5) == pytest.approx(44.0 * (1 - 16.0 / 25.0), abs=1e-3)
    assert nest_base(large, 19.0, 34.0, 0.5) < nest_base(large, 19.0, 34.0, 1.5)
    assert nest_base([], 25.0, 44.0, 1.5) == 0.0
    five = [(0.0, 25.0, 44.0)]
    for _ in range(5):
        five.append((nest_base(five, 19.0, 34.0, 1.5), 19.0, 34.0))
    steps = np.diff([z for z, _, _ in five[1:]])
    assert np.allclose(steps, steps[0]) and 0 < steps[0] < 10


def test_a_clear_pyramid_lets_the_mat_show_through() -> None:
    renderer = Renderer("blockade", None, CLEAN, PLAIN, seed=1)
    empty = {"size": 5, "cells": {}, "off": EMPTY_OFF["blockade"]}
    mat = top_pixel(renderer, empty, "b4", 10.0)
    clear = [{"kind": "pyramid", "colour": "clear", "size": "L", "locked": False}]
    red = [{"kind": "pyramid", "colour": "red", "size": "L", "locked": False}]
    seen = top_pixel(renderer, {**empty, "cells": {"b4": clear}}, "b4", 10.0)
    opaque = top_pixel(renderer, {**empty, "cells": {"b4": red}}, "b4", 10.0)
    assert 3 < np.abs(seen - mat).max() < 60
    assert np.abs(opaque - mat).max() > 100


@pytest.mark.parametrize("position, words", [
    ([], "dict with the keys"),
    ({"size": 7, "cells": {}, "off": {}}, "does not match"),
    ({"size": 9, "cells": {"j1": [{"kind": "block"}]}, "off": {}}, "not a square"),
    ({"size": 9, "cells": {"c1": []}, "off": {}}, "non-empty list"),
    ({"size": 9, "cells": {"c1": [{"kind": "donkey"}]}, "off": {}}, "kind is one of"),
    ({"size": 9, "cells": {"c1": [{"kind": "block", "owner": 3, "colour": "light", "orientation": "upright"}]},
      "off": {}}, "owner"),
    ({"size": 9, "cells": {"c1": [{"kind": "block", "owner": True, "colour": "light", "orientation": "upright"}]},
      "off": {}}, "owner"),
    ({"size": 9, "cells": {"c1": [{"kind": "block", "owner": 1, "colour": "light", "orientation": "lying", "other": "e1"}]},
      "off": {}}, "next to it"),
    ({"size": 9, "cells": {"c1": [{"kind": "block", "owner": 1, "colour": "light", "orientation": "lying", "other": "d1"}]},
      "off": {}}, "does not name it back"),
    ({"size": 9, "cells": {}, "off": {"hand": {"1": -1}}}, "count"),
    ({"size": 9, "cells": {}, "off": {"hand": []}}, "dict by player"),
    ({"size": 9, "cells": {}, "off": {}, "x": {1, 2}}, "JSON-ready"),
])
def test_a_bad_position_gets_one_clear_error(position: Any, words: str) -> None:
    renderer = Renderer("block-arena", "9x9", CameraSpec(), LightSpec(), seed=1)
    with pytest.raises(RenderError, match=words):
        renderer.frame(position)
    assert renderer.sensor.exposure is None


def test_unknown_games_sets_and_shapes_are_refused() -> None:
    with pytest.raises(RenderError, match="knows no game"):
        make_setting(KIT, "chess", None)
    with pytest.raises(RenderError, match="no bundled|set"):
        make_setting(KIT, "block-block", "nonesuch")
    renderer = Renderer("block-block", None, CameraSpec(), LightSpec(), seed=1)
    cube = {"kind": "cube", "owner": 1, "colour": "brown", "shape": "blob", "block": 0, "top": "brown"}
    with pytest.raises(RenderError, match="blob"):
        renderer.frame({"size": 5, "cells": {"a1": [cube]}, "off": {}})
    with pytest.raises(RenderError, match="blob"):
        renderer.frame({"size": 5, "cells": {}, "off": {"hand": {"1": {"blob": 1}}}})


def arena_stack(square: str, other: str | None, meeples: list[str]) -> dict[str, list[dict[str, Any]]]:
    """Returns Block Arena cells: a dark block on a square (lying towards other if given), meeples on it."""
    block: dict[str, Any] = {"kind": "block", "owner": 2, "colour": "dark", "orientation": "upright"}
    cells = {square: [{**block, **({"orientation": "lying", "other": other} if other else {})}]
             + [{"kind": "meeple", "owner": 1 if colour == "light" else 2, "colour": colour} for colour in meeples]}
    if other:
        cells[other] = [{**block, "orientation": "lying", "other": square}]
    return cells


def meeple_head(renderer: Renderer, frame: np.ndarray, square: str, top: float, shift: float) -> np.ndarray:
    """Returns the frame colour (B, G, R floats) where the head of a meeple standing at a height is seen."""
    x, y = renderer.setting.centre(square)
    width, _, height = renderer.setting.size("meeple")
    u, v = np.round(renderer.camera.project([[x + shift * width, y, top + height * 0.8]])[0]).astype(int)
    return np.asarray(frame[v - 1:v + 2, u - 1:u + 2].astype(float).mean(axis=(0, 1)))


@pytest.mark.parametrize("square, other", [("a1", "b1"), ("i9", "h9"), ("a9", "a8"), ("i1", "i2"), ("e6", "e5"),
                                           ("b1", "a1"), ("e5", "e6"), ("c3", None)])
def test_meeples_on_a_block_show_their_colours_on_top(square: str, other: str | None) -> None:
    renderer = Renderer("block-arena", "9x9", CLEAN, PLAIN, seed=1)
    top = 30.0 if other else 62.0
    off = EMPTY_OFF["block-arena"]
    for meeples in (["light"], ["light", "dark"], ["dark", "light"]):
        frame = renderer.frame({"size": 9, "cells": arena_stack(square, other, meeples), "off": off})
        for index, colour in enumerate(meeples):
            shift = (index - (len(meeples) - 1) / 2) * 0.45
            seen = meeple_head(renderer, frame, square, top, shift)
            expected = expected_top(renderer, renderer.setting.colour(f"{colour}-meeple"))
            assert np.abs(seen - expected).max() < 30, (meeples, colour, seen, expected)


def light_left(renderer: Renderer, shade: Any, points: list[tuple[float, float]]) -> list[float]:
    """Returns the share of a source's light the shade leaves at mat points (1: none taken)."""
    pixels = renderer.canvas.pixels(np.array([(x, y, 0.0) for x, y in points]))
    x0, y0 = shade.origin
    height, width = shade.light.shape
    inside = [(int(round(v)) - y0, int(round(u)) - x0) for u, v in pixels]
    return [float(shade.light[row, column]) / 255 if 0 <= row < height and 0 <= column < width else 1.0
            for row, column in inside]


def block(x: float, y: float, height: float) -> np.ndarray:
    """Returns the corners of a 28 mm square block standing on the mat at (x, y)."""
    return np.array([(x + dx, y + dy, z) for dx in (-14, 14) for dy in (-14, 14) for z in (0.0, height)])


def test_a_shadow_is_sharp_at_a_piece_foot_and_soft_at_a_tall_piece_tip() -> None:
    light = LightSpec(kelvin=5000, sources=((0.0, 45.0, 1.0),), ambient=0.3, shadow_blur_mm=13.0, awb=1.0)
    renderer = Renderer("block-pt", None, replace(CLEAN, size=(640, 480)), light, seed=0)
    low = shadows(renderer.canvas, [(block(100.0, 140.0, 8.0), 1.0)], renderer.lighting, 13.0)
    assert low is not None  # the light shines along +x: shadows fall towards -x
    in_shadow, beyond, lit_side, aside = light_left(renderer, low, [(82.0, 140.0), (66.0, 140.0), (126.0, 140.0),
                                                                    (100.0, 166.0)])
    assert in_shadow < 0.6 and min(beyond, lit_side, aside) > 0.97
    tall = shadows(renderer.canvas, [(block(100.0, 140.0, 30.0), 1.0)], renderer.lighting, 13.0)
    assert tall is not None
    near, tip, past = light_left(renderer, tall, [(78.0, 140.0), (56.0, 140.0), (40.0, 140.0)])
    assert near < 0.4 and 0.45 < tip < 0.85 and past > tip
