"""Tests of the scene gate on synthetic board-region sequences, asserting exact state sequences."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from tests.vision.scenes import board, leaning, lit, noisy, tinted, with_hand
from vision.gate import (GateError, GateSettings, GateState, SceneGate, StillEvent, components, out_of_view,
                         skin_mask)

M, C, S = GateState.MOVING, GateState.COVERED, GateState.STILL
START = board(((2, 2, (60, 120, 200)), (6, 1, (40, 40, 40))))
AFTER = board(((2, 2, (60, 120, 200)), (6, 1, (40, 40, 40)), (4, 4, (90, 60, 38))))
EDGE = leaning(board(((2, 2, (60, 120, 200)), (6, 1, (40, 40, 40)), (0, 4, (90, 60, 38)))), 160, 8, (70, 50, 35))
WARM = (0.8, 0.96, 1.15)  # a 2700 K lamp's tint, under which the mat reads as skin
NEUTRAL = (1.0, 1.0, 1.0)
TABLE, TABLE_BAND = (60, 95, 120), 24  # a wooden table beyond the board, and how wide it shows


Events = list[tuple[int, StillEvent]]


def run(gate: SceneGate, frames: list[np.ndarray], seed: int = 0,
        t0: float = 0.0) -> tuple[list[GateState], Events]:
    """Feeds noisy frames 100 ms apart; returns the states and the (index, event) pairs."""
    rng = np.random.default_rng(seed)
    states: list[GateState] = []
    events: Events = []
    for index, frame in enumerate(frames):
        states.append(gate.update(noisy(frame, rng), t0 + 100.0 * index))
        if gate.event is not None:
            events.append((index, gate.event))
    return states, events


def settled(gate: SceneGate, frame: np.ndarray = START) -> None:
    """Brings a new gate to STILL on a frame."""
    states, events = run(gate, [frame] * 3, seed=99, t0=-1000.0)
    assert states == [M, M, S] and events[0][1].changed and not events[0][1].forced


def test_the_first_still_scene_is_announced_once() -> None:
    gate = SceneGate()
    states, events = run(gate, [START] * 6)
    assert states == [M, M, S, S, S, S]
    assert [index for index, _ in events] == [2]
    assert events[0][1] == StillEvent(200.0, True, 1.0, False)


def test_a_hand_slides_in_places_a_piece_and_slides_out() -> None:
    gate = SceneGate()
    settled(gate)
    frames = ([with_hand(START, reach) for reach in (30, 80, 130, 130, 130)]
              + [with_hand(AFTER, reach) for reach in (130, 80, 30)] + [AFTER] * 5)
    states, events = run(gate, frames)
    assert states == [C, C, C, C, C, C, C, C, M, M, M, S, S]
    assert [index for index, _ in events] == [11]
    event = events[0][1]
    assert event.changed and not event.forced and event.t_ms == 1100.0
    assert 0.002 < event.changed_fraction < 0.05


def test_a_pause_one_frame_short_is_announced_late_when_the_next_hand_comes() -> None:
    gate = SceneGate()
    settled(gate)
    hand = [with_hand(START, reach) for reach in (30, 130)] + [with_hand(AFTER, reach) for reach in (130, 30)]
    frames = hand + [AFTER] * 3 + [with_hand(AFTER, 30), with_hand(AFTER, 130)]
    states, events = run(gate, frames)
    assert states == [C, C, C, C, M, M, M, C, C]
    assert [index for index, _ in events] == [7]
    event = events[0][1]
    assert event.late and event.changed and not event.forced and event.t_ms == 600.0


def test_a_pause_of_two_frames_is_no_still_scene() -> None:
    gate = SceneGate()
    settled(gate)
    hand = [with_hand(START, reach) for reach in (30, 130)] + [with_hand(AFTER, reach) for reach in (130, 30)]
    states, events = run(gate, hand + [AFTER] * 2 + [with_hand(AFTER, 30)])
    assert states == [C, C, C, C, M, M, C] and events == []


def test_a_hand_that_changes_nothing_gives_an_unchanged_still_event() -> None:
    gate = SceneGate()
    settled(gate)
    hand = [with_hand(START, reach) for reach in (60, 110, 40)]
    states, events = run(gate, hand + [START] * 4)
    assert states == [C, C, C, M, M, M, S]
    assert len(events) == 1 and not events[0][1].changed and events[0][1].changed_fraction < 0.002


def test_a_piece_appearing_without_a_hand_is_motion_then_still() -> None:
    gate = SceneGate()
    settled(gate)
    states, events = run(gate, [AFTER] * 5)
    assert states == [M, M, M, S, S]
    assert [index for index, _ in events] == [3] and events[0][1].changed


def test_a_lamp_turned_up_or_down_is_not_motion() -> None:
    gate = SceneGate()
    settled(gate)
    frames = [lit(START, 1.25)] * 3 + [lit(START, 0.7)] * 3 + [lit(START, 1.0, ramp=0.35)] * 3
    states, events = run(gate, frames)
    assert states == [S] * 9 and events == []


def test_after_a_light_change_a_new_piece_is_still_seen() -> None:
    gate = SceneGate()
    settled(gate)
    states, events = run(gate, [lit(START, 1.2)] * 2 + [lit(AFTER, 1.2)] * 4)
    assert states == [S, S, M, M, M, S]
    assert len(events) == 1 and events[0][1].changed and events[0][1].changed_fraction < 0.05


def test_sensor_noise_alone_never_moves_the_scene() -> None:
    gate = SceneGate()
    states, events = run(gate, [START] * 40, seed=7)
    assert states == [M, M] + [S] * 38 and len(events) == 1


def test_a_resting_cover_becomes_part_of_the_scene_after_the_hold() -> None:
    gate = SceneGate(GateSettings(cover_hold_frames=4))
    settled(gate)
    states, events = run(gate, [with_hand(START, 90)] * 9)
    assert states == [C, C, C, C, M, M, S, S, S]
    assert [index for index, _ in events] == [6] and events[0][1].changed


@pytest.mark.parametrize("tint", [NEUTRAL, WARM], ids=["neutral", "warm"])
def test_a_piece_leaning_over_the_edge_narrower_than_an_arm_is_still(tint: tuple[float, float, float]) -> None:
    gate = SceneGate()
    settled(gate, tinted(START, tint))
    arm = [with_hand(START, 60, half_width=50), with_hand(START, 120, half_width=50),
           with_hand(EDGE, 120, half_width=50), with_hand(EDGE, 60, half_width=50)]
    states, events = run(gate, [tinted(frame, tint) for frame in arm + [EDGE] * 5])
    assert states == [C, C, C, C, M, M, M, S, S]
    assert [index for index, _ in events] == [7] and events[0][1].changed


def test_a_piece_taken_from_beside_a_warm_mat_is_not_a_hand() -> None:
    beside = leaning(START, 250, 8, (40, 40, 40))
    assert skin_mask(tinted(START, WARM)).mean() > 0.8
    gate = SceneGate()
    settled(gate, tinted(beside, WARM))
    arm = [with_hand(beside, 60, 250, half_width=50), with_hand(START, 60, 250, half_width=50)]
    states, events = run(gate, [tinted(frame, WARM) for frame in arm + [START] * 5])
    assert states == [C, C, M, M, M, S, S] and [index for index, _ in events] == [5]


def test_an_arm_at_rest_on_a_warm_mat_stays_covered() -> None:
    gate = SceneGate()
    settled(gate, tinted(START, WARM))
    states, events = run(gate, [tinted(with_hand(START, reach), WARM) for reach in (100, 130, 130, 130, 130, 130)])
    assert states == [C] * 6 and events == []


def test_an_arm_coming_in_from_beyond_the_camera_view_is_covered() -> None:
    gate = SceneGate()
    rng = np.random.default_rng(3)
    frames = [START] * 3 + [with_hand(START, reach) for reach in (100, 150, 200, 200, 200)]
    states = []
    for index, frame in enumerate(frames):
        seen = noisy(frame, rng)
        seen[:, :80] = 0  # the region runs past the camera's view: the rectified image is black there
        states.append(gate.update(seen, 100.0 * index))
    assert states == [M, M, S, C, C, C, C, C]


def test_only_black_joined_to_the_border_is_beyond_the_view() -> None:
    image = np.full((40, 60, 3), 120, np.uint8)
    image[:, :10] = 0
    image[15:25, 30:40] = 0
    beyond = out_of_view(image)
    assert beyond[:, :10].all() and not beyond[15:25, 30:40].any() and beyond.sum() == 400


@pytest.mark.parametrize("channels", [0, 1, 3, 4])
def test_black_is_black_in_every_colour_channel_and_alpha_says_nothing(channels: int) -> None:
    image = np.full((30, 30, max(channels, 1)), 0, np.uint8)
    image[:, 10:] = 90
    image[:, 20:, 0] = 0  # blue off alone: still lit unless blue is the only channel
    if channels == 4:
        image[:, :, 3] = 255
    beyond = out_of_view(image[:, :, 0] if channels == 0 else image)
    assert beyond[:, :10].all() and not beyond[:, 10:20].any()
    assert beyond[:, 20:].all() == (channels <= 1) and beyond[:, 20:].any() == (channels <= 1)


def test_force_still_announces_the_scene_at_once() -> None:
    gate = SceneGate()
    settled(gate)
    run(gate, [AFTER])
    event = gate.force_still()
    assert event.forced and event.changed and gate.state is S
    states, events = run(gate, [AFTER] * 3, t0=200.0)
    assert states == [S, S, S] and events == []


def test_a_still_time_can_be_required_as_well_as_still_frames() -> None:
    gate = SceneGate(GateSettings(still_frames=2, still_ms=450))
    settled_states, _ = run(gate, [START] * 2)
    states, events = run(gate, [AFTER] * 7, t0=1000.0)
    assert settled_states == [M, S]
    assert states == [M, M, M, M, M, S, S] and [index for index, _ in events] == [5]


def test_gray_frames_of_any_size_work() -> None:
    gate = SceneGate(GateSettings(size=(64, 64)))
    gray = START.mean(axis=2).astype(np.uint8)
    assert [gate.update(gray, t) for t in (0, 1, 2)] == [M, M, S]


def test_bad_input_is_refused_and_changes_nothing() -> None:
    gate = SceneGate()
    with pytest.raises(GateError, match="no frame yet"):
        gate.force_still()
    settled(gate)
    with pytest.raises(GateError, match="before the previous frame"):
        gate.update(START, -5000.0)
    with pytest.raises(GateError, match="finite number"):
        gate.update(START, float("nan"))
    with pytest.raises(ValueError, match="uint8"):
        gate.update(START.astype(np.float32), 10.0)
    assert gate.state is S and run(gate, [START], t0=0.0)[0] == [S]


@pytest.mark.parametrize("settings", [{"still_frames": 0}, {"size": (8, 8)}, {"diff_level": 0},
                                      {"light_fraction": 1.5}, {"cover_hold_frames": 0}, {"arm_fraction": 0.0}])
def test_settings_out_of_range_are_refused(settings: dict[str, object]) -> None:
    with pytest.raises(GateError, match=next(iter(settings))):
        GateSettings(**settings)  # type: ignore[arg-type]


def reserve_taken() -> tuple[np.ndarray, np.ndarray]:
    """Returns a board with a row of reserve pieces along its bottom edge, beyond the board, and
    the same board once a hand took them."""
    full = START.copy()
    full[-14:, 60:300] = (40, 40, 40)
    return full, START


@pytest.mark.parametrize("beyond, expected", [(0.1, [C, C, C, M, M, S, S]), (0.0, [C, C, C, C, C, C, C])],
                         ids=["band-known", "band-unknown"])
def test_a_still_change_wholly_beyond_the_board_covers_nothing(beyond: float, expected: list[GateState]) -> None:
    full, taken = reserve_taken()
    gate = SceneGate()
    gate.beyond = beyond
    settled(gate, full)
    frames = [with_hand(full, 80, row=300), with_hand(taken, 60, row=300)] + [taken] * 5
    states, _ = run(gate, frames)
    assert states == expected


def on_table(image: np.ndarray, reserve: bool = False) -> np.ndarray:
    """Returns a board region whose outer band beyond the board shows a table (TABLE_BAND pixels
    wide), with a row of reserve pieces in its bottom band if asked."""
    out = image.copy()
    for band in (np.s_[:TABLE_BAND], np.s_[-TABLE_BAND:]):
        out[band, :], out[:, band] = TABLE, TABLE
    if reserve:
        out[-TABLE_BAND + 4:-4, 60:300] = (40, 40, 40)
    return out


def test_a_reserve_taken_beside_a_piece_put_at_the_edge_covers_nothing_once_still() -> None:
    full, taken = on_table(START, reserve=True), on_table(START)
    placed = taken.copy()
    placed[-60:-TABLE_BAND + 4, 100:150] = (40, 40, 40)  # put down at the board's edge, its shadow reaching the gap
    gate = SceneGate()
    gate.beyond = TABLE_BAND / START.shape[0]
    settled(gate, full)
    frames = [with_hand(full, 80, row=300), with_hand(placed, 60, row=300)] + [placed] * 5
    states, events = run(gate, frames)
    assert states == [C, C, C, M, M, S, S] and [index for index, _ in events] == [5]


def test_an_arm_resting_where_a_reserve_was_taken_stays_covered() -> None:
    full, taken = on_table(START, reserve=True), on_table(START)
    gate = SceneGate()
    gate.beyond = TABLE_BAND / START.shape[0]
    settled(gate, full)
    states, events = run(gate, [with_hand(full, 80, row=300)] + [with_hand(taken, 120, row=300)] * 6)
    assert states == [C] * 7 and events == []


def _plain_gain(gate: SceneGate, now: np.ndarray, before: np.ndarray) -> np.ndarray:
    """Returns the light's gain worked out the plain way (no cached logs, a boolean index)."""
    valid = (now > 16) & (before > 16) & (now < 250) & (before < 250)
    ratio = np.log(np.maximum(now, 1.0)) - np.log(np.maximum(before, 1.0))
    middle = float(np.median(ratio[valid][::4]))
    inliers = (valid & (np.abs(ratio - middle) < 0.15)).ravel()
    basis = gate._basis[:, inliers]
    plane = np.linalg.solve(basis @ basis.T, basis @ ratio.ravel()[inliers])
    return np.asarray(np.exp(plane @ gate._basis).reshape(now.shape), np.float32)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_light_gain_is_bit_for_bit_the_plain_fit_also_when_its_logs_are_reused(seed: int) -> None:
    gate = SceneGate()
    rng = np.random.default_rng(seed)
    ys, xs = np.mgrid[0:120, 0:160].astype(np.float32)
    before = np.asarray(rng.uniform(20, 230, (120, 160)), np.float32)
    now = np.asarray(np.clip(before * (1.2 + xs / 400 - ys / 600), 0, 255), np.float32)
    for _ in range(2):  # the second time round the logs come from the cache
        assert np.array_equal(gate._gain(now, before), _plain_gain(gate, now, before))
        assert np.array_equal(gate._gain(before, now), _plain_gain(gate, before, now))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_gates_regions_are_opencvs_default_regions(seed: int) -> None:
    rng = np.random.default_rng(seed)
    mask = rng.random((120, 160)) < 0.3
    mask[20:60, 30:90] = True
    count, labels, stats = components(mask)
    plain_count, plain_labels, plain_stats, _ = cv2.connectedComponentsWithStats(mask.astype(np.uint8), connectivity=8)
    assert count == plain_count > 10
    assert sorted(map(tuple, stats.tolist())) == sorted(map(tuple, plain_stats.tolist()))
    pairs = set(zip(labels.ravel().tolist(), plain_labels.ravel().tolist()))
    assert len(pairs) == count  # one region for one region: the same pixels grouped the same way
