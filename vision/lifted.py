"""Lifted pieces: while a hand is over the board, tells which piece of the player to move is held up.

Display only (the LEDs show where a lifted piece may go): nothing here changes the game.

From the last still frame and the referee's position, each way the mover may pick pieces up
(the source squares of the legal moves, and what each move takes: a whole Block Arena block with
its riders, one meeple, a Tuned stack's top animals, a pyramid, a pawn) gets a `Probe`: rays
through the mat plane are cast at the kit's solids of the position (vision.raycast), once with
every piece and once without the lifted ones. Rays that show the lifted piece, well inside its
outline, and would show a clearly different colour without it (the mat, or the piece below,
whose colour the still frame shows around the lifted one) are its samples; rays around it that
the lift does not change are its surroundings. A lift that leaves only pieces of the lifted
one's colours (a pyramid off one of its own colour) cannot be seen and gets no probe.

On a frame taken while the board is not still, a probe reads nothing while most of its
surroundings have lost their colour (a hand or an arm over them); otherwise each sample reads
`still` or `lower` as it is nearer (across any shade: hands cast shadows) to the still frame's
colour or to the lower surface's, if near enough. A piece is lifted when most samples read lower
and few still, and down when most read still. A square is reported when it alone reads lifted
while most of the mover's other pieces read down (a sleeve over the board makes several pieces
look lifted at once, or hides most of them), on two looks in a row.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

import cv2
import numpy as np
from numpy.typing import NDArray

from rules.core import Game, RulesError, move_squares
from vision.board import BoardView
from vision.frames import Image
from vision.kit import Kit
from vision.observe.calibrate import weighted
from vision.pose import CameraPlace, PoseError, locate_camera
from vision.raycast import PieceSolids, Solids, first_hits
from vision.render import RenderError
from vision.render.pieces import Item, Key

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int_]
STEP_MM = 1.5  # the spacing of the rays on the mat plane
EDGE_MM = 2.5  # how far inside an outline a sample must lie (pose and lens error, blur)
REACH_MM = 24.0  # how far around the lifted piece the lower surfaces' colours are learnt
MIN_SAMPLES = 12  # a probe needs this many samples
MAX_SAMPLES = 120
SHADES = (0.3, 1.25)  # the shades a surface may show in (the hand's shadow, glare)
MIN_REFERENCE = 6  # rays a surface's colour is learnt from, at least
TOLERANCE = 1.25  # a sample may stray this many times as far as the reference's rays (90th percentile)
ACROSS = (3.0, 8.0)  # the least and most a colour may stray across its reference (weighted Lab)
STILL_SLACK = 1.4  # a sample compared with its own still colour: two noisy pixels
APART = 1.0  # a sample tells a lift only if its still and lower colours are this many tolerances apart
MAX_AROUND = 80
AROUND_ACROSS = 4.0  # an unchanged surface around the piece keeps its colour to this (weighted Lab)
AROUND_SHARE = 0.4  # the share of them that must be seen (not under a hand) to read the shade
LIFTED_SHARE, STILL_SHARE, DOWN_SHARE = 0.6, 0.25, 0.6
EVERY_MS = 90.0  # frames closer than this to the last one looked at are skipped
CONFIRM = 2  # looks in a row a piece must read lifted to be reported
MAX_SHIFT_PX = 1.5  # a board fix moved further than this from the still frame's is not compared
REBUILD_MS = 10_000.0  # probes older than this (in still time) are built again from a newer still frame


# -- what the mover may lift -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Lift:
    """One way the player to move may pick pieces up: the square to report, the entries taken."""

    square: str
    keys: frozenset[Key]


def taken_keys(game: str, cells: Mapping[str, Sequence[Mapping[str, Any]]], move: str,
               mover: int | None) -> frozenset[Key]:
    """Returns the (square, index) entries a move picks up from the board (none: a placement)."""
    left, _ = move_squares(move)
    if not left or any(square not in cells for square in left):
        return frozenset()
    if game == "block-arena":
        return _arena_keys(cells, move, left, mover)
    stack = cells[left[0]]
    count = int(move.rsplit("/", 1)[1]) if game == "tuned" and "/" in move else 1
    return frozenset((left[0], index) for index in range(max(len(stack) - count, 0), len(stack)))


def _arena_keys(cells: Mapping[str, Sequence[Mapping[str, Any]]], move: str, left: tuple[str, ...],
                mover: int | None) -> frozenset[Key]:
    """Returns what a Block Arena move picks up: the mover's meeple, or the block with its riders."""
    if move.startswith("M"):
        return frozenset((left[0], index) for index, piece in enumerate(cells[left[0]])
                         if piece.get("kind") == "meeple" and piece.get("owner") == mover)
    return frozenset((square, index) for square in left for index in range(len(cells[square])))


def lifts(game: Game[Any, Any], state: Any) -> list[Lift]:
    """Returns the distinct ways the player to move may lift pieces, from the legal moves."""
    cells = game.board(state)["cells"]
    mover = game.to_move(state)
    found: dict[frozenset[Key], str] = {}
    for move in game.legal(state):
        keys = taken_keys(game.name, cells, str(move), mover)
        if keys and keys not in found:
            found[keys] = move_squares(str(move))[0][0]
    return [Lift(square, keys) for keys, square in found.items()]


# -- probes ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, eq=False)
class Probe:
    """One lift's samples: frame pixels, the still frame's colour there and the lower surface's."""

    square: str
    pixels: IntArray  # N x 2 (x, y)
    still: FloatArray  # N x 3 weighted Lab
    lower: FloatArray  # N x 3 weighted Lab
    tolerance: FloatArray  # N: how far from the lower surface's colour a sample may stray
    around: IntArray  # M x 2: pixels around the piece that the lift does not change
    around_still: FloatArray  # M x 3: their colours in the still frame


@dataclass(frozen=True, slots=True, eq=False)
class Grid:
    """Rays through a rectangle of the mat plane, row by row, and the items they meet."""

    points: FloatArray  # N x 2 mat mm
    shape: tuple[int, int]
    still: IntArray
    lower: IntArray


def weighted_colours(image: Image, pixels: IntArray) -> FloatArray:
    """Returns the weighted Lab colours (vision.observe.calibrate.weighted) of some frame pixels."""
    bgr = image[pixels[:, 1], pixels[:, 0]].reshape(-1, 1, 3).astype(np.float32) / 255.0
    return weighted(np.asarray(cv2.cvtColor(bgr, cv2.COLOR_BGR2LAB), np.float64).reshape(-1, 3))


def shade_split(seen: FloatArray, reference: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Returns each colour's shade along its reference and the distance left across it."""
    norm = np.maximum(np.sum(reference * reference, axis=1), 1e-9)
    shade = np.sum(seen * reference, axis=1) / norm
    across = np.linalg.norm(seen - shade[:, None] * reference, axis=1)
    return shade, across


def _eroded(mask: NDArray[np.bool_], shape: tuple[int, int], edge_mm: float = EDGE_MM) -> NDArray[np.bool_]:
    """Returns a grid mask without its cells within edge_mm of its border."""
    steps = max(1, math.ceil(edge_mm / STEP_MM))
    kernel = np.ones((2 * steps + 1, 2 * steps + 1), np.uint8)
    grid = cv2.erode(mask.reshape(shape).astype(np.uint8), kernel, borderValue=0)
    return np.asarray(grid.reshape(-1) > 0)


@dataclass(eq=False)
class Scenery:
    """What probes are built from: the still frame, its board fix, the camera place, the solids."""

    image: Image
    view: BoardView
    place: CameraPlace
    items: list[Item]
    solids: Solids
    tops: FloatArray = field(init=False)  # S x 4: each solid's mat-plane box (x0, y0, x1, y1)

    def __post_init__(self) -> None:
        corners = [self.place.to_mat(np.array([[b[i], b[j], b[k]] for i in (0, 3) for j in (1, 4) for k in (2, 5)]))
                   for b in self.solids.boxes]
        self.tops = np.array([[*c.min(axis=0), *c.max(axis=0)] for c in corners]).reshape(-1, 4)

    def grid(self, lifted: set[int], reach: float) -> Grid:
        """Returns rays over the mat-plane outline of some items and reach mm around it."""
        own = np.isin(self.solids.owners, sorted(lifted))
        low, high = self.tops[own, :2].min(axis=0) - reach, self.tops[own, 2:].max(axis=0) + reach
        xs, ys = np.arange(low[0], high[0], STEP_MM), np.arange(low[1], high[1], STEP_MM)
        points = np.column_stack([np.tile(xs, len(ys)), np.repeat(ys, len(xs))])
        near = ((self.tops[:, 0] <= high[0]) & (self.tops[:, 2] >= low[0])
                & (self.tops[:, 1] <= high[1]) & (self.tops[:, 3] >= low[1]))
        centre = np.array(self.place.centre)
        still = first_hits(self.solids, centre, points, near, self.tops)
        lower = first_hits(self.solids, centre, points, near & ~own, self.tops)
        return Grid(points, (len(ys), len(xs)), still, lower)

    def pixels(self, points: FloatArray) -> IntArray:
        """Returns the frame pixels (rounded, clipped) of mat-plane points."""
        height, width = self.image.shape[:2]
        pixels = np.rint(self.view.to_image(points)).astype(np.int_)
        return np.column_stack([np.clip(pixels[:, 0], 0, width - 1), np.clip(pixels[:, 1], 0, height - 1)])


def references(scenery: Scenery, grid: Grid, surfaces: Sequence[int]) -> dict[int, tuple[FloatArray, float]]:
    """Returns the still frame's colour (median weighted Lab) of each surface the grid shows,
    inside its outlines (a narrow one: less far inside), and how far its own rays stray across
    it (its noise)."""
    found = {}
    for surface in surfaces:
        inside = _eroded(grid.still == surface, grid.shape)
        if int(inside.sum()) < MIN_REFERENCE:
            inside = _eroded(grid.still == surface, grid.shape, STEP_MM)
        if int(inside.sum()) >= MIN_REFERENCE:
            colours = weighted_colours(scenery.image, scenery.pixels(grid.points[inside]))
            middle = np.median(colours, axis=0)
            _, across = shade_split(colours, np.tile(middle, (len(colours), 1)))
            found[surface] = (middle, float(np.clip(TOLERANCE * np.percentile(across, 90), *ACROSS)))
    return found


def build_probe(scenery: Scenery, lift: Lift) -> Probe | None:
    """Returns a lift's probe, or None when too few rays tell it apart (see the module doc)."""
    lifted = {number for number, item in enumerate(scenery.items) if item.keys & lift.keys}
    if not lifted:
        return None
    grid = scenery.grid(lifted, REACH_MM)
    shown = _eroded(np.isin(grid.still, sorted(lifted)), grid.shape)
    chosen = np.flatnonzero(shown & _steady(grid.lower, grid.shape, np.unique(grid.lower[shown])))
    known = references(scenery, grid, [int(s) for s in np.unique(grid.lower[chosen])])
    chosen = chosen[np.isin(grid.lower[chosen], list(known))]
    around = _around(grid, lifted)
    if len(chosen) < MIN_SAMPLES or len(around) < MIN_SAMPLES:
        return None
    pixels = scenery.pixels(grid.points[chosen])
    still = weighted_colours(scenery.image, pixels)
    lower = np.array([known[int(s)][0] for s in grid.lower[chosen]])
    tolerance = np.array([known[int(s)][1] for s in grid.lower[chosen]])
    clear = distances(still, lower) > APART * tolerance
    if int(clear.sum()) < MIN_SAMPLES:
        return None
    keep = _spread(np.flatnonzero(clear), MAX_SAMPLES)
    ring = scenery.pixels(grid.points[around])
    return Probe(lift.square, pixels[keep], still[keep], lower[keep], tolerance[keep], ring,
                 weighted_colours(scenery.image, ring))


def _steady(surfaces: IntArray, shape: tuple[int, int], among: IntArray) -> NDArray[np.bool_]:
    """Returns the rays well inside the outline of the surface they meet, for some surfaces."""
    steady = np.zeros(len(surfaces), bool)
    for surface in among:
        steady |= _eroded(surfaces == surface, shape)
    return steady


def _around(grid: Grid, lifted: set[int]) -> IntArray:
    """Returns (a spread of) the rays around the lifted items that meet the same surface with
    them and without, well inside its outline."""
    same = (grid.still == grid.lower) & ~np.isin(grid.still, sorted(lifted))
    unmoved = same & _steady(grid.still, grid.shape, np.unique(grid.still[same]))
    return _spread(np.flatnonzero(unmoved), MAX_AROUND)


def _spread(indices: IntArray, most: int) -> IntArray:
    """Returns at most `most` of some indices, evenly spread."""
    return indices[:: max(1, -(-len(indices) // most))]


def colour_hidden(items: Sequence[Item], lift: Lift) -> bool:
    """Tells whether a lift leaves pieces on its squares showing every colour the lifted ones
    show (a pyramid off one of its own colour): then no colour tells it from above."""
    squares = {square for square, _ in lift.keys}
    lifted = [item for item in items if item.keys & lift.keys]
    staying = [item for item in items if not item.keys & lift.keys and {s for s, _ in item.keys} & squares]
    colours = {face.rgb for item in staying for solid in item.solids for face in solid.faces}
    shown = {face.rgb for item in lifted for solid in item.solids for face in solid.faces}
    return bool(staying) and shown <= colours


def build_probes(image: Image, view: BoardView, place: CameraPlace, pieces: PieceSolids, game: Game[Any, Any],
                 state: Any) -> list[Probe]:
    """Returns the probes of every way the player to move may lift pieces, from a still frame."""
    ways = lifts(game, state)
    if not ways:
        return []
    try:
        items, solids = pieces.of(game.board(state))
    except (RenderError, RulesError, NotImplementedError):
        return []
    scenery = Scenery(image, view, place, items, solids)
    probes = (build_probe(scenery, lift) for lift in ways if not colour_hidden(items, lift))
    return [probe for probe in probes if probe is not None]


# -- reading a frame ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Look:
    """What one frame shows of one probe: the shares of samples reading lower and still."""

    square: str
    lower: float
    still: float

    @property
    def lifted(self) -> bool:
        """Tells whether the piece is held up: most samples show what lies below it."""
        return self.lower >= LIFTED_SHARE and self.still <= STILL_SHARE

    @property
    def down(self) -> bool:
        """Tells whether the piece is clearly where it was."""
        return self.still >= DOWN_SHARE


def look(image: Image, probe: Probe) -> Look:
    """Returns what a frame shows of a probe's samples (nothing while most of the unchanged
    surfaces around the piece are hidden): each reads as the surface it is nearer to, across
    its shade, if near enough."""
    if not surroundings_seen(image, probe):
        return Look(probe.square, 0.0, 0.0)
    seen = weighted_colours(image, probe.pixels)
    to_still, to_lower = distances(seen, probe.still), distances(seen, probe.lower)
    still = (to_still <= STILL_SLACK * probe.tolerance) & (to_still <= to_lower)
    lower = (to_lower <= probe.tolerance) & ~still
    return Look(probe.square, float(lower.mean()), float(still.mean()))


def surroundings_seen(image: Image, probe: Probe) -> bool:
    """Tells whether enough of the unchanged surfaces around a probe's piece keep their colour
    (in any shade) to trust what the frame shows there."""
    kept = distances(weighted_colours(image, probe.around), probe.around_still) <= AROUND_ACROSS
    return bool(kept.mean() >= AROUND_SHARE)


def distances(seen: FloatArray, reference: FloatArray) -> FloatArray:
    """Returns how far each colour is from its reference in the nearest shade the reference may
    show in (SHADES): across it, or infinity outside those shades."""
    shade, across = shade_split(seen, reference)
    return np.where((shade >= SHADES[0]) & (shade <= SHADES[1]), across, np.inf)


def held(looks: Sequence[Look]) -> str | None:
    """Returns the one square whose piece reads lifted while most of the mover's other pieces
    read in place (None otherwise: one hand lifts one piece, and a board mostly hidden or
    changed is something else covering it, an arm or a sleeve; one piece under the hand that
    holds the lifted one is allowed)."""
    squares = {seen.square for seen in looks if seen.lifted}
    if len(squares) != 1:
        return None
    square = squares.pop()
    hidden = sum(not seen.down for seen in looks if seen.square != square)
    others = sum(seen.square != square for seen in looks)
    return square if hidden <= max(1, others // 2) else None


# -- following frames --------------------------------------------------------------------------


class LiftWatch:
    """Follows a game's frames and tells which square's piece is held up while the board is not
    still: keep each still frame with `rest`, then call `watch` on the others. A square is
    reported once it reads lifted on `confirm` frames in a row (an arm sweeping over a piece
    may look like it for a moment), and forgotten when its piece reads back in place or the
    board is still again."""

    def __init__(self, kit: Kit, every_ms: float = EVERY_MS, confirm: int = CONFIRM) -> None:
        self.kit = kit
        self.every_ms = every_ms
        self.confirm = confirm
        self.square: str | None = None
        self._still: tuple[Image, BoardView, float] | None = None
        self._probes: Built | None = None
        self._pieces: tuple[tuple[str, str | None], PieceSolids] | None = None
        self._last_ms = -math.inf
        self._streak: tuple[str | None, int] = (None, 0)

    def rest(self, image: Image, view: BoardView, t_ms: float) -> None:
        """Keeps a still frame to compare the next moves with, and forgets any lifted piece."""
        self._still, self._last_ms = (image, view, t_ms), -math.inf
        self.square, self._streak = None, (None, 0)

    def watch(self, image: Image, view: BoardView, t_ms: float, game: Game[Any, Any], state: Any) -> str | None:
        """Returns the square whose piece is held up now (the last one seen while unsure)."""
        if self._still is None or t_ms - self._last_ms < self.every_ms:
            return self.square
        self._last_ms = t_ms
        probes = self._probes_for(game, state)
        if view is not self._still[1] and view.distance(self._still[1]) > MAX_SHIFT_PX:
            return self.square
        looks = [look(image, probe) for probe in probes]
        self._follow(held(looks), looks)
        return self.square

    def _follow(self, square: str | None, looks: Sequence[Look]) -> None:
        """Reports a square lifted on `confirm` looks in a row; forgets one that reads in place."""
        last, count = self._streak
        self._streak = (square, count + 1 if square == last else 1)
        if square is not None and self._streak[1] >= self.confirm:
            self.square = square
        elif self.square is not None and any(one.down for one in looks if one.square == self.square):
            self.square = None

    def _probes_for(self, game: Game[Any, Any], state: Any) -> list[Probe]:
        """Returns the probes of the kept still frame for a position (built again when the
        position or the board fix changed, or the still frame is much newer)."""
        assert self._still is not None
        image, view, t_ms = self._still
        built = self._probes
        if (built is None or built.state is not state or built.game != game.key or built.view is not view
                or t_ms - built.t_ms > REBUILD_MS):
            try:
                probes = build_probes(image, view, locate_camera(view), self._pieces_of(game), game, state)
            except (PoseError, RenderError):
                probes = []
            built = self._probes = Built(state, game.key, view, t_ms, probes)
        return built.probes

    def _pieces_of(self, game: Game[Any, Any]) -> PieceSolids:
        """Returns the kept solids of a game's pieces (new ones for another game)."""
        if self._pieces is None or self._pieces[0] != game.key:
            self._pieces = (game.key, PieceSolids(self.kit, game.name, game.variant))
        return self._pieces[1]


@dataclass(frozen=True, slots=True, eq=False)
class Built:
    """Probes and what they were built for: the state (kept, so never mistaken for a newer one),
    the rules, the board fix and the still frame's time."""

    state: Any
    game: tuple[str, str | None]
    view: BoardView
    t_ms: float
    probes: list[Probe]
