"""Reading a still frame with the analysis-by-synthesis engine (vision.observe.synthesis).

`observe_model` is what the games' observers call. It validates its input (nothing is kept
from bad input), registers the mat and reads its light (vision.observe.calibrate), places the
camera, builds the rays and every label's predictions (or takes them from the memory, or
derives them from the last position's, predicting again only near what moved), learns the
colours and the sides' shades from what the position is sure of, and scores every cell. Cells
near those that read differently from the position are read again with those readings as
context (a piece that moved hides other rays); a half of a two-cell piece is believed only as
far as a neighbour may show its other half; the label the position holds is a little favoured
(`stay`), which decides only what the camera cannot tell apart.

The camera place: tall pieces need the camera centre to a few mm. The lens is fitted on the
registered grid for several fields of view (vision.observe.calibrate.lens_places); the pieces
of the referee's position choose among those places and refine the best by a pattern search,
each place judged by how well the pieces drawn from it explain fixed rays around them. It is
kept per board fix and fitted again when the pieces double: from where it was, unless one of the
lens fits explains the pieces clearly better (a place fitted on one low piece can sit far down the
focal family, and a local search from there does not climb back).
"""

from __future__ import annotations

from dataclasses import replace
from functools import partial
from typing import Any, Callable, Mapping, Sequence, TypeVar, cast

import numpy as np
from numpy.typing import NDArray

from vision.expect import ViewError, expected_view
from rules.core import square_name
from vision.observation import EMPTY, CellSeen, Observation
from vision.observe.calibrate import ROOK_STEPS
from vision.observe.calibrate import Registration, lens_places, light_on, register, weighted
from vision.observe.colours import ColourMemory, probability_table
from vision.observe.context import ObserveError, Scene
from vision.observe.casting import FACES, Array32, FloatArray, IntArray, within_reach
from vision.observe.geometry import Geometry, variant_costs
from vision.observe.synthesis import (Frame, Model, Placed, SynthMemory, Synthesis, memory_for, prototypes_of,
                                      Scorer, matte_costs)
from vision.board import BoardView
from vision.pose import CameraPlace, place_for_focal, told_focal

Surfaces = tuple[IntArray, NDArray[np.bool_]]  # the surface each ray shows, whether every cast agrees
MIN_SIDE_RAYS = 12  # sure rays on sides facing one way needed to learn their shade


# -- the camera place --------------------------------------------------------------------------

PLACE_STEPS = ((24.0, 48.0), (12.0, 24.0), (6.0, 12.0), (3.0, 6.0))  # (across, height) mm
MOVES_PER_STEP = 4
PINNED_STEPS = 2  # the pieces only nudge a pinned place (pinned_place), with the finer PLACE_STEPS from this one on
PLACE_GAIN = 10.0  # nats a place must explain better to be taken over the one at hand
START_GAIN = 50.0  # ... and another start over the first (the grid's likeliest lens fit, or the place kept)


PLACE_SPACING_MM = 4.0  # the spacing of the fixed rays the camera place is judged on
PLACE_REACH = 1.25  # how far around each piece (in cells) they reach

Kept = TypeVar("Kept")  # a value kept in the memory per board fix (per_fix)


def place_rays(synthesis: Synthesis, context: Mapping[str, str]) -> tuple[FloatArray, NDArray[np.int_]]:
    """Returns fixed ground points around the context's pieces and the cell each lies in."""
    pitch = synthesis.scene.mat.pitch_mm
    ticks = np.arange(-PLACE_REACH * pitch, PLACE_REACH * pitch + 1e-9, PLACE_SPACING_MM)
    patch = np.stack(np.meshgrid(ticks, ticks, indexing="ij"), axis=-1).reshape(-1, 2)
    centres = [synthesis.centres[synthesis.index[square]] for square, label in context.items() if label != EMPTY]
    if not centres:
        return np.zeros((0, 2)), np.zeros(0, np.int_)
    points = unique_rows(np.round(np.vstack([centre + patch for centre in centres]), 3))
    size = synthesis.scene.mat.cells
    files, ranks = (np.clip((points // pitch).astype(int), 0, size - 1).T)
    return points, files * size + ranks


def unique_rows(points: FloatArray) -> FloatArray:
    """Returns the distinct rows of points (N x 2) sorted by x, then y, as np.unique(axis=0)
    does (a stable sort on both columns: far quicker than its sort of whole rows)."""
    order = np.lexsort((points[:, 1], points[:, 0]))
    rows = points[order]
    keep = np.ones(len(rows), np.bool_)
    keep[1:] = (rows[1:] != rows[:-1]).any(axis=1)
    return np.asarray(rows[keep], np.float64)


def fit_place(synthesis: Synthesis, context: Mapping[str, str], prototypes: FloatArray,
              starts: Sequence[CameraPlace], steps: Sequence[tuple[float, float]]) -> CameraPlace:
    """Returns the camera place whose drawing of the context position best explains the frame
    around the pieces: the best of some starting places, then a pattern search over the camera
    centre (the pieces' parallax pins it down). Every place is judged on the same fixed rays."""
    points, cells = place_rays(synthesis, context)
    if not len(points):
        return starts[0]
    origins = points[:, None, None, :]
    table, ground = RayCosts(synthesis, synthesis.frame.colours(points), prototypes), synthesis.ground_code(origins)
    focal = starts[0].focal_px

    def costs(centres: Sequence[FloatArray]) -> list[float]:
        """Returns how badly the context, seen from each of some camera centres, explains the rays."""
        seen = synthesis.codes_from(context, cells, origins, [placed_at(centre, focal) for centre in centres], ground)
        return table.totals([codes.reshape(-1) for codes in seen])

    centres = [np.array(start.centre, np.float64) for start in starts]
    if len(centres) == 1:  # its cost is worked out with the first trials
        return placed_at(pattern_search(costs, centres[0], None, steps), focal)
    best, best_cost = chosen_start(centres, costs(centres))
    return placed_at(pattern_search(costs, best, best_cost, steps), focal)


def chosen_start(centres: Sequence[FloatArray], scores: Sequence[float]) -> tuple[FloatArray, float]:
    """Returns the start to search the camera place from, and its cost: the first (the grid's
    likeliest lens fit, or the place kept) unless another explains the pieces START_GAIN better.
    The rays' costs are not independent (neighbouring rays see the same blur, shadow and
    gloss), so their sum overstates how sure the pieces are: a lying block's sharp shadow, read
    as its side, once took a camera 640 mm up for one at 502 (sweep 1102, 7x7) by 30 nats."""
    best, best_cost = centres[0], scores[0]
    for centre, score in zip(centres[1:], scores[1:]):
        if score < best_cost - START_GAIN:
            best, best_cost = centre, score
    return best, best_cost


def placed_at(centre: FloatArray, focal: float) -> CameraPlace:
    """Returns the camera place at a centre (an array) with a focal length."""
    return CameraPlace((float(centre[0]), float(centre[1]), float(centre[2])), focal)


class RayCosts:
    """The costs of fixed rays (one per colour) showing surfaces (shade_costs, the sides' shades
    unknown, no sheen: its latitude in colour would blur the outlines a place is judged on), each
    worked out the first time it is asked for."""

    def __init__(self, synthesis: Synthesis, colours: FloatArray, prototypes: FloatArray) -> None:
        self.synthesis, self.colours, self.prototypes = synthesis, colours, prototypes
        self.surfaces = synthesis.unknown + 1
        self.table = np.full(len(colours) * self.surfaces, np.nan, np.float32)

    def total(self, codes: NDArray[np.int_]) -> float:
        """Returns the summed cost of every ray showing its surface (codes: one per ray, in order)."""
        return self.totals([codes])[0]

    def totals(self, codes: Sequence[NDArray[np.int_]]) -> list[float]:
        """Returns total for each of some sets of codes (each one per ray, in order), the costs
        not yet known worked out together."""
        keys = [np.arange(len(each)) * self.surfaces + each for each in codes]
        every = np.concatenate(keys)
        wanted = np.zeros(len(self.table), np.bool_)
        wanted[every[np.isnan(self.table.take(every))]] = True
        missing = np.flatnonzero(wanted)
        if len(missing):
            model, frame = self.synthesis.model, self.synthesis.frame
            self.table[missing] = matte_costs(model, self.colours, self.prototypes, frame.noise, None,
                                              missing // self.surfaces, missing % self.surfaces)
        return [float(self.table.take(each).sum()) for each in keys]


def pattern_search(costs: Callable[[Sequence[FloatArray]], list[float]], start: FloatArray,
                   start_cost: float | None, steps: Sequence[tuple[float, float]]) -> FloatArray:
    """Returns the point near a start where a cost is least (costs: of some points at once;
    the start's, if not given, is worked out with the first trials), stepping along x, y and z
    by shrinking (across, height) steps while a step lowers it by PLACE_GAIN at least (a flat
    cost, as low pieces give, does not send it wandering)."""
    best, best_cost = start, start_cost
    for across, height in steps:
        for _ in range(MOVES_PER_STEP):
            trials = [best + sign * np.array(axis) for axis in ((across, 0, 0), (0, across, 0), (0, 0, height))
                      for sign in (1.0, -1.0)]
            if best_cost is None:
                best_cost, *scores = costs([best, *trials])
            else:
                scores = costs(trials)
            if min(scores) >= best_cost - PLACE_GAIN:
                break
            best, best_cost = trials[int(np.argmin(scores))], min(scores)
    return best


def per_fix(scene: Scene, memory: ColourMemory, name: str, compute: Callable[[], Kept]) -> Kept:
    """Returns a named value kept in the memory per board fix (the homography's bytes with the
    value), computed only when the fix is new (or the memory keeps nothing)."""
    view = scene.view.homography.tobytes()
    kept = kept_for_fix(memory, name, view)
    if kept is not None:
        return cast(Kept, kept[1])
    value = compute()
    if isinstance(memory, SynthMemory):
        memory.per_fix[name] = (view, value)
    return value


def kept_for_fix(memory: ColourMemory, name: str, view: bytes) -> tuple[bytes, object] | None:
    """Returns the named entry (the board fix with its value, which may be None) the memory
    keeps for a board fix, or None when it keeps none for that fix."""
    kept = memory.per_fix.get(name) if isinstance(memory, SynthMemory) else None
    return kept if kept is not None and kept[0] == view else None


def registration_of(scene: Scene, memory: ColourMemory) -> Registration:
    """Returns the mat's registration for the scene's board fix, kept in the memory per fix."""
    return per_fix(scene, memory, "registered", lambda: register(scene))


def camera_place(model: Model, frame: Frame, context: Mapping[str, str], memory: ColourMemory) -> CameraPlace:
    """Returns the scene's camera place refined on the pieces of the context position: kept in
    the memory per board fix, fitted again (from where it was, or from a lens fit that the
    pieces clearly prefer) once the pieces have doubled."""
    scene = frame.scene
    view = scene.view.homography.tobytes()
    pieces = sum(label != EMPTY for label in context.values())
    placed = memory.placed if isinstance(memory, SynthMemory) else None
    if placed is not None and place_holds(placed, view, pieces):
        return placed.place
    warm = placed is not None and placed.view == view and placed.pieces > 0
    pinned = per_fix(scene, memory, "pinned", lambda: pinned_place(scene.view))
    starts = [pinned] if pinned is not None else lens_fits(scene, frame.registration, memory)
    if warm and placed is not None and pinned is None:  # kept unless a lens fit explains the pieces clearly better
        starts = [placed.place, *starts]
    place = starts[0]
    if model.fit_place:
        synthesis = Synthesis(model, frame, place)
        steps = PLACE_STEPS[PINNED_STEPS:] if pinned is not None else PLACE_STEPS[2 if warm else 1:]
        place = fit_place(synthesis, context, prototypes_of(model, memory), starts, steps)
    if isinstance(memory, SynthMemory):
        memory.placed = Placed(view, place, pieces)
    return place


def pinned_place(view: BoardView) -> CameraPlace | None:
    """Returns the camera place the homography pins down on its own (a camera leaning far enough
    off straight down tells its focal length: vision.pose.told_focal), or None."""
    focal = told_focal(view) if not view.lens_known else None
    return None if focal is None else place_for_focal(view, focal)


def lens_fits(scene: Scene, registration: Registration, memory: ColourMemory) -> list[CameraPlace]:
    """Returns the camera places of the lens fits on the registered grid (lens_places), kept in
    the memory per board fix (each costs several single-view calibrations)."""
    return list(per_fix(scene, memory, "lens_fits", lambda: tuple(lens_places(scene, registration))))


def place_holds(placed: Placed, view: bytes, pieces: int) -> bool:
    """Tells whether a kept camera place stands for a board fix (its homography's bytes) and a
    position with this many occupied cells: fitted on that fix, and the pieces have not doubled
    since."""
    return placed.view == view and (pieces < 2 * placed.pieces or not pieces)


# -- observing ---------------------------------------------------------------------------------

REREADS = 2  # rounds of reading cells again around those that changed
KEPT_GEOMETRIES = 6
MAX_DERIVED = 12  # a position changed on more cells than this gets its geometry built afresh
LISTED = 1e-5  # labels less probable than this are left out of a reading
UNPAIRED = 1e-4  # the least weight a half keeps when no free neighbour shows its other half (a
# deep-shadowed pit walled in by pieces can look like a dark top: 0.02 left it the likelier)


def check_inputs(model: Model, scene: Scene, board: Mapping[str, Any],
                 memory: ColourMemory | None) -> dict[str, str]:
    """Returns the position's expected view once scene, position and memory fit the model, or
    raises ObserveError naming what does not."""
    if not isinstance(scene, Scene):
        raise ObserveError(f"observe needs a prepared Scene, not {type(scene).__name__}")
    if scene.mat.game != model.game:
        raise ObserveError(f"this scene shows the {scene.mat.label} mat, not {model.game}")
    try:
        view = expected_view(model.game, board)
    except ViewError as error:
        raise ObserveError(f"the position cannot be read: {error}") from None
    if len(view) != scene.mat.cells ** 2:
        raise ObserveError(f"the position is {board['size']}x{board['size']}, but the mat is "
                           f"{scene.mat.cells}x{scene.mat.cells}")
    if memory is not None and (not isinstance(memory, ColourMemory) or set(model.parts) - set(memory.names)):
        raise ObserveError(f"the memory must be a ColourMemory of the {model.game} colours "
                           f"({', '.join(model.parts)})")
    unknown = sorted(set(view.values()) - set(model.labels))
    if unknown:
        raise ObserveError(f"the position shows {unknown[0]!r}, which the {model.game} observer cannot read")
    return view


def remember(memory: ColourMemory, key: tuple[Any, ...], make: Callable[[], Geometry]) -> Geometry:
    """Returns the geometry a memory keeps for a key, or makes it (and keeps it, with the few
    last ones)."""
    kept = memory.geometries if isinstance(memory, SynthMemory) else {}
    if key in kept:
        return kept[key]
    geometry = make()
    if isinstance(memory, SynthMemory):
        memory.geometries = {**dict(list(kept.items())[1 - KEPT_GEOMETRIES:]), key: geometry}
    return geometry


def geometry_for(synthesis: Synthesis, context: Mapping[str, str], key: tuple[Any, ...],
                 memory: ColourMemory) -> Geometry:
    """Returns the geometry of a context position: kept in the memory; else derived from one it
    keeps for the same camera, only the cells near what changed predicted again (a move); else
    built afresh."""
    kept = list(memory.geometries.values()) if isinstance(memory, SynthMemory) else []
    bases = [geometry for geometry in kept if geometry.key[:2] == key[:2] and geometry.shared == 0]

    def make() -> Geometry:
        """Returns the geometry derived from the latest base, or built."""
        if not bases:
            return synthesis.build(context, key)
        base = bases[-1]
        changed = [square for square, label in context.items() if base.context.get(square) != label]
        if len(changed) > MAX_DERIVED:
            return synthesis.build(context, key)
        derived = replace(base, key=key, context=dict(context), primary=base.primary.copy(),
                          secondary=base.secondary.copy())
        touched = synthesis.touched(base.context, context, base.origins)
        if len(touched):
            synthesis.predict(derived, context, touched)
        derived.pair_again(base, touched, synthesis.unknown + 1)
        return derived

    return remember(memory, key, make)


def context_surfaces(synthesis: Synthesis, geometry: Geometry, context: Mapping[str, str]) -> Surfaces:
    """Returns the surface each ray shows under the context position (C x R) and whether every
    cast agrees on it."""
    first = {label: v for v, (label, _) in reversed(list(enumerate(synthesis.variants)))}
    chosen = np.array([first[context[square]] for square in synthesis.squares])
    rows = np.arange(len(chosen))
    primary, secondary = geometry.primary[chosen, rows], geometry.secondary[chosen, rows]
    return primary, primary == secondary


def learn_colours(synthesis: Synthesis, surfaces: Surfaces, colours: FloatArray,
                  memory: ColourMemory) -> None:
    """Pulls each part's prototype towards the rays the context is sure show its top."""
    primary, sure = surfaces
    per_ray = colours.reshape(primary.shape + (3,))
    for name, part in synthesis.parts.items():
        mask = sure & (primary == FACES * part)
        cells = int(np.count_nonzero(mask.any(axis=1)))
        if cells:
            memory.learn(name, per_ray[mask], cells=cells)


def side_shades(surfaces: Surfaces, colours: FloatArray, prototypes: FloatArray) -> FloatArray:
    """Returns the shade of the pieces' sides facing each way (+x, -x, +y, -y), learnt on the
    rays the context is sure show a side (NaN where too few do)."""
    primary, sure = surfaces
    codes, seen = primary[sure], weighted(colours)[sure.reshape(-1)]
    parts = weighted(prototypes)
    shades = np.full(4, np.nan)
    for face in range(1, FACES):
        pick = (codes % FACES == face) & (codes < FACES * len(parts))
        if int(pick.sum()) >= MIN_SIDE_RAYS:
            proto = parts[codes[pick] // FACES]
            shades[face - 1] = float(np.median(np.sum(seen[pick] * proto, axis=1) / np.sum(proto * proto, axis=1)))
    return shades


def readings(synthesis: Synthesis, geometry: Geometry, costs: Array32, cells: NDArray[np.int_],
             context: Mapping[str, str]) -> list[CellSeen]:
    """Returns the reading of some cells: each label's best variant, scaled to the model's looks,
    the label the position holds there a little favoured (`stay`)."""
    by_variant = variant_costs(geometry, costs, cells) * (synthesis.model.looks / geometry.primary.shape[2])
    labels = list(synthesis.model.labels)
    table = np.full((len(labels), len(cells)), np.inf)
    for v, (label, _) in enumerate(synthesis.variants):
        row = labels.index(label)
        table[row] = np.minimum(table[row], by_variant[v])
    held = [labels.index(context[synthesis.squares[c]]) for c in cells]
    table[held, np.arange(len(cells))] -= synthesis.model.stay
    probs = probability_table(table)
    listed = zip(probs.T.tolist(), (probs >= LISTED).T.tolist())
    return [CellSeen.from_probs({label: p for label, p, kept in zip(labels, column, keep) if kept})
            for column, keep in listed]


def doubted(context: Mapping[str, str], seen: Mapping[str, CellSeen]) -> dict[str, str]:
    """Returns the cells whose context label is more likely wrong than right, with their readings."""
    return {square: cell.label for square, cell in seen.items()
            if cell.label != context[square] and cell.probability(context[square]) < 0.5}


def near_cells(synthesis: Synthesis, squares: Sequence[str]) -> NDArray[np.int_]:
    """Returns the cells within reach of any of some squares."""
    marks = synthesis.grid[[synthesis.index[square] for square in squares]]
    return np.flatnonzero(within_reach(marks, synthesis.grid, True).any(axis=0))


def observe_model(model: Model, scene: Scene, board: Mapping[str, Any], memory: ColourMemory | None,
                  frame: int | None = None) -> Observation:
    """Returns what a scene shows on every cell of a model's game (see the module docstring)."""
    context = check_inputs(model, scene, board, memory)
    store = memory if memory is not None else memory_for(model)
    registration = registration_of(scene, store)
    lights = store.lights if isinstance(store, SynthMemory) else None
    still = Frame(scene, registration, light_on(scene, context, registration, lights))
    synthesis = Synthesis(model, still, camera_place(model, still, context, store))
    key = (synthesis.place.centre, scene.view.homography.tobytes(), tuple(sorted(context.items())))
    geometry = geometry_for(synthesis, context, key, store)
    colours = still.ray_colours(geometry)
    surfaces = context_surfaces(synthesis, geometry, context)
    learn_colours(synthesis, surfaces, colours, store)
    prototypes = prototypes_of(model, store)
    scorer = Scorer(model, colours, prototypes, still.noise, side_shades(surfaces, colours, prototypes))
    costs = scorer.costs(geometry)
    everything = np.arange(len(synthesis.squares))
    cells = dict(zip(synthesis.squares, readings(synthesis, geometry, costs, everything, context)))
    cells = reread(synthesis, geometry, (scorer, costs), context, cells, store)
    if model.halves:
        cells = paired(synthesis, cells, context, partners_of(board))
    return Observation(model.game, cells, frame)


def anticipate(model: Model, scene: Scene, board: Mapping[str, Any], memory: ColourMemory) -> bool:
    """Builds and keeps in the memory what the next still frame of the same board fix will be read
    with under a new position (its rays' geometry, how they are sampled and scored), so that
    reading it costs what reading an unchanged position does; does nothing, and says so, while
    the memory has no camera place for that fix or the place will be fitted again (the pieces
    have doubled). The scene is the last still one: only its fix and frame size are used."""
    context = check_inputs(model, scene, board, memory)
    view = scene.view.homography.tobytes()
    registered = kept_for_fix(memory, "registered", view)
    if not isinstance(memory, SynthMemory) or memory.placed is None or registered is None:
        return False
    pieces = sum(label != EMPTY for label in context.values())
    if not place_holds(memory.placed, view, pieces):
        return False
    still = Frame(scene, cast(Registration, registered[1]), None)
    synthesis = Synthesis(model, still, memory.placed.place)
    key = (synthesis.place.centre, view, tuple(sorted(context.items())))
    geometry = geometry_for(synthesis, context, key, memory)
    still.sampling(geometry)
    geometry.plan_from(0, len(model.part_names))
    return True


def reread(synthesis: Synthesis, geometry: Geometry, scored: tuple[Scorer, Array32], context: Mapping[str, str],
           cells: dict[str, CellSeen], memory: ColourMemory) -> dict[str, CellSeen]:
    """Returns the readings once the cells near those that read differently from the context have
    been read again with those readings as context (a piece that moved hides other rays);
    scored: the frame's scorer and the geometry's costs."""
    scorer, costs = scored
    current = dict(context)
    for _ in range(REREADS):
        changed = doubted(current, cells)
        if not changed:
            break
        current.update(changed)
        near = near_cells(synthesis, list(changed))
        key = (*geometry.key, tuple(sorted(current.items())))
        again = remember(memory, key, partial(reread_geometry, synthesis, geometry, dict(current), near, key))
        fresh = readings(synthesis, again, scorer.costs(again, costs), near, context)
        cells.update(zip((synthesis.squares[c] for c in near), fresh))
    return cells


def partners_of(board: Mapping[str, Any]) -> dict[str, str]:
    """Returns, for each cell a piece lies over with another, that other cell (the position's
    `other` fields)."""
    return {square: str(piece["other"]) for square, stack in board.get("cells", {}).items()
            for piece in stack if isinstance(piece, dict) and "other" in piece}


def paired(synthesis: Synthesis, cells: Mapping[str, CellSeen], context: Mapping[str, str],
           partners: Mapping[str, str]) -> dict[str, CellSeen]:
    """Returns the readings with each half of a piece that lies over two cells (the model's
    `halves`) made no likelier than twice the chance that a neighbour shows its other half; a
    neighbour counts only if it may hold it (free_for: context, the position's labels; partners,
    each lying piece's other cell)."""
    halves, size = synthesis.model.halves, synthesis.scene.mat.cells
    result = dict(cells)
    for square, seen in cells.items():
        kinds = {halves[label] for label in seen.probs if label in halves}
        if not kinds:
            continue
        file, rank = synthesis.grid[synthesis.index[square]]
        names = [square_name(file + df, rank + dr) for df, dr in ROOK_STEPS
                 if 0 <= file + df < size and 0 <= rank + dr < size]
        neighbours = [cells[name] for name in names if free_for(square, name, cells, context, partners)]
        support = {kind: max((sum(p for label, p in other.probs.items() if halves.get(label) == kind)
                              for other in neighbours), default=0.0) for kind in kinds}
        if min(support.values()) >= 0.5:  # every half fully supported: the reading stands as it is
            continue
        weights = {label: p * (min(1.0, max(2 * support[halves[label]], UNPAIRED)) if label in halves else 1.0)
                   for label, p in seen.probs.items()}
        scale = sum(seen.probs.values()) / sum(weights.values())
        result[square] = CellSeen.from_probs({label: weight * scale for label, weight in weights.items()})
    return result


def free_for(square: str, neighbour: str, cells: Mapping[str, CellSeen], context: Mapping[str, str],
             partners: Mapping[str, str]) -> bool:
    """Tells whether a neighbour may hold the other half of a piece lying over a square: it holds
    no such piece in the position, or this square is its piece's other cell, or that piece may
    have moved (it or its other cell reads otherwise than the position holds)."""
    other = partners.get(neighbour)
    if other is None or other == square or other not in cells:
        return True
    return any(cells[name].label != context[name] for name in (neighbour, other))


def reread_geometry(synthesis: Synthesis, geometry: Geometry, context: Mapping[str, str],
                    near: NDArray[np.int_], key: tuple[Any, ...]) -> Geometry:
    """Returns a copy of the geometry predicted again on some cells under a changed context."""
    again = replace(geometry, key=key, context=dict(context), primary=geometry.primary.copy(),
                    secondary=geometry.secondary.copy())
    touched = np.intersect1d(near, synthesis.touched(geometry.context, context, geometry.origins))
    if len(touched):
        synthesis.predict(again, context, touched)
    again.extend_pairs(geometry, touched, synthesis.unknown + 1)
    return again
