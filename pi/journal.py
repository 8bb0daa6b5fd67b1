"""The game journal: an append-only SQLite log that survives crashes and power cuts."""

from __future__ import annotations

import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path

SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,
    game TEXT NOT NULL,
    variant TEXT,
    started_ms INTEGER NOT NULL,
    finished INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS entries (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    game_id INTEGER NOT NULL REFERENCES games(id),
    kind TEXT NOT NULL CHECK (kind IN ('move', 'undo', 'alert', 'confirm', 'correction')),
    value TEXT NOT NULL,
    frame INTEGER,
    t_ms INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS entries_by_game ON entries(game_id, id);
"""

ENTRY_KINDS = ("move", "undo", "alert", "confirm", "correction")


class JournalError(RuntimeError):
    """Raised when the journal file cannot be opened or is not a blockref journal."""


@dataclass(frozen=True, slots=True)
class Entry:
    """One journal line: what happened, its value, and the frame it came from."""

    kind: str
    value: str
    frame: int | None
    t_ms: int


@dataclass(frozen=True, slots=True)
class JournalGame:
    """A game as recorded: its id, name, variant, whether it finished, and its entries."""

    id: int
    game: str
    variant: str | None
    finished: bool
    entries: tuple[Entry, ...]

    def moves(self) -> list[str]:
        """Returns the accepted moves in order, with undone moves taken back."""
        moves: list[str] = []
        for entry in self.entries:
            if entry.kind == "move":
                moves.append(entry.value)
            elif entry.kind == "undo" and moves:
                moves.pop()
        return moves


def now_ms() -> int:
    """Returns the wall-clock time in milliseconds."""
    return int(time.time() * 1000)


class Journal:
    """An SQLite journal in WAL mode with synchronous=FULL: a committed entry is on disk."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        self._lock = threading.Lock()
        try:
            self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.executescript(SCHEMA)
        except sqlite3.DatabaseError as error:
            raise JournalError(f"cannot open journal {self.path!r}: {error}") from None

    def close(self) -> None:
        """Closes the database connection."""
        with self._lock:
            self._db.close()

    def start_game(self, game: str, variant: str | None) -> int:
        """Records a new game and returns its id; earlier unfinished games are closed."""
        with self._lock, self._db:
            self._db.execute("UPDATE games SET finished = 1 WHERE finished = 0")
            cursor = self._db.execute(
                "INSERT INTO games (game, variant, started_ms) VALUES (?, ?, ?)",
                (game, variant, now_ms()),
            )
            return int(cursor.lastrowid or 0)

    def append(self, game_id: int, kind: str, value: str, frame: int | None = None) -> None:
        """Appends one entry and returns only once it is durable."""
        if kind not in ENTRY_KINDS:
            raise ValueError(f"unknown journal entry kind {kind!r}")
        with self._lock, self._db:
            self._db.execute(
                "INSERT INTO entries (game_id, kind, value, frame, t_ms) VALUES (?, ?, ?, ?, ?)",
                (game_id, kind, value, frame, now_ms()),
            )

    def finish(self, game_id: int) -> None:
        """Marks a game as finished so it is not resumed."""
        with self._lock, self._db:
            self._db.execute("UPDATE games SET finished = 1 WHERE id = ?", (game_id,))

    def load(self, game_id: int) -> JournalGame:
        """Returns one recorded game with all its entries."""
        with self._lock:
            row = self._db.execute(
                "SELECT id, game, variant, finished FROM games WHERE id = ?", (game_id,)
            ).fetchone()
            if row is None:
                raise JournalError(f"journal {self.path!r} has no game {game_id}")
            entries = self._db.execute(
                "SELECT kind, value, frame, t_ms FROM entries WHERE game_id = ? ORDER BY id",
                (game_id,),
            ).fetchall()
        return JournalGame(row[0], row[1], row[2], bool(row[3]), tuple(Entry(*e) for e in entries))

    def unfinished(self) -> JournalGame | None:
        """Returns the most recent game that was not finished, if any."""
        with self._lock:
            row = self._db.execute(
                "SELECT id FROM games WHERE finished = 0 ORDER BY id DESC LIMIT 1"
            ).fetchone()
        return None if row is None else self.load(int(row[0]))

    def latest(self) -> JournalGame | None:
        """Returns the most recent game, finished or not."""
        with self._lock:
            row = self._db.execute("SELECT id FROM games ORDER BY id DESC LIMIT 1").fetchone()
        return None if row is None else self.load(int(row[0]))


def export_text(record: JournalGame) -> str:
    """Returns a game as text: comment lines naming it, then its moves in RULES.md notation."""
    header = f"# game: {record.game}\n# variant: {record.variant or ''}\n"
    return header + "\n".join(record.moves()) + "\n"


def parse_export(text: str) -> tuple[str, str | None, list[str]]:
    """Returns (game, variant, moves) from exported text; raises ValueError if malformed."""
    game: str | None = None
    variant: str | None = None
    moves: list[str] = []
    for line in text.splitlines():
        if line.startswith("# game:"):
            game = line.split(":", 1)[1].strip()
        elif line.startswith("# variant:"):
            variant = line.split(":", 1)[1].strip() or None
        else:
            moves.extend(line.split("#", 1)[0].split())
    if not game:
        raise ValueError("exported game text has no '# game:' line")
    return game, variant, moves
