"""BLOCK.BLOCK's grid lines: a printed line that vanished tells a piece covers it.

A white piece on the white mat can match the mat's colour so closely that the rays' colours
(block_block_looks) favour the mat unchanged. The mat's thin grey grid lines still tell: where
one showed in the last still frame and no longer does, something now stands over it. Points
along every line are probed across it (how far the line's middle dips below its shoulders, as a
share of their lightness); a point counts only where the position, seen from the fitted camera
place and a doubtful one either side, surely shows it (footprints grown by a little), and the
last still frame showed it clearly. Where such a point has vanished but the reading still
shows it, the reading missed a cover: the cells next to the line are tried, each raised to its
candidates that surely hide the vanished points without hiding any line still shown, and the
one that explains most gets most of its probability moved to those candidates (more the more
points it explains); two cells explaining alike share it, so that the players are asked. Points
a reading exposes by showing a column lower than the position holds it (no block is ever taken
away), where no line shows now, are missing and explained the same way.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache

import numpy as np

from vision.observe.block_block_rays import BoolArray, FloatArray, IntArray, meet, steps_of
from vision.observe.context import Scene
from vision.pose import CameraPlace

STEP_MM, CROSSING_MM = 2.0, 3.0  # probe spacing along a line; kept this far from line crossings
SHOULDER_MM, CORE_MM = (2.5, 3.0), np.arange(-1.0, 1.01, 0.25)  # probe offsets across a line
GROW_MM, SHRINK_MM = 0.1, 0.5  # footprints grown to say a point surely shows, shrunk to say surely hidden
MIN_DIP, CLEAR_SHARE = 0.04, 0.5  # a clear line: this dip at least, and this share of the median one
LOST_SHARE, KEPT_SHARE = 0.3, 0.6  # of the last frame's dip: a line vanished below, still shown above
MIN_POINTS, MOST_MOVED = 4, 0.99  # points a change must explain; the most probability moved to it
AMBIGUOUS_SHARE = 0.5  # moved to each of several cells that explain alike
NEARLY_ALL = 0.75  # a cover hiding this share of the most any height hides is tall enough


@dataclass(frozen=True, slots=True)
class LinePoints:
    """Probe points on the grid lines: board mm, the unit normal across the line, and the two
    cells beside each (indices in Scene order, -1 off the grid)."""

    ground: FloatArray
    normal: FloatArray
    beside: IntArray


@cache
def line_points(cells: int, pitch_mm: float) -> LinePoints:
    """Returns probe points along every grid line, away from the crossings."""
    side = cells * pitch_mm
    along = np.arange(CROSSING_MM, side - CROSSING_MM + 1e-9, STEP_MM)
    along = along[np.abs((along + pitch_mm / 2) % pitch_mm - pitch_mm / 2) >= CROSSING_MM]
    ground, normal, beside = [], [], []
    for line in range(cells + 1):
        for value in along:
            span = int(value // pitch_mm)
            for vertical in (True, False):
                ground.append((line * pitch_mm, value) if vertical else (value, line * pitch_mm))
                normal.append((1.0, 0.0) if vertical else (0.0, 1.0))
                pair = [(line - 1, span), (line, span)] if vertical else [(span, line - 1), (span, line)]
                beside.append([f * cells + r if 0 <= f < cells and 0 <= r < cells else -1 for f, r in pair])
    return LinePoints(np.array(ground, np.float64), np.array(normal, np.float64), np.array(beside, np.int64))


def dips(scene: Scene, points: LinePoints) -> FloatArray:
    """Returns how far each point's line dips below its shoulders in lightness, as a share of them."""
    def lightness(offsets: list[float] | FloatArray) -> FloatArray:
        ground = (points.ground[None, :, :] + np.asarray(offsets)[:, None, None] * points.normal[None, :, :])
        pixels = scene.view.to_image(ground.reshape(-1, 2))
        return np.asarray(scene.lab_at(pixels)[:, 0].reshape(len(offsets), -1), np.float64)

    shoulder = lightness([-SHOULDER_MM[1], -SHOULDER_MM[0], SHOULDER_MM[0], SHOULDER_MM[1]]).mean(axis=0)
    core = lightness(CORE_MM).min(axis=0)
    return np.asarray((shoulder - core) / np.maximum(shoulder, 1.0), np.float64)


@dataclass(frozen=True, slots=True)
class Sightlines:
    """Where each probe point's ray runs inside each column's footprint, from each place tried,
    the footprints grown (to say a point surely shows) and shrunk (to say it is surely hidden):
    low and high heights, places x columns x points."""

    grown: tuple[FloatArray, FloatArray]
    shrunk: tuple[FloatArray, FloatArray]

    def shown(self, heights_mm: FloatArray) -> BoolArray:
        """Tells which points every place surely sees under columns of these heights."""
        return np.asarray(~np.any(hiding(self.grown, heights_mm), axis=(0, 1)), np.bool_)

    def covered_by(self, column: int, height_mm: float, others: BoolArray) -> BoolArray:
        """Tells which points every place surely cannot see with one column raised to a height
        (others: per place, the points the other columns hide)."""
        low, high = self.shrunk[0][:, column], self.shrunk[1][:, column]
        return np.asarray(np.all(others | ((low < high) & (low < height_mm)), axis=0), np.bool_)

    def hidden_per_place(self, heights_mm: FloatArray) -> BoolArray:
        """Returns per place which points the columns hide (footprints shrunk)."""
        return np.asarray(np.any(hiding(self.shrunk, heights_mm), axis=1), np.bool_)


def hiding(meets: tuple[FloatArray, FloatArray], heights_mm: FloatArray) -> BoolArray:
    """Tells per place, column and point whether the column, of its height, hides the point."""
    low, high = meets
    return np.asarray((low < high) & (low < heights_mm[None, :, None]), np.bool_)


def sightlines(places: list[CameraPlace], ground: FloatArray, boxes: FloatArray) -> Sightlines:
    """Returns the points' sightlines past every column (footprints x0, x1, y0, y1) from places."""
    def meets(change: float) -> tuple[FloatArray, FloatArray]:
        resized = boxes + change * np.array([-1.0, 1.0, -1.0, 1.0])
        lows, highs = [], []
        for place in places:
            step = np.tile(steps_of(place, ground), (len(boxes), 1))
            low, high, _, _ = meet(np.tile(ground, (len(boxes), 1)), step, np.repeat(resized, len(ground), axis=0),
                                   place.centre[2] - 1.0)
            lows.append(low.reshape(len(boxes), -1))
            highs.append(high.reshape(len(boxes), -1))
        return np.array(lows), np.array(highs)

    return Sightlines(meets(GROW_MM), meets(-SHRINK_MM))


def typical_dip(before: FloatArray, shown: BoolArray) -> float | None:
    """Returns the median dip in the last frame of the points its reading showed (None: none)."""
    return float(np.median(before[shown])) if shown.any() else None


def clear_before(before: FloatArray, shown: BoolArray) -> BoolArray:
    """Tells which points showed their line clearly in the last frame, among those shown."""
    typical = typical_dip(before, shown)
    if typical is None:
        return np.zeros(len(before), np.bool_)
    return np.asarray(shown & (before >= max(MIN_DIP, CLEAR_SHARE * typical)), np.bool_)


def missing(before: FloatArray, now: FloatArray, shown_then: BoolArray, exposed: BoolArray) -> BoolArray:
    """Tells which of the points a reading exposes (shows, though the position surely hides them:
    no block is ever taken away) show no line now, a dip below LOST_SHARE of the last frame's
    typical clear one (shown_then: the points the last frame's reading showed)."""
    typical = typical_dip(before, shown_then)
    if typical is None or typical < MIN_DIP:
        return np.zeros(len(now), np.bool_)
    return np.asarray(exposed & (now <= LOST_SHARE * typical), np.bool_)


def revised(probs: list[FloatArray], heights: list[FloatArray], read: list[int], lines: Sightlines,
            beside: IntArray, lost: BoolArray, kept: BoolArray) -> list[FloatArray]:
    """Returns the cells' probabilities with the vanished lines explained (the module's rule):
    `heights` each cell's candidates' heights (mm), `read` each cell's chosen candidate,
    `beside` each point's two cells, `lost` the vanished or missing points the reading still
    shows, `kept` the clear points still shown."""
    probs = [p.copy() for p in probs]
    base = np.array([h[choice] for h, choice in zip(heights, read)], np.float64)
    others = lines.hidden_per_place(base)
    left = lost.copy()
    while int(left.sum()) >= MIN_POINTS:
        near = np.unique(beside[left])
        found = [(int(cell), *explaining(int(cell), heights[cell], base, lines, others,
                                         (left & np.any(beside == cell, axis=1), left, kept)))
                 for cell in near[near >= 0]]
        best = max((count for _, count, _, _ in found), default=0)
        if best < MIN_POINTS:
            break
        winners = [(cell, good, hides) for cell, count, good, hides in found if count == best]
        share = min(MOST_MOVED, 1.0 - math.exp(-best / 2.0)) if len(winners) == 1 else AMBIGUOUS_SHARE
        for cell, good, hides in winners:
            probs[cell] = moved(probs[cell], good, share)
            left &= ~hides
    return probs


def explaining(cell: int, heights: FloatArray, base: FloatArray, lines: Sightlines, others: BoolArray,
               points: tuple[BoolArray, BoolArray, BoolArray]) -> tuple[int, BoolArray, BoolArray]:
    """Returns how many of the lost points on a cell's own lines its best candidates hide newly,
    those candidates (the lowest height hiding nearly as many of them as any, NEARLY_ALL,
    without hiding a kept point; points: lost on its own lines, lost, kept) and every lost
    point they hide newly."""
    own, lost, kept = points
    before = lines.covered_by(cell, base[cell], others)
    tried = []
    for height in np.unique(heights[heights > base[cell]]):
        hides = lines.covered_by(cell, float(height), others) & ~before
        if not (hides & kept).any():
            tried.append((int((hides & own).sum()), float(height), hides & lost))
    most = max((count for count, _, _ in tried), default=0)
    if most == 0:
        return 0, np.zeros(len(heights), np.bool_), np.zeros(len(lost), np.bool_)
    count, height, hides = next(entry for entry in tried if entry[0] >= NEARLY_ALL * most)
    return count, np.asarray(heights == height, np.bool_), hides


def moved(probs: FloatArray, good: BoolArray, share: float) -> FloatArray:
    """Returns a cell's probabilities with a share moved to some candidates (in their own proportions)."""
    chosen = np.where(good, probs, 0.0)
    total = float(chosen.sum())
    chosen = chosen / total if total > 0 else good / max(int(good.sum()), 1)
    return np.asarray((1.0 - share) * probs + share * chosen, np.float64)
