"""A still frame read as illegal gets a second look under each of the nearest legal explanations'
positions (pi.pipeline.Pipeline._second_look): a piece that moved can lean over a cell the
position before it left empty, and only a reading that draws it where it now stands explains
that cell. The scripted observer here sees such a cell unless the position it is given is the
true one; the pixel test renders a physically illegal change, which must stay illegal."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pi.journal import Journal
from pi.pipeline import Pipeline, second_look_asks_for, second_look_for
from pi.session import Session
from tests.vision.observe.block_scenes import VariantCamera
from tests.vision.observe.stack_scenes import KIT
from vision.expect import expected_view
from vision.infer import either
from vision.sight import view_of
from vision.kit import kit_named
from vision.observation import CellSeen, Observation
from vision.observe import block_arena
from vision.observe.context import Scene

OPENING = ['+d1e1', '+d7', '+b1c1', '+c7', '+f1', '+e7f7', '+g1', '+b7', 'M+e1', 'M+c7', 'f1-f2f3', 'b7-b5b6',
           'g1-f1', 'b5b6-c5c6', 'f2f3-e2e3', 'Mc7-c5', 'Me1-e3', 'd7-d5d6', 'f1-f2f3', 'd5d6-d4d5', 'f2f3-f3f4',
           'Mc5-d4', 'Me3-f4', 'c5c6-c4']
TIPPED = "e2e3-e4"  # the lying block stands up on e4, leaning over e3 as seen from a low camera
LEANING = "light-meeple/light-block-lying"  # what e3 looks like while e4 is drawn lying or empty


class Leaning:
    """A scripted observer: the view after the true move, with e3 misread unless the position
    it reads under is that true one; it keeps every memory and position it is given."""

    def __init__(self, session: Session, truth: str) -> None:
        game = session.game
        self.game, self.truth = game, game.board(game.play_all([truth], session.state))
        self.view = view_of(game, game.play_all([truth], session.state))
        self.memories: list[Any] = []
        self.boards: list[dict[str, Any]] = []

    def __call__(self, scene: Scene, board: dict[str, Any], memory: Any) -> Observation:
        self.memories.append(memory)
        self.boards.append(board)
        view = self.view if board == self.truth else {**self.view, "e3": LEANING}
        return Observation.certain("block-arena", view)


@pytest.fixture
def session(tmp_path: Path) -> Session:
    """Returns a journalled 7x7 Block Arena session after the opening."""
    session = Session(Journal(tmp_path / "journal.sqlite"))
    session.new_game("block-arena", "7x7")
    for move in OPENING:
        session.play(move, 0)
    return session


def pipeline_with(session: Session, observer: Any, records: list[dict[str, Any]]) -> Pipeline:
    """Returns a pipeline on the session with a scripted observer and a memory of its own."""
    pipeline = Pipeline(session, kit_named(), records.append, observer=observer)
    pipeline.memory = {"kept": "the observer's memory"}
    return pipeline


def test_a_piece_leaning_over_the_cell_it_left_is_read_on_a_second_look(session: Session) -> None:
    records: list[dict[str, Any]] = []
    observer = Leaning(session, TIPPED)
    pipeline = pipeline_with(session, observer, records)
    first = observer(object(), session.game.board(session.state), pipeline.memory)  # type: ignore[arg-type]
    reading = pipeline.on_observation(10, first, object())  # type: ignore[arg-type]
    assert reading.kind == "move" and reading.moves == (TIPPED,)
    assert session.moves[-1] == TIPPED and not [r for r in records if "alert" in r]
    assert all(memory is not pipeline.memory for memory in observer.memories[1:])
    assert all(memory == pipeline.memory for memory in observer.memories[1:])


def test_a_second_look_does_not_explain_away_a_change_far_from_its_move(session: Session) -> None:
    """The first look also saw a7 change, far from every square the move changes: a look under
    the move's position that reads a7 as before only leans to that position, so it settles nothing."""
    records: list[dict[str, Any]] = []
    observer = Leaning(session, TIPPED)
    pipeline = pipeline_with(session, observer, records)
    before = view_of(session.game, session.state)["a7"]
    first = Observation.certain("block-arena", {**observer.view, "e3": LEANING,
                                                "a7": "empty" if before != "empty" else "dark-block-upright"})
    reading = pipeline.on_observation(10, first, object())  # type: ignore[arg-type]
    assert reading.kind == "illegal" and session.moves == OPENING
    assert observer.truth not in observer.boards


def test_a_lasting_misreading_far_from_the_move_does_not_stop_its_second_look(session: Session) -> None:
    """a7 has read the same wrong way since the last accepted reading: a misreading that lasts,
    which says nothing about this change, so the move is still read on a second look."""
    records: list[dict[str, Any]] = []
    observer = Leaning(session, TIPPED)
    pipeline = pipeline_with(session, observer, records)
    before = view_of(session.game, session.state)
    misread = "empty" if before["a7"] != "empty" else "dark-block-upright"
    pipeline.beliefs.seen = Observation.certain("block-arena", {**before, "a7": misread})
    observer.view = {**observer.view, "a7": misread}
    first = observer(object(), session.game.board(session.state), pipeline.memory)  # type: ignore[arg-type]
    reading = pipeline.on_observation(10, first, object())  # type: ignore[arg-type]
    assert reading.kind == "move" and reading.moves == (TIPPED,)


def test_without_a_scene_there_is_no_second_look(session: Session) -> None:
    records: list[dict[str, Any]] = []
    observer = Leaning(session, TIPPED)
    pipeline = pipeline_with(session, observer, records)
    first = observer(object(), session.game.board(session.state), pipeline.memory)  # type: ignore[arg-type]
    assert pipeline.on_observation(10, first).kind == "illegal"
    assert session.moves == OPENING and len(observer.memories) == 1


def test_a_second_look_that_fits_no_explanation_leaves_the_alert(session: Session) -> None:
    records: list[dict[str, Any]] = []
    observer = Leaning(session, TIPPED)
    observer.truth = {}  # no position the pipeline can try is the true one
    pipeline = pipeline_with(session, observer, records)
    first = observer(object(), session.game.board(session.state), pipeline.memory)  # type: ignore[arg-type]
    reading = pipeline.on_observation(10, first, object())  # type: ignore[arg-type]
    assert reading.kind == "illegal" and session.moves == OPENING
    assert len(observer.memories) > 1 and [r for r in records if "alert" in r]


def test_a_block_that_jumped_across_the_board_stays_illegal_in_pixels(tmp_path: Path) -> None:
    camera = VariantCamera("block-arena", "9x9", "low-warm-tilted", 4)
    session = Session(Journal(tmp_path / "journal.sqlite"))
    session.new_game("block-arena", "9x9")
    for move in ("+a1", "+a9b9", "+c1d1", "+e9", "+f1", "+g9", "+h1i1", "+h9"):
        session.play(move, 0)
    records: list[dict[str, Any]] = []
    pipeline = Pipeline(session, kit_named(), records.append)
    board = session.game.board(session.state)
    pipeline.memory = block_arena.new_memory(KIT)
    block_arena.observe(camera.board_scene(board), board, pipeline.memory)
    jumped = {**board, "cells": {**{square: stack for square, stack in board["cells"].items() if square != "f1"},
                                 "e5": board["cells"]["f1"]}}
    scene = camera.board_scene(jumped)
    seen = block_arena.observe(scene, board, pipeline.memory)
    reading = pipeline.on_observation(10, seen, scene)
    assert reading.kind == "illegal", reading
    assert session.moves[-1] == "+h9" and [r for r in records if "alert" in r]


def test_only_observers_that_read_trial_positions_fairly_get_a_second_look(session: Session) -> None:
    assert second_look_for("block-arena") and second_look_for("block-pt") and second_look_for("block-block")
    assert not second_look_for("blockade") and not second_look_for("tuned")
    records: list[dict[str, Any]] = []
    observer = Leaning(session, TIPPED)
    pipeline = pipeline_with(session, observer, records)
    pipeline.second_look = False
    first = observer(object(), session.game.board(session.state), pipeline.memory)  # type: ignore[arg-type]
    assert pipeline.on_observation(10, first, object()).kind == "illegal"  # type: ignore[arg-type]
    assert len(observer.memories) == 1


class Obliging(Leaning):
    """A scripted observer that shows every trial position as it is given (the first look, under
    the position before the move, sees e3 leaning)."""

    def __init__(self, session: Session) -> None:
        super().__init__(session, TIPPED)
        self.before = session.game.board(session.state)

    def __call__(self, scene: Scene, board: dict[str, Any], memory: Any) -> Observation:
        if board == self.before:
            return super().__call__(scene, board, memory)
        self.memories.append(memory)
        return Observation.certain("block-arena", expected_view("block-arena", board))


def test_several_explanations_that_each_read_as_themselves_are_asked_about(session: Session) -> None:
    records: list[dict[str, Any]] = []
    observer = Obliging(session)
    pipeline = pipeline_with(session, observer, records)
    first = observer(object(), observer.before, pipeline.memory)  # type: ignore[arg-type]
    reading = pipeline.on_observation(10, first, object())  # type: ignore[arg-type]
    assert reading.kind == "ambiguous" and len(reading.candidates) > 1 and (TIPPED,) in reading.candidates
    assert session.moves == OPENING and pipeline.belief.asked == reading.candidates
    assert [r["alert"] for r in records if "alert" in r] == [f"ambiguous: {either(reading.candidates)}"]


def test_no_second_look_explains_a_lasting_misreading(session: Session) -> None:
    """After a move the camera missed, the square where board and position part reads the same
    wrong way at every look; a move through it must not be accepted to hide that."""
    records: list[dict[str, Any]] = []
    observer = Leaning(session, TIPPED)
    pipeline = pipeline_with(session, observer, records)
    before = view_of(session.game, session.state)
    pipeline.beliefs.seen = Observation.certain("block-arena", {**before, "e2": "empty"})  # e2 misread before
    first = observer(object(), session.game.board(session.state), pipeline.memory)  # type: ignore[arg-type]
    reading = pipeline.on_observation(10, first, object())  # type: ignore[arg-type]
    assert reading.kind == "illegal" and session.moves == OPENING
    assert observer.truth not in [board for board in observer.boards]


def test_a_change_read_as_illegal_is_caught_up_by_the_next_reading(tmp_path: Path) -> None:
    session = Session(Journal(tmp_path / "tuned.sqlite"))
    session.new_game("tuned")
    session.play("+donkey@a1", 0)
    records: list[dict[str, Any]] = []
    pipeline = Pipeline(session, kit_named(), records.append, observer=lambda *_: None)  # type: ignore[arg-type,return-value]
    view = view_of(session.game, session.state)
    misread = Observation.certain("tuned", {**view, "b2": "cat/dog"})  # a cat read as on a dog
    assert pipeline.on_observation(10, misread).kind == "illegal"
    both = Observation.certain("tuned", {**view, "b2": "cat", "c3": "donkey"})
    reading = pipeline.on_observation(20, both)
    assert reading.kind == "move" and session.moves[-2:] == ["+cat@b2", "+donkey@c3"]
    assert [r["frame"] for r in records if "alert" in r] == [10]


MEEPLE_ON_E2E3 = "light-meeple/light-block-lying"


class Torn(Leaning):
    """A scripted observer: under the position before the move it reads both cells of the lying
    block e2e3 as maybe bearing the meeple (the meeple leans over the cell next to its own); under
    any other position, the board as it truly is."""

    def __init__(self, session: Session, truth: str) -> None:
        super().__init__(session, truth)
        self.before = session.game.board(session.state)

    def __call__(self, scene: Scene, board: dict[str, Any], memory: Any) -> Observation:
        self.memories.append(memory)
        self.boards.append(board)
        if board != self.before:
            return Observation.certain("block-arena", self.view)
        cells = {square: CellSeen.sure(label) for square, label in self.view.items()}
        for square in ("e2", "e3"):
            cells[square] = CellSeen.from_probs({MEEPLE_ON_E2E3: 0.6, "light-block-lying": 0.4})
        return Observation("block-arena", cells)


def test_a_question_between_moves_is_settled_by_a_second_look_under_each(session: Session) -> None:
    """Block Arena fresh-b 612 asked Md9-d7 or Md9-d8: a meeple on one cell of a lying block
    leans over the other. Read under each candidate's position, only the true one reads as
    itself: the other's look still sees the meeple where it stands."""
    records: list[dict[str, Any]] = []
    observer = Torn(session, "Mf4-e3")
    pipeline = pipeline_with(session, observer, records)
    pipeline.second_look_asks = second_look_asks_for("block-arena")
    first = observer(object(), observer.before, pipeline.memory)  # type: ignore[arg-type]
    assert pipeline.belief.read(first)[0].kind == "ambiguous"
    reading = pipeline.on_observation(10, first, object())  # type: ignore[arg-type]
    assert reading.kind == "move" and reading.moves == ("Mf4-e3",)
    assert session.moves[-1] == "Mf4-e3" and not [r for r in records if "alert" in r]


def test_a_question_gets_no_second_look_where_the_observer_does_not_allow_it(session: Session) -> None:
    """BLOCK.BLOCK's questions are about heights the camera cannot see well: a look under a
    candidate only leans to it."""
    assert second_look_asks_for("block-arena") and second_look_asks_for("block-pt")
    assert not second_look_asks_for("block-block")
    records: list[dict[str, Any]] = []
    observer = Torn(session, "Mf4-e3")
    pipeline = pipeline_with(session, observer, records)
    first = observer(object(), observer.before, pipeline.memory)  # type: ignore[arg-type]
    reading = pipeline.on_observation(10, first, object())  # type: ignore[arg-type]
    assert reading.kind == "ambiguous" and session.moves == OPENING and len(observer.memories) == 1
