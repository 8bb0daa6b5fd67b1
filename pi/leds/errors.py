"""The errors of the LED part: one clear sentence each, raised before anything changes."""

from __future__ import annotations


class LedError(Exception):
    """Raised for bad LED input (frame, snapshot, square) or a device that cannot be used."""


class LayoutError(LedError):
    """Raised when a layout file cannot be read or describes an impossible strip."""
