"""Independent brute-force oracle for Tuned (`tuned`, RULES.md section 4), used only by tests.

Written straight from RULES.md, the BGA rulebook and the integrator's fixed interpretations,
without looking at rules/tuned.py. Legal moves are found by trying every candidate string
(3 animals x 9 squares adds, 9 x 9 x 3 moves) against the rules written literally.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

SQUARES: tuple[str, ...] = tuple(f"{f}{r}" for f in "abc" for r in "123")
ANIMALS: tuple[str, ...] = ("donkey", "dog", "cat")
CAP = 200
LINES: tuple[tuple[str, str, str], ...] = (
    ("a1", "b1", "c1"), ("a2", "b2", "c2"), ("a3", "b3", "c3"),
    ("a1", "a2", "a3"), ("b1", "b2", "b3"), ("c1", "c2", "c3"),
    ("a1", "b2", "c3"), ("a3", "b2", "c1"),
)
# What an animal may be put on: None stands for an empty square.
MAY_GO_ON: dict[str, tuple[str | None, ...]] = {
    "donkey": (None,),
    "dog": (None, "donkey"),
    "cat": (None, "dog"),
}


@dataclass(frozen=True)
class State:
    """The oracle state: nothing but the list of moves played since the start."""

    history: tuple[str, ...] = ()


def initial() -> State:
    """Returns the empty board with both hands full, player 1 to move."""
    return State()


def ply(state: State) -> int:
    """Returns the number of actions applied since the start."""
    return len(state.history)


def player_of(index: int) -> int:
    """Returns who played the move at a 0-based history index."""
    return 1 if index % 2 == 0 else 2


def mover(state: State) -> int:
    """Returns whose turn it is by ply parity."""
    return player_of(ply(state))


Board = dict[str, list[str]]
Hands = dict[int, dict[str, int]]


def replay(history: tuple[str, ...]) -> tuple[Board, Hands]:
    """Returns (stacks bottom-to-top per square, hands per player) after the moves."""
    board: Board = {sq: [] for sq in SQUARES}
    hands = {p: {a: 2 for a in ANIMALS} for p in (1, 2)}
    for index, move in enumerate(history):
        if move.startswith("+"):
            animal, _, square = move[1:].partition("@")
            board[square].append(animal)
            hands[player_of(index)][animal] -= 1
        else:
            source, target, k = split_move(move)
            part = board[source][-k:]
            del board[source][-k:]
            board[target].extend(part)
    return board, hands


def split_move(move: str) -> tuple[str, str, int]:
    """Returns (source, target, k) of a move string `x-y` or `x-y/k`."""
    body, _, count = move.partition("/")
    source, _, target = body.partition("-")
    return source, target, int(count) if count else 1


def move_text(source: str, target: str, k: int) -> str:
    """Returns the canonical text of moving the top k animals (never `/1`)."""
    return f"{source}-{target}" if k == 1 else f"{source}-{target}/{k}"


def top(stack: list[str]) -> str | None:
    """Returns the top animal of a stack, or None for an empty square."""
    return stack[-1] if stack else None


def in_hand(state: State, player: int) -> int:
    """Returns how many animals a player still holds."""
    return sum(replay(state.history)[1][player].values())


def own_last_action(state: State, player: int) -> str | None:
    """Returns 'add' or 'move' for the player's own previous action, or None if none yet."""
    for index in range(ply(state) - 1, -1, -1):
        if player_of(index) == player:
            return "add" if state.history[index].startswith("+") else "move"
    return None


def allowed_kinds(state: State, player: int) -> set[str]:
    """Returns the actions the rooster leaves the player: {'add'}, {'add', 'move'} or {'move'}."""
    if in_hand(state, player) == 0:
        return {"move"}
    if own_last_action(state, player) == "add":
        return {"add", "move"}
    return {"add"}


def is_legal_add(state: State, board: Board, hands: Hands, animal: str, square: str) -> bool:
    """Tells whether the player to move may place this animal on this square."""
    if hands[mover(state)][animal] <= 0:
        return False
    return top(board[square]) in MAY_GO_ON[animal]


def is_legal_move(state: State, board: Board, source: str, target: str, k: int) -> bool:
    """Tells whether moving the top k animals from source to target is allowed (no-undo too)."""
    if source == target:
        return False
    if len(board[source]) < k:
        return False
    bottom_moved = board[source][-k]
    if top(board[target]) not in MAY_GO_ON[bottom_moved]:
        return False
    if state.history:
        previous = state.history[-1]
        if not previous.startswith("+"):
            p_source, p_target, p_k = split_move(previous)
            if (source, target, k) == (p_target, p_source, p_k):
                return False
    return True


def _legal_unchecked(state: State) -> list[str]:
    """Returns the sorted legal actions of the player to move, ignoring whether the game ended."""
    kinds = allowed_kinds(state, mover(state))
    board, hands = replay(state.history)
    moves: list[str] = []
    if "add" in kinds:
        for animal in ANIMALS:
            for square in SQUARES:
                if is_legal_add(state, board, hands, animal, square):
                    moves.append(f"+{animal}@{square}")
    if "move" in kinds:
        for source in SQUARES:
            for target in SQUARES:
                for k in (1, 2, 3):
                    if is_legal_move(state, board, source, target, k):
                        moves.append(move_text(source, target, k))
    return sorted(moves)


def has_line(state: State) -> bool:
    """Tells whether some row, column or diagonal shows three top animals of one kind."""
    board, _ = replay(state.history)
    for line in LINES:
        tops = [top(board[sq]) for sq in line]
        if tops[0] is not None and tops[0] == tops[1] == tops[2]:
            return True
    return False


def counters(state: State) -> dict[str, int]:
    """Returns the actions each player has taken."""
    n = ply(state)
    return {"1": (n + 1) // 2, "2": n // 2}


def outcome(state: State) -> dict[str, Any] | None:
    """Returns the end: a line for the actor, then no-move for the player to move, then cap."""
    if ply(state) == 0:
        return None
    if has_line(state):
        return {"winner": player_of(ply(state) - 1), "reason": "line"}
    if not _legal_unchecked(state):
        return {"winner": 3 - mover(state), "reason": "no-move"}
    done = counters(state)
    if done["1"] >= CAP and done["2"] >= CAP:
        return {"winner": None, "reason": "cap"}
    return None


def legal(state: State) -> list[str]:
    """Returns the sorted legal moves, or [] once the game is over."""
    if outcome(state) is not None:
        return []
    return _legal_unchecked(state)


def apply(state: State, move: str) -> State:
    """Returns the state after a (legal) move."""
    return State(state.history + (move,))


def to_move(state: State) -> int | None:
    """Returns the player to act, or None once the game is over."""
    return None if outcome(state) is not None else mover(state)


def scores(state: State) -> dict[str, Any]:
    """Returns the animals each player still holds."""
    return {"1": in_hand(state, 1), "2": in_hand(state, 2)}
