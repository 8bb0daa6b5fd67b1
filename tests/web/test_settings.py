"""Tests of the dashboard settings and the app factory's handling of them."""

from __future__ import annotations

from typing import Any

import pytest

from pi.session import Session
from tests.web.conftest import PIN_HASH
from web import WebSettings, create_app


def test_defaults_are_safe() -> None:
    settings = WebSettings()
    assert settings.pin_hash is None and settings.snapshot is None
    assert settings.login_attempts == 5 and settings.login_window_s == 60.0
    assert settings.keepalive_s == 15.0 and len(settings.secret_key) >= 16
    assert WebSettings().secret_key != settings.secret_key
    assert "secret_key" not in repr(settings)


@pytest.mark.parametrize(("values", "words"), [
    ({"pin_hash": "2468"}, "PIN hash"),
    ({"pin_hash": "pbkdf2_sha256$1000$zz$00"}, "PIN hash"),
    ({"secret_key": b"short"}, "secret_key"),
    ({"secret_key": "text"}, "secret_key"),
    ({"snapshot": b"jpeg"}, "snapshot"),
    ({"login_attempts": 0}, "login_attempts"),
    ({"login_attempts": True}, "login_attempts"),
    ({"max_streams": 2.5}, "max_streams"),
    ({"keepalive_s": -1}, "keepalive_s"),
    ({"login_window_s": "60"}, "login_window_s"),
])
def test_bad_settings_are_one_clear_error(values: dict[str, Any], words: str) -> None:
    with pytest.raises(ValueError, match=words):
        WebSettings(**values)


def test_from_mapping() -> None:
    settings = WebSettings.from_mapping({"pin_hash": PIN_HASH, "secret_key": "s" * 20, "max_streams": 8})
    assert settings.pin_hash == PIN_HASH and settings.secret_key == b"s" * 20
    with pytest.raises(ValueError, match="unknown web setting 'pin'"):
        WebSettings.from_mapping({"pin": "1234"})


def test_create_app_takes_a_mapping_or_nothing(session: Session) -> None:
    assert create_app(session, {"max_streams": 3}).extensions["blockref"].streams.limit == 3
    app = create_app(session)
    assert app.extensions["blockref"].settings.pin_hash is None
    assert not app.debug
    with pytest.raises(ValueError):
        create_app(session, {"max_streams": 0})
