"""Tests of where the nesting evidence tracks a Blockade cell's top: away from the rims of the
pieces that may come or go."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, cast

import numpy as np

from vision.kit import kit_named
from vision.observe.context import Scene
from vision.observe.nesting import SHADOW_OPACITY, Reference, casters, inside_faces, raised, tracked_from
from vision.observe.pyramids import MOVERS, NAMES, apex_of, stack_blocks

GREEN = NAMES.index("green")
LARGE = ((GREEN, "L"),)
SMALL_ON_LARGE = LARGE + ((-1, "S"),)


def overhead(square: str, resolution: float) -> Scene:
    """Returns a scene whose camera stands 500 mm straight above a Blockade square, its frame
    some pixels per mm of the mat."""
    kit = kit_named("default")
    mat = kit.mat("blockade", None)
    x, y = mat.cell_centre(ord(square[0]) - ord("a"), int(square[1:]) - 1)
    view = SimpleNamespace(to_image=lambda points: np.asarray(points) * resolution)
    return cast(Scene, SimpleNamespace(kit=kit, mat=mat, view=view, place=SimpleNamespace(centre=(x, y, 500.0)),
                                       cell_centre=lambda _: (x, y)))


def kept_at(offsets: list[float], options: list[Any], resolution: float = 4.0) -> list[bool]:
    """Tells which mat points, some mm along x from the square's centre, are tracked."""
    scene = overhead("c3", resolution)
    x, y = scene.place.centre[:2]
    points = np.array([[x + offset, y] for offset in offsets])
    blocks = stack_blocks(scene, "c3", LARGE)
    return [bool(flag) for flag in inside_faces(scene, "c3", options, points, blocks, apex_of(blocks))]


def test_the_rim_a_small_would_have_on_the_large_is_not_tracked_and_its_faces_are() -> None:
    assert kept_at([3.0, 7.0, 10.0], [LARGE, SMALL_ON_LARGE]) == [True, False, True]


def test_a_coarse_frame_keeps_tracking_further_from_a_rim() -> None:
    assert kept_at([5.5, 8.5], [LARGE, SMALL_ON_LARGE]) == [True, True]
    assert kept_at([5.5, 8.5], [LARGE, SMALL_ON_LARGE], resolution=0.5) == [False, False]


def test_with_no_piece_that_may_come_every_face_point_is_tracked() -> None:
    assert kept_at([3.0, 7.0, 10.0], [LARGE, None]) == [True, True, True]


def test_a_piece_that_may_land_on_a_clear_large_casts_a_full_shadow() -> None:
    clear = ((NAMES.index("clear"), "L"),)
    taller = raised(clear)
    assert taller[:1] == clear and taller[1][1] == "S" and taller[1][0] in MOVERS
    assert list(casters(overhead("c3", 4.0), {"c3": taller}).opacity) == [SHADOW_OPACITY, 1.0]


def test_a_piece_that_may_land_on_a_coloured_top_is_of_its_colour() -> None:
    assert raised(LARGE) == LARGE + ((GREEN, "S"),)


FIRST, LAST = cast(Any, object()), cast(Any, object())  # the pictures a cell's top may be tracked from


def read_then(read: Any, held: Any) -> Reference:
    """Returns a last frame read (LAST) whose cell c3 was read to hold one stack, since FIRST,
    while the referee's position held another."""
    return Reference(cast(Any, None), LAST, {"c3": read}, {"c3": FIRST}, {"c3": held})


def test_a_cell_read_as_it_now_stands_is_tracked_from_when_it_was_first_read_so() -> None:
    green_small = ((GREEN, "L"), (GREEN, "S"))
    assert tracked_from(read_then(green_small, LARGE), "c3", green_small) is FIRST


def test_a_look_alike_of_what_was_read_is_tracked_from_the_last_frame_once_the_referee_moved_there() -> None:
    read, played = ((GREEN, "L"), (GREEN, "S")), ((GREEN, "L"), (GREEN, "M"))
    assert tracked_from(read_then(read, LARGE), "c3", played) is LAST


def test_a_cell_the_referee_kept_though_it_was_read_otherwise_is_tracked_from_the_last_frame() -> None:
    # A misreading the referee overruled must not leave the cell unjudged while it lasts: a red
    # Small leaving a red Large there went unseen (random-look Blockade seed 204, ply 14).
    read = ((GREEN, "L"), (GREEN, "S"))
    assert tracked_from(read_then(read, LARGE), "c3", LARGE) is LAST


def test_another_look_than_what_was_read_is_judged_afresh() -> None:
    read, played = ((GREEN, "L"), (NAMES.index("red"), "S")), ((GREEN, "L"), (GREEN, "S"))
    assert tracked_from(read_then(read, LARGE), "c3", played) is None
