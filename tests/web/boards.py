"""Sample positions in the shared board format, each with the moves that reach it.

test_api checks that game.board() gives exactly these; the page tests draw them (with a Blockade
blockade and a BLOCK.BLOCK half added) so that every kind of piece is drawn."""

from __future__ import annotations

from typing import Any

Piece = dict[str, Any]


def block(owner: int, lying_with: str | None = None) -> Piece:
    """Returns a Block Arena block of a player, upright or lying with another square."""
    piece: Piece = {"kind": "block", "owner": owner, "colour": "light" if owner == 1 else "dark",
                    "orientation": "upright" if lying_with is None else "lying"}
    if lying_with is not None:
        piece["other"] = lying_with
    return piece


def meeple(owner: int) -> Piece:
    """Returns a Block Arena meeple."""
    return {"kind": "meeple", "owner": owner, "colour": "light" if owner == 1 else "dark"}


ARENA: dict[str, Any] = {
    "size": 9,
    "cells": {
        "c2": [block(1, "c3")], "c3": [block(1, "c2")],
        "d1": [block(1, "e1"), meeple(1)], "e1": [block(1, "d1")],
        "f1": [block(1)], "h1": [block(1)],
        "g9": [block(2)], "c9": [block(2, "d9")], "d9": [block(2, "c9")],
        "f9": [block(2), meeple(2)], "a8": [block(2)],
    },
    "off": {"hand": {"1": 0, "2": 0}, "meeples_placed": {"1": True, "2": True}},
}


def tile(owner: int) -> Piece:
    """Returns a Block (PT) blocking piece."""
    return {"kind": "blocker", "owner": owner, "label": "M" if owner == 1 else "N"}


def pawn(owner: int) -> Piece:
    """Returns a Block (PT) pawn."""
    return {"kind": "pawn", "owner": owner, "label": "X" if owner == 1 else "Y"}


BLOCK_PT: dict[str, Any] = {
    "size": 9,
    "cells": {"e7": [pawn(1)], "e2": [pawn(2)], "f3": [tile(2)], "d6": [tile(1)], "c2": [tile(2)]},
    "off": {"hand": {"1": 6, "2": 5}},
}

TUNED: dict[str, Any] = {
    "size": 3,
    "cells": {"b2": [{"kind": "donkey"}, {"kind": "dog"}], "a1": [{"kind": "cat"}],
              "c3": [{"kind": "donkey"}]},
    "off": {"hand": {"1": {"donkey": 1, "dog": 2, "cat": 1}, "2": {"donkey": 1, "dog": 1, "cat": 2}},
            "rooster": {"1": "add", "2": "add"}},
}


def pyramid(colour: str, size: str, locked: bool = False) -> Piece:
    """Returns a Blockade pyramid."""
    return {"kind": "pyramid", "colour": colour, "size": size, "locked": locked}


def blockade_cells() -> dict[str, list[Piece]]:
    """Returns Blockade's set-up after `roll:b4g5 d4-c3` (blue Small from d4 onto the clear c3)."""
    rows = {5: "CBBBC", 4: "RRRBY", 3: "RGCBY", 2: "RGYYY", 1: "CGGGC"}
    colours = {"C": "clear", "R": "red", "Y": "yellow", "G": "green", "B": "blue"}
    corners = {"a5": "green", "e5": "red", "a1": "yellow", "e1": "blue"}
    cells: dict[str, list[Piece]] = {}
    for rank, letters in rows.items():
        for file, letter in zip("abcde", letters):
            square = f"{file}{rank}"
            colour = colours[letter]
            cells[square] = [pyramid(colour, "L")] + ([] if colour == "clear" else [pyramid(colour, "S")])
            if square in corners:
                cells[square] += [pyramid(corners[square], "M") for _ in range(5)]
    cells["d4"] = [pyramid("blue", "L")]
    cells["c3"].append(pyramid("blue", "S"))
    return cells


BLOCKADE: dict[str, Any] = {
    "size": 5,
    "cells": blockade_cells(),
    "off": {"black_supply": {"L": 5, "M": 5, "S": 5}, "points": [[3, 5]], "roll": "roll:b4g5"},
}

# A tower made into a blockade, drawn by the page (not reached by the moves above).
BLOCKADE_TOWER: list[Piece] = [pyramid("green", "L", True), pyramid("green", "M", True),
                               pyramid("green", "S", True), pyramid("black", "L", True)]


def cube(owner: int, shape: str, index: int, top: str) -> Piece:
    """Returns one BLOCK.BLOCK cube."""
    return {"kind": "cube", "owner": owner, "colour": "brown" if owner == 1 else "white",
            "shape": shape, "block": index, "top": top}


BLOCK_BLOCK: dict[str, Any] = {
    "size": 5,
    "cells": {
        "a1": [cube(1, "bar2", 0, "brown")], "a2": [cube(1, "bar2", 0, "brown")],
        "c3": [cube(2, "bar3", 1, "white"), cube(2, "bar3", 1, "white"), cube(2, "bar3", 1, "brown")],
        "d4": [cube(1, "slab", 2, "brown")], "d5": [cube(1, "slab", 2, "brown")],
        "e4": [cube(1, "slab", 2, "brown")], "e5": [cube(1, "slab", 2, "brown")],
        "b4": [cube(2, "bar2", 3, "white")], "b5": [cube(2, "bar2", 3, "white")],
    },
    "off": {"hand": {"1": {"bar2": 2, "bar3": 1, "bar4": 1, "slab": 0, "ell": 2, "tee": 1, "ess": 1,
                           "half": 1},
                     "2": {"bar2": 2, "bar3": 0, "bar4": 1, "slab": 1, "ell": 2, "tee": 1, "ess": 1}}},
}

SAMPLES: dict[str, tuple[str, dict[str, Any]]] = {
    "block-arena": ("+c1 +g9 +d1e1 +c9d9 +f1 +f9 +h1 +a9 M+c1 M+g9 Mc1-d1 Mg9-f9 c1-c2c3 a9-a8", ARENA),
    "block-pt": ("e9-e8 e1-e2 e8-e7 +f3 +d6 +c2", BLOCK_PT),
    "tuned": ("+donkey@b2 +dog@b2 +cat@a1 +donkey@c3", TUNED),
    "blockade": ("roll:b4g5 d4-c3", BLOCKADE),
    "block-block": ("bar2:a1.0a2.0 bar3:c3.0c3.1c3.2 slab:d4.0d5.0e4.0e5.0 bar2:b4.0b5.0", BLOCK_BLOCK),
}
