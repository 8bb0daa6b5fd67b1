"""Tests of the lift watch: what a move picks up, rays against solids, the verdicts on looks, the
watch's confirming and forgetting, and probes on a filmed Block (PT) pawn move."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from rules import get_game
from tests.vision.holding import Film, film
from vision.board import BoardTracker, BoardView
from vision.kit import kit_named
from vision.lifted import Lift, LiftWatch, Look, build_probes, colour_hidden, held, lifts, look, taken_keys
from vision.pose import locate_camera
from vision.raycast import GROUND, PieceSolids, first_hits, solids_of
from vision.render.pieces import Item
from vision.render.solids import box

ARENA = {"c3": [{"kind": "block", "owner": 1, "colour": "light", "orientation": "upright"},
                {"kind": "meeple", "owner": 2, "colour": "dark"},
                {"kind": "meeple", "owner": 1, "colour": "light"}],
         "d4": [{"kind": "block", "owner": 1, "colour": "light", "orientation": "lying", "other": "d5"}],
         "d5": [{"kind": "block", "owner": 1, "colour": "light", "orientation": "lying", "other": "d4"}]}
TUNED = {"a1": [{"kind": "donkey"}, {"kind": "dog"}, {"kind": "cat"}]}


def test_a_block_move_takes_the_block_and_its_riders_a_meeple_move_one_meeple() -> None:
    assert taken_keys("block-arena", ARENA, "Mc3-c4", 1) == {("c3", 2)}
    assert taken_keys("block-arena", ARENA, "Mc3-c4", 2) == {("c3", 1)}
    assert taken_keys("block-arena", ARENA, "c3-c4", 1) == {("c3", 0), ("c3", 1), ("c3", 2)}
    assert taken_keys("block-arena", ARENA, "d4d5-e4e5", 1) == {("d4", 0), ("d5", 0)}


def test_tuned_takes_the_top_animals_named_and_placements_take_nothing() -> None:
    assert taken_keys("tuned", TUNED, "a1-b2", 1) == {("a1", 2)}
    assert taken_keys("tuned", TUNED, "a1-b2/2", 1) == {("a1", 1), ("a1", 2)}
    assert taken_keys("tuned", TUNED, "+cat@b2", 1) == frozenset()
    assert taken_keys("block-arena", ARENA, "+e1", 1) == frozenset()
    assert taken_keys("tuned", TUNED, "b1-b2", 1) == frozenset()  # nothing stands there


def test_lifts_come_from_the_legal_moves_of_the_player_to_move() -> None:
    pt = get_game("block-pt")
    assert lifts(pt, pt.initial_state()) == [Lift("e9", frozenset({("e9", 0)}))]
    tuned = get_game("tuned")
    assert lifts(tuned, tuned.initial_state()) == []  # the first turn only adds
    after = pt.play_all(["e9-e8"])
    assert [lift.square for lift in lifts(pt, after)] == ["e1"]


def two_boxes() -> list[Item]:
    """Returns a 20 mm box on a 40 mm one at (50, 50), and a lone box at (150, 50)."""
    low = Item(frozenset({("a1", 0)}), (box(50, 50, 0.0, (40, 40, 30), (200, 0, 0)),))
    high = Item(frozenset({("a1", 1)}), (box(50, 50, 30.0, (20, 20, 20), (0, 200, 0)),))
    lone = Item(frozenset({("b1", 0)}), (box(150, 50, 0.0, (30, 30, 30), (0, 0, 200)),))
    return [low, high, lone]


def test_rays_meet_the_nearest_solid_and_pass_beside_the_others() -> None:
    solids = solids_of(two_boxes())
    centre = np.array([100.0, 50.0, 600.0])
    ground = np.array([[50.0, 50.0], [32.0, 50.0], [100.0, 50.0], [150.0, 50.0], [250.0, 250.0]])
    shadows = np.array([[-1e3, -1e3, 1e3, 1e3]] * 3)
    keep = np.ones(3, bool)
    assert first_hits(solids, centre, ground, keep, shadows).tolist() == [1, 0, GROUND, 2, GROUND]
    keep[1] = False
    assert first_hits(solids, centre, ground, keep, shadows).tolist() == [0, 0, GROUND, 2, GROUND]


def test_one_square_must_read_lifted_while_most_other_pieces_read_in_place() -> None:
    lifted, down, hidden = Look("e9", 0.9, 0.0), Look("c1", 0.0, 0.95), Look("d1", 0.0, 0.1)
    assert held([lifted, down]) == "e9"
    assert held([lifted]) == "e9"
    assert held([lifted, hidden]) == "e9"  # the hand holding it may hide one piece
    assert held([lifted, hidden, hidden, down]) is None  # most of the board hidden: an arm
    assert held([lifted, Look("c1", 0.8, 0.1)]) is None  # two pieces at once: something else
    assert held([Look("e9", 0.5, 0.3), down]) is None


class Scripted:
    """Stands in for build_probes and look: each probe is a square, each look read from a script."""

    def __init__(self, script: list[dict[str, tuple[float, float]]]) -> None:
        self.script = script
        self.builds = 0
        self.calls = 0

    def build(self, *args: Any) -> list[str]:
        self.builds += 1
        return ["e9", "c1"]

    def look(self, image: Any, probe: str) -> Look:
        shares = self.script[self.calls // 2][probe]
        self.calls += 1
        return Look(probe, *shares)


@pytest.fixture
def scripted(monkeypatch: pytest.MonkeyPatch) -> Any:
    """Returns a function that scripts the probes' looks for the lift watch."""

    def install(script: list[dict[str, tuple[float, float]]]) -> Scripted:
        fake = Scripted(script)
        monkeypatch.setattr("vision.lifted.build_probes", fake.build)
        monkeypatch.setattr("vision.lifted.look", fake.look)
        monkeypatch.setattr("vision.lifted.locate_camera", lambda view: None)
        return fake

    return install


UP, DOWN, HIDDEN = (0.9, 0.0), (0.0, 0.9), (0.0, 0.0)


def test_the_watch_confirms_a_lift_keeps_it_while_unsure_and_forgets_it_once_put_back(scripted: Any) -> None:
    fake = scripted([{"e9": UP, "c1": DOWN}, {"e9": UP, "c1": DOWN}, {"e9": HIDDEN, "c1": DOWN},
                     {"e9": DOWN, "c1": DOWN}])
    view = object.__new__(BoardView)
    watch = LiftWatch(kit_named(), every_ms=90.0, confirm=2)
    game, state = get_game("block-pt"), object()
    image = np.zeros((4, 4, 3), np.uint8)
    assert watch.watch(image, view, 0.0, game, state) is None  # no still frame yet
    watch.rest(image, view, 0.0)
    seen = [watch.watch(image, view, t, game, state) for t in (100.0, 150.0, 200.0, 300.0, 400.0)]
    assert seen == [None, None, "e9", "e9", None]  # 150 ms is too soon after 100 ms: skipped
    assert fake.builds == 1 and fake.calls == 8


def test_a_still_frame_forgets_the_lift_and_a_new_position_builds_new_probes(scripted: Any) -> None:
    fake = scripted([{"e9": UP, "c1": DOWN}] * 4)
    view = object.__new__(BoardView)
    watch = LiftWatch(kit_named(), confirm=1)
    game = get_game("block-pt")
    image = np.zeros((4, 4, 3), np.uint8)
    watch.rest(image, view, 0.0)
    assert watch.watch(image, view, 100.0, game, object()) == "e9"
    watch.rest(image, view, 200.0)
    assert watch.square is None
    assert watch.watch(image, view, 300.0, game, object()) == "e9" and fake.builds == 2


@pytest.fixture(scope="module")
def pawn_move() -> tuple[Film, list[BoardView | None]]:
    """Returns a filmed Block (PT) pawn move and the board fix of each frame."""
    filmed = film("block-pt", None, [], ["e9-d9"], seed=1)
    kit = kit_named()
    tracker = BoardTracker(kit, kit.mat("block-pt"))
    return filmed, [None] + [tracker.update(frame.image).view for frame in filmed.frames]


def test_a_filmed_pawn_reads_in_place_until_lifted_then_lifted_while_held(
        pawn_move: tuple[Film, list[BoardView | None]]) -> None:
    filmed, views = pawn_move
    take = filmed.takes[0]
    still = take.frames.start - 1
    view = views[still]
    assert view is not None
    pieces = PieceSolids(kit_named(), "block-pt", None)
    [probe] = build_probes(filmed.frames[still - 1].image, view, locate_camera(view), pieces,
                           filmed.game, filmed.game.initial_state())
    assert probe.square == "e9" and len(probe.pixels) >= 12
    reach = range(take.frames.start, take.holding[0] - 1)  # the hand on its way, the pawn down
    assert all(not look(filmed.frames[n - 1].image, probe).lifted for n in reach)
    assert look(filmed.frames[still - 1].image, probe).down
    assert all(look(filmed.frames[n - 1].image, probe).lifted for n in take.holding[1:])


def test_a_pyramid_off_one_of_its_own_colour_is_not_probed_but_one_off_another_is() -> None:
    game = get_game("blockade")
    pieces = PieceSolids(kit_named(), "blockade", None)
    state = game.play_all(["roll:b5g1", "d5-c3"])
    items, _ = pieces.of(game.board(state))
    assert colour_hidden(items, Lift("b5", frozenset({("b5", 1)})))  # blue on blue
    assert not colour_hidden(items, Lift("c3", frozenset({("c3", 1)})))  # blue on clear
    assert colour_hidden(items, Lift("e1", frozenset({("e1", 4)})))  # a medium off four of its colour


def test_the_solids_of_unchanged_squares_are_kept_between_positions() -> None:
    game = get_game("block-arena", "7x7")
    pieces = PieceSolids(kit_named(), "block-arena", "7x7")
    before = game.play_all(["+b1", "+b7", "+d1e1"])
    items, solids = pieces.of(game.board(before))
    assert len(items) == 3 and set(solids.owners.tolist()) == {0, 1, 2}
    assert sorted(sorted(item.keys) for item in items)[2] == [("d1", 0), ("e1", 0)]  # one lying block
    after, _ = pieces.of(game.board(game.apply(before, "+d7e7")))
    assert sum(any(item is old for old in items) for item in after) == 3 and len(after) == 4
