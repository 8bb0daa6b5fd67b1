"""Independent brute-force oracle for Block (`block-pt`, RULES.md section 5), used only by tests.

Written straight from RULES.md, the Portuguese rulebook and the integrator's fixed
interpretations, without looking at rules/block_pt.py. Legal moves are found by trying every
candidate string (4 pawn steps, 81 placements, `pass`) against the rules written literally.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

FILES = "abcdefghi"
SIZE = 9
HAND = 7
CAP = 200
ALL_SQUARES: tuple[str, ...] = tuple(f"{f}{r}" for f in FILES for r in range(1, SIZE + 1))
START = {1: "e9", 2: "e1"}
GOAL_RANK = {1: 1, 2: 9}


@dataclass(frozen=True)
class State:
    """The oracle state: pawn squares, blocking pieces (square -> owner), hands and history."""

    pawns: tuple[str, str] = ("e9", "e1")
    blockers: tuple[tuple[str, int], ...] = ()
    hands: tuple[int, int] = (HAND, HAND)
    history: tuple[str, ...] = ()


def initial() -> State:
    """Returns the starting position: X on e9, Y on e1, 7 pieces each in hand, X to move."""
    return State()


def ply(state: State) -> int:
    """Returns the number of actions applied since the start."""
    return len(state.history)


def mover(state: State) -> int:
    """Returns whose turn it is by ply parity (every action, including pass, alternates)."""
    return 1 if ply(state) % 2 == 0 else 2


def pawn(state: State, player: int) -> str:
    """Returns the square of a player's pawn."""
    return state.pawns[player - 1]


def hand(state: State, player: int) -> int:
    """Returns how many blocking pieces a player still holds."""
    return state.hands[player - 1]


def blocker_owner(state: State, square: str) -> int | None:
    """Returns the owner of the blocking piece on a square, or None."""
    for where, owner in state.blockers:
        if where == square:
            return owner
    return None


def actions_taken(state: State, player: int) -> int:
    """Returns how many actions (passes included) a player has taken: turns strictly alternate."""
    n = ply(state)
    return (n + 1) // 2 if player == 1 else n // 2


def neighbours(square: str) -> list[str]:
    """Returns the orthogonal neighbours of a square on the 9x9 board."""
    f, r = FILES.index(square[0]), int(square[1:])
    out = []
    for df, dr in ((1, 0), (-1, 0), (0, 1), (0, -1)):
        nf, nr = f + df, r + dr
        if 0 <= nf < SIZE and 1 <= nr <= SIZE:
            out.append(f"{FILES[nf]}{nr}")
    return out


def passable(state: State, player: int, square: str) -> bool:
    """Tells whether a square is empty or holds the player's own blocking piece (pawns ignored)."""
    owner = blocker_owner(state, square)
    return owner is None or owner == player


def enclosure(state: State, player: int) -> set[str]:
    """Returns every square reachable from the pawn over passable squares (BFS, pawns ignored)."""
    start = pawn(state, player)
    seen = {start}
    frontier = [start]
    while frontier:
        square = frontier.pop()
        for nxt in neighbours(square):
            if nxt not in seen and passable(state, player, nxt):
                seen.add(nxt)
                frontier.append(nxt)
    return seen


def on_goal(state: State, player: int) -> bool:
    """Tells whether a player's pawn stands on its goal rank."""
    return int(pawn(state, player)[1:]) == GOAL_RANK[player]


def trapped(state: State, player: int) -> bool:
    """Tells whether a player can no longer reach its goal rank (a pawn on goal is not trapped)."""
    if on_goal(state, player):
        return False
    return not any(int(sq[1:]) == GOAL_RANK[player] for sq in enclosure(state, player))


def outcome(state: State) -> dict[str, Any] | None:
    """Returns the end of the game in the state, checked in RULES.md order, or None."""
    if ply(state) == 0:
        return None
    last = 2 if mover(state) == 1 else 1
    for player in (last, 3 - last):
        if on_goal(state, player):
            return {"winner": player, "reason": "goal"}
    t1, t2 = trapped(state, 1), trapped(state, 2)
    if t1 and t2:
        if hand(state, 1) != hand(state, 2):
            return {"winner": 1 if hand(state, 1) > hand(state, 2) else 2, "reason": "trapped"}
        room1 = len(enclosure(state, 1)) - 1
        room2 = len(enclosure(state, 2)) - 1
        if room1 != room2:
            return {"winner": 1 if room1 > room2 else 2, "reason": "trapped"}
        return {"winner": None, "reason": "trapped"}
    if t1 and hand(state, 1) == 0:
        return {"winner": 2, "reason": "trapped"}
    if t2 and hand(state, 2) == 0:
        return {"winner": 1, "reason": "trapped"}
    if actions_taken(state, 1) >= CAP and actions_taken(state, 2) >= CAP:
        return {"winner": None, "reason": "cap"}
    return None


def is_legal_action(state: State, move: str) -> bool:
    """Tells whether a pawn step or a placement (not `pass`) is legal for the player to move."""
    player = mover(state)
    if move.startswith("+"):
        square = move[1:]
        if square not in ALL_SQUARES:
            return False
        if actions_taken(state, player) == 0:  # first turn: pawn move only
            return False
        if hand(state, player) == 0:
            return False
        if square in state.pawns or blocker_owner(state, square) is not None:
            return False
        return True
    source, _, target = move.partition("-")
    if source != pawn(state, player) or target not in neighbours(source):
        return False
    if target == pawn(state, 3 - player):
        return False
    if blocker_owner(state, target) == 3 - player:
        return False
    return True


def candidates(state: State) -> list[str]:
    """Returns every candidate action string for the player to move (before legality)."""
    here = pawn(state, mover(state))
    steps = [f"{here}-{sq}" for sq in ALL_SQUARES]  # brute force: every square as a target
    return steps + [f"+{sq}" for sq in ALL_SQUARES]


def legal(state: State) -> list[str]:
    """Returns the sorted legal moves; `pass` only when nothing else is legal."""
    if outcome(state) is not None:
        return []
    moves = sorted(m for m in candidates(state) if is_legal_action(state, m))
    return moves if moves else ["pass"]


def apply(state: State, move: str) -> State:
    """Returns the state after a (legal) move by the player to move."""
    player = mover(state)
    pawns = list(state.pawns)
    blockers = state.blockers
    hands = list(state.hands)
    if move.startswith("+"):
        blockers = blockers + ((move[1:], player),)
        hands[player - 1] -= 1
    elif move != "pass":
        pawns[player - 1] = move.partition("-")[2]
    return State((pawns[0], pawns[1]), blockers, (hands[0], hands[1]), state.history + (move,))


def to_move(state: State) -> int | None:
    """Returns the player to act, or None once the game is over."""
    return None if outcome(state) is not None else mover(state)


def scores(state: State) -> dict[str, Any]:
    """Returns the pieces each player still holds."""
    return {"1": hand(state, 1), "2": hand(state, 2)}


def counters(state: State) -> dict[str, int]:
    """Returns the actions (passes included) each player has taken."""
    return {"1": actions_taken(state, 1), "2": actions_taken(state, 2)}
