"""Tests of the configuration: defaults, overlays, and one clear error per bad key or value."""

from __future__ import annotations

import dataclasses
import re
import tomllib
from pathlib import Path

import pytest

from dataclasses import replace

from pi import config as cfg
from pi.config import ConfigError, load_config
from vision.kit import kit_from, kit_named, kit_toml

NO_ENV: dict[str, str] = {}


def write(tmp_path: Path, text: str) -> Path:
    """Returns the path of a config file holding text."""
    file = tmp_path / "config.toml"
    file.write_text(text, encoding="utf-8")
    return file


def error_of(tmp_path: Path, text: str) -> str:
    """Returns the ConfigError message that loading text gives."""
    with pytest.raises(ConfigError) as caught:
        load_config(write(tmp_path, text), NO_ENV)
    return str(caught.value)


def test_defaults_work_with_nothing_configured() -> None:
    config = load_config(None, NO_ENV)
    assert config.game == cfg.GameConfig("auto", None)
    assert config.camera.source == "picamera2" and config.camera.device == 0
    assert (config.camera.width, config.camera.height, config.camera.fps) == (1280, 960, 10.0)
    assert config.leds.backend == "auto" and 0 < config.leds.brightness <= 255
    assert config.buttons.enabled and config.buttons.hold_seconds == 1.5
    assert config.buttons.pins == cfg.ButtonPins(5, 6, 13, 19)
    assert config.web.pin is None and not config.web.controls_enabled
    assert config.journal.path == Path("/var/lib/blockref/journal.sqlite")
    assert config.camera.controls_file == Path("/var/lib/blockref/camera-controls.json")
    assert config.vision.calibration is None and config.source is None
    assert config.vision.kit == "default"


def test_state_directory_comes_from_systemd() -> None:
    config = load_config(None, {"STATE_DIRECTORY": "/var/lib/blockref-test:/other"})
    assert config.journal.path == Path("/var/lib/blockref-test/journal.sqlite")
    assert config.camera.controls_file == Path("/var/lib/blockref-test/camera-controls.json")


def test_the_default_file_documents_every_key() -> None:
    text = cfg.DEFAULT_FILE.read_text(encoding="utf-8")
    for section, keys in cfg.schema(Path(".")).items():
        assert f"[{section}]" in text
        for key in keys:
            pattern = rf"^((# )?{key} = |\[{section}\.{key}\]$)"
            assert re.search(pattern, text, re.M), f"{section}.{key} is not documented"
    for name in cfg.BUTTON_NAMES:
        assert re.search(rf"^{name} = ", text, re.M)


def test_a_file_overlays_the_defaults(tmp_path: Path) -> None:
    file = write(tmp_path, """
[game]
name = "tuned"
[camera]
source = "opencv"
device = "/dev/video2"
fps = 12.5
[buttons.pins]
roll = false
[web]
port = 8080
[journal]
path = "games/journal.sqlite"
[vision]
calibration = "/etc/blockref/calibration.json"
""")
    config = load_config(file, NO_ENV)
    assert config.game == cfg.GameConfig("tuned", None)
    assert config.camera.device == "/dev/video2" and config.camera.fps == 12.5
    assert config.camera.width == 1280  # untouched keys keep their defaults
    assert config.buttons.pins == cfg.ButtonPins(5, 6, 13, None)
    assert config.buttons.pins.wired() == {"done1": 5, "done2": 6, "confirm": 13}
    assert config.web.port == 8080 and config.web.host == "0.0.0.0"
    assert config.journal.path == tmp_path.resolve() / "games" / "journal.sqlite"
    assert config.vision.calibration == Path("/etc/blockref/calibration.json")
    assert config.source == file


def test_the_kit_is_a_bundled_name_or_a_kit_file_beside_the_config(tmp_path: Path) -> None:
    kit_file = tmp_path / "thick.toml"
    kit_file.write_text(kit_toml(replace(kit_named(), pyramid_wall_mm=3.0)), encoding="utf-8")
    config = load_config(write(tmp_path, '[vision]\nkit = "thick.toml"'), NO_ENV)
    assert config.vision.kit == str(tmp_path.resolve() / "thick.toml")
    assert kit_from(config.vision.kit).pyramid_wall_mm == 3.0
    kit_file.write_text("pyramid_wall_mm = 9\n", encoding="utf-8")
    assert "vision.kit: kit file " in error_of(tmp_path, '[vision]\nkit = "thick.toml"')


def test_the_config_is_frozen() -> None:
    config = load_config(None, NO_ENV)
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.web.port = 1  # type: ignore[misc]
    assert config.as_dict()["journal"]["path"] == "/var/lib/blockref/journal.sqlite"


@pytest.mark.parametrize(("text", "message"), [
    ('[leds]\nbackend = "foo"',
     "leds.backend must be one of auto, spi, pio, ws281x, simulated, not 'foo'"),
    ('[camera]\nsource = "usb"', "camera.source must be one of picamera2, opencv, recorded, "
                                 "not 'usb'"),
    ('[camera]\nsorce = "opencv"', "unknown key camera.sorce; camera may hold: source,"),
    ('[camer]\nsource = "opencv"', "unknown key [camer]; the file may hold: game, camera,"),
    ("[camera]\nwidth = 10", "camera.width must be between 160 and 4096, not 10"),
    ('[camera]\nwidth = "1280"', "camera.width must be an integer, not '1280'"),
    ("[camera]\nwidth = 1280.0", "camera.width must be an integer, not 1280.0"),
    ("[camera]\nheight = true", "camera.height must be an integer, not true"),
    ("[camera]\nfps = 0", "camera.fps must be between 1 and 120, not 0"),
    ('[camera]\ndevice = "video0"', "camera.device must be a camera number or a /dev/ path"),
    ('[camera]\ndevice = "/dev/video0"', "camera.device must be a camera number for picamera2"),
    ('[camera]\nsource = "recorded"', "camera.recorded_dir must be set when camera.source is"),
    ("[camera]\nlock_exposure = 1", "camera.lock_exposure must be true or false, not 1"),
    ("camera = 3", "camera must be a table, not 3"),
    ("[leds]\nbrightness = 256", "leds.brightness must be between 0 and 255, not 256"),
    ('[leds]\nlayout = ""', "leds.layout must be a non-empty line of text, not ''"),
    ("[buttons.pins]\nroll = 5", "buttons.pins.roll uses GPIO 5, already used by "
                                 "buttons.pins.done1"),
    ("[buttons.pins]\nroll = 28", "buttons.pins.roll must be between 0 and 27, not 28"),
    ("[buttons.pins]\nstart = 4", "unknown key buttons.pins.start; buttons.pins may hold: "
                                  "done1, done2, confirm, roll"),
    ("[buttons.pins]\nconfirm = 10", "buttons.pins.confirm must not be GPIO 10: it is SPI MOSI"),
    ("[buttons]\npins = 4", "buttons.pins must be a table, not 4"),
    ("[buttons]\nhold_seconds = 0", "buttons.hold_seconds must be between 0.3 and 10, not 0"),
    ("[web]\nport = 70000", "web.port must be between 1 and 65535, not 70000"),
    ('[web]\nhost = "bad host"', "web.host must be an IP address or a host name, not 'bad host'"),
    ('[game]\nname = "chess"', "game.name must be one of auto, "),
    ('[game]\nvariant = "9x9"', "game.variant must be left out when game.name is 'auto'"),
    ('[game]\nname = "tuned"\nvariant = "9x9"', "game.variant: tuned has no variants"),
    ('[journal]\npath = ["a"]', "journal.path must be a string, not a list"),
    ('[vision]\nkit = "deluxe"', "vision.kit: there is no bundled kit named 'deluxe'"),
    ('[vision]\nkit = "../default"', "vision.kit: kit name must be a name like 'default'"),
    ('[vision]\nkit = "none.toml"', "vision.kit: kit file "),
])
def test_bad_values_get_one_clear_error(tmp_path: Path, text: str, message: str) -> None:
    error = error_of(tmp_path, text)
    assert error.startswith(f"{tmp_path / 'config.toml'}: ")
    assert message in error


def test_buttons_may_use_the_spi_pin_when_the_leds_do_not(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, '[leds]\nbackend = "pio"\n[buttons.pins]\nroll = 10'),
                         NO_ENV)
    assert config.buttons.pins.roll == 10


def test_a_plain_pin_is_refused_without_being_echoed(tmp_path: Path) -> None:
    error = error_of(tmp_path, '[web]\npin = "4711"')
    assert "web.pin must be a PIN hash" in error and "4711" not in error


def test_pin_hashes_round_trip(tmp_path: Path) -> None:
    stored = cfg.hash_pin("2468", salt=bytes(range(16)), iterations=1000)
    assert stored.startswith("pbkdf2_sha256$1000$000102")
    assert cfg.verify_pin(stored, "2468") and not cfg.verify_pin(stored, "2469")
    assert not cfg.verify_pin("not a hash", "2468")
    assert not cfg.verify_pin(stored.replace("$1000$", "$0$"), "2468")
    config = load_config(write(tmp_path, f'[web]\npin = "{stored}"'), NO_ENV)
    assert config.web.pin == stored and config.web.controls_enabled
    with pytest.raises(ConfigError):
        cfg.hash_pin("")
    with pytest.raises(ConfigError, match="iterations"):
        cfg.hash_pin("2468", iterations=0)
    zero = stored.replace("$1000$", "$0$")
    assert "web.pin must be a PIN hash" in error_of(tmp_path, f'[web]\npin = "{zero}"')


def test_unreadable_and_malformed_files_are_named(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read config file .*missing.toml"):
        load_config(tmp_path / "missing.toml", NO_ENV)
    with pytest.raises(ConfigError, match="is not valid TOML"):
        load_config(write(tmp_path, "[camera\nwidth = 3"), NO_ENV)
    (tmp_path / "latin1.toml").write_bytes(b'[web]\nhost = "caf\xe9"\n')
    with pytest.raises(ConfigError, match="is not UTF-8 text"):
        load_config(tmp_path / "latin1.toml", NO_ENV)


def test_the_default_file_is_valid_toml_on_its_own() -> None:
    data = tomllib.loads(cfg.DEFAULT_FILE.read_text(encoding="utf-8"))
    assert set(data) == set(cfg.schema(Path(".")))


def test_check_command_prints_the_config_or_one_error(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cfg.main(["check"]) == 0
    assert '"source": "picamera2"' in capsys.readouterr().out
    assert cfg.main(["check", str(write(tmp_path, "[web]\nport = 0"))]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.strip().endswith(
        "web.port must be between 1 and 65535, not 0")
