"""Tests of the PIN login, the CSRF guard, the rate limit and the safe headers."""

from __future__ import annotations

import pytest
from flask.testing import FlaskClient

from pi.session import Session
from tests.web.conftest import PIN, FakeClock, csrf_of, log_in, make_app
from web.security import RateLimiter

CONTROLS = [("/api/new", {"game": "tuned"}), ("/api/undo", {}), ("/api/confirm", {"move": "e9-e8"}),
            ("/api/roll", {"roll": "roll:b4g5"}), ("/api/logout", {})]


@pytest.mark.parametrize(("path", "body"), CONTROLS)
def test_every_control_needs_a_pin_session(client: FlaskClient, session: Session, path: str,
                                           body: dict[str, str]) -> None:
    before = session.snapshot()
    answer = client.post(path, json=body, headers={"X-CSRF-Token": csrf_of(client)})
    assert answer.status_code == 401
    assert answer.get_json() == {"error": "log in with the PIN first"}
    assert session.snapshot() == before


def test_login_then_control(client: FlaskClient, session: Session) -> None:
    token = log_in(client)
    answer = client.post("/api/confirm", json={"move": "e9-e8"}, headers={"X-CSRF-Token": token})
    assert answer.status_code == 200
    assert session.moves == ["e9-e8"]
    assert client.get("/api/session").get_json()["logged_in"] is True


def test_login_rotates_the_csrf_token(client: FlaskClient) -> None:
    before = csrf_of(client)
    after = log_in(client)
    assert after != before
    answer = client.post("/api/undo", json={}, headers={"X-CSRF-Token": before})
    assert answer.status_code == 403


def test_wrong_pin(client: FlaskClient) -> None:
    answer = client.post("/api/login", json={"pin": "1357"}, headers={"X-CSRF-Token": csrf_of(client)})
    assert answer.status_code == 401 and answer.get_json() == {"error": "wrong PIN"}
    assert client.get("/api/session").get_json()["logged_in"] is False


@pytest.mark.parametrize("headers", [{}, {"X-CSRF-Token": ""}, {"X-CSRF-Token": "forged"},
                                     {"X-CSRF-Token": "\u00e9" * 40}])
def test_login_needs_the_csrf_token(client: FlaskClient, headers: dict[str, str]) -> None:
    csrf_of(client)
    answer = client.post("/api/login", json={"pin": PIN}, headers=headers)
    assert answer.status_code == 403
    assert "X-CSRF-Token" in answer.get_json()["error"]
    assert client.get("/api/session").get_json()["logged_in"] is False


def test_controls_need_the_csrf_token(client: FlaskClient, session: Session) -> None:
    log_in(client)
    for headers in ({}, {"X-CSRF-Token": "forged"}):
        answer = client.post("/api/confirm", json={"move": "e9-e8"}, headers=headers)
        assert answer.status_code == 403
    assert session.moves == []


def test_a_token_from_another_browser_does_not_work(client: FlaskClient, session: Session) -> None:
    other = client.application.test_client()
    stolen = log_in(other)
    log_in(client)
    answer = client.post("/api/confirm", json={"move": "e9-e8"}, headers={"X-CSRF-Token": stolen})
    assert answer.status_code == 403 and session.moves == []


def test_logout(client: FlaskClient) -> None:
    token = log_in(client)
    answer = client.post("/api/logout", json={}, headers={"X-CSRF-Token": token})
    assert answer.status_code == 200 and answer.get_json()["logged_in"] is False
    assert client.post("/api/undo", json={}, headers={"X-CSRF-Token": answer.get_json()["csrf"]}).status_code == 401


def test_a_new_pin_ends_old_logins(session: Session, clock: FakeClock) -> None:
    from pi.config import hash_pin

    first = make_app(session, clock, secret_key=b"k" * 32)
    browser = first.test_client()
    token = log_in(browser)
    second = make_app(session, clock, secret_key=b"k" * 32,
                      pin_hash=hash_pin("9999", iterations=1000))
    moved = second.test_client()
    moved.set_cookie("blockref", browser.get_cookie("blockref").value)  # type: ignore[union-attr]
    answer = moved.post("/api/undo", json={}, headers={"X-CSRF-Token": token})
    assert answer.status_code == 401


def test_brute_force_is_refused_then_allowed_again(client: FlaskClient, clock: FakeClock) -> None:
    token = csrf_of(client)
    for _ in range(5):
        wrong = client.post("/api/login", json={"pin": "0000"}, headers={"X-CSRF-Token": token})
        assert wrong.status_code == 401
    refused = client.post("/api/login", json={"pin": PIN}, headers={"X-CSRF-Token": token})
    assert refused.status_code == 429
    assert int(refused.headers["Retry-After"]) > 0
    assert client.get("/api/session").get_json()["logged_in"] is False
    clock.now += 61
    assert client.post("/api/login", json={"pin": PIN}, headers={"X-CSRF-Token": token}).status_code == 200


def test_rate_limit_is_per_client_address(client: FlaskClient) -> None:
    token = csrf_of(client)
    for _ in range(6):
        client.post("/api/login", json={"pin": "0000"}, headers={"X-CSRF-Token": token},
                    environ_base={"REMOTE_ADDR": "10.0.0.9"})
    answer = client.post("/api/login", json={"pin": PIN}, headers={"X-CSRF-Token": token},
                         environ_base={"REMOTE_ADDR": "10.0.0.8"})
    assert answer.status_code == 200


def test_malformed_pins_are_refused_without_counting(client: FlaskClient) -> None:
    token = csrf_of(client)
    for body in ({"pin": 2468}, {"pin": ""}, {"pin": "1\n2"}, {"pin": "9" * 65}, {}, {"pin": None},
                 {"pin": PIN, "admin": True}, {"pin": [PIN]}):
        answer = client.post("/api/login", json=body, headers={"X-CSRF-Token": token})
        assert answer.status_code == 400, body
        assert set(answer.get_json()) == {"error"}
    assert client.post("/api/login", json={"pin": PIN}, headers={"X-CSRF-Token": token}).status_code == 200


def test_no_pin_configured_disables_controls(session: Session, clock: FakeClock) -> None:
    client = make_app(session, clock, pin_hash=None).test_client()
    assert client.get("/api/session").get_json()["pin_set"] is False
    answer = client.post("/api/login", json={"pin": PIN}, headers={"X-CSRF-Token": csrf_of(client)})
    assert answer.status_code == 403


def test_session_cookie_flags(client: FlaskClient) -> None:
    log_in(client)
    cookie = client.get_cookie("blockref")
    assert cookie is not None and cookie.http_only and cookie.same_site == "Strict"


@pytest.mark.parametrize("path", ["/", "/spectate", "/api/state", "/api/session", "/nowhere",
                                  "/static/app.js"])
def test_safe_headers_everywhere(client: FlaskClient, path: str) -> None:
    headers = client.get(path).headers
    csp = headers["Content-Security-Policy"]
    assert "script-src 'self'" in csp and "unsafe-inline" not in csp
    assert "frame-ancestors 'none'" in csp
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert headers["Referrer-Policy"] == "no-referrer"
    assert headers["X-Frame-Options"] == "DENY"


def test_rate_limiter_window_slides() -> None:
    clock = FakeClock()
    limiter = RateLimiter(2, 60.0, clock)
    limiter.record("a")
    clock.now += 30
    limiter.record("a")
    assert limiter.retry_after("a") == pytest.approx(30.0)
    clock.now += 30.5
    assert limiter.retry_after("a") == 0.0


def test_rate_limiter_forgets_the_oldest_clients_first() -> None:
    limiter = RateLimiter(1, 60.0, FakeClock(), max_clients=3)
    for client in ("a", "b", "c", "d"):
        limiter.record(client)
    assert limiter.retry_after("a") == 0.0
    assert limiter.retry_after("d") > 0
