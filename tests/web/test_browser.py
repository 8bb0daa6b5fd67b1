"""Real headless Chromium (Debian's, through playwright) against the dashboard under waitress.

Skipped when /usr/bin/chromium or the playwright package is missing (never `playwright install`).
Saves dashboard-360x740.png and dashboard-768x1024.png in a temporary folder, or in
docs/screenshots/ when BLOCKREF_SCREENSHOTS=docs is set (so a test run leaves the tree clean)."""

from __future__ import annotations

import copy
import importlib.util
import os
import time
from pathlib import Path
from typing import Any, Iterator

import pytest

from pi.session import Session
from tests.web.boards import BLOCKADE_TOWER, SAMPLES, cube
from tests.web.conftest import PIN, FakeClock, make_app
from web.server import DashboardServer

CHROMIUM = Path("/usr/bin/chromium")
SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's chromium at /usr/bin/chromium"),
    pytest.mark.skipif(importlib.util.find_spec("playwright") is None,
                       reason="needs the playwright package"),
]

if importlib.util.find_spec("playwright") is not None:
    from playwright.sync_api import Browser, Page, expect, sync_playwright


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Returns one headless Chromium for the module."""
    with sync_playwright() as driver:
        launched = driver.chromium.launch(executable_path=str(CHROMIUM), args=ARGS, headless=True)
        yield launched
        launched.close()


def tiny_jpeg() -> bytes:
    """Returns a small JPEG of a grey board with a dark square, made with OpenCV."""
    import cv2
    import numpy as np

    image = np.full((120, 160, 3), 225, np.uint8)
    image[30:90, 50:110] = (60, 60, 65)
    ok, encoded = cv2.imencode(".jpg", image)
    assert ok
    return bytes(encoded.tobytes())


def show(session: Session, name: str, board: dict[str, Any] | None = None) -> None:
    """Starts a game, plays its sample moves, and sets the board drawn (sample if it has none)."""
    moves, sample = SAMPLES[name]
    session.new_game(name)
    if board is not None or not has_board(session):
        drawn = sample if board is None else board
        setattr(session.game, "board", lambda state: drawn)
    for move in moves.split():
        session.play(move)


def has_board(session: Session) -> bool:
    """Tells whether the game draws its own board already."""
    try:
        session.game.board(session.state)
    except NotImplementedError:
        return False
    return True


@pytest.fixture
def served(session: Session, clock: FakeClock) -> Iterator[DashboardServer]:
    """Returns a running dashboard with a camera snapshot, on a free loopback port."""
    image = tiny_jpeg()
    running = DashboardServer(make_app(session, clock, snapshot=lambda: image), port=0).start()
    yield running
    running.stop()


def open_page(browser: Browser, served: DashboardServer, path: str = "/",
              size: tuple[int, int] = (360, 740)) -> Page:
    """Opens a page of the dashboard and waits until the live stream drew the state."""
    page = browser.new_page(viewport={"width": size[0], "height": size[1]})
    page.on("console", lambda message: page.context.__dict__.setdefault("log", []).append(message.text))
    page.goto(served.url + path)
    expect(page.locator("#link")).to_have_text("live")
    return page


def log_in(page: Page) -> None:
    """Logs in with the PIN and waits for the controls."""
    page.fill("#pin", PIN)
    page.click("#login button")
    expect(page.locator("#undo")).to_be_visible()


def test_a_move_arrives_live_and_a_control_works(browser: Browser, served: DashboardServer,
                                                  session: Session) -> None:
    show(session, "block-arena")
    page = open_page(browser, served)
    expect(page.locator("#history li")).to_have_count(14)
    session.play("Md1-e1")
    expect(page.locator("#history li.latest")).to_have_text("Md1-e1")
    expect(page.locator("svg [data-last='e1']")).to_have_count(1)
    log_in(page)
    page.click("#undo")
    expect(page.locator("#history li")).to_have_count(14)
    assert session.moves[-1] == "a9-a8"
    assert not [line for line in page.context.__dict__.get("log", []) if "Content Security" in line]
    page.close()


def asked_about_e9(browser: Browser, served: DashboardServer, session: Session) -> Page:
    """Opens the page logged in, with the question e9-d9 or e9-f9 shown."""
    page = open_page(browser, served)
    log_in(page)
    session.ask(["e9-d9", "e9-f9"])
    expect(page.locator(".alert-ambiguous")).to_contain_text("confirm the move")
    return page


def test_ambiguity_is_confirmed_with_a_button(browser: Browser, served: DashboardServer,
                                              session: Session) -> None:
    page = asked_about_e9(browser, served, session)
    page.click("button.confirm >> text=e9-f9")
    expect(page.locator("#history li.latest")).to_have_text("e9-f9")
    assert session.moves == ["e9-f9"]
    session.alert("illegal", "illegal move 'e8-e6': a pawn steps one square", ("e8", "e6"))
    expect(page.locator(".alert-illegal")).to_contain_text("a pawn steps one square")
    session.play("e1-e2")
    expect(page.locator("#history li.latest")).to_have_text("e1-e2")
    expect(page.locator(".alert")).to_have_count(0)
    page.close()


def test_a_late_control_answer_never_hides_a_newer_alert(browser: Browser, served: DashboardServer,
                                                         session: Session) -> None:
    page = asked_about_e9(browser, served, session)

    def answer_late(route: Any) -> None:
        answer = route.fetch()
        session.alert("illegal", "illegal move 'e8-e6': a pawn steps one square", ("e8", "e6"))
        time.sleep(1.0)  # the live stream brings the alert first; the answer comes after it
        route.fulfill(response=answer)

    page.route("**/api/confirm", answer_late)
    page.click("button.confirm >> text=e9-f9")
    expect(page.locator("#message")).to_have_text("Done.")
    expect(page.locator(".alert-illegal")).to_contain_text("a pawn steps one square")
    expect(page.locator("#history li.latest")).to_have_text("e9-f9")
    page.close()


def test_a_page_opened_after_a_move_shows_no_alert_raised_before_it(browser: Browser, served: DashboardServer,
                                                                      session: Session) -> None:
    session.alert("illegal", "illegal move 'e8-e6': a pawn steps one square", ("e8", "e6"))
    session.play("e9-e8")
    page = open_page(browser, served)
    expect(page.locator("#history li.latest")).to_have_text("e9-e8")
    expect(page.locator(".alert")).to_have_count(0)
    expect(page.locator("svg [data-alert]")).to_have_count(0)  # nor its squares outlined
    session.alert("illegal", "illegal move 'e1-e3': a pawn steps one square", ("e1", "e3"))
    expect(page.locator(".alert-illegal")).to_contain_text("e1-e3")
    expect(page.locator("svg [data-alert]")).to_have_count(2)
    page.close()


def test_wrong_pin_then_a_spectator_sees_the_outcome(browser: Browser, served: DashboardServer,
                                                      session: Session) -> None:
    page = open_page(browser, served)
    page.fill("#pin", "0000")
    page.click("#login button")
    expect(page.locator("#message")).to_have_text("wrong PIN")
    expect(page.locator("#undo")).to_be_hidden()
    page.context.clear_cookies()  # as after a server restart: the page's CSRF token is stale
    log_in(page)
    page.context.clear_cookies()
    page.click("#undo")
    expect(page.locator("#login")).to_be_visible()
    page.close()
    spectator = open_page(browser, served, "/spectate")
    assert spectator.locator("#controls").count() == 0
    expect(spectator.locator("#camera")).to_be_visible()
    session.new_game("tuned")
    for move in ("+dog@b1", "+dog@b2", "+dog@b3"):
        session.play(move)
    expect(spectator.locator("#outcome")).to_have_text("Player 1 wins (line)")
    expect(spectator.locator("#turn")).to_have_text("Game over")
    spectator.close()


def test_blockade_roll_and_led_panel(browser: Browser, served: DashboardServer, session: Session) -> None:
    session.new_game("blockade")
    page = open_page(browser, served)
    log_in(page)
    expect(page.locator("#roll")).to_be_visible()
    page.select_option("#die1", "4")
    page.select_option("#die2", "5")
    page.click("#roll button")
    expect(page.locator("#history li.latest")).to_have_text("roll:b4g5")
    session.events.publish("leds", {"width": 5, "height": 5, "cells": {"a1": "#00ff00", "e5": "#ff0000"},
                                    "frame": {"status": {"1": "#00ff00", "2": "#000000"},
                                              "counters": {"1": 3, "2": None}}})
    expect(page.locator("#leds [data-led='e5']")).to_have_attribute("fill", "#ff0000")
    expect(page.locator("#leds .led-player")).to_have_count(2)
    page.close()


def test_the_piece_held_up_and_where_it_may_go(browser: Browser, served: DashboardServer,
                                                session: Session) -> None:
    page = open_page(browser, served, "/spectate")
    lifted, dests = page.locator("#board svg [data-lifted]"), page.locator("#board svg [data-dest]")
    session.events.publish("lifted", {"square": "e9", "to": ["d9", "e8", "f9"]})
    expect(page.locator("#board svg [data-lifted='e9']")).to_have_count(1)
    expect(dests).to_have_count(3)
    assert sorted(dests.evaluate_all("marks => marks.map((m) => m.dataset.dest)")) == ["d9", "e8", "f9"]
    session.events.publish("lifted", {"square": None, "to": []})
    expect(lifted).to_have_count(0)
    expect(dests).to_have_count(0)
    session.events.publish("lifted", {"square": "e9", "to": ["e8"]})
    expect(dests).to_have_count(1)
    session.play("e9-e8")
    expect(page.locator("#history li.latest")).to_have_text("e9-e8")
    expect(lifted).to_have_count(0)
    expect(dests).to_have_count(0)
    session.events.publish("lifted", {"square": "e1", "to": ["e2"]})
    late = open_page(browser, served, "/spectate")
    expect(late.locator("#board svg [data-lifted='e1']")).to_have_count(1)
    expect(late.locator("#board svg [data-dest='e2']")).to_have_count(1)
    late.close()
    page.close()


def variety(name: str) -> dict[str, Any]:
    """Returns the sample board with the pieces the moves do not reach yet (tower, half cube)."""
    board = copy.deepcopy(SAMPLES[name][1])
    if name == "blockade":
        board["cells"]["e3"] = BLOCKADE_TOWER
    if name == "block-block":
        board["cells"]["b1"] = [cube(1, "half", 4, "half")]
    return board


EXPECTED = {
    "block-arena": ["[data-kind=block][data-orientation=lying]", "[data-kind=block][data-orientation=upright]",
                    "[data-kind=meeple]"],
    "block-pt": ["[data-kind=blocker]", "[data-kind=pawn]"],
    "tuned": ["[data-kind=donkey]", "[data-kind=dog]", "[data-kind=cat]"],
    "blockade": ["[data-kind=pyramid][data-colour=clear]", "[data-locked=true]",
                 "[data-kind=pyramid][data-colour=black]"],
    "block-block": ["[data-kind=cube][data-top=brown]", "[data-kind=cube][data-top=white]",
                    "[data-kind=cube][data-top=half]", "[data-height='3']"],
}


def test_every_game_is_drawn(browser: Browser, served: DashboardServer, session: Session) -> None:
    page = open_page(browser, served, "/spectate")
    for name in sorted(SAMPLES):
        show(session, name, variety(name))
        board = page.locator(f"#board svg[data-game='{name}']")
        expect(board).to_be_visible()
        expect(page.locator("#history li")).to_have_count(len(SAMPLES[name][0].split()))
        for selector in EXPECTED[name]:
            assert board.locator(selector).count() > 0, (name, selector)
        expect(page.locator("#off li").first).to_be_visible()
    page.close()


def test_screenshots(browser: Browser, served: DashboardServer, session: Session,
                     tmp_path: Path) -> None:
    show(session, "block-arena")
    session.events.publish("leds", {"width": 9, "height": 9,
                                    "cells": {"d1": "#ffb000", "e1": "#ffb000", "d2": "#00a0ff"}})
    page = open_page(browser, served, "/")
    log_in(page)
    expect(page.locator("#camera")).to_be_visible()
    folder = SCREENSHOTS if os.environ.get("BLOCKREF_SCREENSHOTS") == "docs" else tmp_path
    folder.mkdir(parents=True, exist_ok=True)
    for width, height in ((360, 740), (768, 1024)):
        page.set_viewport_size({"width": width, "height": height})
        assert page.evaluate("document.documentElement.scrollWidth") <= width, "it scrolls sideways"
        target = folder / f"dashboard-{width}x{height}.png"
        page.screenshot(path=str(target))
        assert 5_000 < target.stat().st_size < 200_000
    page.close()
