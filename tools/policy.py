"""Plays whole games on purpose: seeded move choices that reach a real ending in a moderate length.

Random play rarely ends (Block Arena runs to its action limit, Blockade never builds five
towers), so whole recorded games use a simple policy. The mover plays a winning move when there
is one; otherwise, with its game's probability (GREED), a move that best improves a small
progress measure of its own; otherwise a random move. Moves the camera can see are preferred to
passes, and Blockade turns hold 1-2 piece moves, as in tools/make_fixtures.py. Positions are read
only through the rules' public API (board, scores, legal, apply, outcome).
"""

from __future__ import annotations

import random
import heapq
import json
from typing import Any, Callable, Iterable

from rules.core import Game, other, parse_square, square_name
from vision.sight import visible_moves

QUIET = {"pass", "end"}
GREED: dict[str, float] = {"block-arena": 0.95, "block-pt": 0.8, "blockade": 0.85, "tuned": 0.0,
                           "block-block": 0.3}
ARENA_WEIGHTS = (4.0, 3.0, 0.25)  # meeple distance, arena_path, arena_spread
STUCK = 99  # the path length of a pawn that cannot reach its goal
STEPS = ((0, 1), (0, -1), (1, 0), (-1, 0))

Rules = Game[Any, Any]
Measure = Callable[[Rules, Any, int], float]
Chooser = Callable[[Any, int, set[str]], str]  # (state, moves this turn, positions so far) -> move


def neighbours(name: str, size: int) -> Iterable[str]:
    """Returns the orthogonal neighbours of a square on a size x size board."""
    file, rank = parse_square(name, size)
    for df, dr in STEPS:
        if 0 <= file + df < size and 0 <= rank + dr < size:
            yield square_name(file + df, rank + dr)


def path_costs(start: str, size: int, cost: Callable[[str, str], float | None]) -> dict[str, float]:
    """Returns the cheapest cost from start to every reachable square by orthogonal steps, where
    the step from one square to the next costs cost(here, there), or None where it may not go."""
    found = {start: 0.0}
    queue = [(0.0, start)]
    while queue:
        spent, here = heapq.heappop(queue)
        if spent > found[here]:
            continue
        for there in neighbours(here, size):
            step = cost(here, there)
            if step is not None and spent + step < found.get(there, STUCK):
                found[there] = spent + step
                heapq.heappush(queue, (spent + step, there))
    return found


def to_goal(start: str, size: int, goal: int, cost: Callable[[str, str], float | None]) -> float:
    """Returns the cheapest cost from start to any square of the goal rank (0-based; STUCK if
    none)."""
    costs = path_costs(start, size, cost)
    return min((value for name, value in costs.items() if parse_square(name, size)[1] == goal),
               default=STUCK)


def goal_rank(player: int, size: int, flipped: bool = False) -> int:
    """Returns a player's 0-based goal rank: the last for player 1 (the first when flipped, as in
    Block)."""
    return 0 if (player == 1) == flipped else size - 1


def find(board: dict[str, Any], kind: str, owner: int) -> str | None:
    """Returns the square holding a piece of that kind and owner, or None."""
    for name, stack in board["cells"].items():
        if any(piece["kind"] == kind and piece.get("owner") == owner for piece in stack):
            return str(name)
    return None


def arena_path(board: dict[str, Any], player: int) -> float:
    """Returns the cost of the player's meeple's best way to its goal rank: 1 for each empty
    square on it (a block must cover it first), 0.5 for each step onto or off an opponent's
    block (it ends a meeple move); the board size before the meeple is placed."""
    size = int(board["size"])
    start = find(board, "meeple", player)
    if start is None:
        return size
    cells = board["cells"]

    def foreign(name: str) -> bool:
        return any(piece["kind"] == "block" and piece["owner"] != player for piece in cells.get(name, []))

    def cost(here: str, there: str) -> float:
        return 0.5 * (foreign(here) + foreign(there)) + (there not in cells)

    return to_goal(start, size, goal_rank(player, size), cost)


def arena_spread(board: dict[str, Any], player: int) -> int:
    """Returns the sum over the player's blocks of the rank distance to its goal plus the file
    distance to its meeple of each block's nearest square (how far the blocks are from where
    the meeple needs them)."""
    size = int(board["size"])
    meeple = find(board, "meeple", player)
    centre = parse_square(meeple, size)[0] if meeple else (size - 1) // 2
    goal = goal_rank(player, size)
    blocks = {frozenset((name, piece.get("other", name))) for name, stack in board["cells"].items()
              for piece in stack if piece["kind"] == "block" and piece["owner"] == player}
    return sum(min(abs(goal - rank) + abs(centre - file)
                   for file, rank in (parse_square(name, size) for name in block))
               for block in blocks)


def arena_progress(game: Rules, state: Any, player: int) -> float:
    """Returns Block Arena progress: the meeple near its goal, its way there cheap (arena_path),
    the player's blocks ahead and beside the meeple (arena_spread)."""
    board = game.board(state)
    meeple = game.scores(state)[str(player)]["meeple"]
    distance = float(board["size"] if meeple is None else meeple)
    near, cheap, spread = ARENA_WEIGHTS
    return -(near * distance + cheap * arena_path(board, player) + spread * arena_spread(board, player))


def pawn_path(board: dict[str, Any], player: int) -> float:
    """Returns the fewest Block pawn steps to the goal rank over empty or own-blocker squares
    (STUCK when trapped)."""
    size = int(board["size"])
    start = find(board, "pawn", player)
    if start is None:
        return STUCK
    cells = board["cells"]

    def cost(here: str, there: str) -> float | None:
        mine = all(piece["kind"] == "pawn" or piece.get("owner") == player for piece in cells.get(there, []))
        return 1.0 if mine else None

    return to_goal(start, size, goal_rank(player, size, flipped=True), cost)


def block_pt_progress(game: Rules, state: Any, player: int) -> float:
    """Returns Block progress: the opponent's pawn path to its goal minus the player's own."""
    board = game.board(state)
    return float(pawn_path(board, other(player)) - pawn_path(board, player))


def tower_stage(stack: list[dict[str, Any]], colour: str) -> int:
    """Returns how far a stack is from a tower of the colour: 3 built (Large, Medium, Small),
    2 a Medium on the Large, 1 a bare Large, 0 otherwise (another piece on it, or no Large)."""
    if not stack or (stack[0]["size"], stack[0]["colour"]) != ("L", colour):
        return 0
    above = [(piece["size"], piece["colour"]) for piece in stack[1:]]
    if above[:2] == [("M", colour), ("S", colour)]:
        return 3
    return {0: 1, 1: 2 if above == [("M", colour)] else 0}.get(len(above), 0)


def blockade_progress(game: Rules, state: Any, player: int) -> float:
    """Returns Blockade progress: tower stages of the player's leading colour, then the other's."""
    cells = game.board(state)["cells"].values()
    stages = sorted(sum(tower_stage(stack, colour) for stack in cells)
                    for colour in game.scores(state)[str(player)])
    return 3.0 * stages[-1] + stages[0]


def score_progress(game: Rules, state: Any, player: int) -> float:
    """Returns the player's lead in points (BLOCK.BLOCK's top view)."""
    scores = game.scores(state)
    return float(scores[str(player)]) - float(scores[str(other(player))])


MEASURES: dict[str, Measure] = {"block-arena": arena_progress, "block-pt": block_pt_progress,
                                "blockade": blockade_progress, "block-block": score_progress}


def mover(game: Rules, state: Any) -> int:
    """Returns the player to act in a game that goes on."""
    player = game.to_move(state)
    assert player is not None, "the game is over"
    return int(player)


def winning(game: Rules, state: Any, moves: list[str], player: int) -> list[str]:
    """Returns the moves that win the game for the player at once."""
    wins = []
    for move in moves:
        outcome = game.outcome(game.apply(state, move))
        if outcome is not None and outcome.winner == player:
            wins.append(move)
    return wins


def position(game: Rules, state: Any) -> str:
    """Returns the position of a state as one text (its board, whoever is to move)."""
    return json.dumps(game.board(state), sort_keys=True)


def best(game: Rules, state: Any, moves: list[str], history: set[str], rng: random.Random) -> tuple[str, float]:
    """Returns a move that raises the mover's progress most (ties broken at random), among those
    that do not bring back a position of the game so far when there are such moves, and its gain."""
    measure, player = MEASURES[game.name], mover(game, state)
    after = {move: game.apply(state, move) for move in moves}
    fresh = [move for move, later in after.items() if position(game, later) not in history] or moves
    values = {move: measure(game, after[move], player) for move in fresh}
    top = max(values.values())
    return rng.choice([move for move, value in values.items() if value == top]), top - measure(game, state, player)


def choose(game: Rules, state: Any, rng: random.Random, in_turn: int, history: set[str]) -> str:
    """Returns the policy's move: a win, else (with the game's GREED) the best progress, else a
    random move the camera can see. `history` holds the positions of the game so far. A Blockade
    turn ends after 2 piece moves, or after 1 when no move gains (or at random when not purposeful)."""
    legal = game.legal(state)
    greedy = rng.random() < GREED[game.name]
    if "end" in legal and in_turn >= (2 if greedy else rng.choice((1, 2))):
        return "end"
    seen = set(visible_moves(game, state))
    active = [move for move in legal if move in seen] or legal
    wins = winning(game, state, active, mover(game, state))
    if wins:
        return rng.choice(wins)
    if not greedy:
        return rng.choice(active)
    move, gain = best(game, state, active, history, rng)
    return "end" if "end" in legal and in_turn >= 1 and gain <= 0 else move


def play(game: Rules, chooser: Chooser, limit: int) -> list[str]:
    """Returns the moves a chooser plays from the start to the game's end (or to `limit` moves),
    counting the piece moves of the current turn (a pass, `end` or roll starts a new one)."""
    state = game.initial_state()
    moves: list[str] = []
    history = {position(game, state)}
    in_turn = 0
    while len(moves) < limit and game.outcome(state) is None:
        move = chooser(state, in_turn, history)
        in_turn = 0 if move in QUIET or move.startswith("roll:") else in_turn + 1
        state = game.apply(state, move)
        history.add(position(game, state))
        moves.append(move)
    return moves


def whole_game(game: Rules, seed: int, limit: int = 400) -> list[str]:
    """Returns a seeded game played by the policy to its end (or to `limit` moves)."""
    rng = random.Random(seed)
    return play(game, lambda state, in_turn, history: choose(game, state, rng, in_turn, history), limit)
