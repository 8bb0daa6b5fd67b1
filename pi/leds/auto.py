"""Picking and opening an LED backend by name, or by the machine for "auto".

auto: Pi 5 -> pio if /dev/leds0 exists, else spi; Pi 3/4 -> spi if /dev/spidev0.0 exists,
else ws281x; another Raspberry Pi -> spi; not a Raspberry Pi -> simulated. The model file and
the existence test are injectable so every branch is tested off a Pi.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Callable, TextIO

from pi.leds.backends import (
    LedBackend,
    PioBackend,
    SimulatedPanel,
    SpiBackend,
    SpiOpener,
    Ws281xBackend,
    board_family,
    open_spidev,
)
from pi.leds.errors import LedError
from pi.leds.layout import Layout

MODEL_PATH = Path("/proc/device-tree/model")
PIO_DEVICE = "/dev/leds0"
SPI_DEVICE = "/dev/spidev0.0"
BACKENDS = ("auto", "spi", "pio", "ws281x", "simulated")


def read_model(path: Path = MODEL_PATH) -> str | None:
    """Returns the device-tree model text (without its NUL), or None off a Pi."""
    try:
        return path.read_bytes().rstrip(b"\x00\n").decode("utf-8", "replace")
    except OSError:
        return None


def choose_backend(model: str | None, exists: Callable[[str], bool] = os.path.exists) -> str:
    """Returns the backend name "auto" means on a machine of this model."""
    family = board_family(model)
    if family == "pi5":
        return "pio" if exists(PIO_DEVICE) else "spi"
    if family == "pi34":
        return "spi" if exists(SPI_DEVICE) else "ws281x"
    return "spi" if family == "pi-other" else "simulated"


def open_backend(kind: str, layout: Layout, *, model_path: Path = MODEL_PATH,
                 exists: Callable[[str], bool] = os.path.exists,
                 spi_opener: SpiOpener = open_spidev, pio_path: str = PIO_DEVICE,
                 stream: TextIO | None = None) -> LedBackend:
    """Returns an opened backend by name ("auto" picks one), or raises LedError."""
    if kind not in BACKENDS:
        raise LedError(f"unknown LED backend {kind!r}; choose one of " + ", ".join(BACKENDS))
    model = read_model(model_path)
    if kind == "auto":
        kind = choose_backend(model, exists)
    if kind == "spi":
        return SpiBackend(layout, spi_opener)
    if kind == "pio":
        return PioBackend(layout, pio_path)
    if kind == "ws281x":
        return Ws281xBackend(layout, model)
    return SimulatedPanel(layout, stream)
