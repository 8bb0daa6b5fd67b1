"""Tests of the two pages and their static files: no inline code, controls only on the live page."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient

STATIC = Path(__file__).resolve().parents[2] / "web" / "static"


class Tags(HTMLParser):
    """Collects every start tag with its attributes."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.script_text = ""
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        self._in_script = tag == "script"

    def handle_endtag(self, tag: str) -> None:
        self._in_script = False

    def handle_data(self, data: str) -> None:
        if self._in_script:
            self.script_text += data.strip()


def tags_of(client: FlaskClient, path: str) -> Tags:
    """Returns the parsed tags of a page."""
    answer = client.get(path)
    assert answer.status_code == 200 and answer.mimetype == "text/html"
    parser = Tags()
    parser.feed(answer.get_data(as_text=True))
    return parser


@pytest.mark.parametrize("path", ["/", "/spectate"])
def test_pages_have_no_inline_code(client: FlaskClient, path: str) -> None:
    page = tags_of(client, path)
    assert page.script_text == ""
    for tag, attrs in page.tags:
        assert "style" not in attrs, tag
        assert not [name for name in attrs if name.startswith("on")], tag
        assert tag != "style"
    scripts = [attrs.get("src") for tag, attrs in page.tags if tag == "script"]
    assert scripts == ["/static/app.js"]


def test_live_page_has_the_controls(client: FlaskClient) -> None:
    ids = {attrs.get("id") for _, attrs in tags_of(client, "/").tags}
    assert {"board", "login", "pin", "undo", "roll", "new", "correct", "history", "leds", "camera"} <= ids


def test_spectator_page_has_no_controls(client: FlaskClient) -> None:
    page = tags_of(client, "/spectate")
    ids = {attrs.get("id") for _, attrs in page.tags}
    assert {"board", "history", "leds", "camera", "alerts"} <= ids
    assert not ids & {"login", "pin", "undo", "roll", "new", "correct", "controls"}
    assert ("body", {"data-mode": "spectate"}) in page.tags


def test_viewport_for_phones(client: FlaskClient) -> None:
    metas = [attrs for tag, attrs in tags_of(client, "/").tags if tag == "meta"]
    assert {"name": "viewport", "content": "width=device-width, initial-scale=1"} in metas


@pytest.mark.parametrize(("name", "kind"), [("app.js", "javascript"), ("board.js", "javascript"),
                                            ("leds.js", "javascript"), ("style.css", "text/css")])
def test_static_files_are_served(client: FlaskClient, name: str, kind: str) -> None:
    answer = client.get(f"/static/{name}")
    assert answer.status_code == 200 and kind in (answer.mimetype or "")
    answer.close()


def test_scripts_only_call_addresses_the_app_has(app: Flask) -> None:
    routes = {rule.rule for rule in app.url_map.iter_rules()}
    called: set[str] = set()
    for script in STATIC.glob("*.js"):
        called.update(re.findall(r"[\"`](/(?:api|events)[^\"?`$]*)", script.read_text(encoding="utf-8")))
    assert {"/events", "/api/state", "/api/login", "/api/snapshot.jpg"} <= called
    assert called <= routes, called - routes


def test_scripts_set_no_inline_style_or_html() -> None:
    for script in STATIC.glob("*.js"):
        text = script.read_text(encoding="utf-8")
        assert "innerHTML" not in text and "eval(" not in text and "new Function" not in text
        assert 'setAttribute("style"' not in text
