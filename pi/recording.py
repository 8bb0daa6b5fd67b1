"""A recorded game directory (INTERFACES.md): its game.json and events.jsonl, validated."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rules import RulesError, get_game


class RecordingError(ValueError):
    """Raised when a recorded game directory is missing a part or holds malformed data."""


@dataclass(frozen=True, slots=True)
class Event:
    """One input the camera does not see, at a frame: a roll, a button, a confirmation."""

    frame: int
    kind: str
    value: str


@dataclass(frozen=True, slots=True)
class Recording:
    """What a recorded game directory says besides its frames."""

    directory: Path
    game: str
    variant: str | None
    kit: str
    events: tuple[Event, ...]


def _load_json(path: Path) -> Any:
    """Returns a JSON file's data, or raises RecordingError naming the file."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise RecordingError(f"{str(path)!r} is missing") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise RecordingError(f"{str(path)!r} is not valid JSON: {error}") from None


def _game_spec(directory: Path) -> tuple[str, str | None, str]:
    """Returns (game, variant, kit) from game.json, checked against the registry."""
    data = _load_json(directory / "game.json")
    if not isinstance(data, dict) or not isinstance(data.get("game"), str):
        raise RecordingError(f"{str(directory / 'game.json')!r} must be an object with a 'game' name")
    variant = data.get("variant")
    kit = data.get("kit", "default")
    if variant is not None and not isinstance(variant, str) or not isinstance(kit, str):
        raise RecordingError(f"{str(directory / 'game.json')!r}: variant and kit must be text")
    try:
        game = get_game(data["game"], variant)
    except RulesError as error:
        raise RecordingError(f"{str(directory / 'game.json')!r}: {error}") from None
    return game.name, game.variant, kit


def _event(line: str, number: int, path: Path) -> Event:
    """Returns one events.jsonl line as an Event, or raises RecordingError naming the line."""
    try:
        data = json.loads(line)
    except json.JSONDecodeError as error:
        raise RecordingError(f"{str(path)!r} line {number} is not JSON: {error}") from None
    frame, kind, value = (data.get(k) if isinstance(data, dict) else None for k in ("frame", "event", "value"))
    if not isinstance(frame, int) or isinstance(frame, bool) or frame < 1:
        raise RecordingError(f"{str(path)!r} line {number}: 'frame' must be a frame number")
    if not isinstance(kind, str) or not isinstance(value, str):
        raise RecordingError(f"{str(path)!r} line {number}: 'event' and 'value' must be text")
    return Event(frame, kind, value)


def _events(directory: Path) -> tuple[Event, ...]:
    """Returns the events of events.jsonl in frame order (none if the file is absent)."""
    path = directory / "events.jsonl"
    if not path.exists():
        return ()
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise RecordingError(f"{str(path)!r} cannot be read: {error}") from None
    events = [_event(line, n, path) for n, line in enumerate(lines, 1) if line.strip()]
    return tuple(sorted(events, key=lambda event: event.frame))


def load_recording(directory: str | Path) -> Recording:
    """Returns a recorded game directory's game, variant, kit and events, validated."""
    path = Path(directory)
    if not path.is_dir():
        raise RecordingError(f"{str(path)!r} is not a directory")
    game, variant, kit = _game_spec(path)
    return Recording(path, game, variant, kit, _events(path))
