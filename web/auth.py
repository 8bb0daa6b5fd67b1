"""PIN login: the session cookie, the CSRF token and the guard in front of every POST."""

from __future__ import annotations

from flask import Blueprint, Response, jsonify, request, session

from pi.config import verify_pin
from web.context import ApiError, dashboard, text_field
from web.security import PIN_TEXT, new_token, pin_fingerprint, same_token

bp = Blueprint("auth", __name__, url_prefix="/api")

CSRF_HEADER = "X-CSRF-Token"
OPEN_ENDPOINTS = frozenset({"auth.login"})


def csrf_token() -> str:
    """Returns this browser's CSRF token, making one on first use."""
    token = session.get("csrf")
    if not isinstance(token, str) or not token:
        token = new_token()
        session["csrf"] = token
    return token


def logged_in() -> bool:
    """Tells whether this browser holds a valid PIN session for the current PIN."""
    stored = dashboard().settings.pin_hash
    return stored is not None and session.get("pin") == pin_fingerprint(stored)


def guard() -> None:
    """Checks every POST: a PIN session (except to log in), then the CSRF token header."""
    if request.method != "POST":
        return
    if request.endpoint not in OPEN_ENDPOINTS and not logged_in():
        raise ApiError(401, "log in with the PIN first")
    if not same_token(request.headers.get(CSRF_HEADER), session.get("csrf")):
        raise ApiError(403, f"missing or wrong {CSRF_HEADER} header; reload the page")


@bp.get("/session")
def whoami() -> Response:
    """Returns whether this browser is logged in, and its CSRF token."""
    return jsonify(logged_in=logged_in(), csrf=csrf_token(),
                   pin_set=dashboard().settings.pin_hash is not None)


@bp.post("/login")
def login() -> Response:
    """Checks the PIN (rate limited per client address) and starts a PIN session."""
    dash = dashboard()
    client = request.remote_addr or "unknown"
    wait = dash.limiter.retry_after(client)
    if wait > 0:
        raise ApiError(429, "too many PIN attempts; wait a minute",
                       {"Retry-After": str(int(wait) + 1)})
    pin = text_field("pin", PIN_TEXT)
    stored = dash.settings.pin_hash
    if stored is None:
        raise ApiError(403, "controls are disabled: no PIN is configured")
    dash.limiter.record(client)
    if not verify_pin(stored, pin):
        raise ApiError(401, "wrong PIN")
    return start_session(stored)


def start_session(stored: str) -> Response:
    """Replaces the cookie's contents with a fresh login and a fresh CSRF token."""
    session.clear()
    session.permanent = True
    session["pin"] = pin_fingerprint(stored)
    return jsonify(ok=True, logged_in=True, csrf=csrf_token())


@bp.post("/logout")
def logout() -> Response:
    """Ends the PIN session (a new CSRF token comes with it)."""
    session.clear()
    return jsonify(ok=True, logged_in=False, csrf=csrf_token())
