"""Independent oracle for Block Arena, written straight from RULES.md section 1 (tests only).

Deliberately simple and brute force: every candidate move string is built from the whole board
and kept only if the rule, written as directly as possible, allows it. Not fast, not clever.
Squares are 0-based (file, rank) pairs; (0, 0) is a1. Player 1 (light) has base rank 1 and goal
rank N; player 2 (dark) has base rank N and goal rank 1.
"""

from __future__ import annotations

from typing import Any, NamedTuple

Sq = tuple[int, int]
Block = tuple[int, tuple[Sq, ...]]  # (owner, its squares sorted by file then rank)

SIZES: dict[str, int] = {"9x9": 9, "7x7": 7}
LIMITS: dict[int, int] = {9: 40, 7: 30}
DIRECTIONS: tuple[Sq, ...] = ((1, 0), (-1, 0), (0, 1), (0, -1))
SETUP_BLOCK_PLIES = 8  # plies 1..8 place blocks, 9 and 10 place meeples
SETUP_PLIES = 10


class State(NamedTuple):
    """A Block Arena position: board size, plies so far, blocks, meeples, action counters."""

    size: int
    ply: int
    blocks: tuple[Block, ...]  # kept sorted so equal positions compare equal
    meeples: tuple[Sq | None, Sq | None]  # player 1's, player 2's
    counters: tuple[int, int]


def initial(variant: str = "9x9") -> State:
    """Returns the empty board before the first set-up placement."""
    return State(SIZES[variant], 0, (), (None, None), (0, 0))


# -- small helpers ----------------------------------------------------------------------------


def name(sq: Sq) -> str:
    """Returns the name of a 0-based square, e.g. (2, 0) -> 'c1'."""
    return f"{chr(ord('a') + sq[0])}{sq[1] + 1}"


def parse_sq(text: str) -> Sq:
    """Returns the 0-based square of a square name."""
    return (ord(text[0]) - ord("a"), int(text[1:]) - 1)


def split_squares(text: str) -> tuple[Sq, ...]:
    """Returns the squares of a run of square names such as 'c3c4'."""
    out: list[Sq] = []
    i = 0
    while i < len(text):
        j = i + 1
        while j < len(text) and text[j].isdigit():
            j += 1
        out.append(parse_sq(text[i:j]))
        i = j
    return tuple(out)


def names(squares: tuple[Sq, ...]) -> str:
    """Returns the canonical text of a block's squares (sorted by file, then rank)."""
    return "".join(name(s) for s in sorted(squares))


def add(a: Sq, b: Sq) -> Sq:
    """Returns the vector sum of two squares."""
    return (a[0] + b[0], a[1] + b[1])


def on_board(state: State, sq: Sq) -> bool:
    """Tells whether a square is on the board."""
    return 0 <= sq[0] < state.size and 0 <= sq[1] < state.size


def all_squares(state: State) -> list[Sq]:
    """Returns every square of the board."""
    return [(f, r) for f in range(state.size) for r in range(state.size)]


def adjacent(a: Sq, b: Sq) -> bool:
    """Tells whether two squares are orthogonal neighbours."""
    return abs(a[0] - b[0]) + abs(a[1] - b[1]) == 1


def base_rank(state: State, player: int) -> int:
    """Returns a player's 0-based base rank."""
    return 0 if player == 1 else state.size - 1


def goal_rank(state: State, player: int) -> int:
    """Returns a player's 0-based goal rank."""
    return state.size - 1 if player == 1 else 0


def limit(state: State) -> int:
    """Returns the action limit per player (40 on 9x9, 30 on 7x7)."""
    return LIMITS[state.size]


def max_plies(variant: str = "9x9") -> int:
    """Returns the longest possible game: set-up plus both players' full action limits."""
    return SETUP_PLIES + 2 * LIMITS[SIZES[variant]]


def owner_at(state: State, sq: Sq) -> int | None:
    """Returns the owner of the block covering a square (its colour), or None if bare."""
    for owner, squares in state.blocks:
        if sq in squares:
            return owner
    return None


def block_at(state: State, sq: Sq) -> Block | None:
    """Returns the block covering a square, or None."""
    for block in state.blocks:
        if sq in block[1]:
            return block
    return None


def meeple_distance(state: State, player: int) -> int | None:
    """Returns the rank distance of a player's meeple to its goal rank, or None if unplaced."""
    sq = state.meeples[player - 1]
    return None if sq is None else abs(goal_rank(state, player) - sq[1])


def block_sum(state: State, player: int) -> int:
    """Returns the sum over a player's blocks of the rank distance of its nearest square to goal."""
    goal = goal_rank(state, player)
    return sum(
        min(abs(goal - s[1]) for s in squares)
        for owner, squares in state.blocks
        if owner == player
    )


# -- the game functions -----------------------------------------------------------------------


def outcome(state: State) -> dict[str, Any] | None:
    """Returns {'winner', 'reason'} once the game is over, else None."""
    for player in (1, 2):
        sq = state.meeples[player - 1]
        if sq is not None and sq[1] == goal_rank(state, player):
            return {"winner": player, "reason": "goal"}
    if state.counters[0] >= limit(state) and state.counters[1] >= limit(state):
        d1, d2 = meeple_distance(state, 1), meeple_distance(state, 2)
        assert d1 is not None and d2 is not None
        if d1 != d2:
            return {"winner": 1 if d1 < d2 else 2, "reason": "move-limit"}
        s1, s2 = block_sum(state, 1), block_sum(state, 2)
        if s1 != s2:
            return {"winner": 1 if s1 < s2 else 2, "reason": "move-limit"}
        return {"winner": 2, "reason": "move-limit"}
    return None


def to_move(state: State) -> int | None:
    """Returns who acts next (strict alternation from player 1), or None when the game is over."""
    if outcome(state) is not None:
        return None
    return 1 if state.ply % 2 == 0 else 2


def scores(state: State) -> dict[str, Any]:
    """Returns each player's meeple distance to goal (None if unplaced) and block sum."""
    return {
        str(p): {"meeple": meeple_distance(state, p), "blocks": block_sum(state, p)}
        for p in (1, 2)
    }


def counters(state: State) -> dict[str, int]:
    """Returns each player's actions after set-up."""
    return {"1": state.counters[0], "2": state.counters[1]}


def candidate_placements(state: State) -> list[tuple[Sq, ...]]:
    """Returns every way a block could lie on the board at all (upright or lying either way)."""
    out: list[tuple[Sq, ...]] = []
    for sq in all_squares(state):
        out.append((sq,))
        for d in ((1, 0), (0, 1)):
            other = add(sq, d)
            if on_board(state, other):
                out.append((sq, other))
    return out


def is_slide(old: tuple[Sq, ...], new: tuple[Sq, ...]) -> bool:
    """Tells whether new is old shifted by one square orthogonally (same orientation)."""
    if len(old) != len(new):
        return False
    for d in DIRECTIONS:
        if sorted(add(s, d) for s in old) == sorted(new):
            return True
    return False


def is_flip(old: tuple[Sq, ...], new: tuple[Sq, ...]) -> bool:
    """Tells whether new is a flip of old: upright X -> X+d, X+2d; lying X, X+d -> X+2d or X-d."""
    if len(old) == 1:
        x = old[0]
        return any(
            sorted(new) == sorted([add(x, d), add(add(x, d), d)]) for d in DIRECTIONS
        )
    if len(new) != 1:
        return False
    for x in old:
        for d in DIRECTIONS:
            if add(x, d) in old:  # the long axis runs from x along d
                along = add(add(x, d), d)
                against = (x[0] - d[0], x[1] - d[1])
                if new[0] in (along, against):
                    return True
    return False


def free_for(state: State, moving: Block | None, squares: tuple[Sq, ...]) -> bool:
    """Tells whether squares are all on the board and free of blocks other than `moving`."""
    for sq in squares:
        if not on_board(state, sq):
            return False
        here = block_at(state, sq)
        if here is not None and here != moving:
            return False
    return True


def meeple_destinations(state: State, player: int) -> set[Sq]:
    """Returns every square the player's meeple can end a move on."""
    start = state.meeples[player - 1]
    assert start is not None
    colour = owner_at(state, start)
    covered = {s for s in all_squares(state) if owner_at(state, s) is not None}
    if colour != player:
        return {s for s in covered if adjacent(start, s)}
    own = {s for s in covered if owner_at(state, s) == player}
    reached = {start}
    frontier = [start]
    while frontier:
        here = frontier.pop()
        for s in own:
            if adjacent(here, s) and s not in reached:
                reached.add(s)
                frontier.append(s)
    opponent_steps = {s for s in covered - own if any(adjacent(r, s) for r in reached)}
    return (reached | opponent_steps) - {start}


def legal(state: State) -> list[str]:
    """Returns every legal move as canonical text, sorted by Python string order."""
    if outcome(state) is not None:
        return []
    player = to_move(state)
    assert player is not None
    moves: set[str] = set()
    if state.ply < SETUP_BLOCK_PLIES:
        base = base_rank(state, player)
        for placement in candidate_placements(state):
            if all(s[1] == base for s in placement) and free_for(state, None, placement):
                moves.add("+" + names(placement))
    elif state.ply < SETUP_PLIES:
        for sq in all_squares(state):
            if owner_at(state, sq) == player:
                moves.add("M+" + name(sq))
    else:
        moves.add("pass")
        start = state.meeples[player - 1]
        assert start is not None
        for dest in meeple_destinations(state, player):
            moves.add(f"M{name(start)}-{name(dest)}")
        mine, theirs = state.meeples[player - 1], state.meeples[2 - player]
        for block in state.blocks:
            owner, squares = block
            if owner != player or mine in squares:
                continue
            carries_opponent = theirs in squares
            for target in candidate_placements(state):
                if not free_for(state, block, target):
                    continue
                if is_slide(squares, target) or (
                    not carries_opponent and is_flip(squares, target)
                ):
                    moves.add(f"{names(squares)}-{names(target)}")
    return sorted(moves)


def apply(state: State, move: str) -> State:
    """Returns the state after a move (assumed legal)."""
    player = to_move(state)
    assert player is not None
    ply = state.ply + 1
    if move.startswith("M+"):
        meeples = list(state.meeples)
        meeples[player - 1] = parse_sq(move[2:])
        return state._replace(ply=ply, meeples=(meeples[0], meeples[1]))
    if move.startswith("+"):
        squares = tuple(sorted(split_squares(move[1:])))
        placed = tuple(sorted(state.blocks + ((player, squares),)))
        return state._replace(ply=ply, blocks=placed)
    c = list(state.counters)
    c[player - 1] += 1
    counted = state._replace(ply=ply, counters=(c[0], c[1]))
    if move == "pass":
        return counted
    if move.startswith("M"):
        meeples = list(state.meeples)
        meeples[player - 1] = parse_sq(move[1:].split("-")[1])
        return counted._replace(meeples=(meeples[0], meeples[1]))
    old_text, new_text = move.split("-")
    old = tuple(sorted(split_squares(old_text)))
    new = tuple(sorted(split_squares(new_text)))
    blocks = [b for b in state.blocks if b != (player, old)]
    assert len(blocks) == len(state.blocks) - 1
    blocks.append((player, new))
    meeples = list(state.meeples)
    for i, sq in enumerate(meeples):
        if sq is not None and sq in old:  # only the opponent's meeple can ride (slides only)
            assert len(old) == len(new) and i != player - 1
            shift = (new[0][0] - old[0][0], new[0][1] - old[0][1])
            meeples[i] = add(sq, shift)
    return counted._replace(blocks=tuple(sorted(blocks)), meeples=(meeples[0], meeples[1]))


def play_all(moves: list[str], variant: str = "9x9", check: bool = True) -> State:
    """Returns the state after moves from the start; with check, asserts each is legal."""
    state = initial(variant)
    for move in moves:
        if check:
            assert move in legal(state), f"{move!r} is not legal at ply {state.ply + 1}"
        state = apply(state, move)
    return state
