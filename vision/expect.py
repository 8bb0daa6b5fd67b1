"""Expected views: what an overhead camera should see on every cell of a position.

`expected_view(game, board)` reads the shared position format (`game.board(state)`:
{"size", "cells", "off"}) and returns, for every square of the grid, the label of
vision/observation.py's vocabulary. `suggested_moves` goes the other way: the move, in the
game's notation, that a change of labels suggests (used to name an illegal physical move).
Pure: no OpenCV, no I/O.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Mapping, Sequence

from rules.core import parse_square
from vision.observation import EMPTY, MAX_GRID, game_names, grid_squares

Piece = Mapping[str, Any]
Labeller = Callable[[Sequence[Piece]], str]
Changes = dict[str, tuple[list[str], list[str]]]
Suggester = Callable[[Mapping[str, Any], Mapping[str, str], Mapping[str, str]],
                     list[tuple[str, ...]]]

_PT_LABELS: dict[tuple[str, str], str] = {
    ("blocker", "M"): "cream-tile",
    ("blocker", "N"): "charcoal-tile",
    ("pawn", "X"): "red-pawn",
    ("pawn", "Y"): "blue-pawn",
}
_TUNED_LAYERS: dict[str, tuple[str, int]] = {"cat": ("cat", 1), "dog": ("dog", 2),
                                             "donkey": ("donkey", 3)}
_PYRAMIDS: dict[tuple[str, str], tuple[str, int]] = {
    (colour, size): (f"{colour}-{size}", rank)
    for colour in ("red", "yellow", "green", "blue", "black", "clear")
    for size, rank in (("S", 1), ("M", 2), ("L", 3))
    if colour != "clear" or size == "L"
}
_ARENA_BLOCKS: dict[tuple[str, str], str] = {
    (colour, orientation): f"{colour}-block-{orientation}"
    for colour in ("light", "dark") for orientation in ("upright", "lying")
}
_ARENA_MEEPLES: dict[str, str] = {"light": "light-meeple/", "dark": "dark-meeple/"}
_CUBE_TOPS = frozenset({"brown", "white", "half"})


class ViewError(ValueError):
    """Raised when a position cannot be read: unknown game, bad size, square or piece."""


def _expect(condition: bool, message: str) -> None:
    """Raises a ViewError with the message unless the condition holds."""
    if not condition:
        raise ViewError(message)


def _kind(piece: Piece, kind: str) -> Piece:
    """Returns a piece if it is of the kind, or raises ViewError."""
    if piece["kind"] != kind:
        raise ViewError(f"expected a {kind}, got {piece!r}")
    return piece


def visible(layers: Sequence[tuple[str, int]], nested: bool = False) -> list[str]:
    """Returns the names of the layers seen from above, top first: (name, footprint) pairs are
    given bottom first, and a layer shows only if it is larger than everything above it (with
    `nested`, also when it is the layer just above it again and that one shows)."""
    return [layers[index][0] for index in visible_rows(layers, nested)]


def visible_rows(layers: Sequence[tuple[str, int]], nested: bool = False) -> list[int]:
    """Returns the indices of the layers seen from above, top first (see visible)."""
    seen: list[int] = []
    largest = 0
    for index in reversed(range(len(layers))):
        name, footprint = layers[index]
        above = seen[-1] if seen and seen[-1] == index + 1 else None
        if footprint > largest or (nested and above is not None and layers[above] == (name, footprint)):
            seen.append(index)
            largest = max(largest, footprint)
    return seen


def _arena(pieces: Sequence[Piece]) -> str:
    """Returns a Block Arena label: the block, with the meeples standing on it."""
    block = _kind(pieces[0], "block")
    base = _ARENA_BLOCKS[block["colour"], block["orientation"]]
    meeples = [_ARENA_MEEPLES[_kind(meeple, "meeple")["colour"]] for meeple in pieces[1:]]
    _expect(len(meeples) <= 2, "at most two meeples stand on a square")
    if len(meeples) == 2:
        return "both-meeples/" + base
    return meeples[0] + base if meeples else base


def _block_pt(pieces: Sequence[Piece]) -> str:
    """Returns a Block (PT) label: the pawn, on top of the tile it stands on."""
    return "/".join(_PT_LABELS[piece["kind"], piece["label"]] for piece in reversed(pieces))


def _tuned(pieces: Sequence[Piece]) -> str:
    """Returns a Tuned label: the animals whose footprint shows, top first."""
    return "/".join(visible([_TUNED_LAYERS[piece["kind"]] for piece in pieces]))


def _blockade(pieces: Sequence[Piece]) -> str:
    """Returns a Blockade label: the nested pyramids that show, top first (a pyramid nested
    right under one of its colour and size raises that one's apex: it shows with it)."""
    layers = [_PYRAMIDS[_kind(piece, "pyramid")["colour"], piece["size"]] for piece in pieces]
    return "/".join(visible(layers, nested=True))


def _block_block(pieces: Sequence[Piece]) -> str:
    """Returns a BLOCK.BLOCK label: the top cube's upward face and the column height."""
    for piece in pieces:
        _kind(piece, "cube")
    top = pieces[-1]["top"]
    _expect(top in _CUBE_TOPS, f"bad top face in {pieces[-1]!r}")
    return f"{top}@{len(pieces)}"


_LABELLERS: dict[str, Labeller] = {
    "block-arena": _arena,
    "block-pt": _block_pt,
    "tuned": _tuned,
    "blockade": _blockade,
    "block-block": _block_block,
}
assert set(_LABELLERS) == set(game_names())


def _grid(board: Mapping[str, Any]) -> tuple[tuple[str, ...], Mapping[str, Any]]:
    """Returns the squares of a board's grid and its occupied cells, or raises ViewError."""
    _expect(isinstance(board, Mapping), "a position is a dict with size, cells and off")
    size, cells = board.get("size"), board.get("cells")
    _expect(isinstance(size, int) and not isinstance(size, bool) and 1 <= size <= MAX_GRID,
            f"a position's size must be a whole number from 1 to {MAX_GRID}, not {size!r}")
    _expect(isinstance(cells, Mapping), "a position's cells must map squares to piece lists")
    assert isinstance(size, int) and isinstance(cells, Mapping)
    squares = grid_squares(size)
    unknown = sorted(set(cells) - set(squares))
    _expect(not unknown, f"{', '.join(map(str, unknown[:3]))} is not a square of a "
                         f"{size}x{size} grid")
    return squares, cells


def expected_view(game: str, board: Mapping[str, Any]) -> dict[str, str]:
    """Returns the label an overhead camera should see on every square of a position."""
    labeller = _LABELLERS.get(game)
    if labeller is None:
        raise ViewError(f"unknown game {game!r}; choose one of " + ", ".join(game_names()))
    squares, cells = _grid(board)
    view = dict.fromkeys(squares, EMPTY)
    for square, pieces in cells.items():
        _expect(isinstance(pieces, (list, tuple)), f"{square} must hold a list of pieces")
        if pieces:
            view[square] = _label(labeller, square, pieces)
    return view


def _label(labeller: Labeller, square: str, pieces: Sequence[Piece]) -> str:
    """Returns a square's label, naming the square in any error."""
    try:
        return labeller(pieces)
    except ViewError as error:
        raise ViewError(f"{square}: {error}") from None
    except (KeyError, TypeError, AttributeError, IndexError) as error:
        raise ViewError(f"{square}: unreadable pieces {list(pieces)!r} ({error!r})") from None


# -- the reverse: the move a change of view suggests ------------------------------------------


def _layers(label: str) -> list[str]:
    """Returns a label's layers, top first (none for an empty cell)."""
    return [] if label == EMPTY else label.split("/")


def seen_part(game: str, label: str) -> str:
    """Returns what the camera can tell of a label: in Block Arena, a block carrying a meeple
    without its orientation (such a block never turns, RULES.md, so the position knows it, and
    the meeple on its top hides the block's height); elsewhere the label itself."""
    if game != "block-arena" or "meeple" not in label:
        return label
    return label.removesuffix("-upright").removesuffix("-lying")


def has_faint_pairs(game: str) -> bool:
    """Tells whether a game has changes the camera all but cannot see (faint_pair): Blockade."""
    return game == "blockade"


def faint_pair(game: str, label: str, after: str) -> bool:
    """Tells whether a cell's label turns into another only by losing its top pyramid, nested in
    one of its colour (Blockade: `red-S/red-L` to `red-L`, `red-S/red-S/red-L` to `red-S/red-L`),
    or by gaining one of the top's colour, of its size or a Small (`red-S/red-L` to
    `red-S/red-S/red-L`, `red-M/red-L` to `red-S/red-M/red-L`): from above the piece hid inside
    the one below, so the camera all but cannot see it go or come."""
    if not has_faint_pairs(game):
        return False
    before, now = _layers(label), _layers(after)
    if before and len(now) == len(before) + 1 and now[1:] == before:
        return _nests_in(now[0], before[0])  # a pyramid coming into one of its colour
    if not now or len(before) != len(now) + 1 or before[1:] != now:
        return False
    return _pyramid(before[0])[0] == _pyramid(now[0])[0]


def _nests_in(top: str, below: str) -> bool:
    """Tells whether a pyramid (`red-S`) is of the colour of the one below it and of its size or
    a Small (a Medium on a Large shows: read as faint, it let a misplaced Medium land there)."""
    (colour, size), (under, under_size) = _pyramid(top), _pyramid(below)
    return colour == under and size in (under_size, "S")


def _pyramid(layer: str) -> tuple[str, str]:
    """Returns the colour and size of a label's pyramid layer (`red-S`: red, S)."""
    colour, _, size = layer.partition("-")
    return colour, size


def _changes(before: Mapping[str, str], after: Mapping[str, str]) -> Changes:
    """Returns, per square of after, the layers lost from the top and the layers gained on top."""
    found: Changes = {}
    for square, label in after.items():
        old, new = _layers(before[square]), _layers(label)
        common = 0
        while common < min(len(old), len(new)) and old[-1 - common] == new[-1 - common]:
            common += 1
        found[square] = (old[: len(old) - common], new[: len(new) - common])
    return found


def _order(square: str) -> tuple[int, int]:
    """Returns a sort key for squares: by file, then rank."""
    return parse_square(square, MAX_GRID)


def _joined(squares: Iterable[str]) -> str:
    """Returns squares sorted by file then rank, written one after another."""
    return "".join(sorted(set(squares), key=_order))


def _with(found: Changes, word: str, side: int) -> list[str]:
    """Returns the squares whose lost (side 0) or gained (side 1) layers mention a word."""
    return sorted((s for s, change in found.items() if any(word in x for x in change[side])),
                  key=_order)


def _arena_meeples(label: str) -> set[str]:
    """Returns the colours of the meeples a Block Arena label shows."""
    top = _layers(label)[0] if "/" in label else ""
    return {"light", "dark"} if top == "both-meeples" else {top.split("-")[0]} - {""}


def _arena_physical(board: Mapping[str, Any], before: Mapping[str, str],
                    after: Mapping[str, str]) -> list[tuple[str, ...]]:
    """Returns the Block Arena move the changed cells suggest."""
    found = _changes(before, after)
    lost, gained = _with(found, "block", 0), _with(found, "block", 1)
    if lost:
        start = {s for square in lost for s in (square, board["cells"][square][0].get("other"))
                 if s is not None}
        return [(f"{_joined(start)}-{_joined(set(gained) | (start - set(lost)))}",)]
    if gained:
        return [("+" + _joined(gained),)]
    left = [s for s in after if _arena_meeples(before[s]) - _arena_meeples(after[s])]
    came = [s for s in after if _arena_meeples(after[s]) - _arena_meeples(before[s])]
    if came:
        return [(f"M{left[0]}-{came[0]}",) if left else (f"M+{came[0]}",)]
    return []


def _pt_physical(board: Mapping[str, Any], before: Mapping[str, str],
                 after: Mapping[str, str]) -> list[tuple[str, ...]]:
    """Returns the Block (PT) move the changed cells suggest."""
    found = _changes(before, after)
    lost, gained = _with(found, "pawn", 0), _with(found, "pawn", 1)
    if lost and gained:
        return [(f"{lost[0]}-{gained[0]}",)]
    tiles = _with(found, "tile", 1)
    return [(f"+{tiles[0]}",)] if tiles else []


def _tuned_physical(board: Mapping[str, Any], before: Mapping[str, str],
                    after: Mapping[str, str]) -> list[tuple[str, ...]]:
    """Returns the Tuned action the changed cells suggest."""
    found = _changes(before, after)
    gained = [s for s, (_, new) in found.items() if new]
    if not gained:
        return []
    target = gained[0]
    count = len(found[target][1])
    lost = [s for s, (gone, _) in found.items() if gone and s != target]
    if not lost:
        return [(f"+{found[target][1][-1]}@{target}",)]
    return [(f"{lost[0]}-{target}" + (f"/{count}" if count > 1 else ""),)]


def _pairs(sources: list[tuple[str, str]], targets: list[tuple[str, str]]) -> list[str]:
    """Returns `from-to` moves pairing each source's lost piece with a target that gained the
    same piece, then any other source that gained nothing with a leftover target."""
    moves, left = [], list(targets)
    unmatched = []
    for source, piece in sources:
        match = next((t for t in left if t[1] == piece and t[0] != source), None)
        if match is None:
            unmatched.append(source)
            continue
        left.remove(match)
        moves.append(f"{source}-{match[0]}")
    gainers = {square for square, _ in targets}
    for source in (s for s in unmatched if s not in gainers):
        match = next((t for t in left if t[0] != source), None)
        if match is not None:
            left.remove(match)
            moves.append(f"{source}-{match[0]}")
    return moves


def _blockade_physical(board: Mapping[str, Any], before: Mapping[str, str],
                       after: Mapping[str, str]) -> list[tuple[str, ...]]:
    """Returns the Blockade piece moves the changed cells suggest: each lost top piece to where
    a piece of its colour and size appeared."""
    found = _changes(before, after)
    sources = [(square, gone[0]) for square, (gone, _) in found.items() if gone]
    targets = [(square, layer) for square, (_, new) in found.items() for layer in new]
    moves = _pairs(sources, targets)
    return [tuple(moves)] if moves else []


def _height(label: str) -> int:
    """Returns the column height a BLOCK.BLOCK label shows."""
    return 0 if label == EMPTY else int(label.split("@")[1])


def _block_block_physical(board: Mapping[str, Any], before: Mapping[str, str],
                          after: Mapping[str, str]) -> list[tuple[str, ...]]:
    """Returns the BLOCK.BLOCK placements (one per shape name) the grown columns suggest."""
    grown = {s: _height(label) for s, label in after.items() if _height(label) > _height(before[s])}
    cells = sorted((*_order(s), level, s) for s, top in grown.items()
                   for level in range(_height(before[s]), top))
    text = "".join(f"{s}.{level}" for _, _, level, s in cells)
    shapes = sorted({shape for hand in board.get("off", {}).get("hand", {}).values()
                     for shape in hand})
    return [(f"{shape}:{text}",) for shape in shapes] if text else []


_SUGGESTERS: dict[str, Suggester] = {
    "block-arena": _arena_physical,
    "block-pt": _pt_physical,
    "tuned": _tuned_physical,
    "blockade": _blockade_physical,
    "block-block": _block_block_physical,
}


def suggested_moves(game: str, board: Mapping[str, Any], after: Mapping[str, str]
                    ) -> list[tuple[str, ...]]:
    """Returns the moves, in the game's notation, that would turn a position's view into the
    labels seen after (squares that lost a piece to squares that gained one): candidate
    sequences, best first (BLOCK.BLOCK gives one per shape name; the caller keeps the first
    that parses); [] when no move can be written."""
    before = expected_view(game, board)
    return _SUGGESTERS[game](board, before, after)
