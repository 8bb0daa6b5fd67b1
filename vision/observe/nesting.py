"""What each Blockade cell's stack did since the last frame read, where colour cannot tell.

A pyramid nested on one of its own colour and size (or a Small on its colour's Large) changes
nothing colour shows. It does change two things a camera sees: the top stands higher, so its
texture moves by parallax (vision.observe.heights), and the stack's shadow reaches further across
the mat (vision.observe.shadows). Both are read on the cells the last frame read was read to show
as the referee's position holds them, or where the referee has since played a move whose result
looks, to colour, like what was read (the legal moves chose between look-alikes): a cell's top is
tracked from the first frame since which it was read to hold its stack (from the last frame read
where the referee has just moved), the shadows from the last frame. For each candidate stack
that colour cannot tell from the current one (the same look) both say how well it explains what
changed. Every cell's rise is read from the shadows at once, so a neighbour's shadow changing is
not taken for its own. Per board fix, the first frame read chooses the camera place
(vision.observe.pyramid_place) and fits the lights; where each cell is tracked and what its
candidates predict there are kept while its stack and those that may stand in front of its top
stay, its shadow per mm of rise while the stacks whose shadows meet it stay: a move recomputes
only the cells it can affect.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import lru_cache, partial
from typing import Any, Callable, Hashable, Mapping, NamedTuple, Protocol, Sequence, TypeVar

import numpy as np
from numpy.typing import NDArray

from vision.kit import Kit, Mat
from vision.observe.context import Scene
from vision.observe.pyramid_place import refined_place
from vision.observe.heights import (
    Picture, Shift, Template, TopView, block_heights, calibrated, parallax, passes_over, pixels_of, predict_all,
    seen_at, shift_of, surface, template, top_points, top_view, track_all,
)
from vision.observe.pyramids import (
    CLEAR, MOVERS, Stack, apex_of, candidates, look_of, near, same_look, stack_blocks, stacks_of,
)
from vision.observe.shadows import (
    Casters, Darkening, Light, added_shadow, brightness, calibrated_rises, fit_lights, joint_rises, outlines_of,
    overlapping,
)
from vision.observe.stack_colours import FloatArray, IntArray
from vision.observe.stacks import HALF, pixels_per_mm
from vision.pose import CameraPlace

Kept = TypeVar("Kept")
REACH_MM = 60.0  # how far around a cell pieces may lean in (vision.observe.stacks' patches)
SHADOW_OPACITY = 0.3  # the share of light a translucent pyramid stops
MAT_STEP_MM = 3.0  # mat samples for the lights are this far apart
LINE_CLEAR_MM = 1.5  # ... and this far from the printed grid lines
EDGE_CLEAR_MM = 2.0  # ... and from any piece's footprint
SHADOW_STEP_MM = 2.0  # mat samples for the shadows' change are this far apart
LEAN_MM = 40.0  # how far a stack may lean over the mat round its square, seen from the camera
MARGIN_CLEAR_MM = 8.0  # ... and this far from the mat's edge and from a marker's ink and paper
RIM_CLEAR_MM = 0.5  # a top is tracked this far (mat mm) from where a candidate's rise jumps (a rim) ...
RIM_CLEAR_PX = 1.0  # ... and at least this far in frame pixels (the blur and the tracker's taps spread an edge)
RIM_STEP_MM = 1.5  # ... by more than this


class Evidence(Protocol):
    """Anything that scores a cell's candidate stacks against what changed."""

    def log_likelihoods(self) -> FloatArray:
        """Returns the log-likelihood of what changed if each candidate stands there now (nats)."""


@dataclass(frozen=True, slots=True)
class Reference:
    """The last still frame read (its scene, and its picture ready to track), the stack (bottom
    first, colours chosen) each of its cells was read to hold, per cell the picture of the first
    frame since which it was read to hold that stack (its top is tracked from there), and the
    stacks the referee's position held when it was read."""

    scene: Scene
    picture: Picture
    stacks: Mapping[str, Stack]
    since: Mapping[str, Picture]
    held: Mapping[str, Stack] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Tracking:
    """Where a band of a cell's top is tracked (frame pixels) and how each candidate stack would
    move the texture there (pixels, per sample; None for a stack of another look: colour tells it)."""

    pixels: FloatArray
    motions: tuple[FloatArray | None, ...]


@dataclass
class Memory:
    """What the nesting evidence keeps between frames: the last frame read; per board fix, the
    lights and the camera place; and while the stacks they depend on stand, each cell's top view,
    the neighbours that may stand in front of it, where it is tracked, its template and what its
    candidates predict there, its shadow per mm of rise, and the mat points each stack hides."""

    reference: Reference | None = None
    tracks: dict[Hashable, tuple[Tracking, ...]] | None = None
    views: dict[Hashable, TopView] | None = None
    fronts: dict[Hashable, bool] | None = None
    lights: tuple[bytes, tuple[Light, ...]] | None = None
    place: tuple[bytes, CameraPlace] | None = None
    units: dict[Hashable, FloatArray] | None = None
    hides: dict[Hashable, IntArray] | None = None
    templates: dict[Hashable, Template] | None = None
    predictions: dict[Hashable, list[FloatArray | None]] | None = None


def remember(memory: Memory, scene: Scene, now: Picture, stacks: Mapping[str, Stack],
             held: Mapping[str, Stack]) -> None:
    """Keeps a frame just read, the stack each cell was read to hold and those the referee's
    position held, as the reference for the next (a cell read to hold the same stack as before
    keeps the picture it is tracked from)."""
    old = memory.reference
    kept = old is not None and same_fix(old.scene, scene)
    since = {square: old.since[square] if old is not None and kept and old.stacks.get(square) == layers
             and square in old.since else now for square, layers in stacks.items()}
    memory.reference = Reference(scene, now, dict(stacks), since, dict(held))


def fix_key(scene: Scene) -> bytes:
    """Returns what identifies a board fix and camera place."""
    return scene.view.homography.tobytes() + np.array(scene.place.centre).tobytes()


def same_fix(before: Scene, now: Scene) -> bool:
    """Tells whether two frames were taken by one camera standing still (one board fix)."""
    return before.frame.shape == now.frame.shape and fix_key(before) == fix_key(now)


def placed(memory: Memory, scene: Scene, now: Picture, board: Mapping[str, Any]) -> Scene:
    """Returns the scene seen from the camera place its pyramids pin down (refined on the first
    frame read from a board fix, then kept)."""
    key = fix_key(scene)
    if memory.place is None or memory.place[0] != key:
        stacks = stacks_of(board)
        blocks = {square: stack_blocks(scene, square, layers) for square, layers in stacks.items()}
        opaque = {square: layers[-1][0] != CLEAR for square, layers in stacks.items()}
        memory.place = (key, refined_place(scene, now, blocks, opaque))
    return replace(scene, place=memory.place[1])


def changes(memory: Memory, scene: Scene, now: Picture, board: Mapping[str, Any]) -> dict[str, list[Evidence]]:
    """Returns, per cell that can be judged, the evidence of what changed there since the last
    frame read (the memory's lights and tracking places are kept up to date)."""
    lights = lights_of(memory, scene, now, board)
    reference = memory.reference
    if reference is None or not same_fix(reference.scene, scene):
        return {}
    stacks = stacks_of(board)
    since = tracked_since(reference, stacks)
    found: dict[str, list[Evidence]] = {square: [] for square in since}
    for square, shifts in tracked(memory, since, scene, now, stacks).items():
        found[square].extend(shifts)
    for square, shadow in shadowed(memory, scene, reference.picture, now, stacks, list(since), lights).items():
        found[square].append(shadow)
    return found


def anticipate(memory: Memory, scene: Scene, board: Mapping[str, Any]) -> Scene | None:
    """Works out and keeps what changes() will need of the next frame of a still scene's board
    fix under a new position, all that does not depend on that frame: where each judged cell is
    tracked, its template and what its candidates predict there, each cell's shadow per mm of
    rise and the mat the stacks hide. Returns the scene seen from the fix's camera place, or
    None (nothing done) while the memory has no place, lights or last frame for that fix."""
    if memory.place is None or memory.place[0] != fix_key(scene):
        return None
    scene = replace(scene, place=memory.place[1])
    reference = memory.reference
    if memory.lights is None or memory.lights[0] != fix_key(scene) or reference is None \
            or not same_fix(reference.scene, scene):
        return None
    stacks = stacks_of(board)
    since = tracked_since(reference, stacks)
    old = renewed_tracking(memory)
    asked = _asked(memory, old, since, scene, stacks)
    _predictions(memory, old, asked, _templates(memory, old, asked), range(len(asked)))
    if memory.lights[1]:
        shadow_units(memory, scene, stacks, memory.lights[1])
        hidden(memory, scene, stacks, shadow_grid(scene.kit, scene.mat))
    return scene


def tracked_since(reference: Reference, stacks: Mapping[str, Stack]) -> dict[str, Picture]:
    """Returns the picture each judged cell's top is tracked from (tracked_from), by square."""
    return {square: picture for square, layers in stacks.items()
            if (picture := tracked_from(reference, square, layers)) is not None}


def tracked_from(reference: Reference, square: str, layers: Stack) -> Picture | None:
    """Returns the picture a cell's top is tracked from when the last frame read showed it
    holding a stack (None when it did not): the first frame since which it was read so, or that
    last frame itself when the referee has since played a move there whose result colour cannot
    tell from what was read (which of two look-alikes came is the legal moves' call, not the
    reading's), or when the referee kept the stack there though that frame was read otherwise
    (a misreading the referee overruled must not leave the cell unjudged from then on)."""
    read = reference.stacks.get(square)
    if read is None:
        return None
    if read == layers:
        return reference.since[square]
    held = reference.held.get(square)
    if held == layers:
        return reference.picture
    moved_here = held is not None
    return reference.picture if moved_here and look_of(read) == look_of(layers) else None


# -- parallax ----------------------------------------------------------------------------------


def tracked(memory: Memory, since: Mapping[str, Picture], scene: Scene, now: Picture,
            stacks: Mapping[str, Stack]) -> dict[str, list[Shift]]:
    """Returns how each judged cell's opaque top moved since the picture it is tracked from
    (`since`: the first frame since which it was read to hold its stack, or the last frame read
    when the referee has just moved there), band by band (where it is tracked, and what each
    candidate predicts there, is kept while that holds)."""
    old = renewed_tracking(memory)
    asked = _asked(memory, old, since, scene, stacks)
    found: dict[str, list[Shift | None]] = {item.square: [] for item in asked}
    for item, shift in zip(asked, _shifts(memory, old, asked, now)):
        found[item.square].append(shift)
    return {square: [shift for shift in bands if shift is not None] for square, bands in calibrated(found).items()}


def renewed_tracking(memory: Memory) -> Memory:
    """Empties what the memory keeps of where cells are tracked, to be filled again from the copy
    it returns (kept: what is still needed carries over)."""
    old = replace(memory)
    memory.views, memory.fronts, memory.tracks, memory.templates, memory.predictions = {}, {}, {}, {}, {}
    return old


def _asked(memory: Memory, old: Memory, since: Mapping[str, Picture], scene: Scene,
           stacks: Mapping[str, Stack]) -> list[Asked]:
    """Returns every band of the judged cells' opaque tops to track (where, and what each
    candidate does there, kept in the memory from the old one's)."""
    asked: list[Asked] = []
    for square, before in since.items():
        if stacks[square][-1][0] != CLEAR:
            key, bands = _bands(memory, old, scene, square, stacks)
            asked += [Asked(square, (key, index, before), band, before) for index, band in enumerate(bands)]
    return asked


def _bands(memory: Memory, old: Memory, scene: Scene, square: str, stacks: Mapping[str, Stack]
           ) -> tuple[Hashable, tuple[Tracking, ...]]:
    """Returns where a cell's top is tracked, band by band, and what that depends on (a key)."""
    layers = stacks[square]
    mine = (fix_key(scene), square, layers)
    view = kept(memory.views, old.views, mine,
                lambda: top_view(scene, square, stack_blocks(scene, square, layers), REACH_MM))
    leaning = {other: others for other, others in near(square, stacks).items()
               if kept(memory.fronts, old.fronts, (mine, other, others), partial(in_front, scene, view, other, others))}
    key = (mine, tuple(sorted(leaning.items())))
    return key, kept(memory.tracks, old.tracks, key, lambda: tracking(scene, square, layers, view, leaning))


class Asked(NamedTuple):
    """A band of a cell's top to track: its cell, what it is kept under, where it is tracked and
    what each candidate does there, and the frame it is tracked from."""

    square: str
    key: Hashable
    band: Tracking
    before: Picture


def _shifts(memory: Memory, old: Memory, asked: Sequence[Asked], now: Picture) -> list[Shift | None]:
    """Returns how each asked band moved into the frame now, with what each candidate predicts
    (None when it cannot be tracked): every band tracked at once, and every prediction not kept
    made at once."""
    firsts = _templates(memory, old, asked)
    measured = track_all(firsts, now)
    wanted = [index for index, found in enumerate(measured) if found is not None]
    predicted = _predictions(memory, old, asked, firsts, wanted)
    shifts: list[Shift | None] = [None] * len(asked)
    for index in wanted:
        found = measured[index]
        assert found is not None
        shifts[index] = shift_of(found, predicted[index])
    return shifts


def _templates(memory: Memory, old: Memory, asked: Sequence[Asked]) -> list[Template]:
    """Returns each asked band's template in the frame it is tracked from (kept in the memory)."""
    return [kept(memory.templates, old.templates, item.key, partial(template, item.before, item.band.pixels))
            for item in asked]


def _predictions(memory: Memory, old: Memory, asked: Sequence[Asked], firsts: Sequence[Template],
                 indices: Sequence[int]) -> dict[int, list[FloatArray | None]]:
    """Returns, for some asked bands, the shift each candidate predicts (kept in the memory; those
    not kept made at once)."""
    missing = [index for index in indices if asked[index].key not in (old.predictions or {})]
    made = dict(zip(missing, predict_all([(firsts[index], asked[index].before, asked[index].band.motions)
                                          for index in missing])))
    return {index: kept(memory.predictions, old.predictions, asked[index].key, partial(made.__getitem__, index))
            for index in indices}


def kept(now: dict[Hashable, Kept] | None, before: dict[Hashable, Kept] | None, key: Hashable,
         make: Callable[[], Kept]) -> Kept:
    """Returns what a memory kept under a key (made if it was not), kept for the next frame too."""
    assert now is not None
    value = now[key] = before[key] if before is not None and key in before else make()
    return value


def tracking(scene: Scene, square: str, layers: Stack, view: TopView,
             leaning: Mapping[str, Stack]) -> tuple[Tracking, ...]:
    """Returns where each band of a cell's top (its top view, and the neighbours that may stand
    in front of it) is tracked and how each candidate stack would move it."""
    blocks = stack_blocks(scene, square, layers)
    apex = apex_of(blocks)
    options = [option if same_look(layers, option) else None for option in candidates(layers)]
    bands = []
    for points in top_points(view, grown(scene, leaning), scene.place.centre):
        points = points[inside_faces(scene, square, options, points, blocks, apex)]
        heights = surface(blocks, points, scene.place.centre)
        rate = parallax(scene, points, heights)
        moving = iter(all_rises(scene, square, [option for option in options if option is not None],
                                points, heights, apex))
        motions = [None if option is None else next(moving)[:, None] * rate for option in options]
        bands.append(Tracking(pixels_of(scene, points), tuple(motions)))
    return tuple(bands)


def inside_faces(scene: Scene, square: str, options: Sequence[Stack | None], points: FloatArray,
                 blocks: FloatArray, apex: float) -> NDArray[np.bool_]:
    """Tells which mat points see a face clear of a rim (a piece's base edge on the one below:
    RIM_CLEAR_MM, RIM_CLEAR_PX), where the rise of some candidate (None: not judged) jumps: there
    texture appears, vanishes or tears as a piece comes or goes, which the rise model does not
    describe."""
    judged = [option for option in options if option is not None]
    if not judged or not len(points):
        return np.ones(len(points), np.bool_)
    clear = max(RIM_CLEAR_MM, RIM_CLEAR_PX / pixels_per_mm(scene, square))
    spots = np.vstack(_around(points, clear))
    seen = surface(blocks, spots, scene.place.centre)
    rise = np.array(all_rises(scene, square, judged, spots, seen, apex)).reshape(len(judged), -1, len(points))
    steps = np.abs(rise[:, 1:] - rise[:, :1])
    return np.asarray(steps.max(axis=(0, 1)) < RIM_STEP_MM, np.bool_)


def _around(points: FloatArray, clear: float) -> list[FloatArray]:
    """Returns some mat points, then them moved some mm each way along x and along y."""
    moves = clear * np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0], [0.0, -1.0]])
    return [points, *(points + move for move in moves)]


def in_front(scene: Scene, view: TopView, square: str, layers: Stack) -> bool:
    """Tells whether a stack (as tall as one move may make it) may stand in front of a cell's
    top: some ray of its top view may meet it above where it meets the top."""
    points, heights, _ = view
    return bool(passes_over(points, scene.place.centre, heights, grown(scene, {square: layers})).any())


def all_rises(scene: Scene, square: str, options: Sequence[Stack], points: FloatArray, heights: FloatArray,
              apex: float) -> list[FloatArray]:
    """Returns, for each of some stacks on a square, how far its surface stands above the surface
    seen (at the given heights, the current apex at `apex`) on each mat point's ray, straight
    above the point seen (a pyramid's faces then show the same texture, moved by the rise), kept
    between no rise and the rise of its apex (a ray that now misses the stack does not move its
    texture by the whole drop); each pyramid's height over the points seen is worked out once."""
    if not options:
        return []
    rows = [stack_blocks(scene, square, option) for option in options]
    distinct, which = np.unique(np.vstack(rows), axis=0, return_inverse=True)  # stacks share their lower pyramids
    levels = block_heights(distinct, seen_at(points, heights, scene.place.centre))
    ends = np.cumsum([len(blocks) for blocks in rows])
    found = []
    for blocks, stop in zip(rows, ends):
        top = apex_of(blocks) - apex
        rise = levels[:, which.ravel()[stop - len(blocks):stop]].max(axis=1, initial=0.0) - heights
        found.append(np.asarray(np.clip(rise, min(top, 0.0), max(top, 0.0)), np.float64))
    return found


def grown(scene: Scene, stacks: Mapping[str, Stack]) -> FloatArray:
    """Returns the pyramids of some stacks, each as tall as one move may make it (a Medium and a
    Small more)."""
    rows = [stack_blocks(scene, other, layers + ((layers[-1][0], "M"), (layers[-1][0], "S")))
            for other, layers in stacks.items()]
    return np.vstack(rows) if rows else np.zeros((0, 7))


# -- shadows -----------------------------------------------------------------------------------


def casters(scene: Scene, stacks: Mapping[str, Stack]) -> Casters:
    """Returns every pyramid of some stacks as shadow casters."""
    rows = [stack_blocks(scene, square, layers) for square, layers in stacks.items()]
    blocks = np.vstack(rows) if rows else np.zeros((0, 7))
    return Casters(blocks, np.where(blocks[:, 6] == CLEAR, SHADOW_OPACITY, 1.0))


def lights_of(memory: Memory, scene: Scene, now: Picture, board: Mapping[str, Any]) -> tuple[Light, ...]:
    """Returns the lights of the board fix, fitted on the first frame read from it."""
    key = fix_key(scene)
    if memory.lights is None or memory.lights[0] != key:
        memory.lights = (key, _fit(scene, now, casters(scene, stacks_of(board))))
    return memory.lights[1]


def _fit(scene: Scene, now: Picture, shadows: Casters) -> tuple[Light, ...]:
    """Returns the lights whose shadows of the casters explain the mat's brightness in a frame."""
    side = scene.mat.side_mm
    ticks = np.arange(MAT_STEP_MM / 2, side, MAT_STEP_MM)
    points = lattice(ticks)
    pitch = scene.mat.pitch_mm
    lines = np.abs((points + pitch / 2) % pitch - pitch / 2).min(axis=1) < LINE_CLEAR_MM
    points = points[~lines & ~covered(scene, shadows.blocks, points)]
    return fit_lights(points, brightness(now.at(scene.view.to_image(points))), shadows, side)


def covered(scene: Scene, blocks: FloatArray, points: FloatArray) -> NDArray[np.bool_]:
    """Tells which mat points the pyramids (widened a little) may hide or edge."""
    wide = blocks.copy()
    wide[:, HALF] += EDGE_CLEAR_MM
    found = passes_over(points, scene.place.centre, np.zeros(len(points)), wide)
    found[found] = surface(wide, points[found], scene.place.centre) > 0.0
    return found


def mat_noise(scene: Scene, before: Picture, now: Picture) -> float:
    """Returns the brightness noise of a mat sample between two frames (robust: most of the mat
    does not change)."""
    ticks = np.arange(SHADOW_STEP_MM / 2, scene.mat.side_mm, 4 * SHADOW_STEP_MM)
    points = lattice(ticks)
    pixels = scene.view.to_image(points)
    change = brightness(now.at(pixels)) - brightness(before.at(pixels))
    return max(float(1.4826 * np.median(np.abs(change - np.median(change)))), 0.2)


def shadowed(memory: Memory, scene: Scene, before: Picture, now: Picture, stacks: Mapping[str, Stack],
             judged: Sequence[str], lights: Sequence[Light]) -> dict[str, Darkening]:
    """Returns, per judged cell, how much taller its stack looks from the change of the shadows
    since the last frame (every cell's rise fitted at once), with the rise of each candidate of
    the current look (each cell's shadow per mm of rise is kept in the memory: it changes with
    the camera or the stacks around the cell)."""
    if not lights:
        return {}
    grid = shadow_grid(scene.kit, scene.mat)
    units = shadow_units(memory, scene, stacks, lights)
    open_mat = ~hidden(memory, scene, stacks, grid)
    pixels = scene.view.to_image(grid[open_mat])
    change = brightness(now.at(pixels)) - brightness(before.at(pixels))
    rises = joint_rises(change, {square: unit[open_mat] for square, unit in units.items()},
                        mat_noise(scene, before, now))
    found = {}
    for square in judged:
        if square in rises:
            layers = stacks[square]
            top = apex_of(stack_blocks(scene, square, layers))
            predicted = np.array([apex_of(stack_blocks(scene, square, option)) - top
                                  if same_look(layers, option) else np.nan for option in candidates(layers)])
            found[square] = Darkening(*rises[square], predicted)
    return calibrated_rises(found)


def shadow_units(memory: Memory, scene: Scene, stacks: Mapping[str, Stack], lights: Sequence[Light]
                 ) -> dict[str, FloatArray]:
    """Returns each cell's shadow per mm of rise (unit_darkening), kept in the memory while the
    stacks whose shadows meet its own stand."""
    old, memory.units = memory.units, {}
    return {square: kept(memory.units, old, (fix_key(scene), square, stacks[square], tuple(sorted(meeting.items()))),
                         partial(unit_darkening, scene, stacks, square, lights))
            for square, meeting in shadow_meetings(scene, stacks, lights).items()}


@lru_cache(maxsize=8)
def shadow_grid(kit: Kit, mat: Mat) -> FloatArray:
    """Returns (and keeps, read-only) the mat points the shadows are read on: over the grid and
    the margin round it, clear of the markers."""
    margin = kit.mat_margin_mm - MARGIN_CLEAR_MM
    ticks = np.arange(-margin, mat.side_mm + margin, SHADOW_STEP_MM)
    points = lattice(ticks)
    clear = np.ones(len(points), bool)
    for corners in kit.marker_corners(mat).values():
        low, high = corners.min(axis=0) - MARGIN_CLEAR_MM, corners.max(axis=0) + MARGIN_CLEAR_MM
        clear &= ~np.all((points >= low) & (points <= high), axis=1)
    found = np.asarray(points[clear], np.float64)
    found.flags.writeable = False
    return found


def hidden(memory: Memory, scene: Scene, stacks: Mapping[str, Stack], points: FloatArray) -> NDArray[np.bool_]:
    """Tells which mat points a stack hides, even one a move made taller (the points each
    stack hides are kept in the memory while it stands)."""
    old, memory.hides = memory.hides, {}
    hide = np.zeros(len(points), bool)
    for square, layers in stacks.items():
        key = (fix_key(scene), square, layers)
        hide[kept(memory.hides, old, key, partial(hidden_by, scene, square, layers, points))] = True
    return hide


def hidden_by(scene: Scene, square: str, layers: Stack, points: FloatArray) -> IntArray:
    """Returns the indices of the mat points a square's stack hides, even one a move made taller."""
    x, y = scene.cell_centre(square)
    close = np.flatnonzero(np.max(np.abs(points - [x, y]), axis=1) < scene.mat.pitch_mm / 2 + LEAN_MM)
    return np.asarray(close[covered(scene, stack_blocks(scene, square, raised(layers)), points[close])], np.int64)


def raised(layers: Stack) -> Stack:
    """Returns a stack one Small of its top's colour taller (of a mover's colour on a clear top:
    only they land there, and they stop the light a clear one lets through)."""
    top = layers[-1][0]
    return layers + ((MOVERS[0] if top == CLEAR else top, "S"),)


def shadow_meetings(scene: Scene, stacks: Mapping[str, Stack], lights: Sequence[Light]) -> dict[str, dict[str, Stack]]:
    """Returns, per cell, the stacks whose shadows may touch where its shadow grows when its
    stack rises (a Small more): only they change its shadow per mm of rise."""
    squares = list(stacks)
    blocks = casters(scene, stacks).blocks
    owner = np.repeat(np.arange(len(squares)), [len(layers) for layers in stacks.values()])
    tops = np.array([stack_blocks(scene, square, raised(layers))[-1]
                     for square, layers in stacks.items()]).reshape(-1, 7)
    meets = np.zeros((len(squares), len(squares)), bool)
    for light in lights:
        touching = overlapping(outlines_of(tops, light.reach), outlines_of(blocks, light.reach))
        for index in range(len(squares)):
            meets[index, owner[touching[index]]] = True
    return {square: {squares[other]: stacks[squares[other]] for other in np.flatnonzero(meets[index])}
            for index, square in enumerate(squares)}


def unit_darkening(scene: Scene, stacks: Mapping[str, Stack], square: str, lights: Sequence[Light]) -> FloatArray:
    """Returns how the mat's brightness changes over the shadow grid per mm a cell's stack rises
    (zero away from its shadow)."""
    taller = raised(stacks[square])
    rise = apex_of(stack_blocks(scene, square, taller)) - apex_of(stack_blocks(scene, square, stacks[square]))
    grown = {**stacks, square: taller}
    added = sum(len(layers) for layers in list(grown.values())[:list(grown).index(square) + 1]) - 1
    return -added_shadow(lights, casters(scene, grown), added, shadow_grid(scene.kit, scene.mat)) / rise


def lattice(ticks: FloatArray) -> FloatArray:
    """Returns the board points (x, y) of a square lattice on some ticks, x-major."""
    xs, ys = np.meshgrid(ticks, ticks, indexing="ij")
    return np.column_stack([xs.ravel(), ys.ravel()])
