"""The LEDs: a pure frame of what they show, a layout, exact byte encodings and backends."""

from __future__ import annotations

from pi.leds.auto import BACKENDS, choose_backend, open_backend, read_model
from pi.leds.backends import (
    LedBackend,
    PioBackend,
    SimulatedPanel,
    SpiBackend,
    Ws281xBackend,
    board_family,
)
from pi.leds.encode import encode, pio_bytes, pixels, spi_bits
from pi.leds.errors import LayoutError, LedError
from pi.leds.layout import Layout, default_layout, default_layout_for, load_layout, with_limits
from pi.leds.listener import LedListener, Ticker
from pi.leds.model import LedFrame, compose

__all__ = [
    "BACKENDS",
    "LayoutError",
    "Layout",
    "LedBackend",
    "LedError",
    "LedFrame",
    "LedListener",
    "PioBackend",
    "SimulatedPanel",
    "SpiBackend",
    "Ticker",
    "Ws281xBackend",
    "board_family",
    "choose_backend",
    "compose",
    "default_layout",
    "default_layout_for",
    "encode",
    "load_layout",
    "open_backend",
    "pio_bytes",
    "pixels",
    "read_model",
    "spi_bits",
    "with_limits",
]
