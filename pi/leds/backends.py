"""LED backends behind one interface, show(frame) and close(): SPI (spidev), the Pi 5 kernel
PIO driver (/dev/leds0), rpi-ws281x (Pi 3/4 PWM) and a simulated panel.

Real libraries are imported only inside the backend that needs them, and every device is
opened through an injectable function so that tests use fakes. A device that cannot be
opened or written raises LedError; nothing fails silently.
"""

from __future__ import annotations

import importlib
import os
import re
from abc import ABC, abstractmethod
from pathlib import Path
from typing import Any, Callable, ClassVar, Protocol, TextIO

from pi.leds.encode import SPI_HZ, encode, pio_bytes, pixels, spi_bits
from pi.leds.errors import LedError
from pi.leds.layout import Layout
from pi.leds.model import OFF, RGB, LedFrame, check_frame, hex_colour

BLANK = LedFrame()
SPIDEV_BUFSIZ = Path("/sys/module/spidev/parameters/bufsiz")
DEFAULT_SPIDEV_BUFSIZ = 4096


class LedBackend(ABC):
    """Shows frames on some LEDs; closed backends refuse further frames."""

    name: ClassVar[str] = "led"

    def __init__(self, layout: Layout) -> None:
        self.layout = layout
        self.closed = False
        self.frame: LedFrame = BLANK

    def show(self, frame: LedFrame) -> None:
        """Shows a frame, or raises LedError (bad frame, closed backend, device fault)."""
        if self.closed:
            raise LedError(f"the {self.name} LED backend is closed")
        self._write(check_frame(frame))
        self.frame = frame

    def close(self) -> None:
        """Turns the LEDs off and releases the device (once; later calls do nothing)."""
        if self.closed:
            return
        self.closed = True
        try:
            self._write(BLANK)
            self.frame = BLANK
        finally:
            self._release()

    @abstractmethod
    def _write(self, frame: LedFrame) -> None:
        """Sends a checked frame to the device."""

    def _release(self) -> None:
        """Releases the device."""


# -- simulated ----------------------------------------------------------------------------


class SimulatedPanel(LedBackend):
    """Keeps the last frame and its per-LED colours; renders them as ANSI text or JSON."""

    name = "simulated"

    def __init__(self, layout: Layout, stream: TextIO | None = None) -> None:
        super().__init__(layout)
        self.stream = stream
        self.leds: list[RGB] = pixels(layout, BLANK)
        self.shown = 0

    def _write(self, frame: LedFrame) -> None:
        """Keeps the frame and, with a stream, draws it there."""
        self.leds = pixels(self.layout, frame)
        self.frame = frame
        self.shown += 1
        if self.stream is not None:
            self.stream.write(self.render() + "\n")
            self.stream.flush()

    def render(self) -> str:
        """Returns the LEDs as ANSI text: the board top rank first, then each player's LEDs."""
        width = self.layout.board.width
        lines = ["   " + "".join(f"{square[0]} " for square in self.layout.squares[:width])]
        cells = self.layout.cells
        for start in range(len(cells) - width, -1, -width):
            row = cells[start:start + width]
            swatches = "".join(_swatch(self.leds[leds[0]], "██") for _, leds in row)
            lines.append(f"{row[0][0][1:]:>2} {swatches}")
        for player in (0, 1):
            lines.append(self._player_line(player))
        return "\n".join(lines)

    def _player_line(self, player: int) -> str:
        """Returns one player's status LED, counter value and bars as ANSI text."""
        counter = self.layout.counters[player]
        value = self.frame.counters[player]
        status = "".join(_swatch(self.leds[i], "●") for i in self.layout.status[player])
        tens = "".join(_swatch(self.leds[i], "■") for i in counter.tens)
        units = "".join(_swatch(self.leds[i], "■") for i in counter.units)
        shown = "--" if value is None else f"{value:>2}"
        return f"P{player + 1} {status} {shown} {tens} {units}"

    def as_json(self) -> dict[str, Any]:
        """Returns what the panel shows as JSON-ready data for the dashboard."""
        return {
            "layout": self.layout.name,
            "width": self.layout.board.width,
            "height": self.layout.board.height,
            "cells": {square: hex_colour(self.leds[leds[0]]) for square, leds in self.layout.cells},
            "frame": self.frame.as_dict(),
            "leds": [hex_colour(colour) for colour in self.leds],
        }


def _swatch(colour: RGB, glyph: str) -> str:
    """Returns a glyph in a 24-bit ANSI colour, or dim dots for an LED that is off."""
    if colour == OFF:
        return "·" * len(glyph)
    red, green, blue = colour
    return f"\x1b[38;2;{red};{green};{blue}m{glyph}\x1b[0m"


# -- SPI ----------------------------------------------------------------------------------


class SpiDevice(Protocol):
    """What the SPI backend needs of a spidev.SpiDev."""

    max_speed_hz: int
    mode: int

    def writebytes2(self, data: bytes) -> None:
        """Sends bytes."""

    def close(self) -> None:
        """Closes the device."""


SpiOpener = Callable[[int, int], SpiDevice]


def open_spidev(bus: int, device: int) -> SpiDevice:
    """Returns /dev/spidev<bus>.<device> opened with spidev at 2.4 MHz, mode 0."""
    try:
        spidev = importlib.import_module("spidev")
    except ImportError:
        raise LedError("the spi LED backend needs the spidev package "
                       "(pip install 'blockref[pi]')") from None
    spi = spidev.SpiDev()
    spi.open(bus, device)
    spi.max_speed_hz = SPI_HZ
    spi.mode = 0
    opened: SpiDevice = spi
    return opened


def spidev_bufsiz(path: Path = SPIDEV_BUFSIZ) -> int:
    """Returns the kernel's largest single SPI transfer (spidev.bufsiz), 4096 if unknown."""
    try:
        return int(path.read_text().strip())
    except (OSError, ValueError):
        return DEFAULT_SPIDEV_BUFSIZ


class SpiBackend(LedBackend):
    """Drives WS2812 LEDs from SPI MOSI (GPIO 10): 3 SPI bits per data bit at 2.4 MHz."""

    # The whole frame goes in one transfer (a pause between transfers would latch the LEDs
    # early), so it must fit spidev's bufsiz. On a Pi 3/4 the SPI clock follows the core
    # clock: fix it in config.txt (core_freq=250 on a Pi 3; core_freq=500 and
    # core_freq_min=500 on a Pi 4), as rpi_ws281x's README advises for its SPI mode.

    name = "spi"

    def __init__(self, layout: Layout, opener: SpiOpener = open_spidev, bus: int = 0,
                 device: int = 0, max_transfer: int | None = None) -> None:
        super().__init__(layout)
        self.path = f"/dev/spidev{bus}.{device}"
        limit = spidev_bufsiz() if max_transfer is None else max_transfer
        size = len(spi_bits(bytes(3 * layout.count)))
        if size > limit:
            raise LedError(f"{layout.count} LEDs need one {size}-byte SPI transfer but "
                           f"spidev takes {limit}; add spidev.bufsiz={size} to cmdline.txt")
        try:
            self.device = opener(bus, device)
        except OSError as error:
            raise LedError(f"cannot open {self.path}: {error.strerror or error}; enable SPI "
                           "(dtparam=spi=on) and add the user to the spi group") from None

    def _write(self, frame: LedFrame) -> None:
        """Sends the frame's SPI bits."""
        try:
            self.device.writebytes2(spi_bits(encode(self.layout, frame)))
        except OSError as error:
            raise LedError(f"cannot write {self.path}: {error.strerror or error}") from None

    def _release(self) -> None:
        """Closes the SPI device."""
        self.device.close()


# -- Pi 5 kernel PIO driver ---------------------------------------------------------------


class PioBackend(LedBackend):
    """Drives WS2812 LEDs through Raspberry Pi's ws2812-pio-rp1 kernel driver (Pi 5).

    Needs `dtoverlay=ws2812-pio,gpio=N,num_leds=COUNT` with COUNT the layout's LED count: a
    shorter write is shown only after the driver's 50 ms timeout, a longer one is refused.
    The driver applies its own gamma, so frames are encoded without ours; its gamma only
    lowers levels, so the current cap still holds.
    """

    name = "pio"

    def __init__(self, layout: Layout, path: str = "/dev/leds0") -> None:
        super().__init__(layout)
        self.path = path
        try:
            self.fd = os.open(path, os.O_WRONLY)
        except OSError as error:
            raise LedError(f"cannot open {path}: {error.strerror or error}; add dtoverlay="
                           f"ws2812-pio,gpio=N,num_leds={layout.count} to config.txt and "
                           "allow the user to write the device") from None

    def _write(self, frame: LedFrame) -> None:
        """Writes 4 bytes per LED at the start of the device."""
        data = pio_bytes(encode(self.layout, frame, apply_gamma=False))
        try:
            written = os.pwrite(self.fd, data, 0)
        except OSError as error:
            raise LedError(f"{self.path} refused {len(data)} bytes ({error.strerror or error});"
                           f" its overlay's num_leds must be {self.layout.count}") from None
        if written != len(data):
            raise LedError(f"{self.path} took {written} of {len(data)} bytes; its overlay's "
                           f"num_leds must be {self.layout.count}")

    def _release(self) -> None:
        """Closes the device file."""
        os.close(self.fd)


# -- rpi-ws281x (Pi 3/4) ------------------------------------------------------------------


class PixelStrip(Protocol):
    """What the ws281x backend needs of rpi_ws281x.PixelStrip."""

    def setPixelColor(self, n: int, color: int) -> None:  # noqa: N802 (library's name)
        """Sets one LED's 24-bit colour."""

    def show(self) -> None:
        """Sends the colours to the LEDs."""


StripFactory = Callable[[int, int, int], PixelStrip]
PI34 = re.compile(r"Raspberry Pi (?:Compute Module )?(?:3|4|400)\b|Raspberry Pi Zero 2")
PI5 = re.compile(r"Raspberry Pi (?:Compute Module )?(?:5|500)\b")
PWM_CHANNEL_1_PINS = frozenset({13, 19, 41, 45, 53})


def board_family(model: str | None) -> str:
    """Returns "pi5", "pi34", "pi-other" or "none" for a /proc/device-tree/model text."""
    if not model or not model.startswith("Raspberry Pi"):
        return "none"
    if PI5.match(model):
        return "pi5"
    return "pi34" if PI34.match(model) else "pi-other"


def make_pixel_strip(count: int, pin: int, dma: int) -> PixelStrip:
    """Returns a started rpi_ws281x PixelStrip (called only on a Pi 3/4)."""
    # Constructing a PixelStrip anywhere else makes the process crash at exit.
    try:
        library = importlib.import_module("rpi_ws281x")
    except ImportError:
        raise LedError("the ws281x LED backend needs the rpi-ws281x package "
                       "(pip install 'blockref[pi]')") from None
    channel = 1 if pin in PWM_CHANNEL_1_PINS else 0
    # Our bytes are already in the strip's colour order: STRIP_RGB sends them unchanged.
    strip = library.PixelStrip(count, pin, 800_000, dma, False, 255, channel,
                               strip_type=library.ws.WS2811_STRIP_RGB)
    try:
        strip.begin()
    except RuntimeError as error:
        raise LedError(f"rpi-ws281x could not start (run as root?): {error}") from None
    made: PixelStrip = strip
    return made


class Ws281xBackend(LedBackend):
    """Drives WS2812 LEDs with rpi-ws281x (PWM, GPIO 18, DMA 10) on a Raspberry Pi 3 or 4."""

    name = "ws281x"

    def __init__(self, layout: Layout, model: str | None, pin: int = 18, dma: int = 10,
                 factory: StripFactory = make_pixel_strip) -> None:
        super().__init__(layout)
        if board_family(model) != "pi34":
            raise LedError("the ws281x LED backend works only on a Raspberry Pi 3 or 4, not on "
                           f"{model or 'this machine (not a Raspberry Pi)'}; use spi instead")
        self.strip = factory(layout.count, pin, dma)

    def _write(self, frame: LedFrame) -> None:
        """Sets every LED from the frame's colour-ordered bytes and shows them."""
        wire = encode(self.layout, frame)
        for index in range(self.layout.count):
            first, second, third = wire[3 * index: 3 * index + 3]
            self.strip.setPixelColor(index, first << 16 | second << 8 | third)
        try:
            self.strip.show()
        except RuntimeError as error:
            raise LedError(f"rpi-ws281x could not show the frame: {error}") from None
