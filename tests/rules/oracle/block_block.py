"""Independent brute-force oracle for BLOCK.BLOCK (RULES.md section 2), used only by tests.

Written straight from RULES.md and the integrator's fixed interpretations, without looking at
rules/block_block.py. Every candidate placement (orientation x translation x level) is tested
against the placement rules written as literally as possible.
"""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass, field
from typing import Any

Cell = tuple[int, int, int]

# The default set (house), as RULES.md section 2 and the brief give it.
DEFAULT_SHAPES: dict[str, tuple[Cell, ...]] = {
    "bar2": ((0, 0, 0), (1, 0, 0)),
    "bar3": ((0, 0, 0), (1, 0, 0), (2, 0, 0)),
    "bar4": ((0, 0, 0), (1, 0, 0), (2, 0, 0), (3, 0, 0)),
    "slab": ((0, 0, 0), (1, 0, 0), (0, 1, 0), (1, 1, 0)),
    "ell": ((0, 0, 0), (1, 0, 0), (0, 1, 0)),
    "tee": ((0, 0, 0), (1, 0, 0), (2, 0, 0), (1, 1, 0)),
    "ess": ((0, 0, 0), (1, 0, 0), (1, 1, 0), (2, 1, 0)),
}
DEFAULT_COUNTS: dict[str, int] = {
    "bar2": 3, "bar3": 1, "bar4": 1, "slab": 1, "ell": 2, "tee": 1, "ess": 1,
}
HALF: tuple[Cell, ...] = ((0, 0, 0),)


@dataclass(frozen=True, eq=False)
class BBSet:
    """A block set: board size, shapes, per-player counts, end-coloured shapes."""

    size: int = 5
    shapes: dict[str, tuple[Cell, ...]] = field(default_factory=lambda: dict(DEFAULT_SHAPES))
    counts: dict[str, int] = field(default_factory=lambda: dict(DEFAULT_COUNTS))
    end_coloured: frozenset[str] = frozenset({"bar3", "bar4"})

    def per_player(self) -> int:
        """Returns how many ordinary blocks each player places."""
        return sum(self.counts.values())


@dataclass(frozen=True)
class Placed:
    """One block on the board: its owner, shape name and occupied cells."""

    player: int
    shape: str
    cells: frozenset[Cell]


@dataclass(frozen=True)
class State:
    """The oracle state: the set and every block placed so far, in order."""

    bbset: BBSet
    placed: tuple[Placed, ...] = ()


def rotations() -> list[tuple[tuple[int, int, int], ...]]:
    """Returns the 24 proper rotation matrices (rows), found by brute force over signed perms."""
    found = []
    for perm in itertools.permutations(range(3)):
        for signs in itertools.product((1, -1), repeat=3):
            m = [[0, 0, 0] for _ in range(3)]
            for row in range(3):
                m[row][perm[row]] = signs[row]
            det = (
                m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
                - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
                + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
            )
            if det == 1:
                found.append(tuple(tuple(r) for r in m))
    assert len(found) == 24
    return found  # type: ignore[return-value]


def normalise(cells: frozenset[Cell] | set[Cell]) -> frozenset[Cell]:
    """Returns the cells translated so the minimum of each coordinate is 0."""
    mx = min(c[0] for c in cells)
    my = min(c[1] for c in cells)
    mz = min(c[2] for c in cells)
    return frozenset((x - mx, y - my, z - mz) for x, y, z in cells)


@functools.lru_cache(maxsize=None)
def orientations(shape: tuple[Cell, ...]) -> list[frozenset[Cell]]:
    """Returns the distinct normalised orientations of a shape under the 24 rotations."""
    out: set[frozenset[Cell]] = set()
    for m in rotations():
        turned = {
            tuple(sum(m[r][k] * c[k] for k in range(3)) for r in range(3)) for c in shape
        }
        out.add(normalise(turned))  # type: ignore[arg-type]
    return sorted(out, key=sorted)


def cell_name(cell: Cell) -> str:
    """Returns a cell as `<file><rank>.<level>`."""
    x, y, z = cell
    return f"{chr(ord('a') + x)}{y + 1}.{z}"


def move_text(shape: str, cells: frozenset[Cell]) -> str:
    """Returns the canonical move `shape:cells`, cells sorted by (file, rank, level)."""
    return shape + ":" + "".join(cell_name(c) for c in sorted(cells))


def parse_move(text: str) -> tuple[str, frozenset[Cell]]:
    """Returns (shape, cells) of a move text (no checking beyond the syntax)."""
    shape, rest = text.split(":")
    cells = set()
    i = 0
    while i < len(rest):
        j = rest.index(".", i)
        k = j + 1
        while k < len(rest) and rest[k].isdigit():
            k += 1
        file = ord(rest[i]) - ord("a")
        rank = int(rest[i + 1 : j]) - 1
        cells.add((file, rank, int(rest[j + 1 : k])))
        i = k
    return shape, frozenset(cells)


def initial(bbset: BBSet | None = None) -> State:
    """Returns the empty board before brown's first block."""
    return State(BBSet() if bbset is None else bbset)


def ply(state: State) -> int:
    """Returns the number of blocks placed so far."""
    return len(state.placed)


def occupied(state: State) -> set[Cell]:
    """Returns every occupied cell."""
    out: set[Cell] = set()
    for block in state.placed:
        out |= block.cells
    return out


def mover(state: State) -> int:
    """Returns whose action it is by the turn order alone (ignoring whether the game ended)."""
    n = ply(state)
    if n == 2 * state.bbset.per_player():
        return 1
    return 1 if n % 2 == 0 else 2


def hand(state: State, player: int) -> dict[str, int]:
    """Returns the blocks the player may take now: shape name -> count left."""
    n = ply(state)
    total = 2 * state.bbset.per_player()
    if n == total:
        return {"half": 1} if player == 1 else {}
    if n > total:
        return {}
    left = dict(state.bbset.counts)
    for block in state.placed:
        if block.player == player and block.shape in left:
            left[block.shape] -= 1
    return {s: c for s, c in left.items() if c > 0}


def shape_cells(bbset: BBSet, shape: str) -> tuple[Cell, ...]:
    """Returns the unit cubes of a shape (half included)."""
    return HALF if shape == "half" else bbset.shapes[shape]


def supported(cells: frozenset[Cell], occ: set[Cell], size: int) -> bool:
    """Tells whether a block fits: on the board, no overlap, nothing with empty space below."""
    for x, y, z in cells:
        if not (0 <= x < size and 0 <= y < size and z >= 0):
            return False
        if (x, y, z) in occ:
            return False
    for x, y, z in cells:
        below = (x, y, z - 1)
        if not (z == 0 or below in cells or below in occ):
            return False
    return True


def vertical_extent(cells: frozenset[Cell]) -> int:
    """Returns the number of levels a block spans."""
    zs = [c[2] for c in cells]
    return max(zs) - min(zs) + 1


def exact_copy(state: State, shape: str, cells: frozenset[Cell]) -> bool:
    """Tells whether cells are an existing same-shape block shifted up by its own height."""
    for block in state.placed:
        if block.shape != shape:
            continue
        h = vertical_extent(block.cells)
        if cells == frozenset((x, y, z + h) for x, y, z in block.cells):
            return True
    return False


def placements(state: State, shape: str) -> set[frozenset[Cell]]:
    """Returns every placement of a shape allowed by support and the exact-copy rule."""
    size = state.bbset.size
    occ = occupied(state)
    top = max((c[2] + 1 for c in occ), default=0)
    out: set[frozenset[Cell]] = set()
    for orient in orientations(shape_cells(state.bbset, shape)):
        for dx in range(size):
            for dy in range(size):
                for dz in range(top + 1):
                    cells = frozenset((x + dx, y + dy, z + dz) for x, y, z in orient)
                    if supported(cells, occ, size) and not exact_copy(state, shape, cells):
                        out.add(cells)
    return out


@functools.lru_cache(maxsize=4096)
def _legal_unchecked(state: State) -> list[str]:
    """Returns the legal moves by the placement rules, ignoring whether the game is over."""
    player = mover(state)
    options = {shape: placements(state, shape) for shape in hand(state, player)}
    options = {shape: cells for shape, cells in options.items() if cells}
    if state.placed:
        last = state.placed[-1]
        if last.player != player and last.shape in options:
            others = [s for s in options if s != last.shape]
            if others:
                del options[last.shape]
    moves = [move_text(shape, cells) for shape, all_cells in options.items() for cells in all_cells]
    return sorted(set(moves))


def outcome(state: State) -> dict[str, Any] | None:
    """Returns {"winner", "reason"} once the game is over, else None."""
    if ply(state) >= 2 * state.bbset.per_player() + 1:
        s = scores(state)
        if s["1"] > s["2"]:
            return {"winner": 1, "reason": "score"}
        if s["2"] > s["1"]:
            return {"winner": 2, "reason": "score"}
        return {"winner": None, "reason": "score"}
    if not _legal_unchecked(state):
        return {"winner": 3 - mover(state), "reason": "no-move"}
    return None


def legal(state: State) -> list[str]:
    """Returns the sorted canonical legal moves ([] once the game is over)."""
    if outcome(state) is not None:
        return []
    return _legal_unchecked(state)


def apply(state: State, move: str) -> State:
    """Returns the state after a (legal) move."""
    shape, cells = parse_move(move)
    return State(state.bbset, state.placed + (Placed(mover(state), shape, cells),))


def to_move(state: State) -> int | None:
    """Returns the player to act, or None once the game is over."""
    return None if outcome(state) is not None else mover(state)


def scores(state: State) -> dict[str, Any]:
    """Returns each player's current top-view points as floats."""
    points = {1: 0.0, 2: 0.0}
    owner_of: dict[Cell, Placed] = {}
    for block in state.placed:
        for cell in block.cells:
            owner_of[cell] = block
    size = state.bbset.size
    for x in range(size):
        for y in range(size):
            column = [c for c in owner_of if c[0] == x and c[1] == y]
            if not column:
                continue
            top = max(column, key=lambda c: c[2])
            block = owner_of[top]
            if block.shape == "half":
                points[1] += 0.5
                continue
            length = len(block.cells)
            upright = vertical_extent(block.cells) == length and length > 1
            if block.shape in state.bbset.end_coloured and upright:
                points[3 - block.player] += 1.0
            else:
                points[block.player] += 1.0
    return {"1": points[1], "2": points[2]}


def counters(state: State) -> dict[str, int]:
    """Returns the counters: BLOCK.BLOCK has none."""
    return {}
