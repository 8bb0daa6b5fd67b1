"""Hands: a skin-toned hand and forearm in a sleeve, reaching in from a board edge to move pieces.

A hand is a set of tapered capsules (fingers, thumb, palm, forearm, sleeve) posed around a grip
point, the place where the fingertips close over the piece being moved, with the arm trailing
back towards the player's edge of the table and rising as it goes. A Trip is one reach: in from
the edge, down onto the lifted pieces (if any), carried in an arc to where they are set down,
and back out; `trip_moments` turns it into one Moment per frame.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from vision.render.camera import Canvas, FloatArray, Image, bgr, fill
from vision.render.effects import Lighting
from vision.render.solids import RGB, Solid

SKIN_TONES: tuple[RGB, ...] = ((241, 194, 160), (224, 172, 140), (198, 134, 98), (160, 104, 70), (112, 72, 50))
SLEEVES: tuple[RGB, ...] = ((38, 56, 110), (150, 34, 44), (62, 62, 66), (205, 205, 196), (34, 96, 62), (230, 150, 40))
CIRCLE = np.column_stack([np.cos(np.linspace(0, 2 * np.pi, 16, endpoint=False)),
                          np.sin(np.linspace(0, 2 * np.pi, 16, endpoint=False))])
CORNERS = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)]) / math.sqrt(3)
SPHERE = np.vstack([np.eye(3), -np.eye(3), CORNERS])
RIM_SHADE, CORE_SIZE = 0.84, 0.7
HOVER_MM, LIFT_MM, CARRY_STEP_MM = 45.0, 30.0, 60.0
FINGERS = ((-21.0, 8.5), (-7.0, 9.0), (7.0, 8.5), (21.0, 7.5))


@dataclass(frozen=True, slots=True, eq=False)
class Capsule:
    """A tapered capsule between two points in board mm, of one colour."""

    start: FloatArray
    end: FloatArray
    start_radius: float
    end_radius: float
    rgb: RGB


@dataclass(frozen=True, slots=True, eq=False)
class Hand:
    """A hand and arm at one instant: the capsules that draw it and the solids it holds."""

    capsules: tuple[Capsule, ...]
    held: tuple[Solid, ...] = ()


@dataclass(frozen=True, slots=True)
class Look:
    """Whose hand it is: skin tone, sleeve colour and how far from the wrist the sleeve starts (mm)."""

    skin: RGB
    sleeve: RGB
    cuff_mm: float


def pick_look(rng: np.random.Generator) -> Look:
    """Returns a seeded choice of skin tone, sleeve colour and sleeve length."""
    skin = SKIN_TONES[int(rng.integers(len(SKIN_TONES)))]
    sleeve = SLEEVES[int(rng.integers(len(SLEEVES)))]
    return Look(skin, sleeve, float(rng.uniform(60.0, 220.0)))


def arm(grip: FloatArray, back: FloatArray, look: Look, ceiling: float) -> tuple[Capsule, ...]:
    """Returns the capsules of a hand closing at grip, its arm trailing along back, below ceiling mm."""
    # back is a horizontal unit vector from the grip towards the player; the ceiling keeps the
    # arm well below the camera.
    back3 = np.array([back[0], back[1], 0.0])
    side = np.array([-back[1], back[0], 0.0])
    up = np.array([0.0, 0.0, 1.0])

    def at(along: float, across: float, high: float) -> FloatArray:
        """Returns a point relative to the grip, its height capped at the ceiling."""
        point = grip + back3 * along + side * across + up * high
        point[2] = min(point[2], ceiling)
        return point

    skin = look.skin
    parts = [Capsule(at(62, offset, 40), at(4, offset * 0.4, 4), radius, radius * 0.85, skin)
             for offset, radius in FINGERS]
    parts.append(Capsule(at(95, -36, 42), at(12, -13, 6), 11.5, 9.0, skin))
    parts.append(Capsule(at(108, 0, 58), at(62, 0, 44), 33.0, 31.0, skin))
    parts.append(Capsule(at(120, 0, 64), at(360, 0, 175), 27.0, 34.0, skin))
    cuff = at(120 + look.cuff_mm, 0, 64 + look.cuff_mm * 0.45)
    parts.append(Capsule(cuff, at(700, 0, 260), 38.0, 46.0, look.sleeve))
    return tuple(parts)


def _outline(canvas: Canvas, capsule: Capsule, shrink: float) -> FloatArray:
    """Returns the canvas outline of a capsule: the hull of its two end circles (radii times shrink)."""
    ends = np.vstack([capsule.start, capsule.end])
    centres = canvas.pixels(ends)
    depths = canvas.camera.to_camera(ends)[:, 2]
    radii = canvas.matrix[0, 0] * np.array([capsule.start_radius, capsule.end_radius]) * shrink / depths
    points = np.vstack([centre + CIRCLE * radius for centre, radius in zip(centres, radii)])
    return np.asarray(cv2.convexHull(points.astype(np.float32)).reshape(-1, 2), np.float64)


def _ordered(canvas: Canvas, hand: Hand) -> list[Capsule]:
    """Returns the hand's capsules from the farthest from the camera to the nearest."""
    eye = canvas.camera.centre
    return sorted(hand.capsules, key=lambda c: -float(np.linalg.norm((c.start + c.end) / 2 - eye)))


def draw_hand(image: Image, canvas: Canvas, hand: Hand, light: Lighting) -> None:
    """Draws the hand far to near, each capsule with a darker rim and a lit core."""
    lit = float(light.shade(np.array([[0.0, 0.0, 1.0]]))[0])
    for capsule in _ordered(canvas, hand):
        fill(image, _outline(canvas, capsule, 1.0), bgr(np.array(capsule.rgb) * lit * RIM_SHADE), smooth=True)
        fill(image, _outline(canvas, capsule, CORE_SIZE), bgr(np.array(capsule.rgb) * lit), smooth=True)


def hand_mask(canvas: Canvas, hand: Hand) -> Image:
    """Returns a canvas-sized mask, 255 where the hand and arm cover the view."""
    width, height = canvas.size
    mask = np.zeros((height, width), np.uint8)
    for capsule in hand.capsules:
        fill(mask, _outline(canvas, capsule, 1.0), (255,))
    return mask


def hand_casters(hand: Hand) -> list[tuple[FloatArray, float]]:
    """Returns each capsule as points on its end spheres, for its shadow on the mat."""
    return [(np.vstack([capsule.start + SPHERE * capsule.start_radius,
                        capsule.end + SPHERE * capsule.end_radius]), 1.0) for capsule in hand.capsules]


# -- trips -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, eq=False)
class Trip:
    """One reach from the player's side (back): grip at pick (None: pieces come in the hand), set down at place."""

    back: FloatArray
    pick: FloatArray | None
    place: FloatArray
    reach_mm: float


@dataclass(frozen=True, slots=True, eq=False)
class Moment:
    """The hand in one frame: its grip point, which position shows (before, holding, after), whether it holds."""

    grip: FloatArray
    stage: str
    holding: bool


def back_from(edge: tuple[float, float], rng: np.random.Generator, spread_deg: float = 25.0) -> FloatArray:
    """Returns a unit vector towards a board edge (given as a direction), turned by a seeded angle."""
    angle = math.atan2(edge[1], edge[0]) + math.radians(float(rng.uniform(-spread_deg, spread_deg)))
    return np.array([math.cos(angle), math.sin(angle)])


def _ease(fraction: float) -> float:
    """Returns a smooth start-and-stop fraction (smoothstep)."""
    return fraction * fraction * (3 - 2 * fraction)


def _glide(start: FloatArray, end: FloatArray, count: int, lift: float = 0.0) -> list[FloatArray]:
    """Returns count points easing from start to end (end included, start not), raised by an arc of lift mm."""
    points = []
    for step in range(1, count + 1):
        fraction = _ease(step / count)
        point = start + (end - start) * fraction
        points.append(point + np.array([0.0, 0.0, lift * math.sin(math.pi * step / count)]))
    return points


def trip_moments(trip: Trip, approach: int = 5, leave: int = 4) -> list[Moment]:
    """Returns the frames of a trip: approach, grip, carry, set down, release, leave."""
    up = np.array([0.0, 0.0, HOVER_MM])
    first = trip.place if trip.pick is None else trip.pick
    entry = first + np.array([trip.back[0], trip.back[1], 0.0]) * trip.reach_mm + up * 3
    carrying = trip.pick is None
    moments = [Moment(point, "holding" if carrying else "before", carrying)
               for point in _glide(entry, first + up, approach)]
    if trip.pick is not None:
        moments.append(Moment(trip.pick, "before", False))
        steps = max(2, int(math.ceil(float(np.linalg.norm(trip.place - trip.pick)) / CARRY_STEP_MM)))
        moments += [Moment(point, "holding", True) for point in _glide(trip.pick, trip.place, steps, LIFT_MM)]
    else:
        moments.append(Moment(trip.place, "holding", True))
    moments.append(Moment(trip.place + up * 0.3, "after", False))
    exit_point = trip.place + np.array([trip.back[0], trip.back[1], 0.0]) * trip.reach_mm + up * 3
    moments += [Moment(point, "after", False) for point in _glide(trip.place + up * 0.3, exit_point, leave)]
    return moments
