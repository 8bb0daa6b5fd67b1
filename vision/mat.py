"""Printable kit: a game's mat at true scale, or a sheet of marker stickers, as SVG or PDF.

Everything is laid out once as rectangles and text on a page in mm (origin at the top left, y
down), then written as SVG or as a minimal hand-made vector PDF (1 mm = 72/25.4 pt).
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from xml.sax.saxutils import escape, quoteattr

import numpy as np
from numpy.typing import NDArray

from vision.frames import Image
from vision.kit import RGB, Kit, Mat, board_to_page
from vision.markers import FloatArray, marker_cells

PT_PER_MM = 72 / 25.4
A4 = (210.0, 297.0)
WHITE: RGB = (255, 255, 255)
BLACK: RGB = (0, 0, 0)
INK: RGB = (60, 60, 60)
FONT_MM = 2.6
CUT_MM, CUT_GAP_MM, CUT_WIDTH_MM = 4.0, 1.0, 0.25
CORNER_PLACES = ("beyond {a1}'s outer corner", "beyond {z1}'s outer corner (last file, rank 1)",
                 "beyond {zn}'s outer corner (last file, last rank)",
                 "beyond {an}'s outer corner (file a, last rank)")


class MatError(ValueError):
    """Raised when a mat cannot be written: an unknown file type or an unwritable place."""


@dataclass(frozen=True, slots=True)
class Rect:
    """A filled rectangle on the page (mm, top-left corner), optionally part of a named group."""

    x: float
    y: float
    w: float
    h: float
    rgb: RGB
    group: str = ""


@dataclass(frozen=True, slots=True)
class Text:
    """A line of ASCII text on the page: left end of its baseline (mm) and its size (mm)."""

    x: float
    y: float
    size: float
    text: str
    rgb: RGB = INK


@dataclass(frozen=True, slots=True)
class Page:
    """A page to print: its size in mm, a title and its shapes in drawing order."""

    width: float
    height: float
    title: str
    shapes: tuple[Rect | Text, ...]


# -- layout ------------------------------------------------------------------------------------


def marker_rects(kit: Kit, marker_id: int, x: float, y: float) -> list[Rect]:
    """Returns a marker with its quiet zone whose marker square's top-left corner is at (x, y)."""
    group = f"marker-{marker_id}"
    pad, size = kit.quiet_zone_mm, kit.marker_mm
    cells = marker_cells(kit, marker_id)
    cell = size / len(cells)
    zone = size + 2 * pad
    rects = [Rect(x - pad, y - pad, zone, zone, WHITE, group), Rect(x, y, size, size, BLACK, group)]
    for row, line in enumerate(cells):
        for start, stop in _runs(~line):
            left, top = x + start * cell, y + row * cell
            rects.append(Rect(left, top, (stop - start) * cell, cell, WHITE, group))
    return rects


def _runs(flags: NDArray[np.bool_]) -> list[tuple[int, int]]:
    """Returns the [start, stop) index ranges where flags are True."""
    runs, start = [], None
    for index, flag in enumerate([*flags.tolist(), False]):
        if flag and start is None:
            start = index
        elif not flag and start is not None:
            runs.append((start, index))
            start = None
    return runs


def grid_rects(kit: Kit, mat: Mat, page: FloatArray) -> list[Rect]:
    """Returns the grid lines as thin rectangles centred on the cell edges."""
    half, side = kit.grid_line_mm / 2, mat.side_mm
    left, top = (float(v) for v in page[:2, 2] - np.array([0.0, side]))
    long, thin, colour = side + 2 * half, 2 * half, kit.grid_rgb
    rects = []
    for index in range(mat.cells + 1):
        at = index * mat.pitch_mm
        rects.append(Rect(left + at - half, top - half, thin, long, colour, "grid"))
        rects.append(Rect(left - half, top + side - at - half, long, thin, colour, "grid"))
    return rects


def describe(kit: Kit, mat: Mat) -> str:
    """Returns the one-line description of a mat printed in its legend."""
    return (f"blockref {mat.label}: {mat.cells} x {mat.cells} cells of {mat.pitch_mm:g} mm, "
            f"kit {kit.name}, {kit.dictionary} markers of {kit.marker_mm:g} mm")


def mat_page(kit: Kit, mat: Mat) -> Page:
    """Returns the whole mat at true scale: background, markers, grid and legend."""
    margin, side = kit.mat_margin_mm, kit.page_side_mm(mat)
    page = board_to_page(mat, 1.0, margin, pixel_centres=False)
    shapes: list[Rect | Text] = [Rect(0.0, 0.0, side, side, kit.mat_rgb, "mat")]
    for marker_id, (x, y) in kit.marker_origins(mat).items():
        left, top, _ = page @ np.array([x, y + kit.marker_mm, 1.0])
        shapes += marker_rects(kit, marker_id, float(left), float(top))
    shapes += grid_rects(kit, mat, page)
    shapes += _legend(kit, mat, side)
    return Page(side, side, f"blockref mat: {mat.label}", tuple(shapes))


def _legend(kit: Kit, mat: Mat, side: float) -> list[Rect | Text]:
    """Returns the legend in the bottom margin: what the mat is and a 50 mm bar to check scale."""
    left = kit.mat_margin_mm - kit.corner_gap_mm - kit.marker_mm
    bottom = side - (kit.mat_margin_mm - kit.corner_gap_mm - kit.marker_mm - kit.quiet_zone_mm) / 2
    right = side - left
    return [
        Text(left, bottom - 2.5, FONT_MM, describe(kit, mat)),
        Text(left, bottom + 1.5, FONT_MM, "Print at 100% (actual size): the bar measures 50 mm."),
        Rect(right - 50.0, bottom - 0.5, 50.0, 1.0, BLACK, "scale"),
        Text(right - 50.0, bottom - 2.0, FONT_MM, "50 mm"),
    ]


def sticker_page(kit: Kit, mat: Mat) -> Page:
    """Returns an A4 sheet of the mat's 4 corner markers and game marker, with cut marks."""
    squares = _square_names(mat)
    places = [place.format(**squares) for place in CORNER_PLACES]
    labels = [f"ID {mid}: {place}" for mid, place in zip(kit.corner_ids, places)]
    labels.append(f"ID {mat.marker_id}: game marker ({mat.label}), centred "
                  f"{kit.game_marker_below_mm:g} mm below the middle of rank 1's edge")
    ids = [*kit.corner_ids, mat.marker_id]
    title = f"blockref marker stickers: {mat.label}, kit {kit.name}"
    shapes: list[Rect | Text] = [Text(15.0, 18.0, 4.0, title)]
    pad, zone = kit.quiet_zone_mm, kit.marker_mm + 2 * kit.quiet_zone_mm
    for index, (marker_id, label) in enumerate(zip(ids, labels)):
        x, y = 35.0 + 95.0 * (index % 2), 40.0 + 75.0 * (index // 2)
        shapes += marker_rects(kit, marker_id, x, y)
        shapes += cut_marks(x - pad, y - pad, zone)
        shapes.append(Text(x - pad - 10.0, y - pad + zone + 9.0, 2.2, label))
    for row, line in enumerate(_instructions(kit, mat)):
        shapes.append(Text(15.0, 268.0 + 5.0 * row, 2.6, line))
    return Page(A4[0], A4[1], f"blockref marker stickers: {mat.label}", tuple(shapes))


def _square_names(mat: Mat) -> dict[str, str]:
    """Returns the names of the grid's corner squares (a1, last file's 1, ...)."""
    last = chr(ord("a") + mat.cells - 1)
    return {"a1": "a1", "z1": f"{last}1", "zn": f"{last}{mat.cells}", "an": f"a{mat.cells}"}


def _instructions(kit: Kit, mat: Mat) -> list[str]:
    """Returns the placing instructions printed at the bottom of the sticker sheet."""
    return [
        "Print at 100% (actual size). Cut along the marks, keeping the white border around "
        "each marker.",
        "Stick each marker upright as read from the rank-1 edge, its inner corner "
        f"{kit.corner_gap_mm:g} mm from the grid corner along both axes;",
        f"the grid has {mat.cells} x {mat.cells} cells of {mat.pitch_mm:g} mm.",
    ]


def cut_marks(x: float, y: float, size: float) -> list[Rect]:
    """Returns crop marks outside each corner of a square, in line with its edges."""
    marks, gap, length, width = [], CUT_GAP_MM, CUT_MM, CUT_WIDTH_MM
    for cx, sx in ((x, -1), (x + size, 1)):
        for cy, sy in ((y, -1), (y + size, 1)):
            near_x, near_y = cx + sx * gap, cy + sy * gap
            left, top = min(near_x, near_x + sx * length), min(near_y, near_y + sy * length)
            marks.append(Rect(left, cy - width / 2, length, width, BLACK, "cut"))
            marks.append(Rect(cx - width / 2, top, width, length, BLACK, "cut"))
    return marks


# -- output ------------------------------------------------------------------------------------


def _num(value: float) -> str:
    """Returns a number with at most 3 decimals and no trailing zeros."""
    text = f"{value:.3f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _hex(rgb: RGB) -> str:
    """Returns an RGB colour as #rrggbb."""
    return "#{:02x}{:02x}{:02x}".format(*rgb)


def to_svg(page: Page) -> str:
    """Returns the page as an SVG document sized in mm (user units are mm)."""
    w, h = _num(page.width), _num(page.height)
    lines = ['<?xml version="1.0" encoding="UTF-8"?>',
             f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}mm" height="{h}mm" '
             f'viewBox="0 0 {w} {h}" shape-rendering="crispEdges">',
             f"<title>{escape(page.title)}</title>"]
    group = ""
    for shape in page.shapes:
        current = shape.group if isinstance(shape, Rect) else ""
        if current != group:
            lines += ["</g>"] * bool(group) + [_svg_group(current)] * bool(current)
            group = current
        lines.append(_svg_shape(shape))
    lines += ["</g>"] * bool(group) + ["</svg>", ""]
    return "\n".join(lines)


def _svg_group(group: str) -> str:
    """Returns the opening tag of a group; marker groups carry their ArUco ID."""
    extra = f' data-aruco-id="{group.split("-", 1)[1]}"' if group.startswith("marker-") else ""
    return f"<g id={quoteattr(group)}{extra}>"


def _svg_shape(shape: Rect | Text) -> str:
    """Returns one shape as an SVG element."""
    if isinstance(shape, Rect):
        return (f'<rect x="{_num(shape.x)}" y="{_num(shape.y)}" width="{_num(shape.w)}" '
                f'height="{_num(shape.h)}" fill="{_hex(shape.rgb)}"/>')
    return (f'<text x="{_num(shape.x)}" y="{_num(shape.y)}" font-size="{_num(shape.size)}" '
            f'font-family="Helvetica, Arial, sans-serif" fill="{_hex(shape.rgb)}">'
            f"{escape(shape.text)}</text>")


def _pdf_text(text: str) -> str:
    """Returns text as a PDF literal string (ASCII, with parentheses and backslashes escaped)."""
    ascii_text = text.encode("ascii", "replace").decode("ascii")
    return "(" + ascii_text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)") + ")"


def _pdf_content(page: Page) -> bytes:
    """Returns the page's drawing operators in PDF points (origin at the bottom left)."""
    k, ops, colour = PT_PER_MM, [], None
    for shape in page.shapes:
        if shape.rgb != colour:
            colour = shape.rgb
            ops.append(" ".join(_num(c / 255) for c in colour) + " rg")
        if isinstance(shape, Rect):
            ops.append(f"{_num(shape.x * k)} {_num((page.height - shape.y - shape.h) * k)} "
                       f"{_num(shape.w * k)} {_num(shape.h * k)} re f")
        else:
            ops.append(f"BT /F1 {_num(shape.size * k)} Tf {_num(shape.x * k)} "
                       f"{_num((page.height - shape.y) * k)} Td {_pdf_text(shape.text)} Tj ET")
    return ("\n".join(ops) + "\n").encode("ascii")


def to_pdf(page: Page) -> bytes:
    """Returns the page as a one-page vector PDF whose MediaBox is the page size in points."""
    content = _pdf_content(page)
    box = f"[0 0 {_num(page.width * PT_PER_MM)} {_num(page.height * PT_PER_MM)}]"
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        (f"<< /Type /Page /Parent 2 0 R /MediaBox {box} /Resources << /Font << /F1 5 0 R >> >> "
         "/Contents 4 0 R >>").encode("ascii"),
        f"<< /Length {len(content)} >>\nstream\n".encode("ascii") + content + b"endstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        b"<< /Title " + _pdf_text(page.title).encode("ascii") + b" /Producer (blockref) >>",
    ]
    out, offsets = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n"), []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode("ascii") + body + b"\nendobj\n"
    start = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode("ascii")
    out += b"".join(f"{offset:010d} 00000 n \n".encode("ascii") for offset in offsets)
    out += (f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R /Info {len(objects)} 0 R >>\n"
            f"startxref\n{start}\n%%EOF\n").encode("ascii")
    return bytes(out)


def rasterise(page: Page, px_per_mm: float) -> Image:
    """Returns the page's rectangles drawn as a BGR image (text is left out)."""
    height, width = int(round(page.height * px_per_mm)), int(round(page.width * px_per_mm))
    image = np.full((height, width, 3), 255, np.uint8)
    for shape in page.shapes:
        if isinstance(shape, Rect):
            x0, x1 = (max(0, int(round(v * px_per_mm))) for v in (shape.x, shape.x + shape.w))
            y0, y1 = (max(0, int(round(v * px_per_mm))) for v in (shape.y, shape.y + shape.h))
            image[y0:y1, x0:x1] = shape.rgb[::-1]
    return image


def render(page: Page, path: str | Path) -> bytes:
    """Returns the page encoded for a file name: .svg or .pdf, or raises MatError."""
    suffix = Path(path).suffix.lower()
    if suffix == ".svg":
        return to_svg(page).encode("utf-8")
    if suffix == ".pdf":
        return to_pdf(page)
    raise MatError(f"cannot tell the format of {str(path)!r}: give a file name ending in "
                   ".svg or .pdf")


def write_page(page: Page, path: str | Path) -> None:
    """Writes the page to path as SVG or PDF by its extension, atomically, or raises MatError."""
    data = render(page, path)
    target = Path(path)
    if not target.parent.is_dir():
        raise MatError(f"cannot write {str(path)!r}: the folder {str(target.parent)!r} "
                       "does not exist")
    try:
        handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=".blockref-",
                                             suffix=target.suffix)
    except OSError as error:
        raise MatError(f"cannot write {str(path)!r}: {error.strerror or error}") from None
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(data)
        os.replace(temporary, target)
    except OSError as error:
        Path(temporary).unlink(missing_ok=True)
        raise MatError(f"cannot write {str(path)!r}: {error.strerror or error}") from None
