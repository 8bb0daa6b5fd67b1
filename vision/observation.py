"""What the overhead camera reports for each cell of the grid: labels with probabilities.

This module is the contract between the pixel observer (which turns a still frame into an
`Observation`) and the referee's inference (which explains the change with legal moves).

An `Observation` holds, for EVERY square of the N x N grid (a1 ... in RULES.md's coordinates),
a `CellSeen`: `probs` maps candidate labels to probabilities (each in [0, 1], summing to at
most 1: the rest is "something else"), `label` is the most probable of them and `confidence`
its probability. Labels the observer does not list are taken as very unlikely, never as
impossible.

THE LABEL VOCABULARY: what an overhead camera sees on top of a cell, per game. Stacked layers
are written top to bottom, joined by "/"; a piece that a larger piece above it covers entirely
is not written (the camera cannot see it). An empty cell is `empty` in every game.

- block-arena: a block `<colour>-block-<orientation>` with colour `light` or `dark` and
  orientation `upright` (30x30 footprint) or `lying` (each of its two cells reads `lying`);
  a meeple standing on it: `<colour>-meeple/<block>` (`light-meeple/dark-block-upright`), both
  meeples: `both-meeples/<block>`.
- block-pt: `cream-tile` (M, player 1's blocking piece), `charcoal-tile` (N), `red-pawn` (X),
  `blue-pawn` (Y); a pawn on a tile: `red-pawn/cream-tile`, `blue-pawn/charcoal-tile` (and the
  illegal `red-pawn/charcoal-tile`, `blue-pawn/cream-tile`, so that the camera can report them).
- tuned: the visible animals top to bottom: `donkey`, `dog`, `cat`, `dog/donkey`,
  `cat/dog/donkey`, ... (footprints differ, so a stack shows as concentric squares; a smaller
  animal under a larger one is hidden).
- blockade: the visible nested pyramids top to bottom, each `<colour>-<size>` with colour in
  red, yellow, green, blue, black, clear (clear only for L) and size L, M or S. A piece is
  visible only if it is strictly larger than every piece above it, or if it is nested right
  under a visible piece of its own colour and size (that one's apex stands higher: the camera
  sees how many are nested): [L clear, 5 M green] ->
  `green-M/green-M/green-M/green-M/green-M/clear-L`; [L red, S red] -> `red-S/red-L`;
  [L red, S red, S red] -> `red-S/red-S/red-L`; a capped tower [L g, M g, S g, black L] ->
  `black-L`; [L g, M g, S g, black M] -> `black-M/green-L`; a red S on a black L cap ->
  `red-S/black-L`.
- block-block: the colour of the top face and the column's height in cubes,
  `<top>@<height>` with top `brown`, `white` or `half` (the extra block, split diagonally)
  and height 1, 2, ...: `brown@2`, `white@1`, `half@3`.

`is_label(game, text)` checks a label; `CellSeen.from_probs` builds a cell from its
probabilities, `CellSeen.sure` and `Observation.certain` a certain one. Anything else (an
unknown game or label, a missing square, probabilities over 1) raises ObservationError.
"""

from __future__ import annotations

import math
import random
import re
from dataclasses import dataclass, field
from functools import lru_cache
from types import MappingProxyType
from typing import Collection, Mapping

from rules.core import parse_square, square_name

EMPTY = "empty"
PROBABILITY_SLACK = 1e-6
MAX_GRID = 26
MAX_NESTED = 40  # layers under the top of a Blockade label, at most (the set has 60 pyramids)

_ARENA_BLOCK = r"(?:light|dark)-block-(?:upright|lying)"
_BLOCKADE_PIECE = r"(?:(?:red|yellow|green|blue|black)-[SML]|clear-L)"

_LABEL_PATTERNS: dict[str, re.Pattern[str]] = {
    "block-arena": re.compile(
        rf"{_ARENA_BLOCK}|(?:light-meeple|dark-meeple|both-meeples)/{_ARENA_BLOCK}"
    ),
    "block-pt": re.compile(
        r"cream-tile|charcoal-tile|(?:red|blue)-pawn(?:/(?:cream|charcoal)-tile)?"
    ),
    "tuned": re.compile(r"cat(?:/dog)?(?:/donkey)?|dog(?:/donkey)?|donkey"),
    "blockade": re.compile(rf"{_BLOCKADE_PIECE}(?:/{_BLOCKADE_PIECE}){{0,{MAX_NESTED}}}"),
    "block-block": re.compile(r"(?:brown|white|half)@[1-9][0-9]{0,2}"),
}

GRID_SIZES: dict[str, tuple[int, ...]] = {
    "block-arena": (7, 9),
    "block-pt": (9,),
    "tuned": (3,),
    "blockade": (5,),
    "block-block": tuple(range(1, MAX_GRID + 1)),  # the set file decides (default 5)
}

_SIZE_ORDER = {"S": 1, "M": 2, "L": 3}


class ObservationError(ValueError):
    """Raised when an observation or one of its cells breaks the contract above."""


def game_names() -> tuple[str, ...]:
    """Returns the games the vocabulary covers."""
    return tuple(sorted(_LABEL_PATTERNS))


def _sizes_fall(label: str) -> bool:
    """Tells whether a Blockade label's layers grow larger from top to bottom, or repeat the
    layer above (a pyramid nested in one of its colour and size)."""
    layers = label.split("/")
    sizes = [_SIZE_ORDER[layer[-1]] for layer in layers]
    return all(a < b or above == below for a, b, above, below in zip(sizes, sizes[1:], layers, layers[1:]))


def is_label(game: str, label: str) -> bool:
    """Tells whether a text is a label of a game's vocabulary."""
    pattern = _LABEL_PATTERNS.get(game)
    if pattern is None or not isinstance(label, str):
        return False
    if label == EMPTY:
        return True
    if not pattern.fullmatch(label):
        return False
    return game != "blockade" or _sizes_fall(label)


def _known_game(game: str) -> str:
    """Returns a game name of the vocabulary, or raises ObservationError."""
    if game not in _LABEL_PATTERNS:
        raise ObservationError(
            f"unknown game {game!r}; choose one of " + ", ".join(game_names())
        )
    return game


@lru_cache(maxsize=None)
def grid_squares(size: int) -> tuple[str, ...]:
    """Returns the names of every square of a size x size grid, a1 first, file by file."""
    return tuple(square_name(f, r) for f in range(size) for r in range(size))


@lru_cache(maxsize=65536)
def king_step(square: str, other: str) -> bool:
    """Tells whether two squares are one king step apart."""
    (x, y), (u, v) = parse_square(square, MAX_GRID), parse_square(other, MAX_GRID)
    return max(abs(x - u), abs(y - v)) == 1


def _probability(value: object, what: str, key: object = None) -> float:
    """Returns a probability in [0, 1], or raises ObservationError naming what it is (what, or
    the probability of key when key is given: the name is only spelt out on error)."""
    if type(value) is float and 0.0 <= value <= 1.0:  # the usual case, checked quickly
        return value
    name = what if key is None else f"the probability of {key!r}"
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ObservationError(f"{name} must be a number, not {value!r}")
    number = float(value)
    if not 0.0 <= number <= 1.0:
        raise ObservationError(f"{name} must be between 0 and 1, not {value!r}")
    return number


@dataclass(frozen=True, slots=True)
class CellSeen:
    """What the camera sees on one cell: the most probable label, its probability, all probs."""

    label: str
    confidence: float
    probs: Mapping[str, float] = field(default_factory=dict)

    def __deepcopy__(self, memo: dict[int, object]) -> CellSeen:
        """Returns the reading itself: it never changes."""
        return self

    def __post_init__(self) -> None:
        probs = {key: _probability(p, "", key) for key, p in dict(self.probs).items()} or {self.label: self.confidence}
        confidence = _probability(self.confidence, "a confidence")
        if sum(probs.values()) > 1.0 + PROBABILITY_SLACK:
            raise ObservationError(f"probabilities sum to {sum(probs.values()):.3f}, over 1")
        if not math.isclose(probs.get(self.label, -1.0), confidence, abs_tol=PROBABILITY_SLACK):
            raise ObservationError(f"the confidence of {self.label!r} is not its probability")
        if confidence + PROBABILITY_SLACK < max(probs.values()):
            raise ObservationError(f"{self.label!r} is not the most probable label")
        object.__setattr__(self, "confidence", confidence)
        object.__setattr__(self, "probs", MappingProxyType(probs))

    @classmethod
    def sure(cls, label: str) -> CellSeen:
        """Returns a reading that is certain of one label."""
        return cls(label, 1.0, {label: 1.0})

    @classmethod
    def from_probs(cls, probs: Mapping[str, float]) -> CellSeen:
        """Returns the reading whose label is the most probable (ties: the first in order)."""
        if not probs:
            raise ObservationError("a cell needs at least one label with its probability")
        label = min(probs, key=lambda key: (-probs[key], key))
        return cls(label, probs[label], probs)

    def probability(self, label: str) -> float:
        """Returns the probability the camera gives a label (0 when it is not listed)."""
        return self.probs.get(label, 0.0)


@dataclass(frozen=True, slots=True)
class Observation:
    """One still frame's reading of the whole grid: the game, every square's CellSeen, the frame."""

    game: str
    cells: Mapping[str, CellSeen]
    frame: int | None = None

    def __deepcopy__(self, memo: dict[int, object]) -> Observation:
        """Returns the observation itself: it never changes."""
        return self

    def __post_init__(self) -> None:
        _known_game(self.game)
        if not isinstance(self.cells, Mapping):
            raise ObservationError("cells must map square names to CellSeen")
        cells = dict(self.cells)
        self._check_grid(cells)
        for square, seen in cells.items():
            self._check_cell(square, seen)
        if self.frame is not None and (isinstance(self.frame, bool) or
                                       not isinstance(self.frame, int) or self.frame < 0):
            raise ObservationError(f"a frame number is a whole number >= 0, not {self.frame!r}")
        object.__setattr__(self, "cells", MappingProxyType(cells))

    def _check_grid(self, cells: Mapping[str, CellSeen]) -> None:
        """Raises unless the cells cover exactly one N x N grid allowed for the game."""
        size = math.isqrt(len(cells))
        if size not in GRID_SIZES[self.game] or set(cells) != set(grid_squares(size)):
            sizes = GRID_SIZES[self.game]
            allowed = (" or ".join(f"{n}x{n}" for n in sizes) if len(sizes) <= 2
                       else f"up to {sizes[-1]}x{sizes[-1]}")
            raise ObservationError(f"a {self.game} observation needs every square of its grid "
                                   f"({allowed}), got {len(cells)} cells")

    def _check_cell(self, square: str, seen: CellSeen) -> None:
        """Raises unless a cell is a CellSeen whose labels all belong to the vocabulary."""
        if not isinstance(seen, CellSeen):
            raise ObservationError(f"{square} must hold a CellSeen, not {type(seen).__name__}")
        for label in seen.probs:
            if not is_label(self.game, label):
                raise ObservationError(f"{square}: {label!r} is not a {self.game} label")

    @property
    def size(self) -> int:
        """Returns N for the N x N grid."""
        return math.isqrt(len(self.cells))

    def labels(self) -> dict[str, str]:
        """Returns the most probable label of every square."""
        return {square: seen.label for square, seen in self.cells.items()}

    @classmethod
    def certain(cls, game: str, view: Mapping[str, str], frame: int | None = None) -> Observation:
        """Returns the observation that is sure of every label of a view."""
        return cls(game, {square: CellSeen.sure(label) for square, label in view.items()}, frame)


# -- synthetic observations, for tests, benches and demos -------------------------------------


def _spread(rng: random.Random, mass: float, labels: list[str]) -> dict[str, float]:
    """Returns a random split of a probability mass over labels."""
    weights = [rng.random() + 0.05 for _ in labels]
    total = sum(weights)
    return {label: mass * w / total for label, w in zip(labels, weights)}


def _noisy_cell(rng: random.Random, true: str, pool: list[str], wrong: str | None,
                confidence: tuple[float, float]) -> CellSeen:
    """Returns one noisy reading of a true label: right with a confidence (a little of the rest
    on up to 3 other labels, the remainder unlisted), or the wrong label with low confidence
    (the true label second, nothing else listed)."""
    if wrong is not None:
        return CellSeen.from_probs({wrong: rng.uniform(0.36, 0.5), true: rng.uniform(0.15, 0.3)})
    others = rng.sample(pool, min(len(pool), rng.randint(1, 3)))
    top = rng.uniform(*confidence)
    rest = _spread(rng, rng.uniform(0.0, min(top / 25.0, 1.0 - top)), others)
    return CellSeen.from_probs({true: top, **rest})


def _mislabels(rng: random.Random, view: Mapping[str, str], before: Mapping[str, str],
               pool: list[str], avoid: Mapping[str, Collection[str]], count: int) -> dict[str, str]:
    """Returns a wrong label for a few cells that did not change, never one to avoid there."""
    choices = {}
    for square in sorted(view):
        allowed = [label for label in pool if label != view[square]
                   and label not in avoid.get(square, ())]
        if before[square] == view[square] and allowed:
            choices[square] = allowed
    picked = rng.sample(sorted(choices), min(count, len(choices)))
    return {square: rng.choice(choices[square]) for square in picked}


def noisy_observation(game: str, view: Mapping[str, str], rng: random.Random, *,
                      previous: Mapping[str, str] | None = None, mislabelled: int = 2,
                      avoid: Mapping[str, Collection[str]] | None = None,
                      confidence: tuple[float, float] = (0.6, 0.99),
                      frame: int | None = None) -> Observation:
    """Returns a seeded noisy observation of a view, as a fair but imperfect observer would give
    it: each true label read with a confidence in the range, other labels seen on the board
    sharing at most a twenty-fifth of it; and a few cells that did not change since `previous`
    read wrong with low confidence (the true label second), never with a label `avoid` lists
    for that cell (e.g. what another legal move would show there: that would be a real doubt)."""
    before = previous or view
    labels = sorted(set(view.values()) | set(before.values()) | {EMPTY})
    wrong = _mislabels(rng, view, before, labels, avoid or {}, mislabelled)
    cells = {}
    for square in sorted(view):
        pool = [label for label in labels if label not in (view[square], before[square])]
        cells[square] = _noisy_cell(rng, view[square], pool, wrong.get(square), confidence)
    return Observation(game, cells, frame)
