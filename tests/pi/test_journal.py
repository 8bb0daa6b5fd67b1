"""Tests of the SQLite journal: durability, resume data, export and its parser."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from pi.journal import Journal, JournalError, export_text, parse_export


def test_entries_survive_reopening(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    journal = Journal(path)
    game_id = journal.start_game("tuned", None)
    journal.append(game_id, "move", "+donkey@a1", frame=12)
    journal.append(game_id, "move", "+dog@b2", frame=40)
    journal.close()
    record = Journal(path).unfinished()
    assert record is not None and record.game == "tuned"
    assert record.moves() == ["+donkey@a1", "+dog@b2"]
    assert record.entries[0].frame == 12


def test_wal_and_full_sync(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "j.sqlite")
    assert journal._db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert journal._db.execute("PRAGMA synchronous").fetchone()[0] == 2


def test_undo_takes_back_the_last_move(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "j.sqlite")
    game_id = journal.start_game("block-pt", None)
    for move in ("e9-e8", "e1-e2", "+a1"):
        journal.append(game_id, "move", move)
    journal.append(game_id, "undo", "+a1")
    journal.append(game_id, "alert", '{"kind": "illegal"}')
    assert journal.load(game_id).moves() == ["e9-e8", "e1-e2"]


def test_a_new_game_closes_the_unfinished_one(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "j.sqlite")
    first = journal.start_game("tuned", None)
    second = journal.start_game("block-pt", None)
    record = journal.unfinished()
    assert record is not None and record.id == second != first
    journal.finish(second)
    assert journal.unfinished() is None


def test_unknown_entry_kind_is_refused(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "j.sqlite")
    game_id = journal.start_game("tuned", None)
    with pytest.raises(ValueError):
        journal.append(game_id, "cheat", "x")
    assert journal.load(game_id).entries == ()


def test_a_file_that_is_not_a_database(tmp_path: Path) -> None:
    bad = tmp_path / "bad.sqlite"
    bad.write_bytes(b"this is not sqlite at all" * 100)
    with pytest.raises(JournalError):
        Journal(bad)


def test_export_round_trips(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "j.sqlite")
    game_id = journal.start_game("block-arena", "7x7")
    journal.append(game_id, "move", "+c1")
    journal.append(game_id, "move", "+d7e7")
    text = export_text(journal.load(game_id))
    assert parse_export(text) == ("block-arena", "7x7", ["+c1", "+d7e7"])


def test_export_without_header_is_refused() -> None:
    with pytest.raises(ValueError):
        parse_export("+c1 +d7\n")


def test_database_is_a_plain_sqlite_file(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    journal = Journal(path)
    journal.append(journal.start_game("tuned", None), "move", "+cat@c3")
    journal.close()
    rows = sqlite3.connect(path).execute("SELECT kind, value FROM entries").fetchall()
    assert rows == [("move", "+cat@c3")]
