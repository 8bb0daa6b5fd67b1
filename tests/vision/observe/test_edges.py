"""Tests of the edges of what a stack shows on a cell's samples (vision.observe.edges): blur
mixes the colours on either side of one."""

from __future__ import annotations

import numpy as np

from vision.observe.edges import MAT_PART, MIX_LEAST, UNKNOWN, across_edges, mixed_scores
from vision.observe.stack_colours import FACES, SIGMA_LEARNT, Palette

BLUE, MAT = np.array([22.0, 16.0, -29.0]), np.array([90.0, 0.0, 4.0])


def blue_palette() -> Palette:
    """Returns prototypes of one opaque blue, every face alike, over a light mat."""
    labs = np.tile(BLUE, (1, len(FACES), 1))
    return Palette(labs, np.full((1, len(FACES)), SIGMA_LEARNT), 2.0, (False,), MAT)


def test_an_edge_sample_knows_the_part_across_it_where_the_position_says_what_it_is() -> None:
    # one stack on a 1 x 4 grid: a layer of known colour (part 7) then the mat; another stack
    # whose layer's colour the painting decides
    shown = np.array([[5, 5, -1, -1], [5, 5, -1, -1]])
    known = np.array([[7, 7, MAT_PART, MAT_PART], [UNKNOWN, UNKNOWN, MAT_PART, MAT_PART]])
    across = across_edges(shown, known, (1, 4))
    assert across.edge.tolist() == [[False, True, True, False]] * 2
    assert across.part[0].tolist()[1:3] == [MAT_PART, 7] and across.part[1].tolist()[1:3] == [MAT_PART, UNKNOWN]
    assert across.sample[0].tolist()[1:3] == [2, 1]


def test_a_blue_small_blurred_with_the_mat_reads_blue_on_its_edge() -> None:
    # Held-out Blockade 621 and 617 at 640x480: a blue Small on a clear Large showed much of the
    # clear shell's light colour on its samples, and read as the clear Large alone.
    blend = MIX_LEAST * BLUE + (1 - MIX_LEAST) * MAT
    lab, mat = np.vstack([blend, MAT]), np.tile(MAT, (2, 1))
    mixed = mixed_scores(lab, mat, blue_palette(), (np.array([0]), np.array([0])),
                         (np.array([MAT_PART]), np.array([1])))
    distance = np.linalg.norm((blend - BLUE) * [0.5, 1.0, 1.0])
    pure = -0.5 * distance ** 2 / (SIGMA_LEARNT ** 2 + 4.0)
    assert mixed[0, 0] > pure + 1.0 and mixed[0, 0] > -0.1


def test_a_sample_of_the_mat_alone_is_no_mix_of_blue() -> None:
    share = MIX_LEAST * BLUE + (1 - MIX_LEAST) * MAT  # the palest mix of blue allowed
    lab, mat = np.vstack([MAT, share]), np.tile(MAT, (2, 1))
    mixed = mixed_scores(lab, mat, blue_palette(), (np.array([0, 1]), np.array([0, 0])),
                         (np.array([MAT_PART, MAT_PART]), np.array([1, 0])))
    assert mixed[1, 0] > -0.1 and mixed[0, 0] < mixed[1, 0] - 3.0
