"""Oracle for Blockade: a plain, brute-force reading of RULES.md section 3, for tests only."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, replace
from typing import Any

FILES = "abcde"
RANKS = "12345"
SQUARES: tuple[str, ...] = tuple(f + r for f in FILES for r in RANKS)

SIZE_RANK = {"S": 1, "M": 2, "L": 3}
CAP_TURNS = 100

# Player -> its two colours, in notation order (first letter, second letter).
COLOURS: dict[int, tuple[str, str]] = {1: ("blue", "green"), 2: ("red", "yellow")}
LETTER = {"blue": "b", "green": "g", "red": "r", "yellow": "y"}
OWNER = {"blue": 1, "green": 1, "red": 2, "yellow": 2}

Piece = tuple[str, str]  # (colour, size)
Stack = tuple[Piece, ...]  # bottom to top

# The set-up diagram of RULES.md, top row printed first (rank 5).
LAYOUT = [
    "C B B B C",  # rank 5
    "R R R B Y",  # rank 4
    "R G C B Y",  # rank 3
    "R G Y Y Y",  # rank 2
    "C G G G C",  # rank 1
]
LAYOUT_COLOUR = {"C": "clear", "R": "red", "Y": "yellow", "G": "green", "B": "blue"}
CORNER_MEDIUMS = {"a5": "green", "e5": "red", "a1": "yellow", "e1": "blue"}


@dataclass(frozen=True)
class State:
    """A Blockade position: stacks, tower bookkeeping, black supply and turn phase."""

    board: dict[str, Stack]
    tower: dict[str, str]  # square -> colour of the completed (locked) tower on it
    capped: frozenset[str]  # tower squares that got a black cap
    supply: tuple[str, ...]  # black sizes still off the board
    player: int
    rolled: bool  # True once the player to move has rolled this turn
    allocations: frozenset[tuple[int, int]]
    turns: tuple[int, int]  # completed turns of player 1 and player 2
    ply: int


def initial() -> State:
    """Returns the set-up position, cool (player 1) to roll."""
    board: dict[str, Stack] = {}
    for row, line in enumerate(LAYOUT):
        rank = str(5 - row)
        for file, code in zip(FILES, line.split()):
            colour = LAYOUT_COLOUR[code]
            stack: list[Piece] = [(colour, "L")]
            if colour != "clear":
                stack.append((colour, "S"))
            board[file + rank] = tuple(stack)
    for square, colour in CORNER_MEDIUMS.items():
        assert board[square] == (("clear", "L"),)
        board[square] = board[square] + ((colour, "M"),) * 5
    return State(
        board=board,
        tower={},
        capped=frozenset(),
        supply=("L",) * 5 + ("M",) * 5 + ("S",) * 5,
        player=1,
        rolled=False,
        allocations=frozenset(),
        turns=(0, 0),
        ply=0,
    )


def neighbours(square: str) -> list[str]:
    """Returns the king-step neighbours of a square."""
    f, r = FILES.index(square[0]), RANKS.index(square[1])
    out = []
    for df in (-1, 0, 1):
        for dr in (-1, 0, 1):
            if (df or dr) and 0 <= f + df < 5 and 0 <= r + dr < 5:
                out.append(FILES[f + df] + RANKS[r + dr])
    return out


def locked_count(state: State, square: str) -> int:
    """Returns how many pieces at the bottom of a square are locked (0, 3 or 4)."""
    if square not in state.tower:
        return 0
    return 4 if square in state.capped else 3


def is_blockade_against(state: State, square: str, player: int) -> bool:
    """Tells whether a square holds a blockade of the opponent of player."""
    colour = state.tower.get(square)
    return colour is not None and square in state.capped and OWNER[colour] != player


def path_cost(state: State, src: str, dst: str, player: int) -> int | None:
    """Returns the fewest king steps src->dst with no opponent blockade in between, or None."""
    dist = {src: 0}
    queue = deque([src])
    while queue:
        here = queue.popleft()
        if here != src and is_blockade_against(state, here, player):
            continue  # may be arrived at, never passed through
        for nxt in neighbours(here):
            if nxt not in dist:
                dist[nxt] = dist[here] + 1
                queue.append(nxt)
    return dist.get(dst)


def can_land(state: State, piece: Piece, dst: str) -> bool:
    """Tells whether a piece may land on the top of dst (the landing table, literally)."""
    stack = state.board[dst]
    if not stack:
        return False
    colour, size = piece
    top_colour, top_size = stack[-1]
    if top_colour == "clear":
        return True
    if top_colour == colour:
        return SIZE_RANK[top_size] >= SIZE_RANK[size]
    if top_colour == "black":
        directly_caps_own_tower = (
            len(stack) == 4
            and stack[:3] == ((colour, "L"), (colour, "M"), (colour, "S"))
            and state.tower.get(dst) == colour
        )
        return directly_caps_own_tower and SIZE_RANK[top_size] > SIZE_RANK[size]
    return False


def affordable(state: State, colour: str, cost: int) -> bool:
    """Tells whether some open allocation has at least cost points on colour."""
    index = COLOURS[state.player].index(colour)
    return any(points[index] >= cost for points in state.allocations)


def piece_move_ok(state: State, src: str, dst: str) -> bool:
    """Tells whether the piece move src-dst is legal (brute-force check of every rule)."""
    if src == dst or not state.rolled:
        return False
    stack = state.board[src]
    if len(stack) <= locked_count(state, src):
        return False
    colour, size = stack[-1]
    if colour not in COLOURS[state.player] or size == "L":
        return False
    if not can_land(state, stack[-1], dst):
        return False
    cost = path_cost(state, src, dst, state.player)
    return cost is not None and affordable(state, colour, cost)


def all_rolls(player: int) -> list[str]:
    """Returns the 36 roll strings of a player."""
    first, second = (LETTER[c] for c in COLOURS[player])
    return [f"roll:{first}{x}{second}{y}" for x in range(1, 7) for y in range(1, 7)]


def legal(state: State) -> list[str]:
    """Returns every legal move string, sorted."""
    if outcome(state) is not None:
        return []
    if not state.rolled:
        return sorted(all_rolls(state.player))
    moves = ["end"]
    for src in SQUARES:
        for dst in SQUARES:
            if piece_move_ok(state, src, dst):
                moves.append(f"{src}-{dst}")
    return sorted(moves)


def tower_count(state: State, colour: str) -> int:
    """Returns how many towers of a colour have been completed."""
    return sum(1 for c in state.tower.values() if c == colour)


def apply(state: State, move: str) -> State:
    """Returns the state after a legal move."""
    if move.startswith("roll:"):
        x, y = int(move[6]), int(move[8])
        allocations = {(x, y)}
        if x <= 3 and y <= 3:
            allocations |= {(x + y, 0), (0, x + y)}
        return replace(state, rolled=True, allocations=frozenset(allocations), ply=state.ply + 1)
    if move == "end":
        turns = list(state.turns)
        turns[state.player - 1] += 1
        return replace(
            state,
            player=3 - state.player,
            rolled=False,
            allocations=frozenset(),
            turns=(turns[0], turns[1]),
            ply=state.ply + 1,
        )
    src, dst = move.split("-")
    board = dict(state.board)
    piece = board[src][-1]
    colour, size = piece
    cost = path_cost(state, src, dst, state.player)
    assert cost is not None
    index = COLOURS[state.player].index(colour)
    allocations = set()
    for points in state.allocations:
        if points[index] >= cost:
            left = list(points)
            left[index] -= cost
            allocations.add((left[0], left[1]))
    board[src] = board[src][:-1]
    board[dst] = board[dst] + (piece,)
    tower = dict(state.tower)
    capped = set(state.capped)
    supply = list(state.supply)
    if size == "S" and board[dst] == ((colour, "L"), (colour, "M"), (colour, "S")):
        tower[dst] = colour
        for black in ("L", "M", "S"):
            if black in supply:
                supply.remove(black)
                board[dst] = board[dst] + (("black", black),)
                capped.add(dst)
                break
    return replace(
        state,
        board=board,
        tower=tower,
        capped=frozenset(capped),
        supply=tuple(supply),
        allocations=frozenset(allocations),
        ply=state.ply + 1,
    )


def outcome(state: State) -> dict[str, Any] | None:
    """Returns {"winner", "reason"} once the game is over, else None."""
    for colour, owner in OWNER.items():
        if tower_count(state, colour) >= 5:
            return {"winner": owner, "reason": "towers"}
    if state.turns[0] >= CAP_TURNS and state.turns[1] >= CAP_TURNS:
        return {"winner": None, "reason": "cap"}
    return None


def scores(state: State) -> dict[str, Any]:
    """Returns the towers per colour, grouped by owner."""
    return {
        "1": {"blue": tower_count(state, "blue"), "green": tower_count(state, "green")},
        "2": {"red": tower_count(state, "red"), "yellow": tower_count(state, "yellow")},
    }


def counters(state: State) -> dict[str, int]:
    """Returns each player's completed turns."""
    return {"1": state.turns[0], "2": state.turns[1]}


def to_move(state: State) -> int | None:
    """Returns the player to act, or None once the game is over."""
    return None if outcome(state) is not None else state.player
