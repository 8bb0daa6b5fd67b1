"""The rules protocol shared by every game: states, moves, outcomes, errors."""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, Mapping, Protocol, TypeVar

PLAYERS: tuple[int, int] = (1, 2)

OUTCOME_REASONS: frozenset[str] = frozenset(
    {"goal", "move-limit", "trapped", "towers", "line", "no-move", "score", "cap"}
)


class RulesError(ValueError):
    """Base class of every error the referee raises for bad input."""


class InvalidMoveError(RulesError):
    """Raised when a text is not a move of the game in canonical notation."""

    def __init__(self, text: str, reason: str = "not a move in this game's notation") -> None:
        self.text = text
        self.reason = reason
        super().__init__(f"{text!r} is not a valid move: {reason}")


class IllegalMoveError(RulesError):
    """Raised when a well-formed move breaks a rule in the given state."""

    def __init__(self, move: str, reason: str) -> None:
        self.move = move
        self.reason = reason
        super().__init__(f"illegal move {move!r}: {reason}")


class UnknownGameError(RulesError):
    """Raised when a game name or variant is not known."""


def other(player: int) -> int:
    """Returns the opponent of a player."""
    return 3 - player


@dataclass(frozen=True, slots=True)
class Outcome:
    """The end of a game: the winner (1, 2, or None for a draw) and a reason word."""

    winner: int | None
    reason: str

    def as_dict(self) -> dict[str, Any]:
        """Returns the outcome as a JSON-ready dict."""
        return {"winner": self.winner, "reason": self.reason}


class Move(Protocol):
    """A typed move value: hashable, and printed in canonical notation by str()."""

    def __str__(self) -> str: ...

    def __hash__(self) -> int: ...


S = TypeVar("S")
M = TypeVar("M", bound=Move)


class Game(ABC, Generic[S, M]):
    """The rules of one game (and variant): pure functions over frozen states.

    Subclasses implement generation, play and explanation; this base class adds the checked
    `apply`, the sorted canonical legal list and the common bookkeeping.
    """

    name: ClassVar[str]
    variants: ClassVar[tuple[str, ...]] = ()
    house_rules: ClassVar[tuple[str, ...]] = ()
    scores_doc: ClassVar[str] = ""
    counters_doc: ClassVar[str] = ""

    def __init__(self, variant: str | None = None) -> None:
        if self.variants:
            chosen = self.variants[0] if variant is None else variant
            if chosen not in self.variants:
                raise UnknownGameError(
                    f"{self.name} has no variant {variant!r}; choose one of "
                    + ", ".join(self.variants)
                )
            self.variant: str | None = chosen
        elif variant is not None:
            raise UnknownGameError(f"{self.name} has no variants, but {variant!r} was given")
        else:
            self.variant = None

    def __eq__(self, other_game: object) -> bool:
        return isinstance(other_game, Game) and self.key == other_game.key

    def __hash__(self) -> int:
        return hash(self.key)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.variant!r})"

    @property
    def key(self) -> tuple[str, str | None]:
        """Returns the (name, variant) pair that identifies these rules."""
        return (self.name, self.variant)

    # -- what each game implements -------------------------------------------------------

    @abstractmethod
    def initial_state(self) -> S:
        """Returns the state before the first move."""

    @abstractmethod
    def parse(self, text: str) -> M:
        """Returns the typed move for a canonical move text, or raises InvalidMoveError."""

    @abstractmethod
    def generate(self, state: S) -> list[M]:
        """Returns every legal move in the state (any order, no duplicates)."""

    @abstractmethod
    def play(self, state: S, move: M) -> S:
        """Returns the state after a move already known to be legal."""

    @abstractmethod
    def explain(self, state: S, move: M) -> str:
        """Returns the rule that a move which is not legal in the state breaks."""

    @abstractmethod
    def to_move(self, state: S) -> int | None:
        """Returns the player to act, or None once the game is over."""

    @abstractmethod
    def ply(self, state: S) -> int:
        """Returns how many moves have been applied since the start."""

    @abstractmethod
    def outcome(self, state: S) -> Outcome | None:
        """Returns how the game ended, or None while it goes on."""

    @abstractmethod
    def scores(self, state: S) -> dict[str, Any]:
        """Returns what the game scores now, as JSON-ready data (keys in scores_doc)."""

    @abstractmethod
    def counters(self, state: S) -> dict[str, int]:
        """Returns each player's count of actions taken after set-up ("1", "2")."""

    @abstractmethod
    def max_plies(self) -> int:
        """Returns an upper bound on the number of moves any game can last."""

    # -- what every game gets -------------------------------------------------------------

    def is_legal(self, state: S, move: M) -> bool:
        """Tells whether a typed move is legal in the state."""
        return move in set(self.generate(state))

    def legal_moves(self, state: S) -> list[M]:
        """Returns the legal moves, ordered by their canonical text."""
        if self.outcome(state) is not None:
            return []
        return sorted(self.generate(state), key=str)

    def legal(self, state: S) -> list[str]:
        """Returns the legal moves as sorted canonical strings."""
        return [str(move) for move in self.legal_moves(state)]

    def coerce(self, move: M | str) -> M:
        """Returns the typed move for a move or its text."""
        if isinstance(move, str):
            return self.parse(move)
        return move

    def apply(self, state: S, move: M | str) -> S:
        """Returns the state after a checked move; raises on an invalid or illegal one."""
        typed = self.coerce(move)
        if self.outcome(state) is not None:
            raise IllegalMoveError(str(typed), "the game is over")
        if not self.is_legal(state, typed):
            raise IllegalMoveError(str(typed), self.explain(state, typed))
        return self.play(state, typed)

    def play_all(self, moves: list[str], state: S | None = None) -> S:
        """Returns the state after applying moves in order from the start (or a given state)."""
        current = self.initial_state() if state is None else state
        for text in moves:
            current = self.apply(current, text)
        return current

    def squares(self, move: M | str) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """Returns the squares a move leaves and the squares it reaches, read from its notation."""
        return move_squares(str(move))

    def board(self, state: S) -> dict[str, Any]:
        """Returns the position as JSON-ready data: {"size", "cells", "off"} (see each game)."""
        raise NotImplementedError(f"{self.name} does not export its position")

    def summary(self, state: S) -> dict[str, Any]:
        """Returns the JSON object `blockref rules` prints for a state."""
        outcome = self.outcome(state)
        return {
            "game": self.name,
            "variant": self.variant,
            "to_move": self.to_move(state),
            "ply": self.ply(state),
            "legal": self.legal(state),
            "outcome": None if outcome is None else outcome.as_dict(),
            "scores": self.scores(state),
            "counters": self.counters(state),
        }


def square_name(file: int, rank: int) -> str:
    """Returns the name of a square from 0-based file and rank (0, 0 is a1)."""
    return f"{chr(ord('a') + file)}{rank + 1}"


_SQUARE = re.compile(r"[a-z][1-9][0-9]?")
_SQUARE_IN_MOVE = re.compile(r"(?<![a-z])[a-i][1-9]")


def _unique_squares(text: str) -> tuple[str, ...]:
    """Returns the square names in a piece of notation, first occurrence order."""
    return tuple(dict.fromkeys(_SQUARE_IN_MOVE.findall(text)))


def move_squares(text: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Returns (squares left, squares reached) named by a move in RULES.md notation."""
    if text.startswith("roll:") or "-" not in text:
        return (), () if text.startswith("roll:") else _unique_squares(text)
    source, _, target = text.partition("-")
    return _unique_squares(source), _unique_squares(target)


def parse_square(text: str, size: int, whole: str | None = None) -> tuple[int, int]:
    """Returns 0-based (file, rank) of a square name on a size x size board, or raises
    InvalidMoveError naming the whole move text when one is given."""
    named = text if whole is None else whole
    if not _SQUARE.fullmatch(text):
        raise InvalidMoveError(named, f"{text!r} is not a square")
    file = ord(text[0]) - ord("a")
    rank = int(text[1:]) - 1
    if not (0 <= file < size and 0 <= rank < size):
        raise InvalidMoveError(named, f"{text!r} is not a square of a {size}x{size} board")
    return file, rank
