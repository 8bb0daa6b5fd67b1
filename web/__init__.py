"""The phone dashboard: a Flask app factory with thin views over the running game."""

from __future__ import annotations

from datetime import timedelta
from typing import Any, Mapping

from flask import Flask, Response, jsonify
from werkzeug.exceptions import HTTPException

from pi.session import Session
from web import api, auth, pages, stream
from web.context import ApiError, Dashboard, StreamSlots
from web.security import SAFE_HEADERS, RateLimiter
from web.settings import WebSettings
from web.view import StateView

__all__ = ["WebSettings", "create_app"]


def create_app(session: Session, settings: WebSettings | Mapping[str, Any] | None = None) -> Flask:
    """Returns the dashboard app for a session (settings as WebSettings or a mapping)."""
    chosen = settings if isinstance(settings, WebSettings) else WebSettings.from_mapping(settings or {})
    app = Flask(__name__)
    configure(app, chosen)
    app.extensions["blockref"] = Dashboard(
        session=session,
        settings=chosen,
        limiter=RateLimiter(chosen.login_attempts, chosen.login_window_s, chosen.clock),
        view=StateView(session),
        streams=StreamSlots(chosen.max_streams),
    )
    for blueprint in (pages.bp, auth.bp, api.bp, stream.bp):
        app.register_blueprint(blueprint)
    app.before_request(auth.guard)
    app.after_request(safe_headers)
    app.register_error_handler(ApiError, api_error)
    app.register_error_handler(HTTPException, http_error)
    return app


def configure(app: Flask, settings: WebSettings) -> None:
    """Sets the cookie and body-size options of the app."""
    app.config.update(
        SECRET_KEY=settings.secret_key,
        SESSION_COOKIE_NAME="blockref",
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Strict",
        PERMANENT_SESSION_LIFETIME=timedelta(hours=settings.session_hours),
        SESSION_REFRESH_EACH_REQUEST=False,  # a login lasts session_hours; GETs set no cookie
        MAX_CONTENT_LENGTH=settings.max_body_bytes,
    )


def safe_headers(response: Response) -> Response:
    """Adds the security headers (CSP without inline script, no sniffing, no framing)."""
    for name, value in SAFE_HEADERS.items():
        response.headers.setdefault(name, value)
    response.headers.setdefault("Cache-Control", "no-store")
    return response


def api_error(error: ApiError) -> tuple[Response, int, dict[str, str]]:
    """Answers an ApiError as JSON with its status."""
    return jsonify(error=error.message), error.status, error.headers


def http_error(error: HTTPException) -> tuple[Response, int]:
    """Answers any HTTP error (404, 405, 413 ...) as JSON with one clear message."""
    messages = {
        404: "there is nothing at this address",
        405: "this address does not accept that method",
        413: "the request body is too large",
    }
    status = error.code or 500
    return jsonify(error=messages.get(status, error.description or error.name)), status
