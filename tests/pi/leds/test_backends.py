"""Tests of the LED backends with fake devices: simulated, SPI, Pi 5 PIO, ws281x, auto."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from pi.leds.auto import choose_backend, open_backend, read_model
from pi.leds.backends import (
    BLANK,
    PioBackend,
    SimulatedPanel,
    SpiBackend,
    Ws281xBackend,
    board_family,
)
from pi.leds.encode import encode, pio_bytes, spi_bits
from pi.leds.errors import LedError
from pi.leds.layout import Layout, default_layout
from pi.leds.model import ALERT, AMBER, BLUE, LAST_MOVE, OFF, LedFrame

PI5 = "Raspberry Pi 5 Model B Rev 1.0"
PI4 = "Raspberry Pi 4 Model B Rev 1.4"
FRAME = LedFrame((("a1", ALERT), ("c3", LAST_MOVE)), OFF, (AMBER, OFF), (12, None))


@pytest.fixture
def layout() -> Layout:
    """Returns the bundled 3x3 layout (37 LEDs)."""
    return default_layout("3x3")


class FakeSpi:
    """Stands for spidev.SpiDev: records what is written."""

    def __init__(self, fail: bool = False) -> None:
        self.max_speed_hz = 0
        self.mode = 3
        self.writes: list[bytes] = []
        self.closed = False
        self.fail = fail

    def writebytes2(self, data: bytes) -> None:
        """Records a transfer, or fails like a device that went away."""
        if self.fail:
            raise OSError(5, "Input/output error")
        self.writes.append(bytes(data))

    def close(self) -> None:
        """Records the close."""
        self.closed = True


class FakeStrip:
    """Stands for rpi_ws281x.PixelStrip: records colours and shows."""

    def __init__(self) -> None:
        self.colours: dict[int, int] = {}
        self.shows = 0

    def setPixelColor(self, n: int, color: int) -> None:  # noqa: N802
        """Records one LED's colour."""
        self.colours[n] = color

    def show(self) -> None:
        """Counts a show."""
        self.shows += 1


# -- simulated ----------------------------------------------------------------------------


def test_the_simulated_panel_keeps_and_renders_the_frame(layout: Layout) -> None:
    stream = io.StringIO()
    panel = SimulatedPanel(layout, stream)
    panel.show(FRAME)
    assert panel.frame == FRAME and panel.shown == 1
    assert panel.leds[0] == ALERT and panel.leds[8] == LAST_MOVE  # c3 is the 9th LED of 3x3
    text = panel.render()
    lines = text.splitlines()
    assert lines[0] == "   a b c "
    assert lines[1] == " 3 ····\x1b[38;2;40;40;40m██\x1b[0m"
    assert lines[3] == " 1 \x1b[38;2;255;0;0m██\x1b[0m····"
    assert lines[4].startswith("P1 \x1b[38;2;255;140;0m●\x1b[0m 12 ")
    assert lines[5] == "P2 · -- ···· ·········"
    assert stream.getvalue() == text + "\n"


def test_the_simulated_panel_as_json(layout: Layout) -> None:
    panel = SimulatedPanel(layout)
    panel.show(FRAME)
    data = json.loads(json.dumps(panel.as_json()))
    assert (data["layout"], data["width"], data["height"]) == ("3x3", 3, 3)
    assert data["cells"]["a1"] == "#ff0000" and data["cells"]["b2"] == "#000000"
    assert data["frame"]["counters"] == {"1": 12, "2": None}
    assert len(data["leds"]) == 37 and data["leds"][9] == "#ff8c00"  # player 1's status LED


def test_bad_frames_and_closed_backends_change_nothing(layout: Layout) -> None:
    panel = SimulatedPanel(layout)
    panel.show(FRAME)
    with pytest.raises(LedError, match="expected an LedFrame"):
        panel.show("red")  # type: ignore[arg-type]
    with pytest.raises(LedError, match="a colour must be"):
        panel.show(LedFrame(background=(300, 0, 0)))
    assert panel.frame == FRAME and panel.shown == 1
    panel.close()
    panel.close()
    assert panel.frame == BLANK and set(panel.leds) == {OFF}
    with pytest.raises(LedError, match="simulated LED backend is closed"):
        panel.show(FRAME)


# -- SPI ----------------------------------------------------------------------------------


def test_spi_writes_the_exact_bits(layout: Layout) -> None:
    opened: list[tuple[int, int]] = []
    device = FakeSpi()

    def opener(bus: int, number: int) -> FakeSpi:
        opened.append((bus, number))
        return device

    backend = SpiBackend(layout, opener)
    backend.show(FRAME)
    assert opened == [(0, 0)]
    assert device.writes == [spi_bits(encode(layout, FRAME))]
    assert len(device.writes[0]) == 37 * 9 + 90
    backend.close()
    assert device.writes[-1] == spi_bits(bytes(37 * 3)) and device.closed


def test_spi_faults_are_clear_errors(layout: Layout) -> None:
    def missing(bus: int, number: int) -> FakeSpi:
        raise FileNotFoundError(2, "No such file or directory")

    with pytest.raises(LedError, match=r"cannot open /dev/spidev0.0: No such file.*dtparam=spi"):
        SpiBackend(layout, missing)
    backend = SpiBackend(layout, lambda bus, number: FakeSpi(fail=True))
    with pytest.raises(LedError, match="cannot write /dev/spidev0.0: Input/output error"):
        backend.show(FRAME)


def test_spi_refuses_a_frame_larger_than_one_transfer(layout: Layout) -> None:
    opened: list[int] = []

    def opener(bus: int, number: int) -> FakeSpi:
        opened.append(bus)
        return FakeSpi()

    with pytest.raises(LedError, match="37 LEDs need one 423-byte SPI transfer.*takes 400"):
        SpiBackend(layout, opener, max_transfer=400)
    assert opened == []


# -- Pi 5 PIO -----------------------------------------------------------------------------


def test_pio_writes_four_bytes_per_led_at_the_start(layout: Layout, tmp_path: Path) -> None:
    device = tmp_path / "leds0"
    device.write_bytes(b"")
    backend = PioBackend(layout, str(device))
    backend.show(LedFrame((("a1", (255, 0, 0)),)))
    backend.show(FRAME)
    data = device.read_bytes()
    assert data == pio_bytes(encode(layout, FRAME, apply_gamma=False)) and len(data) == 37 * 4
    assert data[:4] == bytes([96, 0, 0, 0])  # red a1, brightness cap 96, no gamma of ours
    backend.close()
    assert device.read_bytes() == bytes(37 * 4)


def test_pio_without_the_device_is_a_clear_error(layout: Layout, tmp_path: Path) -> None:
    with pytest.raises(LedError, match=r"cannot open .*leds0: No such file.*num_leds=37"):
        PioBackend(layout, str(tmp_path / "leds0"))


# -- ws281x -------------------------------------------------------------------------------


@pytest.mark.parametrize("model", [None, PI5, "Raspberry Pi Zero W Rev 1.1", "Generic x86"])
def test_ws281x_refuses_anything_but_a_pi_3_or_4(layout: Layout, model: str | None) -> None:
    made: list[int] = []

    def factory(count: int, pin: int, dma: int) -> FakeStrip:
        made.append(count)
        return FakeStrip()

    with pytest.raises(LedError, match="works only on a Raspberry Pi 3 or 4"):
        Ws281xBackend(layout, model, factory=factory)
    assert made == []


def test_ws281x_sets_colour_ordered_pixels(layout: Layout) -> None:
    strip = FakeStrip()
    made: list[tuple[int, int, int]] = []

    def factory(count: int, pin: int, dma: int) -> FakeStrip:
        made.append((count, pin, dma))
        return strip

    backend = Ws281xBackend(layout, PI4, factory=factory)
    backend.show(FRAME)
    assert made == [(37, 18, 10)] and strip.shows == 1
    wire = encode(layout, FRAME)
    assert strip.colours[0] == int.from_bytes(wire[:3], "big")
    assert strip.colours[0] == 96 << 8  # GRB: red goes second
    assert len(strip.colours) == 37


# -- picking a backend --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("model", "family"),
    [(PI5, "pi5"), ("Raspberry Pi Compute Module 5 Rev 1.0", "pi5"), ("Raspberry Pi 500", "pi5"),
     (PI4, "pi34"), ("Raspberry Pi 3 Model B Plus Rev 1.3", "pi34"), ("Raspberry Pi 400", "pi34"),
     ("Raspberry Pi Compute Module 4 Rev 1.0", "pi34"), ("Raspberry Pi Zero 2 W", "pi34"),
     ("Raspberry Pi 2 Model B Rev 1.1", "pi-other"), ("Raspberry Pi 50", "pi-other"),
     (None, "none"), ("", "none"), ("Pine64 RockPro64", "none")],
)
def test_board_families(model: str | None, family: str) -> None:
    assert board_family(model) == family


@pytest.mark.parametrize(
    ("model", "devices", "kind"),
    [(PI5, {"/dev/leds0", "/dev/spidev0.0"}, "pio"), (PI5, {"/dev/spidev0.0"}, "spi"),
     (PI5, set(), "spi"), (PI4, {"/dev/spidev0.0"}, "spi"), (PI4, {"/dev/leds0"}, "ws281x"),
     ("Raspberry Pi 2 Model B", set(), "spi"), (None, {"/dev/spidev0.0"}, "simulated")],
)
def test_auto_choices(model: str | None, devices: set[str], kind: str) -> None:
    assert choose_backend(model, devices.__contains__) == kind


def test_read_model(tmp_path: Path) -> None:
    path = tmp_path / "model"
    path.write_bytes(PI5.encode() + b"\x00")
    assert read_model(path) == PI5
    assert read_model(tmp_path / "none") is None


def test_open_backend_auto(layout: Layout, tmp_path: Path) -> None:
    model = tmp_path / "model"
    assert isinstance(open_backend("auto", layout, model_path=model), SimulatedPanel)
    model.write_bytes(PI5.encode() + b"\x00")
    leds0 = tmp_path / "leds0"
    leds0.write_bytes(b"")
    pio = open_backend("auto", layout, model_path=model, exists=lambda p: p == "/dev/leds0",
                       pio_path=str(leds0))
    assert isinstance(pio, PioBackend)
    spi = open_backend("auto", layout, model_path=model, exists=lambda p: False,
                       spi_opener=lambda bus, number: FakeSpi())
    assert isinstance(spi, SpiBackend)
    for backend in (pio, spi):
        backend.close()


def test_open_backend_by_name(layout: Layout, tmp_path: Path) -> None:
    with pytest.raises(LedError, match="unknown LED backend 'neopixel'; choose one of auto"):
        open_backend("neopixel", layout)
    with pytest.raises(LedError, match="works only on a Raspberry Pi 3 or 4"):
        open_backend("ws281x", layout, model_path=tmp_path / "model")
    panel = open_backend("simulated", layout, model_path=tmp_path / "model")
    panel.show(LedFrame(status=(OFF, BLUE)))
    assert panel.frame.status == (OFF, BLUE)
