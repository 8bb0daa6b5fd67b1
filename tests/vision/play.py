"""Seeded random play for the inference tests and bench: what each legal move leads to, honest
noisy observations of it, and Blockade turns of several piece moves."""

from __future__ import annotations

import random
from typing import Any

from rules.core import Game
from vision.sight import view_of
from vision.observation import Observation, noisy_observation

Outcomes = dict[str, tuple[Any, dict[str, str]]]


def outcomes(game: Game[Any, Any], state: Any) -> Outcomes:
    """Returns the state and view each legal move leads to."""
    found = {}
    for move in game.legal_moves(state):
        after = game.play(state, move)
        found[str(move)] = (after, view_of(game, after))
    return found


def rival_labels(results: Outcomes) -> dict[str, set[str]]:
    """Returns, per square, every label some legal move would show there (a wrong reading
    with one of them would be a real doubt, not noise)."""
    labels: dict[str, set[str]] = {}
    for _, view in results.values():
        for square, label in view.items():
            labels.setdefault(square, set()).add(label)
    return labels


def observe(game: Game[Any, Any], before: Any, after: Any, rng: random.Random,
            results: Outcomes | None = None) -> Observation:
    """Returns a noisy observation of the state after, as seen from the state before (no
    steady cell misread as something a legal move would show there)."""
    rivals = rival_labels(outcomes(game, before) if results is None else results)
    return noisy_observation(game.name, view_of(game, after), rng,
                             previous=view_of(game, before), avoid=rivals)


def any_move(rng: random.Random, game: Game[Any, Any], state: Any) -> str:
    """Returns a random legal move."""
    return str(rng.choice(game.legal(state)))


def clear_steps(game: Game[Any, Any], state: Any, avoid: set[str]) -> list[tuple[str, str]]:
    """Returns the piece moves (with the kind of piece moved) whose source and target both
    change their view, from and to no square to avoid."""
    view = view_of(game, state)
    found = []
    for move, (_, after) in outcomes(game, state).items():
        squares = move.split("-")
        if ("-" in move and not avoid & set(squares)
                and all(after[square] != view[square] for square in squares)):
            found.append((move, view[squares[0]].split("/")[0]))
    return found


def piece_turn(game: Game[Any, Any], state: Any, count: int,
               rng: random.Random) -> tuple[Any, list[str], bool]:
    """Returns the state after up to `count` random Blockade piece moves on separate squares
    (of different colours or sizes when possible), the moves, and whether the pieces moved
    are all of different kinds."""
    after, moves = state, []
    used: set[str] = set()
    kinds: set[str] = set()
    for _ in range(count):
        options = clear_steps(game, after, used)
        if not options:
            break
        move, kind = rng.choice([o for o in options if o[1] not in kinds] or options)
        moves.append(move)
        used |= set(move.split("-"))
        kinds.add(kind)
        after = game.apply(after, move)
    return after, moves, len(kinds) == len(moves)
