"""Tests of marker bits, detection, homography fits, game markers and template re-checks."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.kit import kit_named
from vision.markers import (MarkerDetector, fit_homography, marker_cells, marker_template, match_template,
                            project, read_game, unique_markers)

KIT = kit_named()
TRUE_H = np.array([[2.1, 0.3, 400.0], [-0.25, -2.0, 700.0], [0.0002, -0.0001, 1.0]])


def sheet(ids: list[int], cell_px: int = 12) -> np.ndarray:
    """Returns a white image with the given markers in a row, each with a quiet zone."""
    side = 6 * cell_px
    image = np.full((side + 4 * cell_px, (side + 2 * cell_px) * len(ids) + 2 * cell_px), 255, np.uint8)
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    for index, marker_id in enumerate(ids):
        x = 2 * cell_px + index * (side + 2 * cell_px)
        marker = cv2.aruco.generateImageMarker(dictionary, marker_id, side)
        image[2 * cell_px:2 * cell_px + side, x:x + side] = marker
    return image


@pytest.mark.parametrize("marker_id", [0, 1, 2, 3, 10, 11, 12, 13, 14, 15, 49])
def test_marker_cells_are_the_dictionary_bits_inside_a_black_border(marker_id: int) -> None:
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    bits = cv2.aruco.Dictionary.getBitsFromByteList(dictionary.bytesList[marker_id:marker_id + 1], 4)
    cells = marker_cells(KIT, marker_id)
    assert cells.shape == (6, 6)
    assert cells[0].all() and cells[-1].all() and cells[:, 0].all() and cells[:, -1].all()
    assert np.array_equal(cells[1:5, 1:5], np.asarray(bits) == 0)


def test_the_detector_finds_markers_with_their_corners() -> None:
    found = MarkerDetector(KIT).detect(sheet([0, 13]))
    assert sorted(found) == [0, 13]
    assert found[0][0] == pytest.approx([23.5, 23.5], abs=0.5)  # top-left corner of the first marker
    assert found[13][2] == pytest.approx([23.5 + 96 + 72, 23.5 + 72], abs=0.5)


def test_a_marker_seen_twice_is_ignored() -> None:
    assert sorted(MarkerDetector(KIT).detect(sheet([5, 7, 5]))) == [7]
    assert unique_markers([], None) == {}


Corners = dict[int, np.ndarray]


def board_and_pixels(ids: list[int], truth: np.ndarray = TRUE_H) -> tuple[Corners, Corners]:
    """Returns the block-pt mat's marker corners in mm and their exact pixels under truth."""
    board = KIT.marker_corners(KIT.mat("block-pt"))
    return board, {key: project(truth, board[key]) for key in ids}


def test_every_subset_of_two_or_more_markers_recovers_an_exact_homography() -> None:
    for ids in ([0, 1, 2, 3, 15], [0, 1, 2], [1, 3], [2, 15]):
        board, seen = board_and_pixels(ids)
        fit = fit_homography(board, seen)
        assert fit is not None and fit.used == tuple(sorted(ids)) and fit.rms_px < 1e-3
        corners = [[0, 0], [288, 288]]
        assert project(fit.homography, corners) == pytest.approx(project(TRUE_H, corners))


def test_one_marker_is_not_enough_and_a_stray_marker_is_dropped() -> None:
    board, seen = board_and_pixels([2])
    assert fit_homography(board, seen) is None
    board, seen = board_and_pixels([0, 1, 2, 3])
    seen[1] = seen[1] + [40.0, -25.0]
    fit = fit_homography(board, seen)
    assert fit is not None and fit.used == (0, 2, 3) and fit.rms_px < 1e-3


def test_two_markers_with_a_prior_correct_it_by_a_similarity() -> None:
    shift = np.array([[np.cos(0.05), -np.sin(0.05), 12.0], [np.sin(0.05), np.cos(0.05), -7.0], [0, 0, 1]])
    board, seen = board_and_pixels([0, 2], shift @ TRUE_H)
    fit = fit_homography(board, seen, prior=TRUE_H)
    assert fit is not None and np.allclose(fit.homography / fit.homography[2, 2], shift @ TRUE_H, atol=1e-6)


def test_a_folded_fit_is_refused() -> None:
    board, seen = board_and_pixels([0, 1, 2, 3])
    seen[0], seen[2] = seen[2], seen[0]
    fit = fit_homography(board, seen)
    assert fit is None or len(fit.used) < 4


def test_the_game_marker_in_view_names_the_mat() -> None:
    mat, sentence = read_game(KIT, {0: np.zeros((4, 2)), 14: np.zeros((4, 2))})
    assert mat == KIT.mat("tuned") and "names tuned" in sentence
    assert read_game(KIT, {0: np.zeros((4, 2))}) == (None, "no game marker in view")
    mat, sentence = read_game(KIT, {10: np.zeros((4, 2)), 12: np.zeros((4, 2))})
    assert mat is None and "several game markers in view (10, 12)" in sentence


@pytest.mark.parametrize("cell_px,factor,slack", [(6, 1, 1e-6), (8, 2, 0.1), (10, 2, 0.1)])
def test_a_template_finds_its_marker_where_it_is_and_nowhere_else(cell_px: int, factor: int,
                                                                  slack: float) -> None:
    image = sheet([3], cell_px=cell_px)
    corners = MarkerDetector(KIT).detect(image)[3]
    template = marker_template(KIT, 3, corners)
    assert template.factor == factor
    assert match_template(image, template, pad=5) == pytest.approx((1.0, 0.0), abs=0.05)
    for shift in [(1, 0), (1, 1), (2, 1), (2, 3), (0, 4), (3, 3)]:
        moved = np.roll(image, shift, axis=(0, 1))
        score, offset = match_template(moved, template, pad=5)  # type: ignore[misc]
        assert score > 0.9 and offset == pytest.approx(np.hypot(*shift), abs=slack)
    covered = image.copy()
    covered[10:60, 10:60] = 170
    assert match_template(covered, template, pad=5)[0] < 0.8  # type: ignore[index]
    assert match_template(image[:30, :30], template, pad=5) is None


def test_no_points_map_to_no_points() -> None:
    assert project(TRUE_H, np.zeros((0, 2))).shape == (0, 2)  # OpenCV alone maps them to None
    assert project(TRUE_H, [[0.0, 0.0]]).ravel() == pytest.approx([400.0, 700.0])
