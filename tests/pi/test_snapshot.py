"""The dashboard's camera snapshot shows the detected grid over the frame."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from pi.appliance import Snapshot, draw_grid
from pi.camera.base import Frame
from pi.camera.recorded import RecordedSource
from vision.board import BoardTracker
from vision.kit import kit_named

FIXTURE = Path(__file__).resolve().parent.parent.parent / "fixtures" / "tuned-neutral"


def first_frame_and_view() -> tuple[Frame, object]:
    """Returns the fixture's first frame and its board fix."""
    frame = next(iter(RecordedSource(FIXTURE)))
    assert frame.image is not None
    fix = BoardTracker(kit_named()).update(frame.image)
    return frame, fix.view


def test_grid_is_drawn_on_the_grid_corners() -> None:
    frame, view = first_frame_and_view()
    assert frame.image is not None and view is not None
    drawn = draw_grid(frame.image, view)  # type: ignore[arg-type]
    corner = np.round(view.grid_corners()[0]).astype(int)  # type: ignore[attr-defined]
    x, y = int(corner[0]), int(corner[1])
    patch = drawn[y - 1:y + 2, x - 1:x + 2].reshape(-1, 3)
    assert any(abs(int(b) - 0) < 40 and int(g) > 150 and int(r) > 200 for b, g, r in patch)
    assert not np.array_equal(drawn, frame.image)


def test_snapshot_keeps_a_jpeg_with_the_grid() -> None:
    frame, view = first_frame_and_view()
    snapshot = Snapshot()
    assert snapshot() is None
    snapshot.keep(frame, view)  # type: ignore[arg-type]
    data = snapshot()
    assert data is not None and data[:2] == b"\xff\xd8"
    decoded = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    assert decoded.shape == frame.image.shape  # type: ignore[union-attr]


def test_a_bad_frame_keeps_the_last_good_snapshot() -> None:
    frame, _ = first_frame_and_view()
    snapshot = Snapshot()
    snapshot.keep(frame)
    kept = snapshot()
    snapshot.keep(Frame(2, 100.0, None, "corrupt"))
    assert snapshot() == kept
