"""Tests of the printable kit: SVG and PDF mats and sticker sheets, and `blockref mat`."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import cv2
import numpy as np
import pytest

from pi.cli import main
from vision.kit import Mat, board_to_page, kit_named
from vision.mat import PT_PER_MM, Rect, mat_page, rasterise, sticker_page, to_pdf, to_svg

KIT = kit_named()
SVG = "{http://www.w3.org/2000/svg}"


def dictionary_cells(marker_id: int) -> np.ndarray:
    """Returns a marker's 6x6 cells (True = black) straight from OpenCV's dictionary bytes."""
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    bits = cv2.aruco.Dictionary.getBitsFromByteList(dictionary.bytesList[marker_id:marker_id + 1], 4)
    cells = np.ones((6, 6), bool)
    cells[1:5, 1:5] = np.asarray(bits) == 0
    return cells


def svg_rects(group: ET.Element) -> list[tuple[float, float, float, float, str]]:
    """Returns a group's rectangles as (x, y, width, height, fill)."""
    rects = []
    for rect in group.iter(SVG + "rect"):
        x, y, w, h = (float(rect.get(key, 0)) for key in ("x", "y", "width", "height"))
        rects.append((x, y, w, h, str(rect.get("fill"))))
    return rects


def cells_of(rects: list[tuple[float, float, float, float, str]], x: float, y: float,
             cell: float) -> np.ndarray:
    """Returns the 6x6 cells painted black at cell centres, later rectangles over earlier ones."""
    cells = np.zeros((6, 6), bool)
    for row in range(6):
        for col in range(6):
            px, py = x + (col + 0.5) * cell, y + (row + 0.5) * cell
            for rx, ry, rw, rh, fill in rects:
                if rx <= px <= rx + rw and ry <= py <= ry + rh:
                    cells[row, col] = fill == "#000000"
    return cells


@pytest.mark.parametrize("mat", KIT.mats, ids=lambda mat: mat.label)
def test_the_svg_mat_has_true_size_and_the_right_marker_cells(mat: Mat) -> None:
    root = ET.fromstring(to_svg(mat_page(KIT, mat)))
    side = KIT.page_side_mm(mat)
    assert root.get("width") == f"{side:g}mm" and root.get("height") == f"{side:g}mm"
    assert root.get("viewBox") == f"0 0 {side:g} {side:g}"
    groups = {g.get("id"): g for g in root.iter(SVG + "g")}
    assert svg_rects(groups["mat"]) == [(0, 0, side, side, "#ebe8e1")]
    page = board_to_page(mat, 1.0, KIT.mat_margin_mm, pixel_centres=False)
    for marker_id, (x, y) in KIT.marker_origins(mat).items():
        group = groups[f"marker-{marker_id}"]
        assert group.get("data-aruco-id") == str(marker_id)
        left, top, _ = page @ np.array([x, y + 30, 1.0])
        rects = svg_rects(group)
        assert rects[0] == pytest.approx((left - 5, top - 5, 40, 40, "#ffffff"))
        assert np.array_equal(cells_of(rects, left, top, 5.0), dictionary_cells(marker_id))
    grid = svg_rects(groups["grid"])
    assert len(grid) == 2 * (mat.cells + 1)
    assert all(r[4] == "#969696" and min(r[2], r[3]) == 1 for r in grid)
    texts = " ".join(t.text or "" for t in root.iter(SVG + "text"))
    assert mat.label in texts and "50 mm" in texts


@pytest.mark.parametrize("mat", [KIT.mat("block-arena", "7x7"), KIT.mat("tuned")],
                         ids=lambda mat: mat.label)
def test_the_drawn_mat_is_read_by_opencv_with_markers_upright(mat: Mat) -> None:
    scale = 4.0
    image = rasterise(mat_page(KIT, mat), scale)
    detector = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50))
    corners, ids, _ = detector.detectMarkers(image)
    found = {int(i): c.reshape(4, 2) for i, c in zip(ids.ravel(), corners)}
    expected = KIT.marker_corners(mat)
    assert sorted(found) == sorted(expected)
    page = board_to_page(mat, scale, KIT.mat_margin_mm, pixel_centres=True)
    for marker_id, board in expected.items():
        pixels = (page @ np.column_stack([board, np.ones(4)]).T).T[:, :2]
        assert np.abs(found[marker_id] - pixels).max() < 1.0  # same corner order: printed upright


def test_the_sticker_sheet_is_a4_with_every_marker_and_its_cut_marks() -> None:
    mat = KIT.mat("blockade")
    page = sticker_page(KIT, mat)
    root = ET.fromstring(to_svg(page))
    assert (root.get("width"), root.get("height")) == ("210mm", "297mm")
    groups = [g.get("id") for g in root.iter(SVG + "g")]
    markers = [g for g in groups if g and g.startswith("marker-")]
    assert markers == ["marker-0", "marker-1", "marker-2", "marker-3", "marker-13"]
    cuts = [shape for shape in page.shapes if isinstance(shape, Rect) and shape.group == "cut"]
    assert len(cuts) == 5 * 8
    zones = [shape for shape in page.shapes if isinstance(shape, Rect) and shape.w == shape.h == 40]
    for zone, marks in zip(zones, [cuts[i:i + 8] for i in range(0, 40, 8)]):
        xs, ys = (zone.x, zone.x + 40), (zone.y, zone.y + 40)
        for mark in marks:  # in line with an edge of the white square, outside it
            across = mark.w > mark.h
            middle = mark.y + mark.h / 2 if across else mark.x + mark.w / 2
            assert min(abs(middle - edge) for edge in (ys if across else xs)) < 1e-9
            start, end = (mark.x, mark.x + mark.w) if across else (mark.y, mark.y + mark.h)
            low, high = xs if across else ys
            assert end <= low - 1 or start >= high + 1
    image = rasterise(page, 8.0)
    detector = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50))
    _, ids, _ = detector.detectMarkers(image)
    assert sorted(ids.ravel().tolist()) == [0, 1, 2, 3, 13]
    texts = " ".join(t.text or "" for t in root.iter(SVG + "text"))
    assert "beyond e5's outer corner" in texts and "8 mm from the grid corner" in texts


def pdf_objects(data: bytes) -> dict[int, int]:
    """Returns the object offsets listed in a PDF's xref table, after checking its framing."""
    start = int(re.search(rb"startxref\n(\d+)\n%%EOF\n$", data).group(1))  # type: ignore[union-attr]
    assert data[start:start + 5] == b"xref\n"
    header = re.match(rb"xref\n0 (\d+)\n", data[start:])
    assert header is not None
    count = int(header.group(1))
    table = data[start + header.end():start + header.end() + 20 * count]
    entries = [table[i:i + 20] for i in range(0, len(table), 20)]
    assert entries[0] == b"0000000000 65535 f \n"
    assert all(re.fullmatch(rb"\d{10} 00000 n \n", entry) for entry in entries[1:])
    assert f"/Size {count}".encode() in data[start:]
    return {number: int(entry[:10]) for number, entry in enumerate(entries) if number}


@pytest.mark.parametrize("stickers", [False, True])
def test_the_pdf_has_a_correct_xref_table_and_media_box(stickers: bool) -> None:
    mat = KIT.mat("block-arena", "9x9")
    page = sticker_page(KIT, mat) if stickers else mat_page(KIT, mat)
    data = to_pdf(page)
    assert data.startswith(b"%PDF-1.4\n")
    offsets = pdf_objects(data)
    for number, offset in offsets.items():
        assert data[offset:].startswith(f"{number} 0 obj\n".encode())
    width, height = (398.0, 398.0) if not stickers else (210.0, 297.0)
    box = re.search(rb"/MediaBox \[0 0 ([\d.]+) ([\d.]+)\]", data)
    assert box is not None
    assert float(box.group(1)) == pytest.approx(width * 72 / 25.4, abs=0.001)
    assert float(box.group(2)) == pytest.approx(height * PT_PER_MM, abs=0.001)
    stream = re.search(rb"<< /Length (\d+) >>\nstream\n(.*?)endstream", data, re.S)
    assert stream is not None and int(stream.group(1)) == len(stream.group(2))
    rects = [shape for shape in page.shapes if isinstance(shape, Rect)]
    assert stream.group(2).count(b" re f\n") == len(rects)


def test_pdf_text_is_escaped() -> None:
    page = mat_page(KIT, KIT.mat("tuned"))
    page = type(page)(page.width, page.height, "odd (title) \\ here", page.shapes)
    assert b"/Title (odd \\(title\\) \\\\ here)" in to_pdf(page)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """Runs the command line in-process and returns status, stdout and stderr."""
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.mark.parametrize("name,extra", [("tuned.svg", []), ("blockade.pdf", []),
                                        ("stickers.pdf", ["--stickers"]),
                                        ("block.SVG", ["--variant", "default"])])
def test_blockref_mat_writes_the_file_its_extension_names(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, extra: list[str]) -> None:
    games = {"tuned.svg": "tuned", "blockade.pdf": "blockade", "stickers.pdf": "tuned",
             "block.SVG": "block-block"}
    game = games[name]
    out = tmp_path / name
    status, stdout, err = run(capsys, "mat", game, "--out", str(out), *extra)
    assert status == 0 and err == "" and str(out) in stdout
    data = out.read_bytes()
    if name.lower().endswith(".svg"):
        assert ET.fromstring(data).tag == SVG + "svg"
    else:
        assert data.startswith(b"%PDF") and pdf_objects(data)
    assert [path.name for path in tmp_path.iterdir()] == [name]


@pytest.mark.parametrize("argv,words", [
    (["mat", "tuned", "--out", "{tmp}/x.png"], "ending in .svg or .pdf"),
    (["mat", "chess", "--out", "{tmp}/x.svg"], "unknown game 'chess'"),
    (["mat", "block-block", "--variant", "huge", "--out", "{tmp}/x.svg"], "no variant 'huge'"),
    (["mat", "tuned", "--out", "{tmp}/missing/x.svg"], "does not exist"),
    (["mat", "tuned", "--out", "{tmp}/x.svg", "--kit", "{tmp}/none.toml"], "cannot be read"),
    (["mat", "tuned"], "--out"),
])
def test_blockref_mat_refuses_bad_input_with_one_sentence_and_writes_nothing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], words: str) -> None:
    status, out, err = run(capsys, *[arg.format(tmp=tmp_path) for arg in argv])
    assert status == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and words in err
    assert list(tmp_path.iterdir()) == []


def test_blockref_mat_has_help(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["mat", "--help"])
    assert done.value.code == 0 and "--stickers" in capsys.readouterr().out
