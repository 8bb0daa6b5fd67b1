"""Tests of the board tracker on synthetic frames: accuracy across the camera envelope,
hidden markers, bumped cameras, game markers, calibration and rectification."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from tests.vision import synth
from vision.board import BoardState, BoardTracker, Calibration, VisionError
from vision.kit import Kit, Mat, kit_named
from vision.pose import SURE_LENS_DOUBT, focal_told, lens_pinned

KIT = kit_named()
SIZES = [(640, 480), (1280, 960)]
HAND = (120, 150, 205)


def frame_of(camera: synth.Camera, mat: Mat, seed: int) -> np.ndarray:
    """Returns a noisy JPEG-compressed frame of the mat seen by the camera."""
    rng = np.random.default_rng(seed)
    return synth.jpeg(synth.add_noise(synth.render(camera, KIT, mat), rng), 80)


def hide(frame: np.ndarray, camera: synth.Camera, kit: Kit, mat: Mat, ids: list[int]) -> np.ndarray:
    """Returns the frame with skin-coloured blobs over the given markers and their quiet zones."""
    out = frame.copy()
    for marker_id in ids:
        corners = kit.marker_corners(mat)[marker_id]
        centre = corners.mean(axis=0)
        blob = camera.project(centre + (corners - centre) * 1.6)
        cv2.fillConvexPoly(out, np.round(blob).astype(np.int32), HAND)
    return out


def grid_error(tracker_view: object, camera: synth.Camera, mat: Mat) -> float:
    """Returns the largest pixel error of the fix's grid corners against the camera's truth."""
    found = tracker_view.grid_corners()  # type: ignore[attr-defined]
    return float(np.abs(found - camera.project(mat.grid_corners())).max())


def envelope_cases() -> list[tuple[int, Mat, tuple[int, int], bool]]:
    """Returns (seed, mat, frame size, distorted) cases covering every mat and both sizes."""
    mats = KIT.mats
    return [(seed, mats[seed % len(mats)], SIZES[(seed // 2) % 2], seed % 3 == 0) for seed in range(12)]


@pytest.mark.parametrize("seed,mat,size,distorted", envelope_cases())
def test_grid_corners_come_back_within_a_pixel_across_the_envelope(
        seed: int, mat: Mat, size: tuple[int, int], distorted: bool) -> None:
    rng = np.random.default_rng(seed)
    camera = synth.random_camera(rng, KIT, mat, size, (-0.25, -0.1) if distorted else (0.0, 0.0))
    calibration = Calibration(**camera.calibration()) if distorted else None
    fix = BoardTracker(KIT, calibration=calibration).update(frame_of(camera, mat, seed))
    assert fix.state is BoardState.LOCKED and fix.ok
    assert fix.game == mat
    assert grid_error(fix.view, camera, mat) < 1.0


@pytest.mark.parametrize("height,hfov,size", [(800, 70, (640, 480)), (450, 50, (1280, 960))])
def test_the_envelope_extremes_are_read(height: float, hfov: float, size: tuple[int, int]) -> None:
    mat = KIT.mat("block-block")
    camera = synth.look_down(height, 20, 30, 75, (65, 65), hfov, size)
    assert synth.in_view(camera, synth.marker_points(KIT, mat))
    # At the far extreme the markers are ~17 px wide; a camera gives the tracker the next frame.
    tracker, frame = BoardTracker(KIT, mat), frame_of(camera, mat, 1)
    fixes = [tracker.update(frame) for _ in range(3)]
    assert fixes[-1].state is BoardState.LOCKED
    assert grid_error(fixes[-1].view, camera, mat) < 1.0


def test_without_calibration_distortion_costs_accuracy_that_calibration_restores() -> None:
    mat = KIT.mat("tuned")
    camera = synth.look_down(600, 12, 40, 10, (90, 90), 65, (1280, 960), k1=-0.25)
    frame = frame_of(camera, mat, 2)
    plain = BoardTracker(KIT, mat, estimate_lens=False).update(frame)
    calibrated = BoardTracker(KIT, mat, Calibration(**camera.calibration())).update(frame)
    assert grid_error(calibrated.view, camera, mat) < 1.0
    assert grid_error(plain.view, camera, mat) > 2 * grid_error(calibrated.view, camera, mat)


def test_without_calibration_the_markers_tell_the_distortion_but_not_the_focal_length() -> None:
    mat = KIT.mat("tuned")
    camera = synth.look_down(600, 12, 40, 10, (90, 90), 65, (1280, 960), k1=-0.25)
    frame = frame_of(camera, mat, 2)
    view = BoardTracker(KIT, mat).update(frame).view
    assert view is not None and view.calibration is not None and not view.lens_known
    width, focal = camera.size[0], float(camera.K[0, 0])
    assert view.calibration.dist_coeffs[0] == pytest.approx(-0.25 * (width / focal) ** 2, abs=0.03)
    assert grid_error(view, camera, mat) < 2 * grid_error(
        BoardTracker(KIT, mat, Calibration(**camera.calibration())).update(frame).view, camera, mat)


@pytest.mark.parametrize("tilt, kept", [(12.0, True), (0.0, False)])
def test_the_markers_lens_is_kept_only_where_the_fix_through_it_passes_the_trackers_test(
        tilt: float, kept: bool) -> None:
    mat = KIT.mat("block-block")
    camera = synth.look_down(600, tilt, 40, 10, (90, 90), 65, (1280, 960), k1=-0.25)
    frame = frame_of(camera, mat, 2)
    view = BoardTracker(KIT, mat, lens_kept=focal_told).update(frame).view
    plain = BoardTracker(KIT, mat, estimate_lens=False).update(frame).view
    assert view is not None and plain is not None
    assert (view.calibration is not None) is kept and not view.lens_known
    if not kept:  # the fix made as though no lens were told
        assert np.allclose(view.homography, plain.homography)


@pytest.mark.parametrize("height, size, kept", [(450, (1280, 960), True), (900, (640, 480), False)])
def test_a_lens_the_markers_pin_down_is_kept_straight_down_where_the_focal_length_is_not_told(
        height: float, size: tuple[int, int], kept: bool) -> None:
    mat = KIT.mat("block-block")  # a mat filling the frame pins the strength; a small one does not
    camera = synth.look_down(height, 0.0, 40, 10, (90, 90), 65, size, k1=-0.25)
    view = BoardTracker(KIT, mat, lens_kept=lens_pinned).update(frame_of(camera, mat, 2)).view
    assert view is not None and (view.calibration is not None) is kept and not focal_told(view)
    if kept:
        assert view.calibration is not None and view.calibration.doubt < SURE_LENS_DOUBT
        assert view.calibration.dist_coeffs[0] == pytest.approx(-0.25 * (size[0] / camera.K[0, 0]) ** 2, abs=0.03)


@pytest.mark.parametrize("seed", [0, 1, 8])
def test_a_distorted_uncalibrated_still_board_stays_locked_on_one_fix(seed: int) -> None:
    mat = KIT.mat("block-pt")  # strong barrel distortion leaves corner markers off the homography
    camera = synth.random_camera(np.random.default_rng(seed), KIT, mat, (640, 480), k1_range=(-0.25, -0.2))
    tracker = BoardTracker(KIT, mat)
    fixes = [tracker.update(frame_of(camera, mat, 100 + frame)) for frame in range(12)]
    assert [fix.state for fix in fixes[1:]] == [BoardState.LOCKED] * 11  # every marker where it was seen
    assert all(fix.view is fixes[0].view for fix in fixes)  # a new view would look like motion


def test_one_hidden_marker_still_places_the_board() -> None:
    mat = KIT.mat("blockade")
    for seed, hidden in enumerate([[0, 13], [1, 13], [2, 13], [3, 13]]):
        camera = synth.random_camera(np.random.default_rng(40 + seed), KIT, mat, (1280, 960))
        frame = hide(frame_of(camera, mat, seed), camera, KIT, mat, hidden)
        fix = BoardTracker(KIT, mat).update(frame)
        assert fix.state is BoardState.PARTIAL
        assert fix.view is not None
        assert sorted(fix.view.used) == sorted(set(KIT.marker_corners(mat)) - set(hidden))
        assert grid_error(fix.view, camera, mat) < 2.0


def test_a_marker_the_detector_drops_on_the_first_frame_is_confirmed_where_the_fit_puts_it() -> None:
    mat = KIT.mat("tuned")
    camera = synth.random_camera(np.random.default_rng(8), KIT, mat, (1280, 960))
    tracker = BoardTracker(KIT, mat)
    detect = tracker._detector.detect
    tracker._detector.detect = lambda frame: {k: v for k, v in detect(frame).items() if k != 3}  # type: ignore[method-assign]
    fix = tracker.update(frame_of(camera, mat, 8))
    assert 3 not in fix.view.used  # type: ignore[union-attr]
    assert fix.state is BoardState.LOCKED and 3 in fix.seen


def test_two_markers_alone_give_a_rough_fix() -> None:
    mat = KIT.mat("block-pt")
    camera = synth.look_down(600, 8, 0, 20, (144, 144), 60, (1280, 960))
    frame = hide(frame_of(camera, mat, 3), camera, KIT, mat, [1, 3, 15])
    fix = BoardTracker(KIT).update(hide(frame, camera, KIT, mat, []))
    assert fix.state is BoardState.SEARCHING  # no game marker and no configured game
    fix = BoardTracker(KIT, mat).update(frame)
    assert fix.view is not None and fix.view.used == (0, 2)
    assert grid_error(fix.view, camera, mat) < 6.0


def test_one_marker_is_not_enough() -> None:
    mat = KIT.mat("tuned")
    camera = synth.look_down(600, 5, 0, 0, (90, 90), 60, (640, 480))
    frame = hide(frame_of(camera, mat, 4), camera, KIT, mat, [1, 2, 3, 14])
    fix = BoardTracker(KIT, mat).update(frame)
    assert fix.state is BoardState.SEARCHING and fix.view is None
    assert "need 2" in fix.message


def tracked(mat: Mat, seed: int = 5,
            size: tuple[int, int] = (1280, 960)) -> tuple[BoardTracker, synth.Camera, np.ndarray]:
    """Returns a tracker locked on a frame, the camera and the frame."""
    camera = synth.random_camera(np.random.default_rng(seed), KIT, mat, size)
    frame = frame_of(camera, mat, seed)
    tracker = BoardTracker(KIT, mat)
    assert tracker.update(frame).state is BoardState.LOCKED
    return tracker, camera, frame


def test_a_still_board_stays_locked_on_the_same_fix() -> None:
    mat = KIT.mat("block-arena", "7x7")
    tracker, _, frame = tracked(mat)
    view = tracker.view
    fixes = [tracker.update(frame) for _ in range(5)]
    assert [fix.state for fix in fixes] == [BoardState.LOCKED] * 5
    assert all(fix.view is view for fix in fixes)


def test_hands_over_markers_keep_the_last_good_fix_and_say_so() -> None:
    mat = KIT.mat("block-arena", "9x9")
    tracker, camera, frame = tracked(mat, seed=6)
    view = tracker.view
    partly = tracker.update(hide(frame, camera, KIT, mat, [2, 3]))
    covered = [tracker.update(hide(frame, camera, KIT, mat, [0, 1, 2, 3, 10])) for _ in range(3)]
    back = tracker.update(frame)
    assert partly.state is BoardState.PARTIAL and partly.view is view and "[2, 3] hidden" in partly.message
    assert [fix.state for fix in covered] == [BoardState.COVERED] * 3
    assert all(fix.view is view and not fix.ok for fix in covered)
    assert "keeping the last good homography" in covered[0].message
    assert back.state is BoardState.LOCKED and back.view is view


def bumped(camera: synth.Camera, degrees: float, shift_mm: float) -> synth.Camera:
    """Returns the camera knocked: rotated about its axis and shifted sideways."""
    rotation, _ = cv2.Rodrigues(camera.rvec)
    knock, _ = cv2.Rodrigues(np.array([0.0, 0.0, np.radians(degrees)]))
    tvec = knock @ camera.tvec + np.array([[shift_mm], [0.0], [0.0]])
    rvec, _ = cv2.Rodrigues(knock @ rotation)
    return synth.Camera(camera.K, camera.D, np.asarray(rvec, np.float64), tvec, camera.size)


@pytest.mark.parametrize("degrees,shift_mm", [(3.0, 10.0), (0.0, 1.5), (-8.0, -40.0)])
def test_a_bumped_camera_is_followed_after_confirmation(degrees: float, shift_mm: float) -> None:
    mat = KIT.mat("blockade")
    tracker, camera, _ = tracked(mat, seed=8)
    old = tracker.view
    knocked = bumped(camera, degrees, shift_mm)
    frames = [frame_of(knocked, mat, 20 + index) for index in range(3)]
    fixes = [tracker.update(frame) for frame in frames]
    assert [fix.state for fix in fixes] == [BoardState.RECOVERING, BoardState.LOCKED, BoardState.LOCKED]
    assert "moved" in fixes[0].message and fixes[0].view is old
    assert grid_error(fixes[2].view, knocked, mat) < 1.0


def test_a_bump_seen_by_two_markers_only_corrects_the_old_fix() -> None:
    mat = KIT.mat("block-arena", "9x9")
    tracker, camera, _ = tracked(mat, seed=9, size=(640, 480))
    knocked = bumped(camera, 2.0, 8.0)
    frames = [hide(frame_of(knocked, mat, 30 + i), knocked, KIT, mat, [1, 3, 10]) for i in range(2)]
    fixes = [tracker.update(frame) for frame in frames]
    assert [fix.state for fix in fixes] == [BoardState.RECOVERING, BoardState.PARTIAL]
    assert grid_error(fixes[1].view, knocked, mat) < 2.0


def test_a_single_odd_frame_does_not_replace_the_fix() -> None:
    mat = KIT.mat("tuned")
    tracker, camera, frame = tracked(mat, seed=10)
    old = tracker.view
    odd = tracker.update(frame_of(bumped(camera, 5.0, 20.0), mat, 11))
    back = tracker.update(frame)
    assert odd.state is BoardState.RECOVERING
    assert back.state is BoardState.LOCKED and tracker.view is old


@pytest.mark.parametrize("mat", KIT.mats, ids=lambda mat: mat.label)
def test_the_game_marker_names_each_game(mat: Mat) -> None:
    camera = synth.random_camera(np.random.default_rng(mat.marker_id), KIT, mat, (640, 480))
    fix = BoardTracker(KIT).update(frame_of(camera, mat, mat.marker_id))
    assert fix.game is not None
    assert (fix.game.game, fix.game.variant, fix.game.marker_id) == (mat.game, mat.variant, mat.marker_id)


def test_a_game_marker_for_another_mat_is_reported() -> None:
    mat = KIT.mat("block-pt")  # the same grid as block-arena 9x9, another game marker
    camera = synth.random_camera(np.random.default_rng(12), KIT, mat, (1280, 960))
    fix = BoardTracker(KIT, KIT.mat("block-arena")).update(frame_of(camera, mat, 12))
    assert fix.game == mat
    assert "names block-pt, not the configured block-arena 9x9" in fix.message


def test_an_unconfigured_tracker_waits_for_the_game_marker() -> None:
    mat = KIT.mat("tuned")
    camera = synth.random_camera(np.random.default_rng(13), KIT, mat, (640, 480))
    frame = frame_of(camera, mat, 13)
    tracker = BoardTracker(KIT)
    first = tracker.update(hide(frame, camera, KIT, mat, [14]))
    second = tracker.update(frame)
    third = tracker.update(hide(frame, camera, KIT, mat, [14]))
    assert first.state is BoardState.SEARCHING and "no game marker in view" in first.message
    assert second.state is BoardState.LOCKED and third.state is BoardState.LOCKED and third.game == mat


def test_a_mat_swapped_for_another_game_is_followed_when_no_game_is_configured() -> None:
    camera = synth.look_down(650, 10, 60, 15, (100, 100), 62, (1280, 960))
    tracker = BoardTracker(KIT)
    first = tracker.update(frame_of(camera, KIT.mat("blockade"), 20))
    swapped = [tracker.update(frame_of(camera, KIT.mat("tuned"), 21 + index)) for index in range(3)]
    assert first.state is BoardState.LOCKED and first.view is not None
    assert first.view.mat == KIT.mat("blockade")
    assert [fix.state for fix in swapped] == [BoardState.RECOVERING, BoardState.LOCKED, BoardState.LOCKED]
    assert swapped[2].view is not None and swapped[2].view.mat == KIT.mat("tuned")
    assert swapped[2].game == KIT.mat("tuned")


def test_mm_and_pixels_map_both_ways() -> None:
    mat = KIT.mat("blockade")
    camera = synth.look_down(650, 15, 200, 33, (100, 100), 62, (1280, 960), k1=-0.2)
    fix = BoardTracker(KIT, mat, Calibration(**camera.calibration())).update(frame_of(camera, mat, 14))
    points = np.array([[0.0, 0.0], [20.0, 180.0], [199.0, 3.0], [100.0, 100.0]])
    pixels = fix.view.to_image(points)  # type: ignore[union-attr]
    assert np.abs(pixels - camera.project(points)).max() < 1.0
    assert np.abs(fix.view.to_board(pixels) - points).max() < 1e-3  # type: ignore[union-attr]


def test_the_rectified_board_shows_the_grid_where_the_kit_puts_it() -> None:
    mat = KIT.mat("tuned")
    camera = synth.look_down(550, 18, 120, 200, (90, 90), 60, (1280, 960), k1=-0.15)
    fix = BoardTracker(KIT, mat, Calibration(**camera.calibration())).update(frame_of(camera, mat, 15))
    assert fix.view is not None
    top = fix.view.rectify(frame_of(camera, mat, 15), px_per_mm=2.0, margin_mm=10.0)
    assert top.shape == (400, 400, 3)
    profile = cv2.cvtColor(top, cv2.COLOR_BGR2GRAY)[60:340, :].mean(axis=0)
    lines = [int(np.argmin(profile[at - 6:at + 7])) + at - 6 for at in (20, 140, 260, 380)]
    assert all(abs(found - expected + 0.5) <= 1 for found, expected in zip(lines, (20, 140, 260, 380)))
    origin = fix.view.rectified_matrix(2.0, 10.0) @ np.array([0.0, 0.0, 1.0])
    assert origin == pytest.approx([19.5, 379.5, 1.0])


def test_rectify_refuses_bad_input() -> None:
    tracker, _, frame = tracked(KIT.mat("tuned"), seed=16, size=(640, 480))
    view = tracker.view
    assert view is not None
    with pytest.raises(VisionError, match="px_per_mm"):
        view.rectify(frame, px_per_mm=0)
    with pytest.raises(VisionError, match="640x480"):
        view.rectify(frame[:100])


def test_a_new_frame_size_starts_afresh() -> None:
    mat = KIT.mat("blockade")
    tracker, camera, frame = tracked(mat, seed=17, size=(640, 480))
    small = np.asarray(cv2.resize(frame, (320, 240), interpolation=cv2.INTER_AREA), np.uint8)
    fix = tracker.update(small)
    assert fix.view is not None and fix.view.frame_size == (320, 240)


def test_bad_frames_and_settings_are_refused_without_changing_anything() -> None:
    tracker, _, _ = tracked(KIT.mat("tuned"), seed=18, size=(640, 480))
    view = tracker.view
    for bad in (None, np.zeros((10, 10), np.float32), np.zeros((0, 5), np.uint8), "frame"):
        with pytest.raises(ValueError):
            tracker.update(bad)  # type: ignore[arg-type]
    assert tracker.view is view
    with pytest.raises(VisionError, match="confirm_frames"):
        BoardTracker(KIT, confirm_frames=0)
    with pytest.raises(VisionError, match="tolerance_px"):
        BoardTracker(KIT, tolerance_px=float("nan"))


def write_json(tmp_path: Path, data: object) -> Path:
    """Returns the path of a JSON file holding data."""
    path = tmp_path / "calibration.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_a_calibration_file_is_loaded_and_scaled_to_the_frame_size(tmp_path: Path) -> None:
    camera = synth.look_down(600, 0, 0, 0, (0, 0), 60, (1280, 960), k1=-0.2)
    calibration = Calibration.load(write_json(tmp_path, camera.calibration()))
    half = calibration.matrix_for((640, 480))
    assert half[0, 0] == pytest.approx(camera.K[0, 0] / 2)
    assert half[0, 2] == pytest.approx((camera.K[0, 2] + 0.5) / 2 - 0.5)
    with pytest.raises(VisionError, match="another aspect ratio"):
        calibration.matrix_for((640, 360))
    points = np.array([[10.0, 20.0], [640.0, 480.0], [1200.0, 900.0]])
    there = calibration.distort_points(points, (1280, 960))
    assert np.abs(calibration.undistort_points(there, (1280, 960)) - points).max() < 0.01


@pytest.mark.parametrize("coeffs", [[-0.2, 0.0, 0.0, 0.0, 0.0], [-0.1, 0.05, 0.001, -0.002, 0.01],
                                    [-0.1, 0.02, 0.001, 0.002], [-0.1, 0.02, 0.0, 0.0, 0.0, 0.01, 0.0, 0.0]])
def test_points_are_distorted_as_opencv_projects_them(coeffs: list[float]) -> None:
    calibration = Calibration([[900.0, 0.0, 639.5], [0.0, 910.0, 479.5], [0.0, 0.0, 1.0]], coeffs, [1280, 960])
    pixels = np.random.default_rng(4).uniform(0.0, 1280.0, (500, 2))
    matrix = calibration.matrix_for((1280, 960))
    rays = np.column_stack([(pixels - matrix[:2, 2]) / np.diag(matrix)[:2], np.ones(len(pixels))])
    projected, _ = cv2.projectPoints(rays, np.zeros(3), np.zeros(3), matrix, calibration.dist_coeffs)
    assert np.abs(calibration.distort_points(pixels, (1280, 960)) - projected.reshape(-1, 2)).max() < 1e-6


def test_a_saved_calibration_loads_back_the_same(tmp_path: Path) -> None:
    camera = synth.look_down(600, 0, 0, 0, (0, 0), 60, (1280, 960), k1=-0.2)
    calibration = Calibration.load(write_json(tmp_path, camera.calibration()))
    calibration.save(tmp_path / "again.json")
    again = Calibration.load(tmp_path / "again.json")
    assert np.array_equal(again.camera_matrix, calibration.camera_matrix)
    assert np.array_equal(again.dist_coeffs, calibration.dist_coeffs) and again.image_size == (1280, 960)


def test_undistort_straightens_the_frame() -> None:
    mat = KIT.mat("tuned")
    camera = synth.look_down(500, 0, 0, 0, (90, 90), 68, (640, 480), k1=-0.25)
    calibration = Calibration(**camera.calibration())
    straight = calibration.undistort(synth.render(camera, KIT, mat))
    pinhole = synth.Camera(camera.K, np.zeros(5), camera.rvec, camera.tvec, camera.size)
    ideal = synth.render(pinhole, KIT, mat)
    inner = (slice(60, 420), slice(80, 560))
    assert np.abs(straight[inner].astype(int) - ideal[inner].astype(int)).mean() < 4.0


GOOD_K = [[5, 0, 2], [0, 5, 2], [0, 0, 1]]


@pytest.mark.parametrize("data,words", [
    ({"camera_matrix": [[1, 0, 2], [0, 1, 2]], "dist_coeffs": [0, 0, 0, 0]}, "camera_matrix"),
    ({"camera_matrix": [[-5, 0, 2], [0, 5, 2], [0, 0, 1]], "dist_coeffs": [0, 0, 0, 0]}, "fx, fy > 0"),
    ({"camera_matrix": GOOD_K, "dist_coeffs": [0, 0, 0]}, "dist_coeffs"),
    ({"camera_matrix": GOOD_K, "dist_coeffs": ["a", 0, 0, 0]}, "numbers"),
    ({"camera_matrix": GOOD_K, "dist_coeffs": [0] * 5, "image_size": [0, 3]}, "image_size"),
    ({"camera_matrix": GOOD_K, "dist_coeffs": [0] * 5, "extra": 1}, "unknown key"),
    ({"dist_coeffs": [0] * 5}, "camera_matrix and dist_coeffs"),
    ([1, 2], "an object"),
])
def test_bad_calibration_files_get_one_clear_error(tmp_path: Path, data: object, words: str) -> None:
    with pytest.raises(VisionError, match=words):
        Calibration.load(write_json(tmp_path, data))


def test_unreadable_calibration_files_get_one_clear_error(tmp_path: Path) -> None:
    with pytest.raises(VisionError, match="cannot be read"):
        Calibration.load(tmp_path / "missing.json")
    (tmp_path / "broken.json").write_text("{", encoding="utf-8")
    with pytest.raises(VisionError, match="not valid JSON"):
        Calibration.load(tmp_path / "broken.json")
