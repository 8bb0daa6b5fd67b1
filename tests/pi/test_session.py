"""Tests of the session: checked moves, journal first, undo, confirmations, alerts, resume."""

from __future__ import annotations

from pathlib import Path

import pytest

from pi.events import Event
from pi.journal import Journal
from pi.session import Session, SessionError
from rules import IllegalMoveError, InvalidMoveError, UnknownGameError


@pytest.fixture
def session(tmp_path: Path) -> Session:
    """Returns a session on a fresh journal with a Block game started."""
    made = Session(Journal(tmp_path / "journal.sqlite"))
    made.new_game("block-pt")
    return made


def test_moves_are_played_and_published(session: Session) -> None:
    seen: list[Event] = []
    session.events.subscribe(seen.append)
    assert session.play("e9-e8", frame=5) == "e9-e8"
    assert session.moves == ["e9-e8"]
    assert seen[-1].type == "move" and seen[-1].data["frame"] == 5
    assert session.snapshot()["to_move"] == 2


def test_bad_moves_change_nothing(session: Session) -> None:
    session.play("e9-e8")
    before = session.snapshot()
    with pytest.raises(IllegalMoveError):
        session.play("+a1")
    with pytest.raises(InvalidMoveError):
        session.play("e1-e2-e3")
    assert session.snapshot() == before
    assert session.journal.unfinished().moves() == ["e9-e8"]  # type: ignore[union-attr]


def test_no_game_no_moves(tmp_path: Path) -> None:
    fresh = Session(Journal(tmp_path / "j.sqlite"))
    with pytest.raises(SessionError):
        fresh.play("+c1")


def test_unknown_game_keeps_the_current_one(session: Session) -> None:
    session.play("e9-e8")
    with pytest.raises(UnknownGameError):
        session.new_game("chess")
    assert session.game.name == "block-pt" and session.moves == ["e9-e8"]


def test_undo(session: Session) -> None:
    session.play("e9-e8")
    session.play("e1-e2")
    assert session.undo() == "e1-e2"
    assert session.moves == ["e9-e8"]
    assert session.journal.unfinished().moves() == ["e9-e8"]  # type: ignore[union-attr]
    session.undo()
    with pytest.raises(SessionError):
        session.undo()


def test_ambiguity_then_confirm(session: Session) -> None:
    session.ask(["e9-d9", "e9-f9", "not-a-move"], frame=7)
    assert session.pending == ("e9-d9", "e9-f9")
    assert session.alerts[-1].kind == "ambiguous"
    session.confirm("e9-f9")
    assert session.moves == ["e9-f9"] and session.pending == ()
    kinds = [e.kind for e in session.journal.unfinished().entries]  # type: ignore[union-attr]
    assert kinds == ["alert", "confirm", "move"]


def test_moves_kept_while_a_question_stands_follow_its_answer(tmp_path: Path) -> None:
    session = Session(Journal(tmp_path / "journal.sqlite"))
    session.new_game("blockade")
    session.play("roll:b3g4")
    session.ask(["b1-b2", "b1-c1"])
    session.defer("end")
    session.defer("roll:r1y1")
    session.defer("roll:r2y2")  # a second roll is illegal after the first: it is dropped
    assert session.moves == ["roll:b3g4"] and session.deferred == ("end", "roll:r1y1", "roll:r2y2")
    session.confirm("b1-c1")
    assert session.moves == ["roll:b3g4", "b1-c1", "end", "roll:r1y1"] and session.deferred == ()


def test_moves_kept_while_a_question_stands_go_with_an_undo_or_a_new_game(tmp_path: Path) -> None:
    session = Session(Journal(tmp_path / "journal.sqlite"))
    session.new_game("blockade")
    session.play("roll:b3g4")
    session.defer("end")
    session.undo()
    assert session.deferred == ()
    session.defer("roll:b3g4")
    session.new_game("blockade")
    assert session.deferred == () and session.take_deferred() == ()
    with pytest.raises(InvalidMoveError):
        session.defer("not a move")
    assert session.deferred == ()


def test_the_snapshot_counts_the_alerts_raised_since_the_last_move(session: Session) -> None:
    assert session.snapshot()["alerts_since_move"] == 0
    session.alert("illegal", "illegal move 'e8-e6'", ("e8", "e6"))
    session.alert("camera", "the camera sees no markers")
    assert session.snapshot()["alerts_since_move"] == 2
    session.play("e9-e8")
    assert session.snapshot()["alerts_since_move"] == 0  # the dashboard shows them no more
    session.alert("illegal", "illegal move 'e1-e3'")
    session.undo()
    assert session.snapshot()["alerts_since_move"] == 0
    assert len(session.snapshot()["alerts"]) == 3  # the history keeps them


def test_correction_is_journalled_as_such(session: Session) -> None:
    session.ask(["e9-d9", "e9-f9"])
    session.confirm("e9-e8")
    kinds = [e.kind for e in session.journal.unfinished().entries]  # type: ignore[union-attr]
    assert kinds[-2:] == ["correction", "move"]


def test_resume_restores_the_same_state(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite"
    first = Session(Journal(path))
    first.new_game("tuned")
    for move in ("+donkey@a1", "+dog@b2", "+cat@c3"):
        first.play(move)
    first.undo()
    second = Session(Journal(path))
    assert second.resume()
    assert second.state == first.state
    assert second.moves == ["+donkey@a1", "+dog@b2"]


def test_nothing_to_resume(tmp_path: Path) -> None:
    assert not Session(Journal(tmp_path / "j.sqlite")).resume()


def test_event_log_resumes_after_an_id(session: Session) -> None:
    session.play("e9-e8")
    mark = session.events.last_id
    session.play("e1-e2")
    later = session.events.since(mark)
    assert [event.data["move"] for event in later] == ["e1-e2"]
