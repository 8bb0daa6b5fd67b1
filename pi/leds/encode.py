"""From a frame to exact bytes: per-LED colours, gamma, brightness and current caps, colour
order, and the two device encodings (WS2812 bits as SPI bits; the Pi 5 PIO driver's words).

Order of work: logical colour -> gamma table -> global brightness cap -> total-current cap
(every channel scaled down together when the estimate exceeds the budget) -> colour order.
The current estimate is milliamps_per_channel * level / 255 summed over every channel.
"""

from __future__ import annotations

from functools import lru_cache

from pi.leds.errors import LedError
from pi.leds.layout import COLOUR_ORDERS, Counter, Layout, Strip
from pi.leds.model import OFF, OVERFLOW, RGB, LedFrame, check_frame

# WS2812 over SPI at 2.4 MHz: each data bit becomes 3 SPI bits of 0.417 us, 0 -> 100 (high
# 0.42 us), 1 -> 110 (high 0.83 us), both within the WS2812B's +-0.15 us; data bits are sent
# most significant first (the encoding of rpi_ws281x's SPI mode). The reset gap is 300 us
# low (newer WS2812B need > 280 us), sent as zero bytes after the data: 300 us * 2.4 MHz / 8
# = 90 bytes.
SPI_HZ = 2_400_000
SPI_RESET_BYTES = 90


def pixels(layout: Layout, frame: LedFrame) -> list[RGB]:
    """Returns the logical colour of every LED of the strip, index by index."""
    check_frame(frame)
    colours: list[RGB] = [OFF] * layout.count
    lit = frame.cell_map()
    for square, leds in layout.cells:
        colour = lit.get(square, frame.background)
        for index in leds:
            colours[index] = colour
    for player in (0, 1):
        for index in layout.status[player]:
            colours[index] = frame.status[player]
        counter = layout.counters[player]
        for index, colour in counter_leds(counter, frame.counters[player], frame.players[player]):
            colours[index] = colour
    return colours


def counter_leds(counter: Counter, value: int | None, colour: RGB) -> list[tuple[int, RGB]]:
    """Returns (LED index, colour) for each LED of a counter showing a value."""
    # value // 10 tens LEDs and value % 10 units LEDs lit, the rest dark; past the counter's
    # capacity every LED shows OVERFLOW.
    leds = counter.tens + counter.units
    if value is None:
        return [(index, OFF) for index in leds]
    if value > counter.capacity:
        return [(index, OVERFLOW) for index in leds]
    lit = set(counter.tens[: value // 10] + counter.units[: value % 10])
    return [(index, colour if index in lit else OFF) for index in leds]


@lru_cache(maxsize=16)
def level_table(gamma: float, brightness: int) -> tuple[int, ...]:
    """Returns the 256-entry table from a logical level to a capped, gamma-corrected one."""
    table = []
    for level in range(256):
        corrected = round(255 * (level / 255) ** gamma)
        table.append((corrected * brightness + 127) // 255)
    return tuple(table)


def correct(colours: list[RGB], strip: Strip, apply_gamma: bool = True) -> list[RGB]:
    """Returns the colours after gamma (unless the device has its own) and both caps."""
    table = level_table(strip.gamma if apply_gamma else 1.0, strip.brightness)
    levels = [(table[r], table[g], table[b]) for r, g, b in colours]
    return cap_current(levels, strip.max_milliamps, strip.milliamps_per_channel)


def cap_current(levels: list[RGB], max_milliamps: int, per_channel: int) -> list[RGB]:
    """Returns the levels scaled down together to fit a current budget (rounding down)."""
    limit = max_milliamps * 255 // per_channel
    total = sum(r + g + b for r, g, b in levels)
    if total <= limit:
        return levels
    return [(r * limit // total, g * limit // total, b * limit // total) for r, g, b in levels]


def milliamps(levels: list[RGB], per_channel: int) -> float:
    """Returns the estimated current of some levels in milliamps."""
    return sum(r + g + b for r, g, b in levels) * per_channel / 255


def wire_bytes(levels: list[RGB], colour_order: str) -> bytes:
    """Returns 3 bytes per LED in the strip's colour order ("GRB" sends green first)."""
    if colour_order not in COLOUR_ORDERS:
        raise LedError(f"colour order must be one of {', '.join(sorted(COLOUR_ORDERS))}, "
                       f"got {colour_order!r}")
    picks = tuple("RGB".index(letter) for letter in colour_order)
    first, second, third = picks
    return bytes(value for c in levels for value in (c[first], c[second], c[third]))


def encode(layout: Layout, frame: LedFrame, apply_gamma: bool = True) -> bytes:
    """Returns the bytes the strip receives for a frame: 3 per LED, colour-ordered."""
    levels = correct(pixels(layout, frame), layout.strip, apply_gamma)
    return wire_bytes(levels, layout.strip.colour_order)


# -- device encodings ---------------------------------------------------------------------


def _spi_symbol(byte: int) -> bytes:
    """Returns the 3 SPI bytes that send one data byte (3 SPI bits per data bit)."""
    bits = 0
    for shift in range(7, -1, -1):
        bits = (bits << 3) | (0b110 if byte >> shift & 1 else 0b100)
    return bits.to_bytes(3, "big")


SPI_SYMBOLS: tuple[bytes, ...] = tuple(_spi_symbol(byte) for byte in range(256))


def spi_bits(wire: bytes, reset_bytes: int = SPI_RESET_BYTES) -> bytes:
    """Returns the SPI transfer for some wire bytes: 3 SPI bytes each, then the reset gap."""
    return b"".join(SPI_SYMBOLS[byte] for byte in wire) + bytes(reset_bytes)


def pio_bytes(wire: bytes) -> bytes:
    """Returns the 4-bytes-per-LED buffer of Raspberry Pi's ws2812-pio-rp1 driver."""
    # Raspberry Pi's driver (raspberrypi/linux, drivers/misc/ws2812-pio-rp1.c, loaded by
    # dtoverlay=ws2812-pio; its commit message: "Write data to the /dev/* entry in a 4
    # bytes-per-pixel format in RGBW order: RR GG BB WW") reads each pixel as a little-endian
    # u32 with R in byte 0, G in byte 1, B in byte 2 and W in byte 3 (ignored unless the
    # overlay sets rgbw), and always sends G, R, B on the wire. So wire bytes (w0, w1, w2)
    # go to the device as (w1, w0, w2, 0): with the default GRB order, exactly R, G, B, 0.
    # The driver applies its own brightness and gamma table to every byte, so the PIO
    # backend encodes without our gamma (apply_gamma=False).
    if len(wire) % 3:
        raise LedError(f"wire bytes come 3 per LED, got {len(wire)}")
    out = bytearray(len(wire) // 3 * 4)
    out[0::4] = wire[1::3]
    out[1::4] = wire[0::3]
    out[2::4] = wire[2::3]
    return bytes(out)
