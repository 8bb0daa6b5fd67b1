"""The dashboard's settings: the PIN hash, the camera snapshot source and the limits."""

from __future__ import annotations

import dataclasses
import secrets
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from pi.config import pin_hash as check_pin_hash

SnapshotSource = Callable[[], bytes | None]


def _random_key() -> bytes:
    """Returns a fresh secret key for signing session cookies."""
    return secrets.token_bytes(32)


@dataclass(frozen=True)
class WebSettings:
    """What create_app needs besides the session; every field has a safe default."""

    pin_hash: str | None = None  # from `python -m pi.config hash-pin`; None: controls disabled
    secret_key: bytes = field(default_factory=_random_key, repr=False)  # signs the cookie
    snapshot: SnapshotSource | None = None  # returns the latest camera JPEG, or None
    login_attempts: int = 5  # PIN attempts per client address and window, then 429
    login_window_s: float = 60.0
    keepalive_s: float = 15.0  # between SSE keepalive comments
    max_streams: int = 32  # open SSE streams at once (web.server sizes its threads above it)
    max_body_bytes: int = 4096  # per request, else 413
    session_hours: float = 12.0  # how long a PIN login lasts
    clock: Callable[[], float] = time.monotonic  # the rate limiter's clock (tests pass a fake)

    def __post_init__(self) -> None:
        if self.pin_hash is not None:
            check_pin_hash("pin_hash", self.pin_hash)
        if not isinstance(self.secret_key, bytes) or len(self.secret_key) < 16:
            raise ValueError("secret_key must be at least 16 bytes")
        if self.snapshot is not None and not callable(self.snapshot):
            raise ValueError("snapshot must be a callable returning JPEG bytes or None")
        for name in ("login_attempts", "max_streams", "max_body_bytes"):
            _require_positive(name, getattr(self, name), int)
        for name in ("login_window_s", "keepalive_s", "session_hours"):
            _require_positive(name, getattr(self, name), (int, float))

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> WebSettings:
        """Returns settings from a mapping (e.g. a config file's [web] table); rejects unknown keys."""
        known = {item.name for item in dataclasses.fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"unknown web setting {unknown[0]!r}; known: {', '.join(sorted(known))}")
        values = dict(data)
        if isinstance(values.get("secret_key"), str):
            values["secret_key"] = values["secret_key"].encode("utf-8")
        return cls(**values)


def _require_positive(name: str, value: object, kinds: type | tuple[type, ...]) -> None:
    """Raises ValueError unless a setting is a positive number of the given kind."""
    if isinstance(value, bool) or not isinstance(value, kinds) or not value > 0:  # type: ignore[operator]
        raise ValueError(f"{name} must be a positive number, not {value!r}")
