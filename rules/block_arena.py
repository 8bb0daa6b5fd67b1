"""Block Arena (Marco Boschiero): blocks that slide and flip, meeples that cross the board."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

from rules.block_arena_board import Geometry, Target, geometry, meeple_reach
from rules.block_arena_moves import (
    PASS,
    ArenaMove,
    Block,
    BlockMove,
    MeepleMove,
    PlaceBlock,
    PlaceMeeple,
    Square,
    block_name,
    parse_move,
)
from rules.core import Game, Outcome, square_name

SIZES: dict[str, int] = {"9x9": 9, "7x7": 7}
LIMITS: dict[int, int] = {9: 40, 7: 30}
BLOCK_PLIES = 8  # plies 1..8 place the blocks
SETUP_PLIES = 10  # plies 9 and 10 place the meeples

Colours = dict[Square, int]
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class ArenaState:
    """A Block Arena position: each player's blocks (sorted), both meeples, moves so far."""

    blocks: tuple[tuple[Block, ...], tuple[Block, ...]] = ((), ())
    meeples: tuple[Square | None, Square | None] = (None, None)
    ply: int = 0

    def mover(self) -> int:
        """Returns the player whose turn the ply count gives (1 on even plies)."""
        return self.ply % 2 + 1

    def colours(self) -> Colours:
        """Returns the owner of the block covering each covered square."""
        return {s: p for p in (1, 2) for block in self.blocks[p - 1] for s in block}

    def riders(self, block: Block) -> set[int]:
        """Returns the players whose meeples stand on a block."""
        return {p for p in (1, 2) if self.meeples[p - 1] in block}


def _with(pair: tuple[T, T], player: int, value: T) -> tuple[T, T]:
    """Returns a per-player pair with the player's entry replaced."""
    return (value, pair[1]) if player == 1 else (pair[0], value)


def _replace_block(blocks: tuple[Block, ...], old: Block | None, new: Block) -> tuple[Block, ...]:
    """Returns a sorted block list with old (if any) taken away and new added."""
    return tuple(sorted([b for b in blocks if b != old] + [new]))


def _blocked(block: Block, target: Target, colours: Colours) -> list[Square]:
    """Returns the target squares covered by blocks other than the moving one."""
    return [s for s in target.squares if s in colours and s not in block]


_COLOUR_WORDS: dict[int, str] = {1: "light", 2: "dark"}


def _block_piece(player: int, block: Block, square: Square) -> dict[str, Any]:
    """Returns what one square of a player's block holds, in the shared board format."""
    piece: dict[str, Any] = {"kind": "block", "owner": player, "colour": _COLOUR_WORDS[player]}
    piece["orientation"] = "upright" if len(block) == 1 else "lying"
    piece.update({"other": square_name(*s) for s in block if s != square})
    return piece


class BlockArena(Game[ArenaState, ArenaMove]):
    """The rules of Block Arena on a 9x9 (limit 40) or 7x7 (limit 30) board."""

    name: ClassVar[str] = "block-arena"
    variants: ClassVar[tuple[str, ...]] = ("9x9", "7x7")
    house_rules: ClassVar[tuple[str, ...]] = (
        "Set-up cannot be passed; after it, pass is always legal.",
        "A meeple on an opponent's block takes its one step onto an adjacent block of either "
        "colour; from its own colour it may step onto an opponent's block from any square it "
        "reaches, its start included.",
        "A slide or flip only needs its destination squares on the board and free; the squares "
        "a flipping block tips over are not checked.",
        "A slid block carries the opponent's meeple on the same part of the block.",
        "The move limit ends the game after player 2's last action; a goal reached on that "
        "action wins over the limit.",
    )
    scores_doc: ClassVar[str] = (
        'Per player ("1", "2"): "meeple" is its meeple\'s rank distance to its goal rank '
        '(null before it is placed); "blocks" is the sum over its blocks on the board of the '
        "rank distance of each block's square nearest that goal."
    )
    counters_doc: ClassVar[str] = (
        "Actions each player has taken after set-up (meeple moves, block moves, passes); "
        "the game ends when both reach the limit (40 on 9x9, 30 on 7x7)."
    )

    def __init__(self, variant: str | None = None) -> None:
        super().__init__(variant)
        self.size = SIZES[self.variant or self.variants[0]]
        self.limit = LIMITS[self.size]
        self.geo: Geometry = geometry(self.size)

    # -- bookkeeping ---------------------------------------------------------------------

    def initial_state(self) -> ArenaState:
        """Returns the empty board before the first set-up placement."""
        return ArenaState()

    def parse(self, text: str) -> ArenaMove:
        """Returns the typed move for canonical text on this board, or raises InvalidMoveError."""
        return parse_move(text, self.size)

    def to_move(self, state: ArenaState) -> int | None:
        """Returns the player to act (strict alternation from player 1), or None when over."""
        return None if self.outcome(state) is not None else state.mover()

    def ply(self, state: ArenaState) -> int:
        """Returns how many moves have been applied, set-up included."""
        return state.ply

    def max_plies(self) -> int:
        """Returns the set-up plies plus both players' full action limits."""
        return SETUP_PLIES + 2 * self.limit

    def counters(self, state: ArenaState) -> dict[str, int]:
        """Returns each player's actions after set-up (player 1 acts first)."""
        actions = max(0, state.ply - SETUP_PLIES)
        return {"1": (actions + 1) // 2, "2": actions // 2}

    # -- distances and the end -----------------------------------------------------------

    def base_rank(self, player: int) -> int:
        """Returns a player's 0-based base rank."""
        return 0 if player == 1 else self.size - 1

    def goal_rank(self, player: int) -> int:
        """Returns a player's 0-based goal rank (the opponent's base rank)."""
        return self.base_rank(3 - player)

    def meeple_distance(self, state: ArenaState, player: int) -> int | None:
        """Returns the rank distance of a player's meeple to its goal, or None if unplaced."""
        square = state.meeples[player - 1]
        return None if square is None else abs(self.goal_rank(player) - square[1])

    def block_sum(self, state: ArenaState, player: int) -> int:
        """Returns the sum over a player's blocks of its nearest square's distance to goal."""
        goal = self.goal_rank(player)
        return sum(min(abs(goal - s[1]) for s in b) for b in state.blocks[player - 1])

    def scores(self, state: ArenaState) -> dict[str, Any]:
        """Returns each player's meeple distance and block sum (see scores_doc)."""
        return {
            str(p): {"meeple": self.meeple_distance(state, p), "blocks": self.block_sum(state, p)}
            for p in (1, 2)
        }

    def outcome(self, state: ArenaState) -> Outcome | None:
        """Returns a goal win, else the move-limit result once both limits are reached."""
        for player in (1, 2):
            square = state.meeples[player - 1]
            if square is not None and square[1] == self.goal_rank(player):
                return Outcome(player, "goal")
        if state.ply >= self.max_plies():
            return Outcome(self.limit_winner(state), "move-limit")
        return None

    def limit_winner(self, state: ArenaState) -> int:
        """Returns who wins at the move limit: nearer meeple, then lower block sum, then 2."""
        for measure in (self.meeple_distance, self.block_sum):
            light, dark = measure(state, 1), measure(state, 2)
            if light is not None and dark is not None and light != dark:
                return 1 if light < dark else 2
        return 2

    # -- the position --------------------------------------------------------------------

    def board(self, state: ArenaState) -> dict[str, Any]:
        """Returns the position: each block in its squares (lying: both), meeples on top."""
        cells: dict[str, list[dict[str, Any]]] = {}
        for player in (1, 2):
            for block in state.blocks[player - 1]:
                for square in block:
                    cells[square_name(*square)] = [_block_piece(player, block, square)]
        for player in (1, 2):
            meeple = state.meeples[player - 1]
            if meeple is not None:
                colour = _COLOUR_WORDS[player]
                meeple_piece = {"kind": "meeple", "owner": player, "colour": colour}
                cells[square_name(*meeple)].append(meeple_piece)
        hand = {str(p): BLOCK_PLIES // 2 - len(state.blocks[p - 1]) for p in (1, 2)}
        placed = {str(p): state.meeples[p - 1] is not None for p in (1, 2)}
        return {"size": self.size, "cells": cells, "off": {"hand": hand, "meeples_placed": placed}}

    # -- generation ----------------------------------------------------------------------

    def generate(self, state: ArenaState) -> list[ArenaMove]:
        """Returns every legal move: set-up placements, or pass, meeple and block moves."""
        if self.outcome(state) is not None:
            return []
        player = state.mover()
        if state.ply < BLOCK_PLIES:
            return [*self._block_placements(state, player)]
        if state.ply < SETUP_PLIES:
            return [PlaceMeeple(s) for b in state.blocks[player - 1] for s in b]
        colours = state.colours()
        moves: list[ArenaMove] = [PASS]
        moves.extend(self._meeple_moves(state, player, colours))
        moves.extend(self._block_moves(state, player, colours))
        return moves

    def _block_placements(self, state: ArenaState, player: int) -> list[PlaceBlock]:
        """Returns the upright and lying placements on the free squares of the base rank."""
        rank = self.base_rank(player)
        colours = state.colours()
        free = [f for f in range(self.size) if (f, rank) not in colours]
        lying = [PlaceBlock(((f, rank), (f + 1, rank))) for f in free if f + 1 in free]
        return [PlaceBlock(((f, rank),)) for f in free] + lying

    def _meeple_moves(self, state: ArenaState, player: int, colours: Colours) -> list[MeepleMove]:
        """Returns one meeple move per square the player's meeple can reach."""
        start = state.meeples[player - 1]
        if start is None:
            return []
        return [MeepleMove(start, end) for end in meeple_reach(start, colours, player, self.geo)]

    def _block_moves(self, state: ArenaState, player: int, colours: Colours) -> list[BlockMove]:
        """Returns the slides and flips of the player's blocks that rules and room allow."""
        moves: list[BlockMove] = []
        for block in state.blocks[player - 1]:
            riders = state.riders(block)
            if player in riders:
                continue
            for target in self.geo.targets[block]:
                if (target.slide is not None or not riders) and not _blocked(
                    block, target, colours
                ):
                    moves.append(BlockMove(block, target.squares))
        return moves

    def _target(self, move: BlockMove) -> Target | None:
        """Returns the slide or flip that takes a block move's start to its end, if any."""
        for target in self.geo.targets.get(move.start, ()):
            if target.squares == move.end:
                return target
        return None

    # -- play ----------------------------------------------------------------------------

    def play(self, state: ArenaState, move: ArenaMove) -> ArenaState:
        """Returns the state after a legal move; the ply (and so the counters) advances."""
        player = state.mover()
        ply = state.ply + 1
        blocks, meeples = state.blocks, state.meeples
        if isinstance(move, PlaceBlock):
            placed = _replace_block(blocks[player - 1], None, move.squares)
            blocks = _with(blocks, player, placed)
        elif isinstance(move, PlaceMeeple):
            meeples = _with(meeples, player, move.square)
        elif isinstance(move, MeepleMove):
            meeples = _with(meeples, player, move.end)
        elif isinstance(move, BlockMove):
            moved = _replace_block(blocks[player - 1], move.start, move.end)
            blocks = _with(blocks, player, moved)
            meeples = self._carry(meeples, move)
        return ArenaState(blocks, meeples, ply)

    def _carry(
        self, meeples: tuple[Square | None, Square | None], move: BlockMove
    ) -> tuple[Square | None, Square | None]:
        """Returns the meeples after a slide: one riding the block shifts with it."""
        target = self._target(move)
        shift = None if target is None else target.slide
        if shift is None:
            return meeples
        carried = [
            (m[0] + shift[0], m[1] + shift[1]) if m is not None and m in move.start else m
            for m in meeples
        ]
        return (carried[0], carried[1])

    # -- explanations --------------------------------------------------------------------

    def explain(self, state: ArenaState, move: ArenaMove) -> str:
        """Returns the rule an illegal move breaks, naming the squares involved."""
        if self.outcome(state) is not None:
            return "the game is over"
        player = state.mover()
        reason = self._phase_reason(state, move, player)
        if reason is None:
            reason = self._move_reason(state, move, player)
        return reason or f"{move} is not a legal move here"

    def _phase_reason(self, state: ArenaState, move: ArenaMove, player: int) -> str | None:
        """Returns why a move is of the wrong kind for the current phase, or None."""
        if state.ply < BLOCK_PLIES and not isinstance(move, PlaceBlock):
            return f"set-up: player {player} must place a block on its base rank"
        if BLOCK_PLIES <= state.ply < SETUP_PLIES and not isinstance(move, PlaceMeeple):
            return f"set-up: player {player} must place its meeple on one of its blocks"
        if state.ply >= SETUP_PLIES and isinstance(move, (PlaceBlock, PlaceMeeple)):
            return "set-up is over: nothing more is placed"
        return None

    def _move_reason(self, state: ArenaState, move: ArenaMove, player: int) -> str | None:
        """Returns why a move of the right kind breaks a rule, or None."""
        if isinstance(move, PlaceBlock):
            return self._placement_reason(state, move, player)
        if isinstance(move, PlaceMeeple):
            return self._meeple_placement_reason(state, move, player)
        if isinstance(move, MeepleMove):
            return self._meeple_move_reason(state, move, player)
        if isinstance(move, BlockMove):
            return self._block_move_reason(state, move, player)
        return None

    def _placement_reason(self, state: ArenaState, move: PlaceBlock, player: int) -> str | None:
        """Returns why a set-up block cannot go on its squares, or None."""
        rank = self.base_rank(player)
        for square in move.squares:
            if square[1] != rank:
                return f"{square_name(*square)} is not on your base rank (rank {rank + 1})"
        colours = state.colours()
        taken = [s for s in move.squares if s in colours]
        return f"{square_name(*taken[0])} is occupied" if taken else None

    @staticmethod
    def _meeple_placement_reason(state: ArenaState, move: PlaceMeeple, player: int) -> str | None:
        """Returns why a meeple cannot be placed on a square, or None."""
        if state.colours().get(move.square) == player:
            return None
        return f"{square_name(*move.square)} is not covered by one of your blocks"

    def _meeple_move_reason(self, state: ArenaState, move: MeepleMove, player: int) -> str | None:
        """Returns why the player's meeple cannot make a meeple move, or None."""
        start, end = square_name(*move.start), square_name(*move.end)
        colours = state.colours()
        if move.start != state.meeples[player - 1]:
            return f"your meeple is not on {start}"
        if move.end == move.start:
            return "a meeple move must end on another square"
        if move.end not in colours:
            return f"{end} is not covered by a block: meeples never step onto the board"
        if move.end in meeple_reach(move.start, colours, player, self.geo):
            return None
        if colours[move.start] != player:
            return f"from an opponent's block the meeple takes exactly one step, not to {end}"
        return (
            f"{end} cannot be reached from {start}: own-colour steps, "
            "then at most one step onto an opponent's block"
        )

    def _block_move_reason(self, state: ArenaState, move: BlockMove, player: int) -> str | None:
        """Returns why a block move breaks a rule, or None."""
        start = block_name(move.start)
        if move.start not in state.blocks[player - 1]:
            return f"{start} is not one of your blocks"
        riders = state.riders(move.start)
        if player in riders:
            return "the block carries your own meeple and cannot move"
        target = self._target(move)
        if target is None:
            return f"{block_name(move.end)} is neither a slide nor a flip of {start}"
        if target.slide is None and riders:
            return "a block carrying the opponent's meeple may slide but not flip"
        taken = _blocked(move.start, target, state.colours())
        return f"{square_name(*taken[0])} is occupied" if taken else None
