"""Tests of the byte encoding: per-LED colours, gamma, caps, colour order, SPI and PIO bytes."""

from __future__ import annotations

from dataclasses import replace

import pytest

from pi.leds.encode import (
    cap_current,
    counter_leds,
    encode,
    level_table,
    milliamps,
    pio_bytes,
    pixels,
    spi_bits,
    wire_bytes,
)
from pi.leds.errors import LedError
from pi.leds.layout import Board, Counter, Layout, Strip, make_layout
from pi.leds.model import AMBER, BLUE, OFF, OVERFLOW, RGB, LedFrame

LINEAR = Strip(colour_order="GRB", brightness=255, max_milliamps=100_000, gamma=1.0)


def small_layout(strip: Strip = LINEAR) -> Layout:
    """Returns a 2x1 board (LEDs 0, 1), status LEDs 2 and 3, and two counters (4-24)."""
    counters = (Counter((4, 5), tuple(range(6, 15))), Counter((15,), tuple(range(16, 25))))
    return make_layout(strip, Board(2, 1), ((2,), (3,)), counters)


FRAME = LedFrame((("a1", (255, 0, 0)),), (1, 2, 3), (AMBER, OFF), (12, 5))


def test_pixels_of_a_small_layout() -> None:
    colours = pixels(small_layout(), FRAME)
    assert colours[:5] == [(255, 0, 0), (1, 2, 3), AMBER, OFF, AMBER]
    assert colours[5:15] == [OFF, AMBER, AMBER] + [OFF] * 7
    assert colours[15:] == [OFF] + [BLUE] * 5 + [OFF] * 4


def test_exact_bytes_of_a_small_layout() -> None:
    expected = bytes.fromhex(
        "00ff00" "020103" "8cff00" "000000"          # a1 red, b1 background, status 1, status 2
        "8cff00" "000000"                            # player 1 tens: 1 of 2
        "8cff00" "8cff00" + "000000" * 7 +           # player 1 units: 2 of 9
        "000000"                                     # player 2 tens: 0 of 1
        + "4600ff" * 5 + "000000" * 4                # player 2 units: 5 of 9
    )
    assert encode(small_layout(), FRAME) == expected


@pytest.mark.parametrize(
    ("order", "expected"),
    [("GRB", "140a1e"), ("RGB", "0a141e"), ("BRG", "1e0a14"), ("RBG", "0a1e14"),
     ("GBR", "141e0a"), ("BGR", "1e140a")],
)
def test_colour_orders(order: str, expected: str) -> None:
    assert wire_bytes([(10, 20, 30)], order) == bytes.fromhex(expected)


def test_a_bad_colour_order() -> None:
    with pytest.raises(LedError, match="colour order must be one of"):
        wire_bytes([(1, 2, 3)], "RGBW")


def test_the_gamma_and_brightness_table() -> None:
    table = level_table(2.2, 255)
    assert (table[0], table[1], table[128], table[255]) == (0, 0, 56, 255)
    assert all(a <= b for a, b in zip(table, table[1:]))
    assert level_table(1.0, 64)[255] == 64 and level_table(1.0, 128)[100] == 50
    assert level_table(1.0, 0) == (0,) * 256


def test_gamma_and_brightness_reach_the_bytes() -> None:
    strip = replace(LINEAR, gamma=2.2, brightness=128)
    frame = LedFrame((("a1", (128, 255, 0)),))
    # (128, 255, 0) -> gamma (56, 255, 0) -> brightness 128/255 (28, 128, 0) -> GRB
    assert encode(small_layout(strip), frame)[:3] == bytes([128, 28, 0])


def test_the_current_cap_scales_everything_down_together() -> None:
    levels = [(255, 255, 255)] * 10  # 600 mA at 20 mA per channel
    capped = cap_current(levels, 300, 20)
    assert capped == [(127, 127, 127)] * 10
    assert milliamps(capped, 20) <= 300 < milliamps(levels, 20)
    assert cap_current(levels, 600, 20) == levels
    assert cap_current([(200, 100, 0)], 5, 20) == [(42, 21, 0)]  # limit 63 of 300


def test_a_capped_frame_in_bytes() -> None:
    layout = small_layout(replace(LINEAR, max_milliamps=20))  # 255 levels in all
    frame = LedFrame((("a1", (255, 255, 255)),), (255, 255, 255))  # 1530 levels asked
    wire = encode(layout, frame)
    assert wire[:6] == bytes([42] * 6) and sum(wire) <= 255


@pytest.mark.parametrize(
    ("value", "tens", "units", "colour"),
    [(None, 0, 0, BLUE), (0, 0, 0, BLUE), (7, 0, 7, BLUE), (10, 1, 0, AMBER), (23, 2, 3, BLUE),
     (40, 4, 0, AMBER), (49, 4, 9, BLUE)],
)
def test_counters_read_exactly(value: int | None, tens: int, units: int, colour: RGB) -> None:
    counter = Counter((0, 1, 2, 3), tuple(range(4, 13)))
    lit = dict(counter_leds(counter, value, colour))
    assert [lit[i] for i in counter.tens] == [colour] * tens + [OFF] * (4 - tens)
    assert [lit[i] for i in counter.units] == [colour] * units + [OFF] * (9 - units)


def test_a_counter_past_its_capacity_shows_overflow() -> None:
    counter = Counter((0, 1, 2, 3), tuple(range(4, 13)))
    assert counter.capacity == 49
    assert set(dict(counter_leds(counter, 50, BLUE)).values()) == {OVERFLOW}


def test_spi_bits() -> None:
    assert spi_bits(b"\x00", reset_bytes=0) == bytes.fromhex("924924")
    assert spi_bits(b"\xff", reset_bytes=0) == bytes.fromhex("db6db6")
    assert spi_bits(b"\xa5", reset_bytes=0) == bytes.fromhex("d349a6")
    assert spi_bits(b"\x00\xff") == bytes.fromhex("924924db6db6") + bytes(90)


def test_pio_bytes_follow_the_kernel_driver() -> None:
    # wire (G, R, B) = (1, 2, 3) -> device (R, G, B, W) = (2, 1, 3, 0)
    assert pio_bytes(bytes([1, 2, 3, 4, 5, 6])) == bytes([2, 1, 3, 0, 5, 4, 6, 0])
    with pytest.raises(LedError, match="3 per LED"):
        pio_bytes(b"\x01\x02")


def test_pio_bytes_of_a_red_led_start_with_red() -> None:
    frame = LedFrame((("a1", (255, 0, 0)),))
    assert pio_bytes(encode(small_layout(), frame))[:8] == bytes([255, 0, 0, 0, 0, 0, 0, 0])


def test_bad_frames_are_refused() -> None:
    layout = small_layout()
    for frame in (
        "frame",
        LedFrame((("a1", (256, 0, 0)),)),
        LedFrame((("a0", (1, 0, 0)),)),
        LedFrame(background=(1, 2)),  # type: ignore[arg-type]
        LedFrame(counters=(-1, None)),
        LedFrame(counters=(1.5, None)),  # type: ignore[arg-type]
    ):
        with pytest.raises(LedError):
            encode(layout, frame)  # type: ignore[arg-type]
