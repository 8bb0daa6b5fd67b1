"""The synthetic camera: renders a game's moves as a recorded-game directory with exact labels.

Plain OpenCV drawing (the fast tier): a pinhole camera in KIT.md's envelope (camera.py), the mat
and pieces as shaded solids (scene.py, pieces.py), people's hands making the moves (hands.py),
light and sensor effects (effects.py), and the recorder with its presets (record.py).
Run `python -m vision.render --help` to write one recorded game.
"""


class RenderError(ValueError):
    """Raised for bad input to the renderer: a camera or light outside the envelope, a bad position."""


def check_number(value: object, low: float, high: float, what: str) -> float:
    """Returns value as a float if it is a number in [low, high], or raises RenderError naming it."""
    good = isinstance(value, (int, float)) and not isinstance(value, bool) and low <= value <= high
    if not good:
        raise RenderError(f"{what} must be a number from {low:g} to {high:g}, not {value!r}")
    return float(value)  # type: ignore[arg-type]
