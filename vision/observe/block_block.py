"""BLOCK.BLOCK's pixel observer: each column's top colour and height, by analysis by synthesis.

Rays run from the camera centre through a jittered grid of mat points (block_block_rays). Under
a guess of every column (height, top colour) each ray first meets a top, a side or the mat; the
guess is scored by the rays' colours (block_block_looks: prototypes learnt on the referee's
position, and what each unchanged surface showed in the last still frame), so parallax (a
taller top shows larger, farther out, over more side) gives the height. From the position, the
best non-overlapping cell changes are taken until none gains, then single changes are undone
where the whole guess gains (block_block_search). Probabilities: tempered likelihoods plus a
prior (few cells change, legal moves only add cubes), averaged over the fitted camera place and
a doubtful one either side along the lens's focal family (block_block_place), the guess settled
afresh from each while the place is in doubt. The place is fitted on the position's pieces in
the last still frame and kept, with the prototypes, rays and last frame, in the memory
(new_memory) between observations.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any, Callable, Mapping

import numpy as np

from vision.board import BoardView
from vision.expect import ViewError, expected_view
from vision.kit import Kit
from vision.observation import EMPTY, CellSeen, Observation
from vision.observe.block_block_looks import (
    GAME, TOPS, BlockBlockMemory, Looks, Surfaces, calibrate, check_kit, exposure, floored, kinds, neighbour_cube,
    plain_ground, ray_colours, require_memory, same_looks, side_colours, student_looks, surfaces, trusted,
)
from vision.observe.block_block_rays import BoolArray, FloatArray, IntArray, Rays, cast, ray_grid, ray_region, within
from vision.observe.block_block_lines import (
    KEPT_SHARE, LOST_SHARE, MIN_DIP, MIN_POINTS, clear_before, dips, line_points, missing, revised, sightlines,
)
from vision.observe.block_block_place import (
    PLACE_TEMPERATURE, Placing, family_place, family_range, fit, merged, placed, unknown,
)
from vision.observe.block_block_search import (
    Cell, Column, Sight, cell_scores, guess, guess_arrays, guess_hits, hits_for, label_of, lift_together, polish,
    reached, search_cells, sight_of, solve,
)
from vision.observe.colours import ColourMemory
from vision.observe.context import ObserveError, Scene
from vision.pose import CameraPlace

SECOND_LOOK = True  # a frame read as illegal is read again under the nearest legal moves (pi.pipeline)
SECOND_LOOK_ASKS = False  # not a question: it is about heights the camera cannot see well, and a
# look under a candidate leans to it (on 73 recordings it read 8 more false moves)
LENS_FROM_MARKERS = True  # without a calibration the board fix corrects the distortion the markers tell ...
LENS_NEEDS_FOCAL = True  # ... only where the homography through it tells the focal length too
# (vision.pose.focal_told), which then places the camera (block_block_place.told), or where the
# markers pin the distortion down (vision.pose.lens_pinned: a camera straight above a mat filling
# much of the frame; uncorrected, sweep 1146's strong barrel read a bar2 as an ell). Taken
# everywhere, the place fitted along the focal family on a fix through the markers' lens went far
# too low (the committed realistic fixtures read 9 and 1 moves of 21, against 21 and 21)
LEVELS_AHEAD = 4  # a bar4 stood upright adds four cubes to one column
HALF_SIDE_MM, JOIN_MM = 12.75, 0.5  # half a footprint; cubes of one block join over the 1 mm gap
PRINT_TOLERANCE_MM = 1.0  # how far off a ray may meet the printed mat (markers count within it)
RAY_SPACING_MM, MAX_RAYS = 2.0, 30000
REGION_LEVELS = 3  # the ray region grows in steps of this many cubes (so it lasts a few moves)
TEMPERATURE, UNFITTED_TEMPERING = 6.0, 3.0  # rays per independent look; more, place unfitted
MIN_LISTED, GEOMETRIES = 1e-6, 4  # least listed probability; ray sets kept
SAME_VIEW_PX, REFIT_CUBES = 2.0, 2  # a view's place is kept while its grid stays this close
SURE_DOUBT = 0.05  # a place in more doubt (log focal length) is fitted again at every cube added,
                   # and its reading settles the guess afresh from each place
REGION_PAD_MM = 20.0  # the ray region's margin for a place fitted a little sideways
VIEW_WEIGHTS = (2.0, 1.0, 1.0)  # the prior weights of the fitted place and one doubt either side
UNFITTED_SHIFTS = (-1.0, -0.5, 0.5, 1.0)  # with no place fitted, more places along the family (in doubts)
UNFITTED_WEIGHTS = (1.0,) * (len(UNFITTED_SHIFTS) + 1)  # ... all alike, the middle one included
LINE_DOUBT = 0.15  # the least doubt (log focal length) the grid lines are judged over: a fit may lie that far off
PARALLAX_PX, MOST_TEMPERING = 1.5, 25.0  # one cube moving a top's corner less than this is tempered


def read_columns(board: Mapping[str, Any], squares: list[str]) -> list[Column]:
    """Returns every square's column from a position, or raises ObserveError for a bad one."""
    try:
        expected_view(GAME, board)
    except ViewError as error:
        raise ObserveError(f"bad {GAME} position: {error}") from None
    side = math.isqrt(len(squares))
    if board["size"] != side:
        raise ObserveError(f"the position is {board['size']}x{board['size']} but the {GAME} mat "
                           f"is {side}x{side}")
    stacks = [board["cells"].get(square, []) for square in squares]
    return [Column(len(cubes), str(cubes[-1]["top"]) if cubes else EMPTY) for cubes in stacks]


def half_due(board: Mapping[str, Any]) -> bool:
    """Tells whether the half may come within the next two moves (a move and one more, as an
    unanswered question's next move may bring): RULES.md has brown put it down last, after
    white's tenth block, so not once it is down nor while white holds two blocks or more (a
    position without hands tells nothing: it may)."""
    off = board.get("off")
    hands = off.get("hand") if isinstance(off, Mapping) else None
    if not isinstance(hands, Mapping) or not all(isinstance(hands.get(p), Mapping) for p in ("1", "2")):
        return True
    blocks_left = sum(int(count) for shape, count in hands["2"].items() if shape != "half")
    return int(hands["1"].get("half", 0)) > 0 and blocks_left <= 1


def cube_mm(kit: Kit) -> float:
    """Returns the height of one cube in mm (the kit's, else KIT.md's 25)."""
    pieces = kit.pieces.get(GAME, {})
    return float(pieces["cube"].size_mm[2]) if "cube" in pieces else 25.0


def footprints(scene: Scene, board: Mapping[str, Any] | None = None) -> FloatArray:
    """Returns each cell's cube footprint (x0, x1, y0, y1) in board mm, cells in Scene order,
    reaching over the gap to a neighbour where the position's top cube is joined to one of its
    block there."""
    centres = np.array([scene.cell_centre(square) for square in scene.squares()])
    joins = joined_tops(board, scene.squares()) if board is not None else np.zeros((len(centres), 4))
    half = HALF_SIDE_MM + JOIN_MM * joins
    return np.column_stack([centres[:, 0] - half[:, 1], centres[:, 0] + half[:, 0],
                            centres[:, 1] - half[:, 3], centres[:, 1] + half[:, 2]])


def joined_tops(board: Mapping[str, Any], squares: list[str]) -> FloatArray:
    """Returns, per column and side (+x, -x, +y, -y), 1 where its top cube is joined to a cube of
    the same block beside it (at the same level), else 0."""
    found = np.zeros((len(squares), 4))
    size = int(board["size"])
    for index, square in enumerate(squares):
        stack = board["cells"].get(square, [])
        if stack:
            f, r, level = ord(square[0]) - ord("a"), int(square[1:]) - 1, len(stack) - 1
            for side, (df, dr) in enumerate(((1, 0), (-1, 0), (0, 1), (0, -1))):
                beside = neighbour_cube(board, (f + df, r + dr, level), size)
                found[index, side] = beside is not None and beside.get("block") == stack[-1].get("block")
    return found


def cached_rays(memory: BlockBlockMemory, boxes: FloatArray, region: FloatArray, place: CameraPlace,
                reach_mm: float, reach: FloatArray) -> Rays:
    """Returns the rays over a region from a place, every column (footprints) up to a reach, kept
    in the memory, with only the pairs each column's reach keeps (within; kept as well)."""
    key = (*np.round(region, 3), *np.round(place.centre, 3), reach_mm, *np.round(boxes.ravel(), 3))
    if key not in memory.geometry:
        grid = ray_grid(region, RAY_SPACING_MM, MAX_RAYS)
        rays = cast(grid, boxes, place, np.full(len(boxes), reach_mm))
        memory.geometry = {**dict(list(memory.geometry.items())[1 - GEOMETRIES:]), key: rays}
    trim, whole = (*key, *reach), memory.geometry[key]
    if trim not in memory.trimmed or memory.trimmed[trim][0] is not whole:
        kept = dict(list(memory.trimmed.items())[1 - 2 * GEOMETRIES:])
        memory.trimmed = {**kept, trim: (whole, within(whole, reach))}
    return memory.trimmed[trim][1]


def sampled(memory: BlockBlockMemory, scene: Scene, ground: FloatArray) -> FloatArray:
    """Returns the Lab colours where rays meet the mat in a scene (ray_colours), kept in the
    memory for the last two scenes."""
    for seen, points, colours in memory.sampled:
        if seen is scene and np.array_equal(points, ground):
            return colours
    colours = ray_colours(scene, ground)
    memory.sampled = [*memory.sampled[-1:], (scene, ground, colours)]
    return colours


def plain_of(memory: BlockBlockMemory, scene: Scene, ground: FloatArray) -> BoolArray:
    """Returns which rays meet the plain printed mat (plain_ground), kept in the memory for the last grid."""
    if memory.plain is None or not np.array_equal(memory.plain[0], ground):
        memory.plain = (ground, plain_ground(scene, ground, PRINT_TOLERANCE_MM))
    return memory.plain[1]


# -- the camera place --------------------------------------------------------------------------


def place_score(look: Looks, rays: Rays, columns: list[Column], cube: float, boxes: FloatArray,
                colours: IntArray) -> Callable[[CameraPlace], float]:
    """Returns how well the position explains the rays from a camera place (log-likelihood of
    the colours against the prototypes alone; the footprints exact, so that the parallax of low
    columns still counts, and the edges sharp: they are where a place shows best)."""
    standing = [i for i, column in enumerate(columns) if column.height > 0]
    alone = Looks(look.ground, look.top, look.side)

    def score(place: CameraPlace) -> float:
        """Returns the rays' log-likelihood under the position seen from a place."""
        seen = cast(rays.grid, boxes[standing], place, np.array([columns[i].height + 1 for i in standing]) * cube)
        sight = sight_of(seen, alone, colours[standing], [columns[i] for i in standing], cube, 1.0)
        return float(hits_for(sight, sight.start_mm, sight.start_tops, edges=False).ll.sum())

    return score


def same_view(memory: BlockBlockMemory, view: BoardView, other: BoardView | None = None) -> bool:
    """Tells whether the memory's place was fitted for this view, or another view is this one
    (grid corners within SAME_VIEW_PX)."""
    corners = memory.place_corners if other is None else other.to_image(other.mat.grid_corners())
    return corners is not None and float(np.abs(view.to_image(view.mat.grid_corners())
                                                 - corners).max()) <= SAME_VIEW_PX


def remember_place(memory: BlockBlockMemory, scene: Scene, placing: Placing, cubes: int) -> Placing:
    """Returns this view's placings merged (block_block_place.merged: weighted by their precision,
    the doubt widened where they disagree), kept in the memory."""
    kept = memory.placing if memory.placing is not None and same_view(memory, scene.view) else None
    placing, precision = merged(kept, memory.place_weight, placing)
    memory.placing, memory.place_cubes, memory.place_weight = placing, cubes, precision
    memory.place_corners = scene.view.to_image(scene.view.mat.grid_corners())
    return placing


# -- observing ---------------------------------------------------------------------------------


def new_memory(kit: Kit) -> BlockBlockMemory:
    """Returns a fresh memory for observing BLOCK.BLOCK with a kit."""
    check_kit(kit)
    return BlockBlockMemory(kit)


@dataclass(frozen=True, slots=True)
class Frame:
    """A frame made ready to read: its scene, the rays from the camera place, the looks."""

    scene: Scene
    memory: BlockBlockMemory
    placing: Placing
    region: tuple[FloatArray, float, FloatArray]  # the ray region, its reach, each column's reach
    sight: Sight
    colours: IntArray  # each column's side colours (columns x levels x sides)
    boxes: FloatArray  # each column's footprint
    tempering: FloatArray  # each cell's (parallax_tempering)
    fitted: bool  # the place was fitted on pieces (else it is the family's middle, doubting it all)
    half_due: bool  # the half may come now (half_due)


def observe(scene: Scene, board: Mapping[str, Any], memory: ColourMemory | None = None,
            frame: int | None = None) -> Observation:
    """Returns what the camera sees on every cell (top colour and height, with probabilities).

    `board` is the referee's current position, before the move being read: it calibrates the
    colours and the camera place and starts the search, but every cell is read from the pixels.
    `memory` (new_memory(kit)) carries what was learnt to the next observation of the game.
    """
    if not isinstance(scene, Scene):
        raise ObserveError(f"a Scene (vision.observe.context.prepare) is needed, not {type(scene).__name__}")
    if scene.mat.game != GAME:
        raise ObserveError(f"this scene shows the {scene.mat.label} mat, not {GAME}'s")
    check_kit(scene.kit)
    columns = read_columns(board, scene.squares())
    store = require_memory(memory, scene.kit)
    ready = look_at(scene, board, columns, store)
    cells = search_cells(ready.sight, columns, scene.squares(), [scene.cell_centre(s) for s in scene.squares()],
                         LEVELS_AHEAD, ready.tempering, ready.half_due)
    probs = read_cells(ready, cells, columns)  # labels left out count as very unlikely
    probs = lines_explained(ready, cells, probs)
    seen = Observation(GAME, {square: CellSeen.from_probs(
        {label: min(p, 1.0 - MIN_LISTED) for label, p in zip(cell.labels, chance.tolist()) if p >= MIN_LISTED})
        for square, cell, chance in zip(scene.squares(), cells, probs)}, frame)
    store.last = (scene, tuple(seen.cells[square].label for square in scene.squares()))
    return Observation(GAME, {square: censored(seen.cells[square], column)
                              for square, column in zip(scene.squares(), columns)}, frame)


def censored(cell: CellSeen, column: Column) -> CellSeen:
    """Returns a cell's reading with each top colour's LEVELS_AHEAD heights above the highest
    searched as probable as that height (all scaled alike to sum to one at most, so the odds
    between the labels read stay as they were): the rays are cast no higher, so a column read
    there may be taller (two moves on one column between two readings, the first a question left
    unanswered), and the referee must not take it for exactly that high."""
    highest = column.height + LEVELS_AHEAD
    above = {f"{colour}@{height}": cell.probs[f"{colour}@{highest}"] for colour in TOPS
             if f"{colour}@{highest}" in cell.probs for height in range(highest + 1, highest + LEVELS_AHEAD + 1)}
    if not above:
        return cell
    probs = {**cell.probs, **above}
    scale = min(1.0, 1.0 / sum(probs.values()))
    probs = {label: p * scale for label, p in probs.items()}
    return CellSeen(cell.label, probs[cell.label], probs)


@dataclass(frozen=True, slots=True)
class Layout:
    """Where a position's rays are cast from a view: the columns' footprints, the placing they
    are cast from, whether it is fitted and due to be fitted again, the region the rays cover,
    how high it reaches and how high each column may grow."""

    boxes: FloatArray
    placing: Placing
    fitted: bool
    refit: bool
    region: FloatArray
    widest: float
    reach: FloatArray

    def rays(self, scene: Scene, memory: BlockBlockMemory, shift: float = 0.0) -> Rays:
        """Returns the rays from the placing moved a number of doubts along the focal family (kept)."""
        place = placed(scene.view, scene.place, self.placing, shift)
        return cached_rays(memory, self.boxes, self.region, place, self.widest, self.reach)


def layout(scene: Scene, board: Mapping[str, Any], columns: list[Column], memory: BlockBlockMemory) -> Layout:
    """Returns where a position's rays are cast from the memory's place for the scene's view (the
    homography's alone when none is fitted); a region that also covers the focal family's ends
    when the place is due to be fitted again."""
    cube, boxes, view, anchor = cube_mm(scene.kit), footprints(scene, board), scene.view, scene.place
    cubes = sum(column.height for column in columns)
    fitted = memory.placing is not None and same_view(memory, view)
    placing = memory.placing if fitted and memory.placing is not None else unknown(view, anchor)
    refit = cubes >= (refit_cubes(memory, placing) if fitted else 1)
    reach = np.array([(column.height + LEVELS_AHEAD) * cube for column in columns])
    widest = REGION_LEVELS * math.ceil((max(c.height for c in columns) + LEVELS_AHEAD) / REGION_LEVELS) * cube
    places = [placed(view, anchor, placing, shift) for shift in (0.0, -1.0, 1.0)]
    ends = [family_place(view, anchor, end, placing.offset) for end in family_range(view, anchor)] if refit else []
    region = ray_region(boxes, places + ends, widest) + REGION_PAD_MM * np.array([-1, 1, -1, 1])
    return Layout(boxes, placing, fitted, refit, region, widest, reach)


def look_at(scene: Scene, board: Mapping[str, Any], columns: list[Column], memory: BlockBlockMemory) -> Frame:
    """Returns the frame ready to read: colours calibrated, the camera place fitted when due."""
    cube, view, anchor, cubes = cube_mm(scene.kit), scene.view, scene.place, sum(c.height for c in columns)
    lay = layout(scene, board, columns, memory)
    rays, placing = lay.rays(scene, memory), lay.placing
    colours = side_colours(board, scene.squares(), int(lay.reach.max() / cube) + 1)
    look, steady = calibrated(scene, memory, rays, columns, cube, lay.refit)
    if lay.refit:
        placing = remember_place(memory, scene, fit(view, anchor, place_score(steady, rays, columns, cube, lay.boxes,
                                                                               colours)), cubes)
        rays = replace(lay, placing=placing).rays(scene, memory)
    temperature = TEMPERATURE * (1.0 if lay.fitted or lay.refit else UNFITTED_TEMPERING)
    sight = sight_of(rays, look, colours, columns, cube, temperature)
    tempering = parallax_tempering(scene, placed(view, anchor, placing), columns, cube)
    return Frame(scene, memory, placing, (lay.region, lay.widest, lay.reach), sight, colours, lay.boxes, tempering,
                 lay.fitted or lay.refit, half_due(board))


def anticipate(scene: Scene, board: Mapping[str, Any], memory: ColourMemory) -> bool:
    """Readies the memory to read the next still frame of a still scene's view under a new
    position (the referee's, after a move), so that it reads quicker: the rays cast from the
    camera place and a doubt either side, the scene's colours where they meet the mat, which of
    them meet it plain and what surface each meets under the position, and its grid lines
    measured. Tells whether it could: only on the last still frame read, with a place fitted for
    its view, and not when the new position is due for the place to be fitted again (that fit is
    done on the next frame: done here, on this one, it read the realistic renders no better and
    with two more false moves)."""
    if not isinstance(memory, BlockBlockMemory) or memory.last is None or memory.last[0] is not scene:
        return False
    columns = read_columns(board, scene.squares())
    lay = layout(scene, board, columns, memory)
    if not lay.fitted or lay.refit:
        return False
    rays = lay.rays(scene, memory)
    for shift in (-1.0, 1.0):
        lay.rays(scene, memory, shift)
    sampled(memory, scene, rays.grid.ground)  # the last frame's colours, which the next read compares with its own
    position_surfaces(scene, memory, rays, columns, cube_mm(scene.kit))
    memory.line_dips(scene, lambda: dips(scene, line_points(scene.mat.cells, scene.mat.pitch_mm)))
    return True


def lines_explained(ready: Frame, cells: list[Cell], probs: list[FloatArray]) -> list[FloatArray]:
    """Returns the cells' probabilities with the grid lines explained (block_block_lines): those
    that vanished since the last still frame from this view where the reading still shows them,
    and those missing where the reading shows a column lower than the position holds it."""
    scene, memory, cube = ready.scene, ready.memory, ready.sight.cube
    last = memory.last
    if last is None or not same_view(memory, scene.view, last[0].view):
        return probs
    points = line_points(scene.mat.cells, scene.mat.pitch_mm)
    before = memory.line_dips(last[0], lambda: dips(last[0], points))
    now = memory.line_dips(scene, lambda: dips(scene, points))  # kept: the next read's `before`
    heights = [guess_arrays(list(cell.labels), cube)[0] for cell in cells]
    read = [int(np.argmax(p)) for p in probs]
    was, now_read = guess_arrays(list(last[1]), cube)[0], guess_arrays(guess(cells, read), cube)[0]
    held = ready.sight.start_mm
    vanished = (before >= MIN_DIP) & (now <= LOST_SHARE * before)
    lowered = bool((now_read < held).any())  # a column read lower than the position holds it
    if int(vanished.sum()) < MIN_POINTS and not lowered:
        return probs
    wide = Placing(ready.placing.focal, ready.placing.offset, max(ready.placing.doubt, LINE_DOUBT))
    places = [placed(scene.view, scene.place, wide, shift) for shift in (0.0, -1.0, 1.0)]
    if not lowered:
        few = sightlines(places, points.ground[vanished], ready.boxes)  # most vanish under a piece read
        if int((few.shown(was) & few.shown(now_read)).sum()) < MIN_POINTS:
            return probs
    lines = sightlines(places, points.ground, ready.boxes)
    shown_then, shown_now = lines.shown(was), lines.shown(now_read)
    clear = clear_before(before, shown_then)
    covered = np.all(lines.hidden_per_place(held), axis=0)
    lost = (clear & vanished & shown_now) | missing(before, now, shown_then, shown_now & covered)
    if int(lost.sum()) < MIN_POINTS:
        return probs
    return revised(probs, heights, read, lines, points.beside, lost, clear & (now >= KEPT_SHARE * before))


def refit_cubes(memory: BlockBlockMemory, placing: Placing) -> int:
    """Returns how many cubes the position must hold for the fitted place to be fitted again: half
    as many again as it was fitted on, or one more while it is in doubt (a fit on a few low
    pieces may lie a tenth off in focal length, which the next tall piece would be read by)."""
    if placing.doubt > SURE_DOUBT:
        return memory.place_cubes + 1
    return max(REFIT_CUBES, int(1.5 * memory.place_cubes))


def parallax_tempering(scene: Scene, place: CameraPlace, columns: list[Column], cube: float) -> FloatArray:
    """Returns per cell how much more its candidates' rays are tempered where one more cube moves
    its top's farthest corner by less than PARALLAX_PX pixels: straight below the camera a taller
    top only grows by a sub-pixel amount, within the blur and the pose error."""
    grid = scene.view.mat.grid_corners()
    px_per_mm = float(np.linalg.norm(np.diff(scene.view.to_image(grid[:2]), axis=0))
                      / max(float(np.linalg.norm(np.diff(grid[:2], axis=0))), 1e-9))
    cx, cy, cz = place.centre
    found = []
    for square, column in zip(scene.squares(), columns):
        x, y = scene.cell_centre(square)
        reach = math.hypot(abs(x - cx) + HALF_SIDE_MM, abs(y - cy) + HALF_SIDE_MM)
        low = column.height * cube
        shift = reach * px_per_mm * cube * cz / max((cz - low) * (cz - low - cube), 1.0)
        found.append(min(MOST_TEMPERING, max(1.0, (PARALLAX_PX / max(shift, 1e-9)) ** 2)))
    return np.array(found, np.float64)


def calibrated(scene: Scene, memory: BlockBlockMemory, rays: Rays, columns: list[Column],
               cube: float, refit: bool) -> tuple[Looks, Looks]:
    """Returns the rays' looks: colours at the mat's exposure against prototypes learnt where
    the position surely shows them, and against the last still frame where it can be trusted;
    and the looks to fit the camera place on (steady_looks; the same looks unless refit)."""
    labels = [label_of(column) for column in columns]
    raw = sampled(memory, scene, rays.grid.ground)
    seen, plain = position_surfaces(scene, memory, rays, columns, cube)
    tops = [column.top for column in columns]
    factor, noise = calibrate(memory, rays, seen, raw, tops)
    colours = raw * factor
    same = None
    if memory.last is not None and same_view(memory, scene.view, memory.last[0].view):
        disputed = [i for i, (read, held) in enumerate(zip(memory.last[1], labels)) if read != held]
        before = sampled(memory, memory.last[0], rays.grid.ground) * factor
        trust = trusted(memory, rays, before, seen, tops, floored(noise))
        trust[rays.ray[np.isin(rays.col, disputed)]] = False
        same = same_looks(colours, before, trust, noise)
    look = student_looks(memory, colours, plain, floored(noise), same, kinds(seen, tops))
    if not refit:
        return look, look
    return look, steady_looks(scene, memory, rays, (seen, plain), labels, (look, floored(noise)))


def position_surfaces(scene: Scene, memory: BlockBlockMemory, rays: Rays, columns: list[Column],
                      cube: float) -> tuple[Surfaces, BoolArray]:
    """Returns the surface each ray meets under the position, and which rays meet the plain mat
    (kept in the memory for the last rays and position)."""
    plain = plain_of(memory, scene, rays.grid.ground)
    labels = tuple(label_of(column) for column in columns)
    kept = memory.surfaced
    if kept is None or kept[0] is not rays or kept[1] != labels:
        blank = Looks(np.zeros(rays.count), np.zeros((3, rays.count)), np.zeros((3, rays.count)))
        hits = hits_for(sight_of(rays, blank, np.zeros((len(columns), 1, 4), np.int64), columns, cube, 1.0),
                        *guess_arrays(list(labels), cube))
        memory.surfaced = kept = (rays, labels, surfaces(rays, hits, plain))
    return kept[2], plain


def steady_looks(scene: Scene, memory: BlockBlockMemory, rays: Rays, shown: tuple[Surfaces, BoolArray],
                 labels: list[str], fallback: tuple[Looks, tuple[float, float]]) -> Looks:
    """Returns the prototype looks of the last still frame from this view (the move being read
    would mislead a fit of the camera place), blind on the rays that may meet a column it was
    read to show otherwise than the position holds; with no such frame, of this frame
    (fallback: its looks and noise); shown: the position's surfaces and the plain mat."""
    last = memory.last
    if last is None or not same_view(memory, scene.view, last[0].view):
        return fallback[0]
    colours = sampled(memory, last[0], rays.grid.ground)
    factor = exposure(memory, colours, shown[0].sure & (shown[0].code == -1))
    looks = student_looks(memory, colours * factor, shown[1], fallback[1], None, None)
    disputed = [i for i, (read, held) in enumerate(zip(last[1], labels)) if read != held]
    return blind(looks, np.unique(rays.ray[np.isin(rays.col, disputed)])) if disputed else looks


def blind(looks: Looks, ray: IntArray) -> Looks:
    """Returns the looks with some rays telling nothing: every surface alike there."""
    ground, top, side = looks.ground.copy(), looks.top.copy(), looks.side.copy()
    ground[ray], top[:, ray], side[:, ray] = 0.0, 0.0, 0.0
    return Looks(ground, top, side, looks.same, looks.before)


def read_cells(ready: Frame, cells: list[Cell], columns: list[Column]) -> list[FloatArray]:
    """Returns every cell's candidate probabilities averaged over camera places along the focal
    family: the fitted place and a doubtful one either side, or, with no place fitted, places
    spread over the whole family alike. A place in doubt (more than SURE_DOUBT, or none fitted)
    settles the guess afresh from each place, each weighed by its own guess's fit, so that a
    height the lens can trade for (an upright bar3 from a lower camera, a bar4 from a higher one)
    stays in doubt for the players to settle instead of going to the height the middle place
    prefers; a sure place keeps the middle place's guess (again only for the cells that changed
    and those whose rays cross theirs; the others keep the fitted place's reading)."""
    sight = ready.sight
    chosen, scores = settled(sight, cells)
    labels = guess(cells, chosen)
    fits, views = [float(guess_hits(sight, cells, chosen).ll.sum())], [scores]
    if ready.fitted and ready.placing.doubt <= SURE_DOUBT:
        doubted = changed_reach(sight, cells, labels)
        for shift in (-1.0, 1.0):
            other, again = shifted(ready, columns, shift)
            hits = hits_for(other, *guess_arrays(labels, sight.cube))
            fits.append(float(hits.ll.sum()))
            views.append([cell_scores(other, hits, again[i]) if i in doubted else scores[i]
                          for i in range(len(cells))])
        return marginal(np.array(fits), views, cells, VIEW_WEIGHTS)
    shifts, prior = ((-1.0, 1.0), VIEW_WEIGHTS) if ready.fitted else (UNFITTED_SHIFTS, UNFITTED_WEIGHTS)
    for shift in shifts:
        other, again = shifted(ready, columns, shift)
        chosen, scores = settled(other, again)
        fits.append(float(guess_hits(other, again, chosen).ll.sum()))
        views.append(scores)
    return marginal(np.array(fits), views, cells, prior)


def changed_reach(sight: Sight, cells: list[Cell], labels: list[str]) -> list[int]:
    """Returns the cells whose guess differs from the position and those whose rays cross theirs."""
    touched = np.zeros(sight.rays.count, np.bool_)
    for cell in cells:
        if labels[cell.index] != label_of(cell.start):
            touched[sight.rays.ray[cell.pairs]] = True
    return reached(sight.rays, cells, touched)


def settled(sight: Sight, cells: list[Cell]) -> tuple[list[int], list[FloatArray]]:
    """Returns the settled choice of every cell and its candidate log-posteriors."""
    return lift_together(sight, cells, polish(sight, cells, solve(sight, cells)))


def shifted(ready: Frame, columns: list[Column], shift: float) -> tuple[Sight, list[Cell]]:
    """Returns the sight from the place a number of doubts along the focal family, and its cells."""
    scene, (region, widest, reach) = ready.scene, ready.region
    place = placed(scene.view, scene.place, ready.placing, shift)
    moved = cached_rays(ready.memory, ready.boxes, region, place, widest, reach)
    other = sight_of(moved, ready.sight.look, ready.colours, columns, ready.sight.cube, ready.sight.temperature)
    centres = [scene.cell_centre(s) for s in scene.squares()]
    return other, search_cells(other, columns, scene.squares(), centres, LEVELS_AHEAD, ready.tempering, ready.half_due)


def marginal(fits: FloatArray, views: list[list[FloatArray]], cells: list[Cell],
             prior: tuple[float, ...]) -> list[FloatArray]:
    """Returns each cell's probabilities averaged over camera places (fits: the guess's
    log-likelihood from each; prior: each place's weight before it)."""
    weights = np.array(prior) * np.exp((fits - fits.max()) / PLACE_TEMPERATURE)
    weights /= weights.sum()
    probs = []
    for cell in cells:
        each = [np.exp(scores[cell.index] - scores[cell.index].max()) for scores in views]
        probs.append(sum(weight * p / p.sum() for weight, p in zip(weights, each)))
    return probs
