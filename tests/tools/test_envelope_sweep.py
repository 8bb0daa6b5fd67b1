"""The envelope sweep draws looks inside KIT.md's envelope whose camera sees the whole mat."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from tools.envelope_sweep import name_of, random_camera, random_light, seeing_renderer, write_one
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
    assert set(json.loads((folder / "look.json").read_text(encoding="utf-8"))) == {"camera", "light"}
