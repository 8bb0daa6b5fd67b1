"""Tests of the buttons with gpiozero's MockFactory driving the pins (pressed = pulled low)."""

from __future__ import annotations

import random
import threading
from collections import Counter
from typing import Any, Iterator

import pytest
from gpiozero import Device  # type: ignore[import-untyped]
from gpiozero.pins.mock import MockFactory, MockPWMPin  # type: ignore[import-untyped]

from pi.buttons import ButtonError, ButtonPanel, draw_roll, open_buttons
from pi.config import ButtonPins, ButtonsConfig
from rules.blockade_moves import all_rolls

PINS = ButtonPins(done1=5, done2=6, confirm=13, roll=19)


class Recorder:
    """A ButtonHandler that records every call; undo also sets an event."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, Any]] = []
        self.undone = threading.Event()

    def on_done(self, player: int) -> None:
        self.calls.append(("done", player))

    def on_confirm(self) -> None:
        self.calls.append(("confirm", None))

    def on_undo(self) -> None:
        self.calls.append(("undo", None))
        self.undone.set()

    def on_roll(self, text: str) -> None:
        self.calls.append(("roll", text))


@pytest.fixture
def factory() -> Iterator[MockFactory]:
    """Returns the mock pin factory gpiozero uses during a test, reset afterwards."""
    Device.pin_factory = MockFactory(pin_class=MockPWMPin)
    yield Device.pin_factory
    Device.pin_factory.reset()
    Device.pin_factory = None


def press(factory: MockFactory, pin: int) -> None:
    """Presses and releases the button on a pin."""
    factory.pin(pin).drive_low()
    factory.pin(pin).drive_high()


def panel(handler: Recorder, to_move: int | None = 1, hold: float = 1.5,
          pins: ButtonPins = PINS) -> ButtonPanel:
    """Returns a panel on the mock pins with a seeded dice."""
    return ButtonPanel(pins, handler, lambda: to_move, hold_seconds=hold, bounce_time=None,
                       rng=random.Random(7))


def test_done_buttons_name_their_player(factory: MockFactory) -> None:
    handler = Recorder()
    panel(handler)
    press(factory, 6)
    press(factory, 5)
    assert handler.calls == [("done", 2), ("done", 1)]


def test_a_short_press_confirms(factory: MockFactory) -> None:
    handler = Recorder()
    panel(handler)
    factory.pin(13).drive_low()
    assert handler.calls == []  # nothing happens until the press ends
    factory.pin(13).drive_high()
    assert handler.calls == [("confirm", None)]


def test_holding_confirm_undoes_instead(factory: MockFactory) -> None:
    handler = Recorder()
    panel(handler, hold=0.3)
    factory.pin(13).drive_low()
    assert handler.undone.wait(10), "holding the button never undid"
    factory.pin(13).drive_high()
    assert handler.calls == [("undo", None)]  # the release after a hold does not confirm
    press(factory, 13)
    assert handler.calls == [("undo", None), ("confirm", None)]


def test_roll_draws_the_dice_of_the_player_to_move(factory: MockFactory) -> None:
    handler = Recorder()
    whose = [1]
    ButtonPanel(PINS, handler, lambda: whose[0], bounce_time=None, rng=random.Random(7))
    press(factory, 19)
    whose[0] = 2
    press(factory, 19)
    expected = [draw_roll(1, random.Random(7))]
    rng = random.Random(7)
    draw_roll(1, rng)
    expected.append(draw_roll(2, rng))
    assert handler.calls == [("roll", expected[0]), ("roll", expected[1])]
    assert expected[0].startswith("roll:b") and "g" in expected[0]
    assert expected[1].startswith("roll:r") and "y" in expected[1]


def test_no_roll_when_no_player_is_to_move(factory: MockFactory) -> None:
    handler = Recorder()
    buttons = panel(handler, to_move=None)
    press(factory, 19)
    assert handler.calls == [] and buttons.roll() is None


def test_rolls_cover_all_36_results_evenly() -> None:
    rng = random.Random(2024)
    counts = Counter(draw_roll(2, rng) for _ in range(7200))
    assert set(counts) == {str(roll) for roll in all_rolls(2)}
    assert min(counts.values()) > 140 and max(counts.values()) < 260  # 200 +- 4.3 sigma


def test_the_default_dice_are_system_random(factory: MockFactory) -> None:
    buttons = ButtonPanel(PINS, Recorder(), lambda: 1, bounce_time=None)
    assert isinstance(buttons._rng, random.SystemRandom)
    assert buttons.roll() in {str(roll) for roll in all_rolls(1)}


def test_a_failing_handler_is_logged_and_the_buttons_keep_working(
        factory: MockFactory, caplog: pytest.LogCaptureFixture) -> None:
    class Grumpy(Recorder):
        def on_done(self, player: int) -> None:
            raise RuntimeError("no game has been started")

    handler = Grumpy()
    panel(handler)
    press(factory, 5)
    press(factory, 13)
    assert handler.calls == [("confirm", None)]
    assert "no game has been started" in caplog.text


def test_unwired_buttons_are_left_out_and_pins_freed(factory: MockFactory) -> None:
    handler = Recorder()
    buttons = panel(handler, pins=ButtonPins(5, None, None, None))
    assert set(buttons.buttons) == {"done1"}
    buttons.close()
    press(factory, 5)
    assert handler.calls == [] and buttons.buttons == {}
    panel(handler, pins=ButtonPins(5, None, None, None))  # the pin is free again
    press(factory, 5)
    assert handler.calls == [("done", 1)]


def test_a_pin_in_use_is_one_clear_error(factory: MockFactory) -> None:
    taken = panel(Recorder(), pins=ButtonPins(None, 6, None, None))
    with pytest.raises(ButtonError, match="cannot use GPIO 6 for the done2 button"):
        panel(Recorder())
    assert set(taken.buttons) == {"done2"}
    handler = Recorder()
    panel(handler, pins=ButtonPins(5, None, 13, 19))  # the failed panel freed GPIO 5 again
    press(factory, 5)
    assert handler.calls == [("done", 1)]


def test_open_buttons_follows_the_config(factory: MockFactory) -> None:
    handler = Recorder()
    config = ButtonsConfig(enabled=True, hold_seconds=1.5, bounce_ms=0, pins=PINS)
    buttons = open_buttons(config, handler, lambda: 1)
    assert set(buttons.buttons) == {"done1", "done2", "confirm", "roll"}
    assert buttons.buttons["confirm"].hold_time == 1.5
    assert buttons.buttons["done1"].pin.bounce is None
    buttons.close()
    bouncy = open_buttons(ButtonsConfig(True, 2.0, 30, PINS), handler, lambda: 1)
    assert bouncy.buttons["roll"].pin.bounce == 0.03
    assert bouncy.buttons["confirm"].hold_time == 2.0
    bouncy.close()
    off = open_buttons(ButtonsConfig(False, 1.5, 30, PINS), handler, lambda: 1)
    assert off.buttons == {}
