"""Stacks of square frustums read by analysis by synthesis: the engine of Tuned's and Blockade's
observers (flat-topped animals are boxes, Looney pyramids are frustums of slope -half/height).

Every cell is sampled on a grid of mat points (z = 0) over its square and the band beyond it,
away from the nadir, where tall pieces lean in. For each candidate stack of a cell the ray from
the camera centre through each sample is cast against the stack's frustums and against the
neighbours' stacks of the referee's current position: the first solid met, its face (top or one
of four sides) and its colour predict the sample; a ray that meets nothing shows the mat. The
samples are scored against the colour model of vision.observe.stack_colours (prototypes per
colour and face, learnt from the cells the current position explains and that read so, then the
frame is read again if they moved much). A sample on an edge of what a candidate shows there
counts less and may show a mix with the colour across the edge (vision.observe.edges): the blur
mixes the two, and a small piece far off is almost all edges. Every candidate of a cell explains
the same samples, so summed log-likelihoods compare; scaled for the samples' correlation and
softened, they give the cell's probabilities. Labels the camera cannot tell apart share one score, and the current
label takes most of their share (CURRENT_SHARE). A StackMemory keeps each cell's ray geometry
for the next frame: it changes only with the camera or the stacks around the cell.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from typing import Any, Callable, Hashable, Mapping, Sequence

import numpy as np

from vision.expect import ViewError, expected_view
from vision.kit import Kit
from vision.observation import CellSeen, Observation
from vision.observe.colours import ColourMemory, probabilities
from vision.observe.context import ObserveError, Scene, Taps, taps
from vision.observe.stack_colours import (
    FACES, MAT, SHADED_SHIFT, TOP, BoolArray, Colours, FloatArray, IntArray, Palette,
    field_basis, field_on, interior, lessons, likelihoods, noise_level, nominal_colours, palette, teach,
)
from vision.observe.edges import MAT_PART, UNKNOWN, Mixes, across_edges, edge_weights, mixed_scores, mixes_of
from vision.pose import image_points

SIDES = np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0], [0.0, -1.0]])
X, Y, Z0, HALF, HEIGHT, SLOPE, COLOUR = range(7)
EVIDENCE_PX = 6.0  # image pixels whose colours move together (blur, JPEG): one sample's worth
TEMPERATURE = 2.0  # further softening of the summed log-likelihoods
CURRENT_PRIOR = 1.0  # nats in favour of the look of the label the current position expects
CURRENT_SHARE = 0.85  # of a group of look-alike labels, what the current one takes
MIN_PROBABILITY = 1e-3
RELEARNT = 1.5  # prototypes that moved further than this (Lab) are worth reading the frame again


# -- samples ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Patch:
    """Where one cell is sampled: mat points on a rows x cols grid, and each sample's weight."""

    square: str
    points: FloatArray
    grid: tuple[int, int]
    weight: float


def patch_points(scene: Scene, square: str, step_mm: float,
                 reach_mm: float) -> tuple[FloatArray, tuple[int, int]]:
    """Returns mat points on a grid over a square and the band beyond it, away from the nadir,
    where a stack reach_mm tall leans in, and the grid's (rows, cols)."""
    x, y = scene.cell_centre(square)
    half = scene.mat.pitch_mm / 2
    cx, cy, cz = scene.place.centre
    lean = reach_mm / max(cz - reach_mm, 1.0)
    ticks = [_ticks(centre - half, centre + half, (centre - nadir) * lean, step_mm)
             for centre, nadir in ((x, cx), (y, cy))]
    gx, gy = np.meshgrid(*ticks)
    return np.column_stack([gx.ravel(), gy.ravel()]), (len(ticks[1]), len(ticks[0]))


def _ticks(low: float, high: float, shift: float, step_mm: float) -> FloatArray:
    """Returns sample positions every step_mm over [low, high] widened by a shift either way."""
    start, stop = low + min(shift, 0.0), high + max(shift, 0.0)
    count = max(int(round((stop - start) / step_mm)), 1)
    return np.asarray(start + (np.arange(count) + 0.5) * (stop - start) / count, np.float64)


def pixels_per_mm(scene: Scene, square: str) -> float:
    """Returns the frame's resolution over a square, in pixels per mm of the mat."""
    x, y = scene.cell_centre(square)
    pixels = scene.view.to_image(np.array([[x - 5.0, y], [x + 5.0, y], [x, y - 5.0], [x, y + 5.0]]))
    return float(np.linalg.norm(pixels[0] - pixels[1]) + np.linalg.norm(pixels[2] - pixels[3])) / 20.0


def sample_patch(scene: Scene, square: str, step_mm: float, reach_mm: float) -> Patch:
    """Returns where a cell is sampled."""
    points, grid = patch_points(scene, square, step_mm, reach_mm)
    weight = min(1.0, (step_mm * pixels_per_mm(scene, square)) ** 2 / EVIDENCE_PX)
    return Patch(square, points, grid, weight)


@dataclass(frozen=True, slots=True)
class Sampling:
    """Where every cell is sampled for one camera (board fix and place): each square's patch
    (squares in the scene's order), the frame pixels' bilinear taps of all their samples in
    that order, and the mat light field's terms there (see mat_field)."""

    patches: dict[str, Patch]
    taps: Taps
    basis: FloatArray
    casts: dict[tuple[str, bytes], Hits] = field(default_factory=dict)  # see cast_kept


def sampling(scene: Scene, step_mm: float, reach_mm: float) -> Sampling:
    """Returns where every cell of a scene is sampled."""
    patches = {square: sample_patch(scene, square, step_mm, reach_mm) for square in scene.squares()}
    points = np.vstack([patch.points for patch in patches.values()])
    pixels = image_points(scene.view, scene.place, np.column_stack([points, np.zeros(len(points))]))
    return Sampling(patches, taps(scene.frame.shape[:2], pixels), field_basis(points, scene.mat.side_mm))


# -- rays against square frustums --------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Hits:
    """Where rays meet solids (G x P): whether, at what height, and on which face."""

    hit: BoolArray
    z: FloatArray
    face: IntArray


def block(x: float, y: float, z0: float, size: tuple[float, float, float], pyramid: bool,
          colour: int) -> FloatArray:
    """Returns one square frustum as a row: centre, base height, half base, height, slope, colour."""
    half, height = size[0] / 2, size[2]
    return np.array([x, y, z0, half, height, -half / height if pyramid else 0.0, float(colour)])


def cast(blocks: FloatArray, points: FloatArray, camera: tuple[float, float, float]) -> Hits:
    """Returns where the rays from the camera through mat points (P) first meet each solid (G).

    On the ray through mat point m the point at height z lies over m + z u, u = (C - m) / C_z;
    each side s of a frustum bounds z linearly (s.(m + z u - centre) <= half + slope (z - z0)),
    so the highest z inside is the least of the bounds the sides facing the camera set.
    """
    rows = np.asarray(blocks, np.float32).reshape(-1, 7)
    spots = np.asarray(points, np.float32)
    toward = (np.asarray(camera[:2], np.float32) - spots) / np.float32(camera[2])
    slope, base = rows[:, SLOPE, None], rows[:, Z0, None]
    reach = rows[:, HALF, None] - slope * base
    sx, sy = SIDES[:, 0, None, None], SIDES[:, 1, None, None]  # the four sides at once (4 x G x P)
    rate = sx * toward[None, None, :, 0] + sy * toward[None, None, :, 1] - slope[None]
    across, along = spots[None, None, :, 0] - rows[None, :, X, None], spots[None, None, :, 1] - rows[None, :, Y, None]
    offset = sx * across + sy * along
    with np.errstate(divide="ignore", invalid="ignore"):
        bound = (reach[None] - offset) / rate
    ahead = np.where(rate > 0, bound, np.inf)
    face = ahead.argmin(axis=0)  # the first side setting the least bound, as a side-by-side scan would
    upper = ahead.min(axis=0)
    lower = np.maximum(base, np.where(rate < 0, bound, -np.inf).max(axis=0))
    top = base + rows[:, HEIGHT, None]
    lid = (slope == 0.0) & (top < upper)
    z = np.where(lid, top, np.minimum(upper, top))
    return Hits(lower <= z, z.astype(np.float64), np.where(lid, TOP, face))


KEPT_CASTS = 1000  # single solids whose casts one camera's Sampling keeps (10-20 kB each)


def cast_kept(kept: dict[tuple[str, bytes], Hits], square: str, blocks: FloatArray, points: FloatArray,
              camera: tuple[float, float, float]) -> Hits:
    """Returns cast(blocks, points, camera) for a square's points, casting only the solids whose
    rays are not kept for that square yet (each solid's rows are its own) and keeping those."""
    rows = np.asarray(blocks, np.float64).reshape(-1, 7)
    keys = [(square, row.tobytes()) for row in rows]
    missing = [index for index, key in enumerate(keys) if key not in kept]
    if not len(rows):
        return cast(rows, points, camera)
    if len(kept) + len(missing) > KEPT_CASTS:
        kept.clear()
        missing = list(range(len(rows)))
    if missing:
        fresh = cast(rows[missing], points, camera)
        kept.update({keys[index]: Hits(fresh.hit[at], fresh.z[at], fresh.face[at]) for at, index in enumerate(missing)})
    found = [kept[key] for key in keys]
    return Hits(np.stack([hits.hit for hits in found]), np.stack([hits.z for hits in found]),
                np.stack([hits.face for hits in found]))


# -- memory ----------------------------------------------------------------------------------


class StackMemory(ColourMemory):
    """A game's colour prototypes, and each cell's ray geometry for the last camera and
    position (most cells keep theirs from one frame to the next)."""

    def __init__(self, nominal: Mapping[str, tuple[float, float, float]], **settings: Any) -> None:
        super().__init__(nominal, **settings)
        self.geometry: dict[Hashable, CellModel] = {}
        self.sampled: tuple[Hashable, Sampling] | None = None


def stack_memory(kit: Kit, game: str, colours: Colours, kind: type[StackMemory] = StackMemory) -> StackMemory:
    """Returns a fresh memory (a StackMemory, or the game's kind of one) of every colour's faces
    and the mat at their nominal colours."""
    nominal = nominal_colours(kit, game, colours)
    return kind(nominal, prior_cells=1.0, min_cells=1, max_shift=SHADED_SHIFT)


# -- scoring stacks --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Backdrop:
    """What each sample shows when the cell's own stack does not: the height of the first
    neighbour's solid the ray meets (-inf: none) and its part (colour x 5 + face; -1: the mat)."""

    z: FloatArray
    part: IntArray

    def score(self, table: FloatArray, ground: FloatArray) -> FloatArray:
        """Returns each sample's log-likelihood under what the backdrop shows there."""
        return shown_scores(self.part, table, ground)


def shown_scores(part: IntArray, table: FloatArray, ground: FloatArray) -> FloatArray:
    """Returns each sample's log-likelihood under the part shown there (colour x 5 + face; -1:
    the mat, whose log-likelihoods are ground)."""
    parts = part.clip(min=0)
    seen = table[np.arange(len(parts)), parts // len(FACES), parts % len(FACES)]
    return np.asarray(np.where(part >= 0, seen, ground), np.float64)


def backdrop(neighbours: FloatArray, hits: Hits, count: int) -> Backdrop:
    """Returns what the neighbours' solids (where the rays meet them) and the mat show on a
    cell's count samples."""
    if not len(neighbours):
        return Backdrop(np.full(count, -np.inf), np.full(count, -1, np.int64))
    heights = np.where(hits.hit, hits.z, -np.inf)
    first = heights.argmax(axis=0)
    columns = np.arange(count)
    z = heights[first, columns]
    parts = neighbours[first, COLOUR].astype(np.int64) * len(FACES) + hits.face[first, columns]
    return Backdrop(z, np.where(np.isfinite(z), parts, -1))


@dataclass(frozen=True, slots=True)
class StackScores:
    """Per stack t: the backdrop's share of the score (T), and each layer's share per colour
    (T x K x C) were it painted that colour."""

    backdrop: FloatArray
    layers: FloatArray


def visible_layers(hits: Hits, stacks: IntArray) -> tuple[IntArray, BoolArray]:
    """Returns, per stack (T x K solid indices, -1 padding) and sample, the topmost layer the
    ray meets (the last in stack order: a layer rests on those below) and whether it meets any."""
    padded = np.vstack([hits.hit, np.zeros((1, hits.hit.shape[1]), bool)])
    met = padded[stacks]
    layers = stacks.shape[1] - 1 - met[:, ::-1].argmax(axis=1)
    return np.asarray(layers, np.int64), np.asarray(met.any(axis=1), np.bool_)


@dataclass(frozen=True, slots=True)
class Coverage:
    """What each candidate stack shows on a cell's samples (geometry only, kept with the cell):
    the samples its own layers paint, as a key (stack x depth + layer), the sample, the face and
    the weight it counts with; and, per stack and sample, the weight of the backdrop where it
    shows instead (T x P; 0 where a layer shows)."""

    keys: IntArray
    pixels: IntArray
    faces: IntArray
    bare: FloatArray
    shape: tuple[int, int]
    weights: FloatArray
    mixes: Mixes  # the painted samples on an edge with a known part across it (vision.observe.edges)


def coverage(hits: Hits, stacks: IntArray, behind: Backdrop, grid: tuple[int, int], fixed: IntArray,
             seen: tuple[IntArray, BoolArray] | None = None) -> Coverage:
    """Returns which samples every candidate stack's layers paint, and with which face (seen:
    the stacks' visible layers, if known; grid: the samples' rows and columns; fixed: each
    stack's layer colours, -1 where the painting decides them), each sample weighed by whether
    it lies on an edge of what the stack shows, with what shows across the edge
    (vision.observe.edges)."""
    depth = stacks.shape[1]
    layers, met = seen or visible_layers(hits, stacks)
    chosen = np.take_along_axis(stacks, layers, axis=1).clip(min=0)
    columns = np.arange(len(behind.z))[None, :]
    own = met & (hits.z[chosen, columns] > behind.z[None, :])
    faces = hits.face[chosen, columns]
    keys = (np.arange(len(stacks))[:, None] * depth + layers)[own]
    pixels = np.broadcast_to(columns, own.shape)[own]
    shown = np.where(own, layers * len(FACES) + faces, -2 - behind.part[None, :])
    colour = np.take_along_axis(fixed, layers, axis=1)
    backdrop = np.where(behind.part < 0, MAT_PART, behind.part)[None, :]
    known = np.where(own, np.where(colour >= 0, colour * len(FACES) + faces, UNKNOWN), backdrop)
    edges = across_edges(shown, known, grid)
    weights = edge_weights(edges.edge)
    return Coverage(keys, pixels, faces[own], np.where(own, 0.0, weights), (len(stacks), depth), weights[own],
                    mixes_of(pixels, faces[own], edges.part[own], edges.sample[own]))


def score_all(models: Sequence[CellModel], table: FloatArray, ground: FloatArray,
              mixing: tuple[FloatArray, FloatArray, Palette] | None = None) -> list[StackScores]:
    """Returns every cell's stack scores on its samples (table and ground: all cells' samples in
    order), split into backdrop and layers; the layers of all cells are summed in one pass. Given
    every sample's colour, the mat's colour there and the prototypes (mixing), a sample on an
    edge may also show its part mixed with what shows across the edge (edges.mixed_scores)."""
    sizes = np.array([len(model.patch.points) for model in models])
    starts = np.concatenate([[0], np.cumsum(sizes)])
    behind = shown_scores(np.concatenate([model.behind.part for model in models]), table, ground)
    painted = [len(model.covered.pixels) for model in models]
    counts = np.array([model.covered.shape[0] * model.covered.shape[1] for model in models])
    firsts = np.concatenate([[0], np.cumsum(counts)])
    pixels = np.concatenate([model.covered.pixels for model in models]) + np.repeat(starts[:-1], painted)
    keys = np.concatenate([model.covered.keys for model in models]) + np.repeat(firsts[:-1], painted)
    seen = table[pixels, :, np.concatenate([model.covered.faces for model in models])]
    if mixing is not None:
        mix_blend(seen, models, starts, mixing)
    seen *= np.concatenate([model.covered.weights for model in models])[:, None]
    colours = table.shape[1]
    bins = (keys[:, None] * colours + np.arange(colours)[None, :]).ravel()
    shares = np.bincount(bins, weights=seen.ravel(), minlength=int(firsts[-1]) * colours)
    scores = []
    for model, start, stop, first, last in zip(models, starts[:-1], starts[1:], firsts[:-1], firsts[1:]):
        covered, weight = model.covered, model.patch.weight
        background = (covered.bare * behind[start:stop][None, :]).sum(axis=1)
        layered = np.asarray(shares[first * colours:last * colours].reshape(*covered.shape, colours) * weight,
                             np.float64)
        scores.append(StackScores(background * weight, layered))
    return scores


def mix_blend(seen: FloatArray, models: Sequence[CellModel], starts: IntArray,
              mixing: tuple[FloatArray, FloatArray, Palette]) -> None:
    """Raises the painted samples' log-likelihoods (seen: E x C, in the models' order; starts:
    each model's first sample) where a mix with what shows across their edge explains them
    better (edges.mixed_scores)."""
    lab, mat, colours = mixing
    mixes = [model.covered.mixes for model in models]
    distinct = [len(mix.samples) for mix in mixes]
    if not sum(distinct):
        return
    shift = np.repeat(starts[:-1], distinct)
    samples = np.concatenate([mix.samples for mix in mixes]) + shift
    beside = np.concatenate([mix.beside for mix in mixes]) + shift
    mixed = mixed_scores(lab, mat, colours, (samples, np.concatenate([mix.faces for mix in mixes])),
                         (np.concatenate([mix.parts for mix in mixes]), beside))
    entries = np.concatenate([[0], np.cumsum([len(model.covered.pixels) for model in models])])
    rows = np.concatenate([[0], np.cumsum(distinct)])
    pick = np.concatenate([mix.entries + first for mix, first in zip(mixes, entries[:-1])])
    which = np.concatenate([mix.inverse + first for mix, first in zip(mixes, rows[:-1])])
    seen[pick] = np.maximum(seen[pick], mixed[which])


def predicted_parts(hits: Hits, stack: IntArray, blocks: FloatArray, behind: Backdrop,
                    seen: tuple[IntArray, BoolArray] | None = None) -> IntArray:
    """Returns the part each sample shows under one stack: colour x 5 + face, -1 for the mat,
    -2 where a neighbour shows (not this cell's to learn); seen: its visible layers, if known."""
    layers, met = seen or visible_layers(hits, stack[None, :])
    chosen = stack[layers[0]].clip(min=0)
    columns = np.arange(len(behind.z))
    own = met[0] & (hits.z[chosen, columns] > behind.z)
    mine = blocks[chosen, COLOUR].astype(np.int64) * len(FACES) + hits.face[chosen, columns]
    return np.asarray(np.where(own, mine, np.where(behind.part < 0, -1, -2)), np.int64)


# -- reading cells ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CellModel:
    """One cell's geometry: samples, candidate solids, the candidate stacks (rows of solid indices
    bottom first, -1 padding) and the game's words for them, the neighbours' backdrop, the row
    and label of the stack the current position holds, which samples each stack paints, and the
    part each sample shows under the current stack."""

    patch: Patch
    blocks: FloatArray
    stacks: IntArray
    behind: Backdrop
    current: int
    label: str
    kinds: tuple[Any, ...]
    covered: Coverage
    parts: IntArray
    inside: BoolArray  # the samples that show the same part as their four neighbours (see interior)


@dataclass(frozen=True, slots=True)
class CellPlan:
    """What a game says of one cell before any ray is cast: where it is sampled, its candidate
    solids and stacks (rows of solid indices, -1 padding) with the game's words for them, the
    row and label of the current stack, the neighbours' solids, and the colour of each stack's
    layers where the position fixes it (-1 where the reading paints it; None: the solids' own)."""

    patch: Patch
    blocks: FloatArray
    stacks: IntArray
    current: tuple[int, str]
    neighbours: FloatArray
    kinds: tuple[Any, ...] = ()
    fixed: IntArray | None = None

    def layer_colours(self) -> IntArray:
        """Returns the colour of each stack's layers where it is known before any painting (T x K)."""
        if self.fixed is not None:
            return self.fixed
        colours = self.blocks[self.stacks.clip(min=0), COLOUR].astype(np.int64) if len(self.blocks) else \
            np.full(self.stacks.shape, -1, np.int64)
        return np.asarray(np.where(self.stacks >= 0, colours, -1), np.int64)


def build_models(plans: Sequence[CellPlan], camera: tuple[float, float, float],
                 kept: dict[tuple[str, bytes], Hits] | None = None) -> list[CellModel]:
    """Returns the cells' geometry: every ray cast at the candidates and at the neighbours (the
    casts at single solids taken from kept and kept there, if given: see cast_kept)."""
    models = []
    for plan in plans:
        points, square = plan.patch.points, plan.patch.square
        if kept is None:
            own, near = cast(plan.blocks, points, camera), cast(plan.neighbours, points, camera)
        else:
            own, near = (cast_kept(kept, square, plan.blocks, points, camera),
                         cast_kept(kept, square, plan.neighbours, points, camera))
        behind = backdrop(plan.neighbours, near, len(points))
        layers = visible_layers(own, plan.stacks)
        parts = predicted_parts(own, plan.stacks[plan.current[0]], plan.blocks, behind,
                                (layers[0][plan.current[0]][None], layers[1][plan.current[0]][None]))
        models.append(CellModel(plan.patch, plan.blocks, plan.stacks, behind, *plan.current, plan.kinds,
                                coverage(own, plan.stacks, behind, plan.patch.grid, plan.layer_colours(), layers),
                                parts,
                                interior(parts, plan.patch.grid)))
    return models


Reader = Callable[[CellModel, StackScores], CellSeen]


def read_cells(models: Sequence[CellModel], lab: FloatArray, memory: ColourMemory, colours: Colours,
               read: Reader, basis: FloatArray) -> list[CellSeen]:
    """Returns every cell's reading from its samples' colours (lab, all cells in order); cells
    read as the current position says teach the memory their colours, and if it learnt much,
    every cell is read again (basis: the light field's terms at the samples, see field_basis)."""
    parts = np.concatenate([m.parts for m in models])
    cells = np.repeat(np.arange(len(models)), [len(m.patch.points) for m in models])
    inside = np.concatenate([m.inside for m in models])
    bare = inside & (parts == -1)
    field = field_on(basis[bare], lab[bare], memory.lab(MAT), basis)
    taught = lessons(parts, cells, lab, inside, colours)
    noise = noise_level(taught)
    readings = _read_all(models, lab, palette(memory, colours, noise), colours.faces, field, read)
    confirmed = np.array([seen.label == m.label for seen, m in zip(readings, models)])
    if teach(memory, taught, confirmed, colours.names) > RELEARNT:
        readings = _read_all(models, lab, palette(memory, colours, noise), colours.faces, field, read)
    return readings


def _read_all(models: Sequence[CellModel], lab: FloatArray, colours: Palette, faces: Sequence[int],
              mat: FloatArray, read: Reader) -> list[CellSeen]:
    """Returns every cell's reading with one set of prototypes and the mat's colour per sample."""
    table, ground = likelihoods(lab, colours, faces, mat)
    scored = score_all(models, table, ground, (lab, mat, colours))
    return [read(model, scores) for model, scores in zip(models, scored)]


def grouped_reading(scores: Mapping[str, float], looks: Mapping[str, object], current: str,
                    prior: Mapping[str, float] | None = None) -> CellSeen:
    """Returns a cell's reading from label scores (nats) when labels that look alike (one
    `looks` key) cannot be told apart: each look is scored by its best label, softened, the
    current label's look favoured and any prior (nats per label) added; inside a look the
    current label takes CURRENT_SHARE and the others share the rest evenly."""
    groups: dict[object, list[str]] = {}
    for label in scores:
        groups.setdefault(looks[label], []).append(label)
    keys, bias = list(groups), prior or {}
    costs = {str(index): -max(scores[label] / TEMPERATURE + bias.get(label, 0.0) for label in groups[key])
             - (CURRENT_PRIOR if current in groups[key] else 0.0) for index, key in enumerate(keys)}
    probs: dict[str, float] = {}
    for index, mass in probabilities(costs).items():
        probs.update(_split(mass, groups[keys[int(index)]], current))
    kept = {label: p for label, p in probs.items() if p >= MIN_PROBABILITY}
    return CellSeen.from_probs(kept or {max(probs, key=probs.__getitem__): max(probs.values())})


def _split(mass: float, members: Sequence[str], current: str) -> dict[str, float]:
    """Returns a look's probability shared among its labels: the current one first."""
    if len(members) == 1:
        return {members[0]: mass}
    if current not in members:
        return {label: mass / len(members) for label in members}
    rest = mass * (1 - CURRENT_SHARE) / (len(members) - 1)
    return {label: mass * CURRENT_SHARE if label == current else rest for label in members}


# -- observing -------------------------------------------------------------------------------


def checked_view(game: str, scene: Scene, board: Mapping[str, Any]) -> dict[str, str]:
    """Returns the current position's expected view, once scene and board fit the game."""
    if not isinstance(scene, Scene):
        raise ObserveError(f"observe needs a prepared Scene, not {type(scene).__name__}")
    if scene.mat.game != game:
        raise ObserveError(f"this scene shows the {scene.mat.label} mat, not {game}")
    try:
        view = expected_view(game, board)
    except ViewError as error:
        raise ObserveError(f"the position cannot be read: {error}") from None
    if len(view) != scene.mat.cells ** 2:
        raise ObserveError(f"the position is {board['size']}x{board['size']}, but the mat is "
                           f"{scene.mat.cells}x{scene.mat.cells}")
    return view


def checked_memory(memory: ColourMemory | None, fresh: Callable[[Kit], ColourMemory], kit: Kit) -> ColourMemory:
    """Returns the memory to use (a fresh one for the kit if None), or raises if it lacks a
    needed part."""
    if memory is None:
        return fresh(kit)
    if not isinstance(memory, ColourMemory) or fresh_names(fresh, kit) - set(memory.names):
        raise ObserveError("the memory must be a ColourMemory of this game's colour parts "
                           "(make one with the game's new_memory)")
    return memory


@cache
def fresh_names(fresh: Callable[[Kit], ColourMemory], kit: Kit) -> frozenset[str]:
    """Returns the parts a fresh memory for a kit names (worked out once per kit)."""
    return frozenset(fresh(kit).names)


Stacks = Mapping[str, Any]  # each occupied square's pieces, bottom first, in the game's terms
Planner = Callable[[Scene, Patch, Stacks, Mapping[str, str]], CellPlan]
Keyer = Callable[[str, Stacks], Hashable]


@dataclass(frozen=True, slots=True)
class StackGame:
    """What one game tells the engine: its colours, how finely and how far up cells are sampled,
    each square's stack in a position, a cell's plan (candidates and neighbours), what that
    depends on besides the camera (a key), and how a cell's stack scores become a reading."""

    name: str
    colours: Colours
    step_mm: float
    reach_mm: float
    stacks: Callable[[Mapping[str, Any]], Stacks]
    plan: Planner
    key: Keyer
    read: Reader


def patch_for(scene: Scene, square: str, game: StackGame) -> Patch:
    """Returns where a game's cell is sampled."""
    return sample_patch(scene, square, game.step_mm, game.reach_mm)


def sampling_for(game: StackGame, scene: Scene, memory: ColourMemory) -> Sampling:
    """Returns where a game's cells are sampled in a scene, kept in a StackMemory per camera."""
    camera = (scene.view.homography.tobytes(), scene.place.centre, scene.frame.shape[:2])
    kept = memory.sampled if isinstance(memory, StackMemory) else None
    if kept is not None and kept[0] == camera:
        return kept[1]
    found = sampling(scene, game.step_mm, game.reach_mm)
    if isinstance(memory, StackMemory):
        memory.sampled = (camera, found)
    return found


def cell_models(game: StackGame, scene: Scene, board: Mapping[str, Any], view: Mapping[str, str],
                memory: ColourMemory, sampled: Sampling) -> list[CellModel]:
    """Returns every cell's model (sampled: where each square is sampled, and the casts kept for
    that camera), kept in a StackMemory for the next frame (a cell's geometry changes only with
    the camera or the stacks around it)."""
    kept = memory.geometry if isinstance(memory, StackMemory) else {}
    camera = (scene.view.homography.tobytes(), scene.place.centre)
    stacks = game.stacks(board)
    keys = {square: (camera, game.key(square, stacks)) for square in scene.squares()}
    plans = [game.plan(scene, sampled.patches[square], stacks, view)
             for square, key in keys.items() if key not in kept]
    models_built = build_models(plans, scene.place.centre, sampled.casts)
    built = {plan.patch.square: model for plan, model in zip(plans, models_built)}
    models = [built[square] if square in built else kept[key] for square, key in keys.items()]
    if isinstance(memory, StackMemory):
        memory.geometry = {key: model for key, model in zip(keys.values(), models)}
    return models


def anticipate_stacks(game: StackGame, scene: Scene, board: Mapping[str, Any], memory: ColourMemory) -> bool:
    """Builds and keeps in a StackMemory every cell's geometry for a new position, seen from a
    still scene's camera, so that the next still frame of that camera reads as quickly as an
    unchanged position does; does nothing, and says so, for a memory that keeps no geometry."""
    if not isinstance(memory, StackMemory):
        return False
    view = checked_view(game.name, scene, board)
    cell_models(game, scene, board, view, memory, sampling_for(game, scene, memory))
    return True


def observe_stacks(game: StackGame, scene: Scene, board: Mapping[str, Any], memory: ColourMemory | None,
                   fresh: Callable[[Kit], ColourMemory], frame: int | None) -> Observation:
    """Returns what a still frame shows on every cell of a game, given the current position."""
    view = checked_view(game.name, scene, board)
    colours = checked_memory(memory, fresh, scene.kit)
    sampled = sampling_for(game, scene, colours)
    models = cell_models(game, scene, board, view, colours, sampled)
    readings = read_cells(models, scene.lab_tapped(sampled.taps), colours, game.colours, game.read, sampled.basis)
    return Observation(game.name, {m.patch.square: seen for m, seen in zip(models, readings)}, frame)
