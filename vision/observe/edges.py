"""The edges of what a candidate stack shows on a cell's sample grid, for the stack engine
(vision.observe.stacks).

The camera's blur mixes the colours on either side of an edge, and a small piece far off is
almost all edges. So a sample on an edge counts less (EDGE_WEIGHT), and may show its own part's
colour mixed with what its neighbour across the edge shows, when that colour is known whatever
the candidate's new pieces are painted (the mat, a neighbouring cell's piece, or a piece the
referee's position already holds there): its colour is then scored against the nearest mix of
the two that keeps at least MIX_LEAST of its own part.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vision.observe.colours import LIGHTNESS_WEIGHT
from vision.observe.stack_colours import CAP, FACES, BoolArray, FloatArray, IntArray, Palette, over_mat

EDGE_WEIGHT = 0.7  # a sample on an edge counts this much: at 0.7 every Blockade and Tuned set read
# at least as before, at 0.55 and 0.4 some read false moves or stopped sooner
MIX_LEAST = 0.8  # an edge sample shows at least this share of its own part: at 0.5 and 0.65 the
# committed neutral Blockade game read a green Medium slipped into a yellow stack (a layer that
# is all edges is then cheap to paint any colour; measured while the colours across an edge were
# still taken from the shared pyramids); at 0.8 every Blockade set reads as before or better
# (held-out 621 53 -> 79 of 80 with the colours from the position)
UNKNOWN = -3  # no neighbour across an edge, or one whose colour the candidate's painting decides
MAT_PART = -1  # the neighbour across the edge shows the mat


@dataclass(frozen=True, slots=True)
class Across:
    """Per sample and candidate stack (T x P): whether it lies on an edge, the part shown across
    it (colour x 5 + face, MAT_PART or UNKNOWN) and that neighbour's sample."""

    edge: BoolArray
    part: IntArray
    sample: IntArray


def across_edges(shown: IntArray, known: IntArray, grid: tuple[int, int]) -> Across:
    """Returns the edges of what each stack shows (shown: T x P codes, equal where the same
    surface shows) and, per sample, the first of its four grid neighbours that shows another
    surface, with the known part there (known: T x P, UNKNOWN where the painting decides)."""
    index = np.pad(np.arange(shown.shape[1]).reshape(grid), 1, mode="edge")
    steps = (index[:-2, 1:-1], index[2:, 1:-1], index[1:-1, :-2], index[1:-1, 2:])
    beside = np.full(shown.shape, -1, np.int64)
    for step in steps:
        other = step.ravel()
        differs = (shown[:, other] != shown) & (beside < 0)
        beside = np.where(differs, other[None, :], beside)
    edge = beside >= 0
    safe = np.where(edge, beside, 0)
    part = np.where(edge, np.take_along_axis(known, safe, axis=1), UNKNOWN)
    return Across(edge, part, safe)


@dataclass(frozen=True, slots=True)
class Mixes:
    """A cell's painted samples (entries) on an edge with a known part across it, and the
    distinct (sample, face, part across, neighbour's sample) they are scored on: many candidate
    stacks share them, so each is scored once (inverse: each entry's row among them)."""

    entries: IntArray
    inverse: IntArray
    samples: IntArray
    faces: IntArray
    parts: IntArray
    beside: IntArray


def mixes_of(samples: IntArray, faces: IntArray, parts: IntArray, beside: IntArray) -> Mixes:
    """Returns the Mixes of a cell's painted samples (their sample, face, the part across their
    edge, UNKNOWN where none, and that neighbour's sample)."""
    entries = np.flatnonzero(parts != UNKNOWN)
    key = ((samples[entries] * len(FACES) + faces[entries]) * (1 << 12) + parts[entries] + 8) * (1 << 20) \
        + beside[entries]
    _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    chosen = entries[first]
    return Mixes(entries, inverse.reshape(-1), samples[chosen], faces[chosen], parts[chosen], beside[chosen])


def edge_weights(edge: BoolArray) -> FloatArray:
    """Returns each sample's weight under each stack: EDGE_WEIGHT on an edge, else 1."""
    return np.asarray(np.where(edge, EDGE_WEIGHT, 1.0), np.float64)


def mixed_scores(lab: FloatArray, mat: FloatArray, colours: Palette, own: tuple[IntArray, IntArray],
                 neighbour: tuple[IntArray, IntArray]) -> FloatArray:
    """Returns the log-likelihood of each edge sample (own: its sample and face) under every
    colour (E x C) as the nearest mix of that colour's face and what its neighbour shows
    (neighbour: the part across the edge, MAT_PART or a known part, and that sample); lab and mat:
    every sample's colour and the mat's colour there."""
    samples, faces = own
    parts, beside = neighbour
    seen = weighed(lab[samples])
    ours = np.asarray(colours.labs[:, faces, :], np.float64).transpose(1, 0, 2)  # E x C x 3
    clear = np.array(colours.clear, np.bool_)
    ours = np.where(clear[None, :, None], over_mat(ours, mat[samples][:, None, :], colours), ours)
    theirs = neighbour_colours(parts, mat[beside], colours)
    ours, theirs = weighed(ours), weighed(theirs)[:, None, :]
    span = ours - theirs
    along = np.einsum("ecj,ecj->ec", seen[:, None, :] - theirs, span)
    length = np.einsum("ecj,ecj->ec", span, span)
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.clip(np.where(length > 0, along / length, 1.0), MIX_LEAST, 1.0)
    miss = seen[:, None, :] - theirs - share[:, :, None] * span
    scale = colours.sigmas[:, faces].T ** 2 + colours.noise ** 2  # E x C
    found = -0.5 * np.einsum("ecj,ecj->ec", miss, miss) / scale
    return np.asarray(np.maximum(found, -CAP / 2), np.float64)


def neighbour_colours(parts: IntArray, mat: FloatArray, colours: Palette) -> FloatArray:
    """Returns the colour shown across each edge (E x 3): the mat's there, or the known part's
    (a translucent colour over the mat there)."""
    part = np.clip(parts, 0, None)
    colour, face = part // len(FACES), part % len(FACES)
    labs = np.asarray(colours.labs[colour, face], np.float64)
    clear = np.array(colours.clear, np.bool_)[colour]
    labs = np.where(clear[:, None], over_mat(labs, mat, colours), labs)
    return np.asarray(np.where((parts == MAT_PART)[:, None], mat, labs), np.float64)


def weighed(lab: FloatArray) -> FloatArray:
    """Returns Lab colours with lightness scaled as the stack colours' distances scale it."""
    out = np.array(lab, np.float64)
    out[..., 0] *= LIGHTNESS_WEIGHT
    return out
