"""Colour prototypes for the pixel observers: one Lab colour per label part, learnt from known cells.

A `ColourMemory` starts every part (`cream-tile`, `dark-block`, `mat` ...) at its nominal colour
(KIT.md's sRGB, in OpenCV's float Lab: L 0-100) and refines it from cells that the referee's
position says show that part: the median over many cells, pulled towards the prototype it
already has by a weight of `prior_cells`. A part seen on fewer than `min_cells` cells, or whose
median strays more than `max_shift` from nominal, is left as it is, so a wrong cell (the move
being read, a hand's shadow) never drags a prototype. Distances (lightness weighted less than
colour, since shading changes it most) turn into probabilities with `probabilities`, a softmax of
negative costs in nats with an unlisted "something else" that takes the mass when nothing fits.
The densities a shade is scored with (a bell, a blurred box) are here too.
"""

from __future__ import annotations

import math
from typing import Iterable, Mapping

import numpy as np
from numpy.typing import NDArray

from vision.observe.context import rgb_to_lab

FloatArray = NDArray[np.float64]
Array32 = NDArray[np.float32]
LIGHTNESS_WEIGHT = 0.5
PROBABILITY_ROOM = 1e-9


class ColourError(ValueError):
    """Raised for bad colours or settings given to a ColourMemory."""


def lab_distance(colours: FloatArray, lab: FloatArray, lightness: float = LIGHTNESS_WEIGHT) -> FloatArray:
    """Returns the distances of Lab colours (N x 3) to one Lab colour, lightness scaled down."""
    delta = np.asarray(colours, np.float64).reshape(-1, 3) - np.asarray(lab, np.float64)
    delta[:, 0] *= lightness
    return np.asarray(np.sqrt(np.einsum("ij,ij->i", delta, delta)), np.float64)


def robust_centre(colours: FloatArray) -> FloatArray:
    """Returns the per-channel median of Lab colours (N x 3); raises if there are none."""
    array = np.asarray(colours, np.float64).reshape(-1, 3)
    if not len(array):
        raise ColourError("a colour median needs at least one sample")
    return np.asarray(np.median(array, axis=0), np.float64)


def probability_table(costs: FloatArray, other_cost: float = math.inf) -> FloatArray:
    """Returns the softmax of negative costs (labels x cases, nats) down each column; an unlisted
    "something else" with other_cost keeps its share, so a column may sum to less than 1."""
    table = np.asarray(costs, np.float64)
    if table.ndim != 2 or not table.size or not np.all(np.isfinite(table)):
        raise ColourError("costs must be a non-empty table of finite numbers, labels by cases")
    best = np.minimum(table.min(axis=0), other_cost)
    weights = np.exp(best[None] - table)
    other = np.exp(best - other_cost) if math.isfinite(other_cost) else 0.0
    return np.asarray(weights * ((1.0 - PROBABILITY_ROOM) / (weights.sum(axis=0) + other))[None], np.float64)


def smoothed(x: Array32) -> Array32:
    """Returns the standard normal distribution function at x (a close tanh approximation),
    worked out in x's own memory (x is lost)."""
    inner = np.multiply(np.float32(0.044715), x)
    inner *= x
    inner += 1.0
    x *= np.float32(0.7978846)
    x *= inner
    np.tanh(x, out=x)
    x += 1.0
    x *= 0.5
    return x


def blurred_box(k: Array32, low: float, high: float, spread: Array32) -> Array32:
    """Returns the density at k of a shade uniform on [low, high], blurred by the noise."""
    upper, lower = np.subtract(high, k, dtype=np.float32), np.subtract(low, k, dtype=np.float32)
    upper /= spread
    lower /= spread
    density = smoothed(upper)
    density -= smoothed(lower)
    density /= high - low
    return density


def bell(x: Array32, centre: Array32 | np.float32, spread: Array32) -> Array32:
    """Returns the normal density at x."""
    z = np.subtract(x, centre, dtype=np.float32)
    z /= spread
    np.square(z, out=z)
    z *= -0.5
    np.exp(z, out=z)
    z /= spread * np.float32(math.sqrt(2 * math.pi))
    return z


def probabilities(costs: Mapping[str, float], other_cost: float = math.inf) -> dict[str, float]:
    """Returns the softmax of negative costs (nats) over labels, as probability_table does."""
    if not costs:
        raise ColourError("costs must name at least one label")
    try:
        column = np.array([[float(value)] for value in costs.values()])
    except (TypeError, ValueError):
        raise ColourError(f"costs must be numbers, not {dict(costs)!r}") from None
    return dict(zip(costs, probability_table(column, other_cost)[:, 0].tolist()))


def _lab(value: object, name: str) -> FloatArray:
    """Returns a Lab colour from an sRGB triple 0-255, or raises naming the part."""
    parts = list(value) if isinstance(value, (tuple, list)) else []
    ok = len(parts) == 3 and all(isinstance(part, (int, float)) and not isinstance(part, bool)
                                 and 0 <= part <= 255 for part in parts)
    if not ok:
        raise ColourError(f"the colour of {name!r} must be an sRGB triple 0-255, not {value!r}")
    return rgb_to_lab((float(parts[0]), float(parts[1]), float(parts[2])))


class ColourMemory:
    """Lab prototypes by part name: nominal priors, refined robustly from cells known to show them."""

    def __init__(self, nominal: Mapping[str, tuple[float, float, float]], *, prior_cells: float = 4.0,
                 min_cells: int = 3, max_shift: float = 25.0) -> None:
        if not nominal:
            raise ColourError("a colour memory needs at least one named colour")
        if not (prior_cells > 0 and min_cells >= 1 and max_shift > 0):
            raise ColourError("prior_cells and max_shift must be positive and min_cells at least 1")
        self.nominal = {name: _lab(rgb, name) for name, rgb in nominal.items()}
        self.prior_cells, self.min_cells, self.max_shift = float(prior_cells), int(min_cells), float(max_shift)
        self._labs = {name: lab.copy() for name, lab in self.nominal.items()}

    @property
    def names(self) -> tuple[str, ...]:
        """Returns the part names the memory knows."""
        return tuple(self.nominal)

    def lab(self, name: str) -> FloatArray:
        """Returns the current Lab prototype of a part, or raises naming the known parts."""
        if name not in self._labs:
            raise ColourError(f"no colour named {name!r}; known: {', '.join(self.names)}")
        return self._labs[name]

    def learn(self, name: str, colours: FloatArray, cells: int | None = None) -> bool:
        """Pulls a part's prototype towards the median of colours (N x 3) seen on `cells` cells
        known to show it (default: one colour per cell); returns whether it moved (too few
        cells, or a median too far from nominal: it stays)."""
        current = self.lab(name)
        array = np.asarray(colours, np.float64).reshape(-1, 3)
        count = len(array) if cells is None else cells
        if count < self.min_cells or not len(array):
            return False
        median = robust_centre(array)
        if float(lab_distance(median, self.nominal[name])[0]) > self.max_shift:
            return False
        self._labs[name] = (current * self.prior_cells + median * count) / (self.prior_cells + count)
        return True

    def learn_all(self, colours: Mapping[str, Iterable[FloatArray]]) -> set[str]:
        """Learns every part from its cells' colours; returns the names that moved."""
        moved = set()
        for name, samples in colours.items():
            listed = [np.asarray(sample, np.float64).reshape(3) for sample in samples]
            if listed and self.learn(name, np.vstack(listed)):
                moved.add(name)
        return moved

    def distances(self, colour: FloatArray, names: Iterable[str]) -> dict[str, float]:
        """Returns the weighted Lab distance of one colour to each named prototype."""
        return {name: float(lab_distance(colour, self.lab(name))[0]) for name in names}

    def reset(self) -> None:
        """Forgets everything learnt: every prototype back to nominal."""
        self._labs = {name: lab.copy() for name, lab in self.nominal.items()}
