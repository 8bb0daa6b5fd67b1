"""Blockade's pixel observer: nested Looney pyramids, read by the frustum engine
(vision.observe.stacks) and, where colour cannot tell, by what changed (vision.observe.nesting).

Each cell's candidate stacks (vision.observe.pyramids) are scored by the engine for every colour
of their new pieces, and each label (vision/observation.py) takes the best score of the stacks
that show it. Labels are grouped by their look (from the top, each run of one colour and the size
where it ends): colour alone cannot tell a red Small on a red Large from the Large alone, so a
look's labels share its score. Within a look, the labels share its probability by how well their
stacks explain what changed on the cell since the last frame read (the parallax of its top, its
shadow), with a cost for every piece that must have moved; new stacks about as tall (a Medium or
a Small nested on a Large) are told apart by it only a little, leaving that to the legal moves. A
cell judged with no evidence (no band of its top tracked, no shadow) keeps only the cost per
piece, which rules out no look-alike one piece away. A cell that cannot be judged (no frame read
before, the camera moved, a cell read as another stack than the referee's) gives most of it to
the label the current position holds, so the inference (vision/infer.py) explains the change
with legal moves. A clear Large shows the mat through a tinted shell, close to an empty square's
colour, so its outline carries much of the evidence. A tower completed now is capped by the
largest black piece left in the supply (the position says which), so no other cap is read.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache, partial
from itertools import product
from typing import Any, Hashable, Mapping, Sequence, cast

import numpy as np
from numpy.typing import NDArray

from vision.kit import Kit, Mat
from vision.observation import EMPTY, CellSeen, Observation
from vision.observe.colours import ColourMemory
from vision.observe.context import Scene
from vision.observe.heights import picture
from vision.observe.nesting import Evidence, Memory, changes, placed, remember
from vision.observe.nesting import anticipate as anticipate_nesting
from vision.observe.pyramids import (
    BLACK, COLOURS, MOVERS, NAMES, RANK, Look, Stack, apex_of, blocks_on, candidates, label_look, label_of,
    look_of, moved, near, painted, same_look, shown_rows, stack_blocks, stacks_of,
)
from vision.observe.stack_colours import FloatArray, IntArray
from vision.observe.stacks import (
    COLOUR, MIN_PROBABILITY, CellModel, CellPlan, Patch, StackGame, StackMemory, StackScores, Stacks,
    anticipate_stacks, checked_view, grouped_reading, observe_stacks, stack_memory,
)

__all__ = ["BLACK", "NAMES", "RANK", "BlockadeMemory", "anticipate", "candidates", "label_look", "label_of", "look_of",
           "new_memory", "observe", "paintings"]

SECOND_LOOK = False  # no second look under trial positions: the observer takes their hidden pieces as seen
STEP_MM = 2.5
REACH_MM = 60.0
EMPTY_PRIOR = 3.0  # nats against an empty square: every square holds a Large that never moves
MOVE_COST = 1.2  # nats against a stack per piece that must have left or reached the square (with no
                 # evidence the current stack keeps about 0.77 against one other: a little less than
                 # the engine's CURRENT_SHARE, so weak evidence of a nested change still shows)
ALL_CAPS = frozenset("LMS")
OUT_OF_SUPPLY = 1e9  # nats against a stack capped by a black piece the supply no longer holds
CLOSE_MM = 1.0  # stacks whose apexes stand this close (a Medium or a Small nested on a Large) ...
CLOSE_CAP = 1.0  # ... are told apart by what changed by at most this many nats: parallax and shadow
                 # barely see the difference, so the legal moves (what left another square) decide


class BlockadeMemory(StackMemory):
    """Blockade's memory: the learnt colours, the cells' ray geometry, and what the nesting
    evidence keeps (the last frame read, where cells are tracked, the lights)."""

    def __init__(self, nominal: Mapping[str, tuple[float, float, float]], **settings: Any) -> None:
        super().__init__(nominal, **settings)
        self.nesting = Memory()


def new_memory(kit: Kit) -> BlockadeMemory:
    """Returns a fresh memory for Blockade: the colour of each colour's four faces and of the
    mat, room for the cells' ray geometry and for the last frame read."""
    return cast(BlockadeMemory, stack_memory(kit, "blockade", COLOURS, BlockadeMemory))


@dataclass(frozen=True, slots=True)
class Paintings:
    """Every way to colour the new pieces of a square's candidate stacks, as rows: the stack,
    each layer's colour (R x K, 0 past the stack's top) and whether the layer is there, the
    label shown; each label's look, and the look's index (labels of one look share it)."""

    stack: IntArray
    colours: IntArray
    present: NDArray[np.bool_]
    label: IntArray
    labels: tuple[str, ...]
    looks: tuple[Look, ...]
    group: IntArray


@lru_cache(maxsize=1024)
def paintings(stacks: tuple[Stack, ...]) -> Paintings:
    """Returns the colourings of a square's candidate stacks (see Paintings)."""
    depth = max(len(stack) for stack in stacks)
    rows: list[tuple[int, list[int], int]] = []
    labels: dict[str, int] = {}
    looks: dict[str, Look] = {}
    for t, stack in enumerate(stacks):
        for choice in product(MOVERS, repeat=sum(colour < 0 for colour, _ in stack)):
            layers = painted(stack, choice)
            label = label_of(layers)
            if label not in labels:
                labels[label], looks[label] = len(labels), look_of(layers)
            rows.append((t, [colour for colour, _ in layers] + [-1] * (depth - len(layers)), labels[label]))
    table = np.array([colours for _, colours, _ in rows]).reshape(-1, depth)
    groups = {look: index for index, look in enumerate(dict.fromkeys(looks.values()))}
    return Paintings(np.array([row[0] for row in rows]), table.clip(min=0), table >= 0,
                     np.array([row[2] for row in rows]), tuple(labels), tuple(looks.values()),
                     np.array([groups[look] for look in looks.values()], np.int64))


def _model_rows(scene: Scene, square: str, stacks: tuple[Stack, ...]) -> tuple[FloatArray, IntArray]:
    """Returns the distinct pyramids of a square's candidate stacks and each stack's rows of them."""
    return _candidate_rows(scene.kit, scene.mat, square, stacks)


@lru_cache(maxsize=1024)
def _candidate_rows(kit: Kit, mat: Mat, square: str,
                    stacks: tuple[Stack, ...]) -> tuple[FloatArray, IntArray]:
    """Returns (and keeps) the distinct pyramids of candidate stacks on a square of a mat."""
    keys: dict[tuple[float, ...], int] = {}
    rows: list[FloatArray] = []
    table = np.full((len(stacks), max(len(stack) for stack in stacks)), -1, np.int64)
    for t, stack in enumerate(stacks):
        for k, row in enumerate(blocks_on(kit, mat, square, stack)):
            key = tuple(np.round(row[:COLOUR], 3))
            if key not in keys:
                keys[key] = len(rows)
                rows.append(row)
            table[t, k] = keys[key]
    blocks = np.array(rows).reshape(-1, 7)
    blocks.flags.writeable = table.flags.writeable = False
    return blocks, table


def _neighbours(scene: Scene, patch: Patch, stacks: Mapping[str, Stack]) -> FloatArray:
    """Returns the pyramids around a square that may lean into its samples, each stack's pieces
    seen from above (a nested piece that shows nowhere is left out)."""
    rows = [stack_blocks(scene, other, layers)[shown_rows(layers)]
            for other, layers in near(patch.square, stacks).items()]
    return np.vstack(rows) if rows else np.zeros((0, 7))


def _key(square: str, stacks: Stacks) -> Hashable:
    """Returns what a cell's model depends on: its stack and those around it."""
    return square, stacks.get(square, ()), tuple(sorted(near(square, stacks).items()))


def _plan(scene: Scene, patch: Patch, stacks: Stacks, view: Mapping[str, str]) -> CellPlan:
    """Returns a cell's candidate stacks, the neighbours as they stand."""
    options = candidates(stacks.get(patch.square, ()))
    blocks, rows = _model_rows(scene, patch.square, options)
    return CellPlan(patch, blocks, rows, (0, view[patch.square]), _neighbours(scene, patch, stacks), options,
                    fixed_colours(options, rows.shape[1]))


@lru_cache(maxsize=1024)
def fixed_colours(options: tuple[Stack, ...], depth: int) -> IntArray:
    """Returns the colour of each candidate stack's layers (T x depth) where the position fixes
    it: the pieces it shares from the bottom with the current stack (the first); -1 for the
    pieces that came, whose colour the reading paints. Shared pyramids carry one colour among
    the candidates, so their own colour cannot say."""
    fixed = np.full((len(options), depth), -1, np.int64)
    current = options[0]
    for t, stack in enumerate(options):
        for k, layer in enumerate(stack):
            if k >= len(current) or current[k] != layer:
                break
            fixed[t, k] = layer[0]
    fixed.flags.writeable = False
    return fixed


def _read(model: CellModel, scores: StackScores, weights: Mapping[str, FloatArray] | None = None,
          believed: dict[str, Stack] | None = None, caps: frozenset[str] = ALL_CAPS) -> CellSeen:
    """Returns a cell's reading: each label's best score over its stacks and their colours (a
    tower capped by a black piece of a size not in `caps` left out), the labels of one look
    shared by how well their stacks explain what changed on the cell (where it was judged: its
    stacks' weights given); notes in `believed` the stack the cell is read to hold."""
    table = paintings(model.kinds)
    totals = np.where(uncapped(model.kinds, caps)[table.stack], _totals(table, scores), -OUT_OF_SUPPLY)
    best = _best(table, totals)
    looks = dict(zip(table.labels, table.looks))
    seen = grouped_reading(dict(zip(table.labels, best)), looks, model.label, {EMPTY: -EMPTY_PRIOR})
    judged = (weights or {}).get(model.patch.square)
    weight = judged if judged is not None else stack_weights(model.kinds, ())
    if judged is not None:
        seen = shared(seen, table, np.array(_best(table, weight[table.stack])))
    if believed is not None:
        believed[model.patch.square] = _chosen(table, model.kinds, seen.label, weight[table.stack] + 1e-6 * totals)
    return seen


def caps_of(board: Mapping[str, Any]) -> frozenset[str]:
    """Returns the size of black piece a tower completed now is capped with (the largest left
    in the supply; none when none is left), or every size when the board does not say."""
    supply = board.get("off", {}).get("black_supply") if isinstance(board.get("off"), Mapping) else None
    if not isinstance(supply, Mapping):
        return ALL_CAPS
    return frozenset(next(([size] for size in "LMS" if supply.get(size, 0) > 0), []))


def uncapped(stacks: Sequence[Stack], caps: frozenset[str]) -> NDArray[np.bool_]:
    """Tells which candidate stacks (the current one first) the supply allows: all but a tower
    capped by a new black piece of a size not in caps."""
    grown = len(stacks[0]) + 2
    return np.array([not (len(stack) == grown and stack[-1][0] == BLACK and stack[-1][1] not in caps)
                     for stack in stacks], np.bool_)


def _totals(table: Paintings, scores: StackScores) -> FloatArray:
    """Returns the score of every painted stack (row of the paintings)."""
    depth = table.colours.shape[1]
    layer = scores.layers[table.stack[:, None], np.arange(depth)[None, :], table.colours]
    return np.asarray(scores.backdrop[table.stack] + np.where(table.present, layer, 0.0).sum(axis=1), np.float64)


def _best(table: Paintings, values: FloatArray) -> list[float]:
    """Returns each label's best value over the painted stacks that show it."""
    best = np.full(len(table.labels), -np.inf)
    np.maximum.at(best, table.label, values)
    return [float(value) for value in best]


def _chosen(table: Paintings, stacks: Sequence[Stack], label: str, values: FloatArray) -> Stack:
    """Returns the painted stack (colours chosen) with the best value among those showing a label."""
    rows = np.flatnonzero(table.label == table.labels.index(label))
    row = int(rows[np.argmax(values[rows])])
    colours = table.colours[row]
    return tuple((int(colour), size) for colour, (_, size) in zip(colours, stacks[int(table.stack[row])]))


def stack_weights(stacks: Sequence[Stack], evidence: Sequence[Evidence],
                  heights: FloatArray | None = None) -> FloatArray:
    """Returns how likely each candidate stack of a cell (the current one first) is besides its
    colours (nats): a cost per piece moved, and how well it explains what changed on the cell
    (given their apexes' heights, never by more than CLOSE_CAP between judged stacks about as
    tall)."""
    costs = np.array([-MOVE_COST * moved(stacks[0], stack) for stack in stacks], np.float64)
    found = np.asarray(sum((item.log_likelihoods() for item in evidence), np.zeros(len(stacks))), np.float64)
    if heights is None:
        return np.asarray(costs + found, np.float64)
    judged = np.array([same_look(stacks[0], stack) for stack in stacks], np.bool_)
    return np.asarray(costs + capped(found, heights, judged), np.float64)


def capped(evidence: FloatArray, heights: FloatArray, judged: NDArray[np.bool_]) -> FloatArray:
    """Returns the evidence of each judged candidate stack but the current one (the first)
    raised to within CLOSE_CAP of the best among the other judged ones whose apex stands within
    CLOSE_MM of its own (the evidence scores only stacks that look like the current one: the
    rest hold a placeholder 0, which neither lifts nor is lifted)."""
    close = (np.abs(heights[:, None] - heights[None, :]) < CLOSE_MM) & judged[None, :] & judged[:, None]
    close[0, 1:] = close[1:, 0] = False
    floor = np.where(close, evidence[None, :], -np.inf).max(axis=1) - CLOSE_CAP
    return np.asarray(np.maximum(evidence, floor), np.float64)


def judged_weights(scene: Scene, square: str, current: Stack, evidence: Sequence[Evidence]) -> FloatArray:
    """Returns the weights of a judged cell's candidate stacks (see stack_weights)."""
    options = candidates(current)
    return stack_weights(options, evidence, apexes(scene, square, options))


def apexes(scene: Scene, square: str, stacks: Sequence[Stack]) -> FloatArray:
    """Returns the height of the apex of each candidate stack of a square (0 for the empty one)."""
    return np.array([apex_of(stack_blocks(scene, square, stack)) if stack else 0.0 for stack in stacks])


def shared(seen: CellSeen, table: Paintings, weights: FloatArray) -> CellSeen:
    """Returns a reading whose looks keep their probability, each shared among its labels by
    their weights (nats, per label of the paintings) instead of favouring the current one."""
    held = np.array([seen.probability(label) for label in table.labels])
    top = np.full(int(table.group.max()) + 1, -np.inf)
    np.maximum.at(top, table.group, weights)
    shares = np.exp(weights - top[table.group])
    probs = (np.bincount(table.group, held) / np.bincount(table.group, shares))[table.group] * shares
    kept = {label: float(p) for label, p in zip(table.labels, probs) if p >= MIN_PROBABILITY}
    return CellSeen.from_probs(kept or {seen.label: seen.confidence})


BLOCKADE = StackGame("blockade", COLOURS, STEP_MM, REACH_MM, stacks_of, _plan, _key, _read)


def anticipate(scene: Scene, board: Mapping[str, Any], memory: ColourMemory) -> bool:
    """Readies the memory to read a still scene's board fix under a new position (the referee's,
    after a move): the cells' ray geometry and all the nesting evidence needs but the next frame
    itself (vision.observe.nesting.anticipate); tells whether it could (not before a frame of
    that fix was read)."""
    if not isinstance(memory, BlockadeMemory):
        return False
    placed_scene = anticipate_nesting(memory.nesting, scene, board)
    return placed_scene is not None and anticipate_stacks(BLOCKADE, placed_scene, board, memory)


def observe(scene: Scene, board: Mapping[str, Any], memory: ColourMemory | None = None,
            frame: int | None = None) -> Observation:
    """Returns what a still frame shows on every Blockade cell, given the referee's current
    position (for colour calibration, hidden pieces and the neighbours' stacks); a memory from
    new_memory keeps the learnt colours, the camera place, the lights and the last frame read
    between frames and is updated."""
    checked_view("blockade", scene, board)
    kept = memory if isinstance(memory, BlockadeMemory) else None
    caps = caps_of(board)
    if kept is None:
        game = replace(BLOCKADE, read=partial(_read, caps=caps))
        return observe_stacks(game, scene, board, memory, new_memory, frame)
    now = picture(scene)
    scene = placed(kept.nesting, scene, now, board)
    stacks = stacks_of(board)
    weights = {square: judged_weights(scene, square, stacks[square], found)
               for square, found in changes(kept.nesting, scene, now, board).items()}
    believed: dict[str, Stack] = {}
    game = replace(BLOCKADE, read=partial(_read, weights=weights, believed=believed, caps=caps))
    seen = observe_stacks(game, scene, board, memory, new_memory, frame)
    remember(kept.nesting, scene, now, believed, stacks)
    return seen
