"""Tests of the lens distortion the mat's markers tell in one frame (vision.radial)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.vision import synth
from vision.kit import kit_named
from vision.markers import MarkerDetector, fit_homography, project
from vision.radial import PRIOR, WORST_PX, distorted, estimate_radial, fit_strength

KIT = kit_named()


def strength_of(camera: synth.Camera) -> float:
    """Returns a camera's distortion as a strength: k1 on a focal length of the frame's width."""
    return float(camera.D[0]) * (camera.size[0] / float(camera.K[0, 0])) ** 2


def seen_markers(camera: synth.Camera, game: str, seed: int) -> tuple[dict[int, np.ndarray], dict[int, np.ndarray]]:
    """Returns the mat's marker corners (mm) and those the detector finds in a noisy frame."""
    mat = KIT.mat(game, "9x9" if game == "block-arena" else None)
    frame = synth.jpeg(synth.add_noise(synth.render(camera, KIT, mat), np.random.default_rng(seed)), 80)
    return KIT.marker_corners(mat), MarkerDetector(KIT).detect(frame)


@pytest.mark.parametrize("game,k1,tilt,size", [
    ("block-pt", -0.2, 10, (1280, 960)), ("block-arena", -0.1, 4, (640, 480)),
    ("tuned", 0.0, 15, (1024, 768)), ("blockade", -0.25, 0, (800, 600))])
def test_the_markers_tell_the_strength_of_a_barrel_distortion(
        game: str, k1: float, tilt: float, size: tuple[int, int]) -> None:
    camera = synth.look_down(600, tilt, 30, 20, (150, 150) if game == "block-arena" else (90, 90), 60, size, k1=k1)
    board, seen = seen_markers(camera, game, 3)
    found = estimate_radial(board, seen, fit_homography(board, seen).homography, size)  # type: ignore[union-attr]
    assert found is not None
    assert found.strength == pytest.approx(strength_of(camera), abs=0.04)
    assert found.doubt < PRIOR[1]


def test_too_few_markers_tell_nothing() -> None:
    camera = synth.look_down(600, 10, 30, 20, (90, 90), 60, (1280, 960), k1=-0.2)
    board, seen = seen_markers(camera, "block-pt", 4)
    three = {key: seen[key] for key in sorted(seen)[:3]}
    assert estimate_radial(board, three, fit_homography(board, three).homography, (1280, 960)) is None  # type: ignore[union-attr]


def exact_corners(kappa_strength: float, spread_px: float, size: tuple[int, int], seed: int,
                  px_per_mm: float = 2.0) -> tuple[dict[int, np.ndarray], dict[int, np.ndarray], np.ndarray]:
    """Returns block-pt's marker corners (mm), where a homography (px_per_mm across the grid's
    middle) and a distortion put them (noise of spread_px added) and the homography."""
    board = KIT.marker_corners(KIT.mat("block-pt"))
    middle = KIT.mat("block-pt").side_mm / 2
    homography = np.array([[px_per_mm, 0.05 * px_per_mm, size[0] / 2 - px_per_mm * middle],
                           [-0.025 * px_per_mm, -px_per_mm, size[1] / 2 + px_per_mm * middle],
                           [0.0, 0.0001, 1.0]])
    centre = np.array([(size[0] - 1) / 2, (size[1] - 1) / 2])
    noise = np.random.default_rng(seed)
    lens = np.array([kappa_strength, 0.0, 0.0, 0.0])
    seen = {key: centre + distorted((project(homography, corners) - centre) / size[0], lens) * size[0]
            + noise.normal(0.0, spread_px, corners.shape) for key, corners in board.items()}
    return board, seen, homography


def test_a_strength_the_corners_hardly_tell_stays_near_the_prior() -> None:
    board, seen, homography = exact_corners(-0.3, 0.0, (1280, 960), 0)
    exact = estimate_radial(board, seen, homography, (1280, 960))
    assert exact is not None and exact.strength == pytest.approx(-0.3, abs=1e-3)
    board, far, homography = exact_corners(-0.3, 0.6, (1280, 960), 0, px_per_mm=0.6)  # the mat small in the frame
    vague = estimate_radial(board, far, homography, (1280, 960))
    assert vague is not None and vague.doubt > 0.5 * PRIOR[1]
    keys = sorted(board)
    raw = fit_strength(np.vstack([board[key] for key in keys]), np.vstack([far[key] for key in keys]),
                       homography, (1280, 960))
    assert raw is not None and raw[1] > PRIOR[1]  # the fit alone doubts its strength more than the prior does
    assert min(raw[0], PRIOR[0]) < vague.strength < max(raw[0], PRIOR[0])
    assert abs(vague.strength - PRIOR[0]) < abs(vague.strength - raw[0])


def test_a_misread_corner_tells_nothing() -> None:
    board, seen, homography = exact_corners(-0.2, 0.1, (1280, 960), 1)
    seen[2] = seen[2] + np.array([[3 * WORST_PX, 0.0], [0.0, 0.0], [0.0, 0.0], [0.0, 0.0]])
    assert estimate_radial(board, seen, homography, (1280, 960)) is None


def test_an_implausible_strength_tells_nothing() -> None:
    board, seen, homography = exact_corners(-1.5, 0.0, (1280, 960), 2)  # far beyond any lens of the envelope
    assert estimate_radial(board, seen, homography, (1280, 960)) is None
    assert estimate_radial(board, *exact_corners(-0.4, 0.0, (1280, 960), 2)[1:], (1280, 960)) is not None
