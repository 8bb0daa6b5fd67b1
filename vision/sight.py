"""What the camera can see of a game: a state's expected view, the squares a move touches, the
moves it can and cannot see, and the moves a seen change suggests, checked by the referee.

Pure: no OpenCV, no I/O.
"""

from __future__ import annotations

from typing import Any, Sequence

from rules.core import Game, IllegalMoveError, InvalidMoveError
from vision.expect import expected_view, suggested_moves
from vision.observation import Observation


def view_of(game: Game[Any, Any], state: Any) -> dict[str, str]:
    """Returns the expected view of a game state."""
    return expected_view(game.name, game.board(state))


def move_touches(game: Game[Any, Any], move: Any) -> set[str]:
    """Returns the squares a move leaves or reaches."""
    left, reached = game.squares(move)
    return {*left, *reached}


def _parses(game: Game[Any, Any], moves: Sequence[str]) -> bool:
    """Tells whether every text of a sequence is a move in the game's notation."""
    try:
        for text in moves:
            game.parse(text)
    except InvalidMoveError:
        return False
    return True


def physical_moves(game: Game[Any, Any], state: Any, seen: Observation,
                   squares: Sequence[str]) -> tuple[str, ...]:
    """Returns the moves, in the game's notation, that the seen change of some squares suggests
    (squares that lost a piece to squares that gained one); () when none can be written (a
    BLOCK.BLOCK change of more cubes than any block has names no block)."""
    after = {square: seen.cells[square].label for square in squares}
    candidates = suggested_moves(game.name, game.board(state), after)
    return next((moves for moves in candidates if _parses(game, moves)), ())


def referee_reason(game: Game[Any, Any], state: Any, moves: Sequence[str]) -> str | None:
    """Returns the referee's reason why a sequence of moves is illegal, or None if it is legal."""
    try:
        for text in moves:
            state = game.apply(state, text)
    except (IllegalMoveError, InvalidMoveError) as error:
        return error.reason
    return None


def _by_sight(game: Game[Any, Any], state: Any, seen: bool) -> tuple[str, ...]:
    """Returns the legal moves that change some cell's expected view (seen) or none (not)."""
    current = view_of(game, state)
    return tuple(str(move) for move in game.legal_moves(state)
                 if (view_of(game, game.play(state, move)) != current) == seen)


def visible_moves(game: Game[Any, Any], state: Any) -> tuple[str, ...]:
    """Returns the legal moves the camera can see (they change some cell's expected view)."""
    return _by_sight(game, state, True)


def invisible_moves(game: Game[Any, Any], state: Any) -> tuple[str, ...]:
    """Returns the legal moves that change no cell's expected view (the camera cannot see them:
    rolls, `end`, passes, hidden shuffles); they must come from events or the players."""
    return _by_sight(game, state, False)
