"""The players' buttons through gpiozero: done per player, confirm (press) / undo (hold), and
the electronic dice for Blockade. Presses become calls on a small handler interface."""

from __future__ import annotations

import importlib
import logging
import random
import threading
from typing import Any, Callable, Protocol

from pi.config import ButtonPins, ButtonsConfig
from rules.blockade_moves import all_rolls

log = logging.getLogger(__name__)

ToMove = Callable[[], int | None]


class ButtonError(RuntimeError):
    """Raised when a button's GPIO pin cannot be used."""


class ButtonHandler(Protocol):
    """What the buttons do: the appliance implements this on top of its session."""

    def on_done(self, player: int) -> None:
        """Handles player 1 or 2 saying the move is made (or that they pass)."""

    def on_confirm(self) -> None:
        """Handles a press of confirm/undo: confirm the pending reading."""

    def on_undo(self) -> None:
        """Handles a hold of confirm/undo: take back the last move."""

    def on_roll(self, text: str) -> None:
        """Handles a dice roll in Blockade notation (`roll:b4g5`, `roll:r2y3`)."""


def draw_roll(player: int, rng: random.Random) -> str:
    """Returns a roll of the player's two dice in notation, each of the 36 equally likely."""
    return str(rng.choice(all_rolls(player)))


def _call(action: Callable[..., None], *args: Any) -> None:
    """Calls a handler method; a failure is logged, never allowed to kill the GPIO thread."""
    try:
        action(*args)
    except Exception:  # noqa: BLE001 - a button press must not crash the appliance
        log.exception("button action %s%s failed", getattr(action, "__name__", action), args)


class ButtonPanel:
    """The wired buttons: each press is turned into one handler call; close() frees the pins."""

    def __init__(self, pins: ButtonPins, handler: ButtonHandler, to_move: ToMove,
                 hold_seconds: float = 1.5, bounce_time: float | None = 0.03,
                 rng: random.Random | None = None, pin_factory: Any = None) -> None:
        self.handler = handler
        self._to_move = to_move
        self._rng: random.Random = rng or random.SystemRandom()
        self._held = False
        self._lock = threading.Lock()
        self.buttons: dict[str, Any] = {}
        for name, pin in pins.wired().items():
            self.buttons[name] = self._make(name, pin, hold_seconds, bounce_time, pin_factory)
        self._wire()

    def _make(self, name: str, pin: int, hold_seconds: float, bounce_time: float | None,
              pin_factory: Any) -> Any:
        """Returns a gpiozero Button on the pin (pulled up, pressed when shorted to ground)."""
        gpiozero = importlib.import_module("gpiozero")  # the real library, imported only here
        try:
            return gpiozero.Button(pin, pull_up=True, bounce_time=bounce_time,
                                   hold_time=hold_seconds, pin_factory=pin_factory)
        except gpiozero.GPIOZeroError as error:
            self.close()
            raise ButtonError(f"cannot use GPIO {pin} for the {name} button: {error} "
                              "(set buttons.enabled = false if no buttons are wired)") from None

    def _wire(self) -> None:
        """Connects each button's gpiozero events to the handler."""
        for player, name in ((1, "done1"), (2, "done2")):
            if name in self.buttons:
                self.buttons[name].when_pressed = self._done_action(player)
        if "confirm" in self.buttons:
            self.buttons["confirm"].when_pressed = self._confirm_pressed
            self.buttons["confirm"].when_held = self._confirm_held
            self.buttons["confirm"].when_released = self._confirm_released
        if "roll" in self.buttons:
            self.buttons["roll"].when_pressed = self.roll

    def _done_action(self, player: int) -> Callable[[], None]:
        """Returns the press action of a player's done button."""
        return lambda: _call(self.handler.on_done, player)

    def _confirm_pressed(self) -> None:
        """Starts a confirm/undo press."""
        with self._lock:
            self._held = False

    def _confirm_held(self) -> None:
        """Undoes once the confirm/undo button has been held for hold_seconds."""
        with self._lock:
            self._held = True
        _call(self.handler.on_undo)

    def _confirm_released(self) -> None:
        """Confirms on the release of a press that was not a hold."""
        with self._lock:
            held, self._held = self._held, False
        if not held:
            _call(self.handler.on_confirm)

    def roll(self) -> str | None:
        """Rolls the dice of the player to move, sends the roll on and returns it (None: no one)."""
        player = self._to_move()
        if player not in (1, 2):
            log.info("roll button pressed with no player to move")
            return None
        text = draw_roll(player, self._rng)
        _call(self.handler.on_roll, text)
        return text

    def close(self) -> None:
        """Frees every button's pin."""
        for button in self.buttons.values():
            button.close()
        self.buttons = {}


def open_buttons(config: ButtonsConfig, handler: ButtonHandler, to_move: ToMove,
                 rng: random.Random | None = None, pin_factory: Any = None) -> ButtonPanel:
    """Returns the panel of the [buttons] config (no buttons at all when it is disabled)."""
    pins = config.pins if config.enabled else ButtonPins(None, None, None, None)
    bounce = config.bounce_ms / 1000.0 if config.bounce_ms else None
    return ButtonPanel(pins, handler, to_move, config.hold_seconds, bounce, rng, pin_factory)
