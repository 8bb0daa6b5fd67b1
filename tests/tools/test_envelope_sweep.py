"""The envelope sweep draws looks inside KIT.md's envelope whose camera sees the whole mat."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from tools.envelope_sweep import (
    name_of, random_camera, random_light, seeing_renderer, set_kit, timing_at, with_cube, write_one,
)
from tools.make_fixtures import TIMING
from vision.kit import kit_named, recorded_kit
from vision.render import RenderError


def test_random_looks_lie_inside_the_envelope_save_a_lens_that_folds() -> None:
    rng = np.random.default_rng(7)
    folded = 0
    for _ in range(200):
        camera, light = random_camera(rng), random_light(rng)
        assert light.checked() is light
        try:
            camera.checked()
        except RenderError as error:  # strong k1 with a wide view: the sweep draws again
            assert "folds the image" in str(error)
            folded += 1
    assert folded < 100


@pytest.mark.parametrize("game, variant", [("block-arena", "9x9"), ("tuned", None), ("blockade", None)])
def test_the_chosen_look_sees_every_marker_and_is_seeded(game: str, variant: str | None) -> None:
    renderer, camera, light = seeing_renderer(game, variant, 3)
    assert renderer.sees_every_marker()
    assert seeing_renderer(game, variant, 3)[1:] == (camera, light)


def test_a_recording_is_a_whole_game_with_its_look(tmp_path: Path) -> None:
    write_one(tmp_path, "tuned", None, 5)
    folder = tmp_path / name_of("tuned", None, 5)
    truth = json.loads((folder / "truth.json").read_text(encoding="utf-8"))
    assert truth["outcome"] is not None and (folder / "frames").is_dir()
    assert set(json.loads((folder / "look.json").read_text(encoding="utf-8"))) == {"camera", "light", "wall_mm", "cube_mm"}


def test_the_pyramids_wall_reaches_the_renderer_and_keeps_the_look() -> None:
    thin, camera, light = seeing_renderer("blockade", None, 3)
    thick = seeing_renderer("blockade", None, 3, set_kit(wall_mm=3.0))
    assert (thin.setting.kit.pyramid_wall_mm, thick[0].setting.kit.pyramid_wall_mm) == (1.5, 3.0)
    assert thick[1:] == (camera, light)


def test_a_wall_outside_any_set_is_refused() -> None:
    with pytest.raises(RenderError, match="pyramid wall_mm"):
        set_kit(wall_mm=5.0)


def test_a_recording_of_another_set_carries_its_kit_and_replays_with_it(tmp_path: Path) -> None:
    kit = set_kit(wall_mm=3.0)
    write_one(tmp_path, "tuned", None, 5, kit=kit)
    folder = tmp_path / name_of("tuned", None, 5)
    assert json.loads((folder / "game.json").read_text(encoding="utf-8"))["kit"] == "kit.toml"
    assert recorded_kit("kit.toml", folder) == kit
    assert json.loads((folder / "look.json").read_text(encoding="utf-8"))["wall_mm"] == 3.0


def test_a_recording_may_name_the_bundled_kit_it_was_not_filmed_with(tmp_path: Path) -> None:
    write_one(tmp_path, "tuned", None, 5, kit=set_kit(wall_mm=3.0), told_kit="default")
    folder = tmp_path / name_of("tuned", None, 5)
    assert json.loads((folder / "game.json").read_text(encoding="utf-8"))["kit"] == "default"
    assert not (folder / "kit.toml").exists()


def test_another_frame_rate_keeps_each_part_as_long_and_enough_stills_for_the_gate() -> None:
    fast, slow = timing_at(30.0), timing_at(5.0)
    assert timing_at(TIMING.fps) == TIMING
    assert (fast.fps, fast.still, fast.approach, fast.lead) == (30.0, 3 * TIMING.still, 3 * TIMING.approach, 3 * TIMING.lead)
    assert (slow.fps, slow.still, slow.approach, slow.pause) == (5.0, 2, 1, 1)


def test_a_kit_with_another_cube_changes_only_the_block_block_cube() -> None:
    kit = kit_named()
    other = with_cube(kit, 26.0)
    assert other.pieces["block-block"]["cube"].size_mm == (26.0, 26.0, 26.0)
    assert kit.pieces["block-block"]["cube"].size_mm == (25.0, 25.0, 25.0)
    assert other.pieces["blockade"] == kit.pieces["blockade"] and other.mats == kit.mats
    renderer = seeing_renderer("block-block", "default", 3, kit=other)[0]
    assert renderer.setting.size("cube") == (26.0, 26.0, 26.0)
