"""BLOCK.BLOCK's search for the columns a frame shows, from the referee's position.

Each cell tries its column at every height up to a few cubes above the position's, in either
top colour (and `half` one cube up); its candidates are scored with every other cell held
(`cell_scores`: the rays it meets, each showing its top, its side or what lies beyond, plus a
prior: a column seldom changes, and a legal move never takes cubes away; a ray by a top's edge
may show the top or the side, `near_edge`). From the position,
the best non-overlapping gains are taken round after round until none is left (`solve`), then
single changes are undone where the whole guess gains (`polish`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from vision.observation import EMPTY
from vision.observe.block_block_looks import TOPS, Looks
from vision.observe.block_block_rays import (
    BoolArray, FloatArray, Hits, IntArray, Rays, first_hits, near_edge, pair_heights,
)

CHANGE_NATS, REMOVAL_NATS = 1.0, 15.0  # prior cost per column grown (a move pays it per cell); shrunk or recoloured
EARLY_HALF_NATS = 40.0  # the prior cost of the half put down while it cannot come yet (RULES.md: it comes last)
MAX_ROUNDS = 12  # rounds of taking gains
KEPT_GUESSES = 4  # the guesses whose hits a sight keeps (a settled guess is scored whole next)
LIFT_SLACK = 60.0  # a columns' lift trial this much less probable (nats) than the settled guess is not settled


@dataclass(frozen=True, slots=True)
class Column:
    """The referee's column on a square: its height in cubes and its top's colour."""

    height: int
    top: str


@dataclass(frozen=True, slots=True)
class Sight:
    """The rays of one camera place, their looks, each pair's log-likelihood of its side and each
    ray's of the ground, the cube's height, the rays per independent look, and the position's
    columns (heights in mm, top indices)."""

    rays: Rays
    look: Looks
    side: FloatArray
    mat: FloatArray
    cube: float
    temperature: float
    start_mm: FloatArray
    start_tops: IntArray
    kept: dict[str, FloatArray] = field(default_factory=dict, compare=False, repr=False)
    guessed: dict[tuple[str, ...], Hits] = field(default_factory=dict, compare=False, repr=False)

    def pair_top(self, tops: IntArray) -> FloatArray:
        """Returns each pair's log-likelihood of its column's top (Looks.pair_top), from the
        second call on each top colour's worked out once and kept."""
        every = self.kept.get("tops")
        if every is None:
            if "once" not in self.kept:  # a sight scored once (a camera place tried) gathers only its tops
                self.kept["once"] = np.zeros(0)
                return self.look.pair_top(self.rays, tops)
            every = np.vstack([self.look.tops(colour, self.rays.ray) for colour in range(len(TOPS) + 1)])
            self.kept["tops"] = every
        return np.asarray(np.take_along_axis(every, tops[self.rays.col][None, :], axis=0)[0], np.float64)


def sight_of(rays: Rays, look: Looks, colours: IntArray, start: list[Column], cube: float,
             temperature: float) -> Sight:
    """Returns the sight of some rays: their pairs' side and the ground log-likelihoods worked out."""
    start_mm, start_tops = guess_arrays([label_of(column) for column in start], cube)
    return Sight(rays, look, look.pair_side(rays, colours, start_mm, cube), look.mat(), cube, temperature,
                 start_mm, start_tops)


@dataclass(frozen=True, slots=True)
class Cell:
    """One cell's search: its pairs, heights tried, centre, column, candidates and priors."""

    index: int
    pairs: IntArray
    levels: int
    half_levels: tuple[int, ...]
    centre: tuple[float, float]
    start: Column
    labels: tuple[str, ...]
    prior: FloatArray
    groups: IntArray  # each candidate's top (empty, a colour, half), 0 up, each group's candidates
    # together: heights are told apart within one
    tempering: float = 1.0  # more rays per independent look between heights where parallax is below a pixel
    kept: dict[int, tuple[Sight, CellRays]] = field(default_factory=dict, compare=False, repr=False)
    starts: IntArray = field(init=False, compare=False, repr=False)  # where each group begins

    def __post_init__(self) -> None:
        object.__setattr__(self, "starts", np.flatnonzero(np.diff(self.groups, prepend=-1)))


@dataclass(frozen=True, slots=True)
class CellRays:
    """What a cell's pairs hold under one sight, whatever the guess: their rays, the heights
    between which each runs inside the column, its edge rate (Rays.rate), the side's
    log-likelihood, each top colour's, and each half level's (4 splits x pairs)."""

    ray: IntArray
    low: FloatArray
    high: FloatArray
    rate: FloatArray
    side: FloatArray
    tops: list[FloatArray]
    halves: list[FloatArray]
    levels: Levels


@dataclass(frozen=True, slots=True)
class Levels:
    """What a cell's pairs hold at each height tried (levels x pairs), whatever the guess: whether
    the ray runs inside the column below that height, where it first meets a column of that
    height, whether there it meets the top, whether by a top's edge (near_edge), and each top
    colour's and each half level's log-likelihood by an edge (either the top or the side)."""

    below: BoolArray
    cap: FloatArray
    over: BoolArray
    near: BoolArray
    edge_tops: list[FloatArray]
    edge_halves: list[FloatArray]


def cell_rays(sight: Sight, cell: Cell) -> CellRays:
    """Returns what a cell's pairs hold under a sight, kept in the cell."""
    kept = cell.kept.get(id(sight))
    if kept is not None and kept[0] is sight:
        return kept[1]
    rays, pick = sight.rays, cell.pairs
    ray, low, high, rate, side = rays.ray[pick], rays.low[pick], rays.high[pick], rays.rate[pick], sight.side[pick]
    tops = [sight.look.tops(colour, ray) for colour in range(len(TOPS))]
    halves = [half_ll(sight.look, rays, ray, cell.centre, level * sight.cube) for level in cell.half_levels]
    found = CellRays(ray, low, high, rate, side, tops, halves,
                     levels_of(cell.levels, sight.cube, (low, high, rate, side), tops, halves))
    cell.kept[id(sight)] = (sight, found)
    return found


def levels_of(levels: int, cube: float, pairs: tuple[FloatArray, FloatArray, FloatArray, FloatArray],
              tops: list[FloatArray], halves: list[FloatArray]) -> Levels:
    """Returns what a cell's pairs (low, high, rate, side) hold at each of its heights."""
    low, high, rate, side = pairs
    levels_mm = np.arange(1, levels + 1, dtype=np.float64)[:, None] * cube
    return Levels(low[None, :] < levels_mm, np.minimum(high[None, :], levels_mm), high[None, :] >= levels_mm,
                  near_edge(rate[None, :], high[None, :], levels_mm),
                  [either(colour, side) for colour in tops], [either(half, side) for half in halves])


def parse_label(label: str) -> tuple[int, str]:
    """Returns the height and top colour of a label ("empty": 0)."""
    top, _, height = label.partition("@")
    return (int(height), top) if height else (0, EMPTY)


def label_of(column: Column) -> str:
    """Returns the label a column shows."""
    return EMPTY if column.height == 0 else f"{column.top}@{column.height}"


def guess_arrays(labels: list[str], cube: float) -> tuple[FloatArray, IntArray]:
    """Returns the heights (mm) and top indices (brown, white, either for half) of a guess."""
    guess = [parse_label(label) for label in labels]
    tops = [(*TOPS, "half").index(top) if top != EMPTY else 0 for _, top in guess]
    return np.array([height * cube for height, _ in guess], np.float64), np.array(tops, np.int64)


def hits_for(sight: Sight, heights_mm: FloatArray, tops: IntArray, edges: bool = True) -> Hits:
    """Returns every ray's surfaces and log-likelihood under a guess of every column (with edges,
    a ray by a top's edge shows either the top or the side)."""
    rays = sight.rays
    z, on_top = pair_heights(rays, heights_mm)
    top = sight.pair_top(tops)
    pair_ll = np.where(on_top, top, sight.side)
    if edges:
        near = near_edge(rays.rate, rays.high, heights_mm[rays.col])
        pair_ll[near] = either(top[near], sight.side[near])
    return first_hits(rays, pair_ll, sight.mat, z)


def guess_hits(sight: Sight, cells: list[Cell], chosen: list[int]) -> Hits:
    """Returns hits_for the guess of the cells' choices, the last few guesses' kept in the sight."""
    labels = tuple(guess(cells, chosen))
    hits = sight.guessed.get(labels)
    if hits is None:
        hits = hits_for(sight, *guess_arrays(list(labels), sight.cube))
        while len(sight.guessed) >= KEPT_GUESSES:
            del sight.guessed[next(iter(sight.guessed))]
        sight.guessed[labels] = hits
    return hits


def either(one: FloatArray, other: FloatArray) -> FloatArray:
    """Returns the log-likelihood of a ray that shows one surface or the other, evenly."""
    return np.asarray(np.logaddexp(one, other) - math.log(2.0), np.float64)


def cell_scores(sight: Sight, hits: Hits, cell: Cell) -> FloatArray:
    """Returns the log-posteriors of a cell's candidates, the others held: tempered rays plus prior
    (a ray by a top's edge: either the top or the side)."""
    held = cell_rays(sight, cell)
    ray = held.ray
    pair = hits.pair.take(ray)
    mine = (pair >= 0) & (sight.rays.col.take(np.maximum(pair, 0)) == cell.index)
    other_z = np.where(mine, hits.second_z.take(ray), hits.z.take(ray))
    other_ll = np.where(mine, hits.second_ll.take(ray), hits.ll.take(ray))
    at = held.levels
    wins = at.below & (at.cap > other_z)
    edge = wins & at.near
    top = wins & at.over & ~edge
    side_gain = (wins & ~top & ~edge).astype(np.float64) @ (held.side - other_ll)
    top_at, edge_at = top.astype(np.float64), edge.astype(np.float64)  # cast once for the products
    gains = [top_at @ (tops - other_ll) + edge_at @ (by_edge - other_ll) + side_gain
             for tops, by_edge in zip(held.tops, at.edge_tops)]
    halves = [float((top_at[level - 1] @ (half - other_ll).T + edge_at[level - 1] @ (by_edge - other_ll).T
                     ).max() + side_gain[level - 1])
              for half, by_edge, level in zip(held.halves, at.edge_halves, cell.half_levels)]
    ll = float(other_ll.sum()) + np.concatenate([[0.0], *gains, halves])
    return np.asarray(tempered(ll, cell, sight.temperature) + cell.prior, np.float64)


def tempered(ll: FloatArray, cell: Cell, temperature: float) -> FloatArray:
    """Returns a cell's tempered log-likelihoods: each top's best at the temperature, the heights
    of one top against its best tempered by the cell's tempering as well."""
    best = np.maximum.reduceat(ll, cell.starts)
    return np.asarray(best[cell.groups] / temperature + (ll - best[cell.groups]) / (temperature * cell.tempering),
                      np.float64)


def half_ll(look: Looks, rays: Rays, ray: IntArray, centre: tuple[float, float], level_mm: float) -> FloatArray:
    """Returns the log-likelihood (4 x rays) of a top split along either diagonal, either way round."""
    points = rays.grid.ground[ray] + rays.steps(ray) * level_mm
    u, v = points[:, 0] - centre[0], points[:, 1] - centre[1]
    brown, white = look.top[0, ray], look.top[1, ray]
    return np.asarray([np.where(split > 0, brown, white) for split in (u + v, -u - v, u - v, v - u)])


def search_cells(sight: Sight, start: list[Column], squares: list[str], centres: list[tuple[float, float]],
                 ahead: int, tempering: FloatArray | None = None, half_due: bool = True) -> list[Cell]:
    """Returns each cell's search: heights to `ahead` above its column, half as one more cube
    (tempering: each cell's, default 1; half_due: whether the half may come now, else a new one
    costs EARLY_HALF_NATS)."""
    rays = sight.rays
    order = np.argsort(rays.col, kind="stable")
    bounds = np.searchsorted(rays.col[order], np.arange(len(start) + 1))
    cells = []
    for index, (square, column) in enumerate(zip(squares, start)):
        levels = column.height + ahead
        halves = (column.height + 1,) + ((column.height,) if column.top == "half" else ())
        labels = (EMPTY, *(f"{name}@{k}" for name in TOPS for k in range(1, levels + 1)),
                  *(f"half@{k}" for k in halves))
        heights = np.array([0, *range(1, levels + 1), *range(1, levels + 1), *halves])
        prior = np.where(heights > column.height, -CHANGE_NATS, -REMOVAL_NATS)
        prior[labels.index(label_of(column))] = 0.0
        if not half_due:
            prior[labels.index(f"half@{column.height + 1}")] -= EARLY_HALF_NATS
        groups = np.array([0, *[1] * levels, *[2] * levels, *[3] * len(halves)], np.int64)
        cells.append(Cell(index, order[bounds[index]:bounds[index + 1]], levels, halves, centres[index],
                          column, labels, prior, groups, 1.0 if tempering is None else float(tempering[index])))
    return cells


def guess(cells: list[Cell], chosen: list[int]) -> list[str]:
    """Returns the label each cell has chosen."""
    return [cell.labels[choice] for cell, choice in zip(cells, chosen)]


def start_choice(cells: list[Cell]) -> list[int]:
    """Returns each cell's choice of the position's column."""
    return [cell.labels.index(label_of(cell.start)) for cell in cells]


def solve(sight: Sight, cells: list[Cell], chosen: list[int] | None = None, frozen: int = -1,
          known: tuple[list[FloatArray], list[int]] | None = None,
          home: tuple[list[int], list[FloatArray]] | None = None) -> tuple[list[int], list[FloatArray]]:
    """Returns every cell's settled choice and candidate log-posteriors, taking non-overlapping gains
    (home: a settled guess, returned as it is once the choice comes back to it)."""
    chosen = list(chosen) if chosen is not None else start_choice(cells)
    scores, stale = (list(known[0]), known[1]) if known else ([np.zeros(0)] * len(cells),
                                                              list(range(len(cells))))
    for _ in range(MAX_ROUNDS):
        if home is not None and chosen == home[0]:
            return home
        hits = guess_hits(sight, cells, chosen)
        for index in stale:
            scores[index] = cell_scores(sight, hits, cells[index])
        taken = accept(sight, cells, scores, chosen, frozen)
        if not taken.any():
            break
        stale = reached(sight.rays, cells, taken)
    return chosen, scores


def accept(sight: Sight, cells: list[Cell], scores: list[FloatArray], chosen: list[int],
           frozen: int) -> BoolArray:
    """Moves the best-gaining cells (but the frozen one) whose rays do not overlap; returns their rays."""
    rays = sight.rays
    gains = [(float(score.max() - score[chosen[cell.index]]), cell.index)
             for cell, score in zip(cells, scores) if cell.index != frozen]
    taken = np.zeros(rays.count, np.bool_)
    for gain, index in sorted(gains, reverse=True):
        if gain <= 1e-9:
            break
        best = int(np.argmax(scores[index]))
        reach = reach_of(sight, cells[index], best, chosen[index])
        if len(reach) and not taken[reach].any():
            taken[reach] = True
            chosen[index] = best
    return taken


def reach_of(sight: Sight, cell: Cell, one: int, other: int) -> IntArray:
    """Returns the rays a cell's column may meet at either of two of its choices: those that run
    inside it below the taller one (their hits change when it changes between the two)."""
    tallest = max(parse_label(cell.labels[one])[0], parse_label(cell.labels[other])[0])
    rays = sight.rays
    return np.asarray(rays.ray[cell.pairs[rays.low[cell.pairs] < tallest * sight.cube]], np.int64)


def touched_by(sight: Sight, cells: list[Cell], before: list[int], after: list[int]) -> list[int]:
    """Returns the cells whose scores may change between two choices of every cell: those
    sharing a ray that a column changed between them may meet."""
    touched = np.zeros(sight.rays.count, np.bool_)
    for cell in cells:
        if before[cell.index] != after[cell.index]:
            touched[reach_of(sight, cell, before[cell.index], after[cell.index])] = True
    return reached(sight.rays, cells, touched)


def reached(rays: Rays, cells: list[Cell], taken: BoolArray) -> list[int]:
    """Returns the cells whose rays include any of some rays."""
    return [cell.index for cell in cells if taken[rays.ray[cell.pairs]].any()]


def polish(sight: Sight, cells: list[Cell],
           found: tuple[list[int], list[FloatArray]]) -> tuple[list[int], list[FloatArray]]:
    """Returns the settled choice with single changes undone wherever the whole guess gains."""
    best, best_value = found, posterior(sight, cells, found[0])
    for cell in cells:
        own = cell.labels.index(label_of(cell.start))
        if best[0][cell.index] == own:
            continue
        trial = list(best[0])
        trial[cell.index] = own
        settled = solve(sight, cells, trial, cell.index, (best[1], touched_by(sight, cells, best[0], trial)))
        again = solve(sight, cells, settled[0], known=(settled[1], []), home=best)
        if again is best:
            continue
        value = posterior(sight, cells, again[0])
        if value > best_value + 1e-6:
            best, best_value = again, value
    return best


def lift_together(sight: Sight, cells: list[Cell],
                  found: tuple[list[int], list[FloatArray]]) -> tuple[list[int], list[FloatArray]]:
    """Returns the settled choice with neighbouring changed columns (a pair, or all that changed)
    moved a cube up or down together, or one of a pair brought level with the other, settled
    again, wherever the whole guess gains."""
    best, best_value = found, posterior(sight, cells, found[0])
    for group in changed_groups(cells, best[0]):
        for trial in group_trials(cells, best[0], group):
            if posterior(sight, cells, trial) < best_value - LIFT_SLACK:
                continue
            again = solve(sight, cells, trial, known=(best[1], touched_by(sight, cells, best[0], trial)), home=best)
            if again is best:
                continue
            value = posterior(sight, cells, again[0])
            if value > best_value + 1e-6:
                best, best_value = again, value
    return best


def group_trials(cells: list[Cell], chosen: list[int], group: tuple[int, ...]) -> list[list[int]]:
    """Returns the choices to try for a group: all a cube higher, all a cube lower, and for a
    pair either one at the other's height."""
    heights = [parse_label(cells[index].labels[chosen[index]])[0] for index in group]
    moves = [[height + step for height in heights] for step in (1, -1)]
    if len(group) == 2:
        moves += [[heights[1], heights[1]], [heights[0], heights[0]]]
    found = [moved(cells, chosen, group, move) for move in moves]
    return [trial for trial in found if trial is not None and trial != chosen]


def changed_groups(cells: list[Cell], chosen: list[int]) -> list[tuple[int, ...]]:
    """Returns the groups of changed columns to move together: every pair of neighbours of which
    one changed, and all the changed columns."""
    changed = [cell.index for cell in cells if cell.labels[chosen[cell.index]] != label_of(cell.start)]
    centres = np.array([cell.centre for cell in cells], np.float64)
    gaps = np.linalg.norm(centres[:, None, :] - centres[None, :, :], axis=2)
    pitch = float(gaps[gaps > 1e-9].min()) if len(cells) > 1 else 0.0
    beside = np.abs(gaps - pitch) < 0.25 * pitch
    pairs = {(min(i, int(j)), max(i, int(j))) for i in changed for j in np.nonzero(beside[i])[0]}
    return sorted(pairs) + ([tuple(changed)] if len(changed) > 2 else [])


def moved(cells: list[Cell], chosen: list[int], group: tuple[int, ...], heights: list[int]) -> list[int] | None:
    """Returns the choice with a group's columns at some heights (their top colours kept), or
    None when one of them has no such candidate."""
    trial = list(chosen)
    for index, height in zip(group, heights):
        top = parse_label(cells[index].labels[chosen[index]])[1]
        label = f"{top}@{height}"
        if top not in TOPS or label not in cells[index].labels:
            return None
        trial[index] = cells[index].labels.index(label)
    return trial


def posterior(sight: Sight, cells: list[Cell], chosen: list[int]) -> float:
    """Returns the log-posterior (unnormalised) of a whole guess: rays and priors."""
    hits = guess_hits(sight, cells, chosen)
    rays = float(hits.ll.sum()) / sight.temperature
    return rays + sum(float(cell.prior[k]) for cell, k in zip(cells, chosen))
