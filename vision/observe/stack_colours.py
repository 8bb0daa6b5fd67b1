"""The colours the stack observers (vision.observe.stacks) score against, and how they learn them.

Every colour of a game's pieces has a Lab prototype per face (top, or a side facing +x, -x, +y or
-y: the light shades each side its own way), kept in a ColourMemory (vision.observe.colours)
under the part name 'colour/face', with the mat's as 'mat'. A prototype starts at its nominal
KIT.md colour; until learnt it is shaded like the faces other colours have learnt, and scored
with a wider spread. Each frame, the cells the referee's current position explains teach their
parts' colours (medians over the interior samples of each part, then over cells), and the
samples' noise is measured from their spread. A translucent colour shows whatever lies behind
it, so it is scored as the local mat seen through a tinted shell and never learnt. A glossy dark
colour mirrors what stands round it (mostly the light mat) far above its own dark paint, so it is
also scored as the local mat, darker by any amount and at no shadow's cost. The mat
itself is a smooth light field fitted to the samples that show it, perhaps in shadow: a darker
mat keeps its hue and costs a gentle, capped penalty.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.kit import Kit
from vision.observe.calibrate import cubic_basis
from vision.observe.colours import LIGHTNESS_WEIGHT, ColourMemory, lab_distance
from vision.observe.context import ObserveError, converted, rgb_to_lab

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]
BoolArray = NDArray[np.bool_]
FACES = ("+x", "-x", "+y", "-y", "top")
TOP = 4
MAT = "mat"
DEFAULT_GAINS = np.array([0.7, 0.7, 0.7, 0.7, 1.0])  # each face's light, before any is learnt
TRANSLUCENT = (0.5, 0.25)  # a clear piece: its colour's shade, and its share over the mat
SIGMA_LEARNT, SIGMA_PRIOR = 5.0, 8.0  # a prototype's own spread (Lab, lightness halved)
NOISE_FLOOR, NOISE_DEFAULT = 1.0, 4.0  # the samples' noise per Lab axis: least, and unmeasured
CAP = 9.0  # a sample's squared distance in sigmas stops counting beyond this (outliers)
SHADOW_L = 25.0  # lightness a shadow takes off the mat at one sigma's cost
SHADOW_COST = 0.5  # the most a shadow costs a sample, however deep (nats)
FIELD_SAMPLES = 40  # mat samples needed to fit the light falling across the mat
FIELD_ROUNDS = 4  # fits of that light, each dropping the samples in shadow
MIN_PIXELS = 5  # interior samples a cell needs to teach a part's colour
SHADED_SHIFT = 50.0  # how far (Lab) a learnt face may lie from nominal: faces turned from the light are dark
GLOSS_SIGMA = 5.0  # a glossy dark face's spread about the mat it mirrors (Lab, lightness free below):
                   # black caps' faces on realistic renders keep the mat's hue within about 8; at
                   # 8.0 a green Medium paler than the learnt green read as a black cap by 17 nats


@dataclass(frozen=True, slots=True)
class Colours:
    """A game's piece colours (kit names), the faces its pieces show, the translucent ones and
    the glossy dark ones (they mirror the mat round them)."""

    names: tuple[str, ...]
    faces: tuple[int, ...]
    translucent: frozenset[str] = frozenset()
    glossy: frozenset[str] = frozenset()


def part(colour: str, face: int) -> str:
    """Returns the memory's name for one face of a colour ('red/+x', 'cat/top')."""
    return f"{colour}/{FACES[face]}"


def nominal_colours(kit: Kit, game: str, colours: Colours) -> dict[str, tuple[float, float, float]]:
    """Returns the nominal sRGB of every colour's faces and of the mat (a translucent colour as a
    shaded share of it over the mat), or raises ObserveError if the kit lacks a colour."""
    named = kit.colours.get(game, {})
    missing = [name for name in colours.names if name not in named]
    if missing:
        raise ObserveError(f"kit {kit.name!r} has no {game} colour {missing[0]!r}")
    mat = _rgb(kit.mat_rgb)
    nominal: dict[str, tuple[float, float, float]] = {MAT: mat}
    for name in colours.names:
        rgb = _rgb(named[name])
        if name in colours.translucent:
            shade, share = TRANSLUCENT
            rgb = _rgb(encode((1 - share) * linear(np.array(mat)) + share * shade * linear(np.array(rgb))))
        nominal.update({part(name, face): rgb for face in colours.faces})
    return nominal


def _rgb(value: Sequence[float] | FloatArray) -> tuple[float, float, float]:
    """Returns an sRGB triple as floats."""
    return (float(value[0]), float(value[1]), float(value[2]))


def linear(rgb: FloatArray) -> FloatArray:
    """Returns linear light (0-1) of sRGB values 0-255."""
    value = np.clip(np.asarray(rgb, np.float64) / 255.0, 0.0, 1.0)
    return np.asarray(np.where(value <= 0.04045, value / 12.92, ((value + 0.055) / 1.055) ** 2.4), np.float64)


def encode(light: FloatArray) -> FloatArray:
    """Returns sRGB values 0-255 of linear light (0-1)."""
    value = np.clip(np.asarray(light, np.float64), 0.0, 1.0)
    return np.asarray(255.0 * np.where(value <= 0.0031308, value * 12.92, 1.055 * value ** (1 / 2.4) - 0.055),
                      np.float64)


def lab_to_rgbs(labs: FloatArray) -> FloatArray:
    """Returns the sRGB triples 0-255 (N x 3) of Lab colours (N x 3, OpenCV float scale)."""
    pixels = np.asarray(labs, np.float32).reshape(1, -1, 3)
    return np.asarray(converted(pixels, cv2.COLOR_LAB2RGB)[0], np.float64) * 255.0


def rgbs_to_lab(rgb: FloatArray) -> FloatArray:
    """Returns the Lab colours (N x 3, OpenCV float scale) of sRGB triples 0-255 (N x 3), as
    rgb_to_lab does each."""
    pixels = (np.asarray(rgb, np.float64).reshape(-1, 3)[:, ::-1] / 255.0).astype(np.float32)
    return np.asarray(converted(pixels.reshape(1, -1, 3), cv2.COLOR_BGR2LAB)[0], np.float64)


def learnt(memory: ColourMemory, name: str) -> bool:
    """Tells whether the memory has moved a part away from its nominal colour."""
    return not np.array_equal(memory.lab(name), memory.nominal[name])


@dataclass(frozen=True, slots=True)
class Faces:
    """Every colour's listed faces in a memory (C x F, F: the faces the game lists): the Lab
    prototypes and nominal colours (C x F x 3), the nominal colours' linear light, and which
    parts were learnt."""

    labs: FloatArray
    nominal: FloatArray
    light: FloatArray
    learnt: BoolArray


def faces_of(memory: ColourMemory, colours: Colours) -> Faces:
    """Returns the prototypes of every colour's faces in a memory, read at once."""
    names = [part(colour, face) for colour in colours.names for face in colours.faces]
    shape = (len(colours.names), len(colours.faces), 3)
    labs = np.array([memory.lab(name) for name in names]).reshape(shape)
    nominal = np.array([memory.nominal[name] for name in names]).reshape(shape)
    light = linear(lab_to_rgbs(nominal.reshape(-1, 3))).reshape(shape)
    return Faces(labs, nominal, light, ~np.all(labs == nominal, axis=2))


def face_gains(seen: Faces, colours: Colours) -> FloatArray:
    """Returns each face's light relative to nominal: the median over the opaque colours learnt there."""
    gains = DEFAULT_GAINS.copy()
    opaque = np.array([name not in colours.translucent for name in colours.names])
    lit = linear(lab_to_rgbs(seen.labs.reshape(-1, 3))).sum(axis=1).reshape(seen.learnt.shape)
    ratios = lit / np.maximum(seen.light.sum(axis=2), 1e-3)
    for column, face in enumerate(colours.faces):
        chosen = ratios[opaque & seen.learnt[:, column], column]
        if len(chosen):
            gains[face] = float(np.clip(np.median(chosen), 0.2, 1.5))
    return gains


@dataclass(frozen=True, slots=True)
class Palette:
    """The prototypes scored against: Lab (C x 5 x 3) and spread (C x 5) per colour and face,
    the samples' noise (Lab units per axis), which colours are translucent (their prototypes are
    as seen over the nominal mat: the mat around shows through), that mat's Lab, and which
    colours are glossy dark (they may also look like the mat round them, darker)."""

    labs: FloatArray
    sigmas: FloatArray
    noise: float
    clear: tuple[bool, ...]
    mat: FloatArray
    glossy: tuple[bool, ...] = ()


def palette(memory: ColourMemory, colours: Colours, noise: float) -> Palette:
    """Returns the prototypes: learnt parts as learnt, the others nominal, shaded like their face
    (translucent ones as they are: the mat shows through every face alike)."""
    seen = faces_of(memory, colours)
    faces = list(colours.faces)
    clear = tuple(name in colours.translucent for name in colours.names)
    shaded = rgbs_to_lab(encode(seen.light * face_gains(seen, colours)[faces][None, :, None])).reshape(seen.labs.shape)
    kept = seen.learnt | np.array(clear, bool)[:, None]
    labs = np.zeros((len(colours.names), len(FACES), 3))
    sigmas = np.full((len(colours.names), len(FACES)), SIGMA_PRIOR)
    labs[:, faces] = np.where(kept[..., None], seen.labs, shaded)
    sigmas[:, faces] = np.where(seen.learnt, SIGMA_LEARNT, SIGMA_PRIOR)
    glossy = tuple(name in colours.glossy for name in colours.names)
    return Palette(labs, sigmas, noise, clear, memory.nominal[MAT], glossy)


def gaussian(distance: FloatArray, sigma: float, noise: float) -> FloatArray:
    """Returns the log-likelihood of Lab distances from a prototype of a spread, seen through
    noise; outliers (beyond CAP) all cost the same."""
    return np.asarray(np.maximum(-0.5 * (distance / math.hypot(sigma, noise)) ** 2, -CAP / 2), np.float64)


def likelihoods(lab: FloatArray, colours: Palette, faces: Sequence[int],
                mat: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Returns each sample's log-likelihood under every colour's faces (P x C x 5; faces not
    listed very unlikely; a glossy colour's faces as their prototype or a darker mirror of the
    mat, whichever is likelier) and under the mat, whose colour at each sample is given (P x 3)."""
    table = np.full((len(lab), len(colours.labs), len(FACES)), -CAP / 2)
    opaque = [(index, face) for index in range(len(colours.labs)) for face in faces if not colours.clear[index]]
    if opaque:
        rows, columns = np.array(opaque).T
        scales = np.array([math.hypot(colours.sigmas[index, face], colours.noise) for index, face in opaque])
        distance = lab_distances(np.asarray(lab, np.float64), colours.labs[rows, columns])
        table[:, rows, columns] = np.maximum(-0.5 * (distance / scales[:, None]) ** 2, -CAP / 2).T
    for index in range(len(colours.labs)):
        for face in faces if colours.clear[index] else ():
            seen = over_mat(colours.labs[index, face], mat, colours)
            table[:, index, face] = mat_likelihood(lab, seen, colours.noise, colours.sigmas[index, face])
    glossy = [index for index, shiny in enumerate(colours.glossy) if shiny]
    if glossy:
        mirrored = mat_likelihood(lab, mat, colours.noise, GLOSS_SIGMA, 0.0)
        chosen = np.ix_(np.arange(len(lab)), np.array(glossy, np.int64), np.array(faces, np.int64))
        table[chosen] = np.maximum(table[chosen], mirrored[:, None, None])
    return table, mat_likelihood(lab, mat, colours.noise)


def over_mat(labs: FloatArray, mat: FloatArray, colours: Palette) -> FloatArray:
    """Returns how translucent prototypes (as seen over the nominal mat) look over the mat seen
    at some samples: the tint they put on the nominal mat, on that mat."""
    return np.asarray(mat + (labs - colours.mat), np.float64)


def lab_distances(lab: FloatArray, prototypes: FloatArray) -> FloatArray:
    """Returns the distance of every Lab colour (P x 3) to every prototype (K x 3), lightness
    scaled down as lab_distance does (K x P: long rows are quicker to work out)."""
    axes = np.ascontiguousarray(lab.T)
    light = (axes[0][None, :] - prototypes[:, 0, None]) * LIGHTNESS_WEIGHT
    red, yellow = axes[1][None, :] - prototypes[:, 1, None], axes[2][None, :] - prototypes[:, 2, None]
    return np.asarray(np.sqrt(light * light + red * red + yellow * yellow), np.float64)


def mat_likelihood(lab: FloatArray, mat: FloatArray, noise: float, sigma: float = SIGMA_LEARNT,
                   most: float = SHADOW_COST) -> FloatArray:
    """Returns each sample's log-likelihood of showing the mat (P x 3 expected colours), perhaps
    in shadow: darker keeps the mat's hue and costs a gentle penalty, at most `most`."""
    deficit = np.maximum(mat[:, 0] - lab[:, 0], 0.0)
    lifted = lab.copy()
    lifted[:, 0] += deficit
    shadow = np.minimum(0.5 * (deficit / SHADOW_L) ** 2, most)
    return gaussian(lab_distance(lifted, mat), sigma, noise) - shadow


def mat_field(points: FloatArray, lab: FloatArray, side: float, fallback: FloatArray,
              at: FloatArray) -> FloatArray:
    """Returns the mat's colour at points `at`: a smooth quadratic through samples known to
    show the mat (light falls off across it), refitted on those not darker than the fit (shadows
    and printed lines are everywhere around pieces), so it settles on the lit mat; the fallback
    colour everywhere when too few samples show the mat."""
    return field_on(field_basis(points, side), lab, fallback, field_basis(at, side))


def field_basis(points: FloatArray, side: float) -> FloatArray:
    """Returns the mat light field's terms (quadratic over the grid of this side) at mat points."""
    return cubic_basis(points, side, 6)


def field_on(basis: FloatArray, lab: FloatArray, fallback: FloatArray, at: FloatArray) -> FloatArray:
    """Returns mat_field's colours where the field's terms are `at`, fitted to samples whose
    terms are `basis` (see field_basis)."""
    if len(basis) < FIELD_SAMPLES:
        return np.tile(fallback, (len(at), 1))
    keep = np.ones(len(basis), bool)
    for _ in range(FIELD_ROUNDS):
        chosen = basis[keep]
        coefficients = np.linalg.solve(chosen.T @ chosen + 1e-9 * np.eye(6), chosen.T @ lab[keep])
        shortfall = (basis @ coefficients)[:, 0] - lab[:, 0]
        keep = shortfall < 0.5 * 1.4826 * float(np.median(np.abs(shortfall[keep]))) + 1e-6
        if keep.sum() < FIELD_SAMPLES:
            return np.tile(fallback, (len(at), 1))
    return np.asarray(at @ coefficients, np.float64)


def interior(parts: IntArray, grid: tuple[int, int]) -> BoolArray:
    """Tells which samples show the same part as their four grid neighbours (not an edge)."""
    rows = parts.reshape(grid)
    same = np.zeros(grid, bool)
    middle = rows[1:-1, 1:-1]
    same[1:-1, 1:-1] = ((middle == rows[:-2, 1:-1]) & (middle == rows[2:, 1:-1]) &
                        (middle == rows[1:-1, :-2]) & (middle == rows[1:-1, 2:]))
    return same.ravel()


@dataclass(frozen=True, slots=True)
class Lessons:
    """What the cells teach if the current position holds there: for each cell and part it shows
    on enough interior samples, the cell, the part (colour x 5 + face; -1 the mat) and the mean
    Lab; and every such sample's distance from its mean (the frame's noise)."""

    cells: IntArray
    parts: IntArray
    colours: FloatArray
    residuals: FloatArray


def lessons(parts: IntArray, cells: IntArray, lab: FloatArray, inside: BoolArray,
            colours: Colours) -> Lessons:
    """Returns what all cells teach from their samples (parts, cells and interior flags per
    sample): each opaque part a cell shows on MIN_PIXELS interior samples or more (a translucent
    part looks like whatever lies behind it: its prior stands)."""
    clear = [index for index, name in enumerate(colours.names) if name in colours.translucent]
    keep = inside & (parts >= -1) & ~np.isin(parts // len(FACES), clear)
    span = len(colours.names) * len(FACES) + 1
    keys = cells[keep] * span + parts[keep] + 1
    tally = np.bincount(keys)  # as np.unique(keys, return_inverse=True), quicker for small keys
    found = np.flatnonzero(tally)
    rank = np.zeros(len(tally), np.int64)
    rank[found] = np.arange(len(found))
    index, counts = rank[keys], tally[found]
    kept = lab[keep]
    means = np.stack([np.bincount(index, weights=kept[:, axis], minlength=len(found))
                      for axis in range(3)], axis=1) / counts[:, None]
    enough = counts >= MIN_PIXELS
    residuals = lab_distance(kept, means[index])[enough[index]]
    return Lessons(found[enough] // span, found[enough] % span - 1, means[enough], residuals)


def noise_level(taught: Lessons) -> float:
    """Returns the samples' noise per Lab axis: the median distance from their part's mean
    over every cell (a 3D Gaussian's median distance is 1.54 sigma)."""
    if len(taught.residuals) < 10 * MIN_PIXELS:
        return NOISE_DEFAULT
    return max(float(np.median(taught.residuals)) / 1.54, NOISE_FLOOR)


def teach(memory: ColourMemory, taught: Lessons, cells: BoolArray, names: Sequence[str]) -> float:
    """Lets the memory learn every part from the chosen cells that show it; returns how far the
    prototypes moved (the largest Lab distance; infinite when a part was learnt for the first
    time, which also narrows its spread)."""
    gathered: dict[str, list[FloatArray]] = {}
    for cell, shown, colour in zip(taught.cells, taught.parts, taught.colours):
        if cells[cell]:
            name = MAT if shown < 0 else part(names[shown // len(FACES)], int(shown % len(FACES)))
            gathered.setdefault(name, []).append(colour)
    before = {name: (memory.lab(name).copy(), learnt(memory, name)) for name in gathered}
    moved = memory.learn_all(gathered)
    shifts = [float(lab_distance(memory.lab(name), before[name][0])[0]) if before[name][1] else math.inf
              for name in moved]
    return max(shifts, default=0.0)
