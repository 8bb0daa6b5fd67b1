"""`blockref run` refuses a kit or a lens calibration it cannot use with one clear error, before
it touches the journal, the LEDs or the network."""

from __future__ import annotations

from pathlib import Path

import pytest

from pi.cli import main


def write_config(tmp_path: Path, vision: str) -> Path:
    """Writes an appliance config with no hardware and the given [vision] lines."""
    config = tmp_path / "config.toml"
    config.write_text(
        f'[game]\nname = "tuned"\n[camera]\nsource = "recorded"\nrecorded_dir = "{tmp_path}"\n'
        f'[leds]\nbackend = "simulated"\n[buttons]\nenabled = false\n[web]\nhost = "127.0.0.1"\n'
        f'[journal]\npath = "{tmp_path / "journal.sqlite"}"\n[vision]\n{vision}\n',
        encoding="utf-8",
    )
    return config


@pytest.mark.parametrize("vision, words", [
    ('calibration = "lens.json"', "calibration file"),
    ('kit = "thin.toml"', "vision.kit: kit file"),
    ('kit = "thin"', "vision.kit: there is no bundled kit named 'thin'"),
])
def test_an_unusable_kit_or_calibration_stops_the_appliance_before_it_starts(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, vision: str, words: str) -> None:
    status = main(["run", "--config", str(write_config(tmp_path, vision))])
    captured = capsys.readouterr()
    assert status == 2 and words in captured.err and len(captured.err.strip().splitlines()) == 1
    assert not (tmp_path / "journal.sqlite").exists()
