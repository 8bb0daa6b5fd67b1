"""The dashboard's per-app objects and request helpers shared by the blueprints."""

from __future__ import annotations

import json
import re
import threading
from dataclasses import dataclass
from typing import Any, cast

from flask import current_app, request

from pi.session import Session
from web.security import RateLimiter
from web.settings import WebSettings
from web.view import StateView

FIELD_TEXT = re.compile(r"[\x21-\x7e]{1,64}")


class ApiError(Exception):
    """An error answered as JSON {"error": message} with an HTTP status."""

    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = headers or {}


class StreamSlots:
    """Counts open event streams and refuses more than the limit."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.open = 0
        self._lock = threading.Lock()

    def take(self) -> Lease | None:
        """Returns a lease on a free slot, or None when every slot is taken."""
        with self._lock:
            if self.open >= self.limit:
                return None
            self.open += 1
            return Lease(self)

    def give_back(self) -> None:
        """Frees one slot (called by Lease.release)."""
        with self._lock:
            self.open -= 1


class Lease:
    """One stream's slot; releasing it twice frees it once."""

    def __init__(self, slots: StreamSlots) -> None:
        self._slots = slots
        self._held = True
        self._lock = threading.Lock()

    def release(self) -> None:
        """Frees the slot if this lease still holds it."""
        with self._lock:
            held, self._held = self._held, False
        if held:
            self._slots.give_back()


@dataclass(frozen=True)
class Dashboard:
    """Everything the views share: the session, the settings and the per-app state."""

    session: Session
    settings: WebSettings
    limiter: RateLimiter
    view: StateView
    streams: StreamSlots


def dashboard() -> Dashboard:
    """Returns the Dashboard of the app handling the current request."""
    return cast(Dashboard, current_app.extensions["blockref"])


def json_object() -> dict[str, Any]:
    """Returns the request body as a JSON object ({} when empty), or raises ApiError."""
    data = request.get_data(cache=True)
    if not data:
        return {}
    if not request.is_json:
        raise ApiError(415, "send the body as JSON with Content-Type: application/json")
    try:
        body = json.loads(data)
    except (ValueError, RecursionError):
        raise ApiError(400, "the body is not valid JSON") from None
    if not isinstance(body, dict):
        raise ApiError(400, "the body must be a JSON object")
    return body


def read_fields(required: tuple[str, ...], optional: tuple[str, ...] = (),
                check: re.Pattern[str] = FIELD_TEXT) -> dict[str, str | None]:
    """Returns the body's text fields by name (None for an absent or null optional one)."""
    body = json_object()
    unknown = sorted(set(body) - set(required) - set(optional))
    if unknown:
        raise ApiError(400, f"unexpected field {unknown[0]!r}")
    fields: dict[str, str | None] = {}
    for name in required + optional:
        value = body.get(name)
        if value is None and name in optional:
            fields[name] = None
        elif value is None:
            raise ApiError(400, f"missing field {name!r}")
        elif not isinstance(value, str) or not check.fullmatch(value):
            raise ApiError(400, f"field {name!r} must be a string of 1 to 64 visible characters")
        else:
            fields[name] = value
    return fields


def text_field(name: str, check: re.Pattern[str] = FIELD_TEXT) -> str:
    """Returns the one required text field of the request body."""
    value = read_fields((name,), check=check)[name]
    assert value is not None
    return value
