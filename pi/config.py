"""The appliance's configuration: pi/default-config.toml overlaid by the user's TOML file,
validated into frozen dataclasses; every bad key or value is one error naming it."""

from __future__ import annotations

import argparse
import getpass
import hashlib
import hmac
import ipaddress
import json
import os
import re
import secrets
import sys
import tomllib
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from pi.leds.auto import BACKENDS as LED_BACKENDS
from rules import RulesError, game_names, get_game
from vision.kit import KitError, kit_from

DEFAULT_FILE = Path(__file__).with_name("default-config.toml")
DEFAULT_STATE_DIR = Path("/var/lib/blockref")
CAMERA_SOURCES = ("picamera2", "opencv", "recorded")
BUTTON_NAMES = ("done1", "done2", "confirm", "roll")
# GPIO pins carrying LED data for a backend, which no button may take.
LED_DATA_PINS: dict[str, dict[int, str]] = {
    "spi": {10: "SPI MOSI, the LED data line"},
    "ws281x": {18: "PWM, the LED data line"},
    "auto": {10: "SPI MOSI, the LED data line", 18: "PWM, the LED data line"},
}
PIN_HASH_SCHEME = "pbkdf2_sha256"
PIN_HASH_ITERATIONS = 100_000
_PIN_HASH = re.compile(r"pbkdf2_sha256\$([1-9][0-9]{0,6})\$([0-9a-f]{16,64})\$([0-9a-f]{64})")
_HOSTNAME = re.compile(r"(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]{0,62})(\.[A-Za-z0-9-]{1,63})*")


class ConfigError(ValueError):
    """Raised for a configuration that cannot be used; the message names the key and value."""


@dataclass(frozen=True, slots=True)
class GameConfig:
    """Which game to referee: a name (or "auto": read the mat's game marker) and a variant."""

    name: str
    variant: str | None


@dataclass(frozen=True, slots=True)
class CameraConfig:
    """Where frames come from and how they are taken."""

    source: str
    device: int | str
    width: int
    height: int
    fps: float
    recorded_dir: Path | None
    lock_exposure: bool
    controls_file: Path


@dataclass(frozen=True, slots=True)
class LedConfig:
    """How the LEDs are driven and how bright they may be."""

    backend: str
    layout: str
    brightness: int
    milliamps: int


@dataclass(frozen=True, slots=True)
class ButtonPins:
    """The BCM GPIO number of each button, or None for a button that is not wired."""

    done1: int | None
    done2: int | None
    confirm: int | None
    roll: int | None

    def wired(self) -> dict[str, int]:
        """Returns the wired buttons' names and pins."""
        return {name: pin for name, pin in asdict(self).items() if pin is not None}


@dataclass(frozen=True, slots=True)
class ButtonsConfig:
    """The players' buttons: whether they are wired, their pins and timings."""

    enabled: bool
    hold_seconds: float
    bounce_ms: int
    pins: ButtonPins


@dataclass(frozen=True, slots=True)
class WebConfig:
    """Where the dashboard listens and the hash of the PIN that unlocks its controls."""

    host: str
    port: int
    pin: str | None

    @property
    def controls_enabled(self) -> bool:
        """Tells whether the dashboard's controls can be unlocked (a PIN hash is set)."""
        return self.pin is not None


@dataclass(frozen=True, slots=True)
class JournalConfig:
    """Where the game journal is kept."""

    path: Path


@dataclass(frozen=True, slots=True)
class VisionConfig:
    """The camera calibration used to undistort frames, if any, and the kit on the table (a
    bundled kit's name or a kit file's path)."""

    calibration: Path | None
    kit: str


@dataclass(frozen=True, slots=True)
class Config:
    """The whole configuration, and the file it was read from (None: defaults only)."""

    game: GameConfig
    camera: CameraConfig
    leds: LedConfig
    buttons: ButtonsConfig
    web: WebConfig
    journal: JournalConfig
    vision: VisionConfig
    source: Path | None = None

    def as_dict(self) -> dict[str, Any]:
        """Returns the configuration as JSON-ready data (paths as strings)."""
        data: dict[str, Any] = json.loads(json.dumps(asdict(self), default=str))
        return data


# -- values ------------------------------------------------------------------------------


def _shown(value: object) -> str:
    """Returns a value as a config file would spell it, for error messages."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list):
        return "a list"
    return repr(value)


def integer(key: str, value: object, low: int, high: int) -> int:
    """Returns value if it is an integer within [low, high], else raises naming the key."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(f"{key} must be an integer, not {_shown(value)}")
    if not low <= value <= high:
        raise ConfigError(f"{key} must be between {low} and {high}, not {value}")
    return value


def number(key: str, value: object, low: float, high: float) -> float:
    """Returns value as a float if it is a number within [low, high], else raises."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ConfigError(f"{key} must be a number, not {_shown(value)}")
    if not low <= value <= high:
        raise ConfigError(f"{key} must be between {low:g} and {high:g}, not {value:g}")
    return float(value)


def text(key: str, value: object) -> str:
    """Returns value if it is a non-empty string without control characters, else raises."""
    if not isinstance(value, str):
        raise ConfigError(f"{key} must be a string, not {_shown(value)}")
    if not value.strip() or any(ord(c) < 32 for c in value):
        raise ConfigError(f"{key} must be a non-empty line of text, not {value!r}")
    return value


def choice(key: str, value: object, options: Sequence[str]) -> str:
    """Returns value if it is one of options, else raises listing them."""
    if not isinstance(value, str) or value not in options:
        raise ConfigError(f"{key} must be one of {', '.join(options)}, not {_shown(value)}")
    return value


def flag(key: str, value: object) -> bool:
    """Returns value if it is a boolean, else raises."""
    if not isinstance(value, bool):
        raise ConfigError(f"{key} must be true or false, not {_shown(value)}")
    return value


def path(key: str, value: object, base: Path) -> Path:
    """Returns value as a path, relative ones resolved against base."""
    given = Path(text(key, value)).expanduser()
    return given if given.is_absolute() else base / given


def host(key: str, value: object) -> str:
    """Returns value if it is an IP address or a host name, else raises."""
    name = text(key, value)
    try:
        ipaddress.ip_address(name)
        return name
    except ValueError:
        pass
    if not _HOSTNAME.fullmatch(name):
        raise ConfigError(f"{key} must be an IP address or a host name, not {name!r}")
    return name


def pin_hash(key: str, value: object) -> str:
    """Returns value if it is a PIN hash made by hash_pin; never echoes a plain PIN."""
    if not isinstance(value, str) or not _PIN_HASH.fullmatch(value):
        raise ConfigError(
            f"{key} must be a PIN hash ({PIN_HASH_SCHEME}$ITERATIONS$SALT$HASH) made by "
            "`python -m pi.config hash-pin`, not a plain PIN or other text"
        )
    return value


def kit_spec(key: str, value: object, base: Path) -> str:
    """Returns a kit setting once the kit loads: a bundled kit's name, or a kit file's path
    (.toml; relative ones resolved against base)."""
    spec = text(key, value)
    if spec.endswith(".toml"):
        spec = str(path(key, spec, base))
    try:
        kit_from(spec)
    except KitError as error:
        raise ConfigError(f"{key}: {error}") from None
    return spec


def camera_device(key: str, value: object) -> int | str:
    """Returns a camera number (0-63) or a device path."""
    if isinstance(value, str):
        if not value.startswith("/dev/"):
            raise ConfigError(f"{key} must be a camera number or a /dev/ path, not {value!r}")
        return text(key, value)
    return integer(key, value, 0, 63)


def gpio_pin(key: str, value: object) -> int | None:
    """Returns a BCM GPIO number (0-27), or None for `false` (the button is not wired)."""
    if value is False:
        return None
    return integer(key, value, 0, 27)


# -- pin hashes --------------------------------------------------------------------------


def _pin_digest(pin: str, salt: bytes, iterations: int) -> bytes:
    """Returns the PBKDF2-SHA256 digest of a PIN."""
    return hashlib.pbkdf2_hmac("sha256", pin.encode("utf-8"), salt, iterations)


def hash_pin(pin: str, salt: bytes | None = None, iterations: int = PIN_HASH_ITERATIONS) -> str:
    """Returns the salted hash of a PIN as web.pin stores it; raises for an empty PIN."""
    if not pin or not pin.isprintable():
        raise ConfigError("a PIN must be non-empty printable text")
    if not 1 <= iterations <= 9_999_999:
        raise ConfigError(f"PIN hash iterations must be 1 to 9999999, not {iterations}")
    salt = secrets.token_bytes(16) if salt is None else salt
    digest = _pin_digest(pin, salt, iterations)
    return f"{PIN_HASH_SCHEME}${iterations}${salt.hex()}${digest.hex()}"


def verify_pin(stored: str, pin: str) -> bool:
    """Tells whether a PIN matches a stored hash (in constant time; False for a bad hash)."""
    match = _PIN_HASH.fullmatch(stored)
    if match is None:
        return False
    iterations, salt, digest = int(match[1]), bytes.fromhex(match[2]), bytes.fromhex(match[3])
    return hmac.compare_digest(_pin_digest(pin, salt, iterations), digest)


# -- the schema --------------------------------------------------------------------------

Check = Callable[[str, object], Any]
Schema = dict[str, dict[str, Check]]


def schema(base: Path) -> Schema:
    """Returns each section's keys and checks; base resolves relative paths."""
    return {
        "game": {"name": lambda k, v: text(k, v), "variant": lambda k, v: text(k, v)},
        "camera": {
            "source": lambda k, v: choice(k, v, CAMERA_SOURCES),
            "device": camera_device,
            "width": lambda k, v: integer(k, v, 160, 4096),
            "height": lambda k, v: integer(k, v, 120, 3072),
            "fps": lambda k, v: number(k, v, 1, 120),
            "recorded_dir": lambda k, v: path(k, v, base),
            "lock_exposure": flag,
            "controls_file": lambda k, v: path(k, v, base),
        },
        "leds": {
            "backend": lambda k, v: choice(k, v, LED_BACKENDS),
            "layout": lambda k, v: text(k, v),
            "brightness": lambda k, v: integer(k, v, 0, 255),
            "milliamps": lambda k, v: integer(k, v, 50, 50_000),
        },
        "buttons": {
            "enabled": flag,
            "hold_seconds": lambda k, v: number(k, v, 0.3, 10),
            "bounce_ms": lambda k, v: integer(k, v, 0, 500),
            "pins": lambda k, v: button_pins(k, v),
        },
        "web": {
            "host": host,
            "port": lambda k, v: integer(k, v, 1, 65535),
            "pin": pin_hash,
        },
        "journal": {"path": lambda k, v: path(k, v, base)},
        "vision": {"calibration": lambda k, v: path(k, v, base), "kit": lambda k, v: kit_spec(k, v, base)},
    }


def table(key: str, value: object, known: Sequence[str]) -> dict[str, Any]:
    """Returns value if it is a table whose keys are all known, else raises naming the key."""
    if not isinstance(value, dict):
        raise ConfigError(f"{key} must be a table, not {_shown(value)}")
    for name in value:
        if name not in known:
            where = f"{key}.{name}" if key else f"[{name}]"
            raise ConfigError(f"unknown key {where}; {key or 'the file'} may hold: "
                              + ", ".join(known))
    return value


def button_pins(key: str, value: object) -> ButtonPins:
    """Returns the button pins of a [buttons.pins] table; two buttons may not share a pin."""
    given = table(key, value, BUTTON_NAMES)
    pins = {name: gpio_pin(f"{key}.{name}", given.get(name, False)) for name in BUTTON_NAMES}
    seen: dict[int, str] = {}
    for name, pin in pins.items():
        if pin is not None and pin in seen:
            raise ConfigError(f"{key}.{name} uses GPIO {pin}, already used by {key}.{seen[pin]}")
        if pin is not None:
            seen[pin] = name
    return ButtonPins(**pins)


def validate(data: Mapping[str, Any], base: Path) -> dict[str, dict[str, Any]]:
    """Returns every section's checked values (None for keys left unset), or raises."""
    rules = schema(base)
    table("", dict(data), list(rules))
    checked: dict[str, dict[str, Any]] = {}
    for section, keys in rules.items():
        given = table(section, data.get(section, {}), list(keys))
        checked[section] = {
            name: None if name not in given else check(f"{section}.{name}", given[name])
            for name, check in keys.items()
        }
    return checked


# -- loading -----------------------------------------------------------------------------


def state_directory(env: Mapping[str, str]) -> Path:
    """Returns systemd's STATE_DIRECTORY (its first entry) or /var/lib/blockref."""
    given = env.get("STATE_DIRECTORY", "").split(":")[0]
    return Path(given) if given else DEFAULT_STATE_DIR


def read_toml(file: Path) -> dict[str, Any]:
    """Returns a TOML file's contents, or raises one ConfigError naming the file."""
    try:
        raw = file.read_bytes()
    except OSError as error:
        raise ConfigError(f"cannot read config file {str(file)!r}: "
                          f"{error.strerror or error}") from None
    try:
        return tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise ConfigError(f"config file {str(file)!r} is not UTF-8 text") from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"config file {str(file)!r} is not valid TOML: {error}") from None


def overlay(base: Mapping[str, Any], top: Mapping[str, Any]) -> dict[str, Any]:
    """Returns base with top's values laid over it, tables merged key by key."""
    merged = dict(base)
    for key, value in top.items():
        below = merged.get(key)
        if isinstance(below, dict) and isinstance(value, dict):
            merged[key] = overlay(below, value)
        else:
            merged[key] = value
    return merged


def check_game(game: Mapping[str, Any]) -> GameConfig:
    """Returns the [game] section once the name and variant are known to the referee."""
    name, variant = game["name"], game["variant"]
    if name == "auto":
        if variant is not None:
            raise ConfigError(f"game.variant must be left out when game.name is 'auto' "
                              f"(the mat's marker names the variant), not {variant!r}")
        return GameConfig(name, None)
    if name not in game_names():
        raise ConfigError(f"game.name must be one of auto, {', '.join(game_names())}, "
                          f"not {name!r}")
    try:
        get_game(name, variant)
    except RulesError as error:
        raise ConfigError(f"game.variant: {error}") from None
    return GameConfig(name, variant)


def check_camera(camera: Mapping[str, Any], state_dir: Path) -> CameraConfig:
    """Returns the [camera] section once its keys agree with the chosen source."""
    source = camera["source"]
    if source == "recorded" and camera["recorded_dir"] is None:
        raise ConfigError("camera.recorded_dir must be set when camera.source is 'recorded'")
    if source == "picamera2" and isinstance(camera["device"], str):
        raise ConfigError(f"camera.device must be a camera number for picamera2, "
                          f"not {camera['device']!r}")
    controls = camera["controls_file"] or state_dir / "camera-controls.json"
    return CameraConfig(**{**camera, "controls_file": controls})


def check_buttons(buttons: Mapping[str, Any], led_backend: str) -> ButtonsConfig:
    """Returns the [buttons] section once no button takes the LEDs' data pin."""
    pins: ButtonPins = buttons["pins"]
    if buttons["enabled"]:
        taken = LED_DATA_PINS.get(led_backend, {})
        for name, pin in pins.wired().items():
            if pin in taken:
                raise ConfigError(f"buttons.pins.{name} must not be GPIO {pin}: it is "
                                  f"{taken[pin]} when leds.backend is {led_backend!r}")
    return ButtonsConfig(**buttons)


def build(checked: Mapping[str, Mapping[str, Any]], env: Mapping[str, str],
          source: Path | None) -> Config:
    """Returns the Config of checked sections, with the defaults that depend on the state dir."""
    state_dir = state_directory(env)
    journal = checked["journal"]["path"] or state_dir / "journal.sqlite"
    return Config(
        game=check_game(checked["game"]),
        camera=check_camera(checked["camera"], state_dir),
        leds=LedConfig(**checked["leds"]),
        buttons=check_buttons(checked["buttons"], checked["leds"]["backend"]),
        web=WebConfig(**checked["web"]),
        journal=JournalConfig(journal),
        vision=VisionConfig(**checked["vision"]),
        source=source,
    )


def load_config(file: str | Path | None = None, env: Mapping[str, str] | None = None) -> Config:
    """Returns the defaults overlaid by a TOML file and validated, or raises ConfigError."""
    environment = os.environ if env is None else env
    data = read_toml(DEFAULT_FILE)
    if file is None:
        return build(validate(data, Path.cwd()), environment, None)
    given = Path(file)
    data = overlay(data, read_toml(given))
    try:
        return build(validate(data, given.resolve().parent), environment, given)
    except ConfigError as error:
        raise ConfigError(f"{given}: {error}") from None


# -- command line: python -m pi.config ---------------------------------------------------


def cmd_check(args: argparse.Namespace) -> int:
    """Prints the effective configuration of a file as JSON."""
    print(json.dumps(load_config(args.file).as_dict(), indent=2))
    return 0


def cmd_hash_pin(args: argparse.Namespace) -> int:
    """Reads a PIN (twice, from the terminal; once from a pipe) and prints its web.pin line."""
    if sys.stdin.isatty():
        pin = getpass.getpass("PIN: ")
        if getpass.getpass("again: ") != pin:
            raise ConfigError("the two PINs differ")
    else:
        pin = sys.stdin.readline().rstrip("\n")
    print(f'pin = "{hash_pin(pin)}"')
    return 0


def build_parser() -> argparse.ArgumentParser:
    """Returns the parser of `python -m pi.config`."""
    parser = argparse.ArgumentParser(prog="python -m pi.config",
                                     description="Checks blockref configuration files.")
    commands = parser.add_subparsers(dest="command", required=True)
    check = commands.add_parser("check", help="validate a file and print the effective config")
    check.add_argument("file", nargs="?", help="the TOML file (default: the defaults alone)")
    check.set_defaults(handler=cmd_check)
    hashing = commands.add_parser("hash-pin", help="print the web.pin line for a PIN")
    hashing.set_defaults(handler=cmd_hash_pin)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Runs `python -m pi.config` and returns its exit status (2 for a bad file or PIN)."""
    args = build_parser().parse_args(argv)
    try:
        status: int = args.handler(args)
        return status
    except ConfigError as error:
        print(str(error), file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
