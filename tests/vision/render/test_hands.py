"""Tests of the hands: they cover what they reach over, and a trip lifts, carries and sets down."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.render.camera import CameraSpec
from vision.render.effects import LightSpec
from vision.render.hands import Hand, Look, Trip, arm, back_from, hand_mask, pick_look, trip_moments
from vision.render.scene import Renderer

OVERHEAD = LightSpec(kelvin=6500, sources=((0.0, 90.0, 1.0),), ambient=0.5, shadow_blur_mm=0.0, awb=1.0)
LOOK = Look(skin=(224, 172, 140), sleeve=(38, 56, 110), cuff_mm=120.0)
EMPTY = {"size": 9, "cells": {}, "off": {"hand": {"1": 0, "2": 0}}}


def frame_mask(renderer: Renderer, hand: Hand) -> np.ndarray:
    """Returns the hand's mask as the frame sees it (through the lens), as booleans."""
    return np.asarray(renderer.lens.develop(hand_mask(renderer.canvas, hand)) > 127)


@pytest.mark.parametrize("square, edge", [("e5", (0.0, -1.0)), ("b8", (0.0, 1.0)), ("h2", (1.0, 0.0))])
def test_a_hand_covers_the_square_it_reaches_and_nothing_far_from_it(square: str, edge: tuple[float, float]) -> None:
    renderer = Renderer("block-arena", "9x9", CameraSpec(k1=-0.1, tilt_deg=10, azimuth_deg=70), OVERHEAD, seed=1)
    x, y = renderer.setting.centre(square)
    hand = Hand(arm(np.array([x, y, 5.0]), np.array(edge), LOOK, ceiling=300.0))
    bare, covered = renderer.ideal(EMPTY).astype(int), renderer.ideal(EMPTY, hand).astype(int)
    mask = frame_mask(renderer, hand)
    u, v = np.round(renderer.camera.project([[x, y, 0.0]])[0]).astype(int)
    assert mask[v, u]
    inside = cv2.erode(mask.astype(np.uint8), np.ones((5, 5), np.uint8)).astype(bool)
    assert np.abs(covered - bare).sum(axis=2)[inside].mean() > 60
    near = cv2.dilate(mask.astype(np.uint8), np.ones((25, 25), np.uint8)).astype(bool)
    assert np.abs(covered - bare).max(axis=2)[~near].max() <= 2
    assert 0.01 < mask.mean() < 0.6


def test_the_arm_trails_back_to_its_edge_and_stays_under_the_ceiling() -> None:
    grip = np.array([100.0, 120.0, 30.0])
    capsules = arm(grip, np.array([0.0, -1.0]), LOOK, ceiling=200.0)
    ends = np.vstack([point for capsule in capsules for point in (capsule.start, capsule.end)])
    assert ends[:, 2].max() <= 200.0
    assert ends[:, 1].min() < grip[1] - 500
    assert {capsule.rgb for capsule in capsules} == {LOOK.skin, LOOK.sleeve}


def test_a_trip_lifts_carries_and_sets_down_in_order() -> None:
    pick, place = np.array([50.0, 50.0, 40.0]), np.array([200.0, 150.0, 40.0])
    moments = trip_moments(Trip(np.array([0.0, -1.0]), pick, place, 400.0), approach=4, leave=3)
    stages = [moment.stage for moment in moments]
    assert stages == sorted(stages, key=["before", "holding", "after"].index)
    assert stages.count("before") == 5 and stages.count("after") == 4
    assert all(moment.holding == (moment.stage == "holding") for moment in moments)
    carried = [moment.grip for moment in moments if moment.holding]
    assert np.allclose(carried[-1], place) and max(point[2] for point in carried) > place[2]
    assert moments[0].grip[1] < pick[1] - 300 and moments[-1].grip[1] < place[1] - 300


def test_a_placement_trip_brings_the_piece_in_the_hand() -> None:
    place = np.array([80.0, 90.0, 10.0])
    moments = trip_moments(Trip(np.array([0.0, 1.0]), None, place, 300.0), approach=3, leave=2)
    assert [moment.stage for moment in moments] == ["holding"] * 4 + ["after"] * 3
    assert all(moment.holding for moment in moments[:4]) and not any(moment.holding for moment in moments[4:])
    assert moments[0].grip[1] > place[1] + 150


def test_looks_and_edges_are_seeded() -> None:
    first = [pick_look(np.random.default_rng(4)) for _ in range(2)]
    assert first[0] == first[1]
    angles = [back_from((0.0, -1.0), np.random.default_rng(seed)) for seed in range(20)]
    assert all(np.isclose(np.linalg.norm(angle), 1.0) and angle[1] < -0.85 for angle in angles)
    assert len({round(float(angle[0]), 6) for angle in angles}) > 10
