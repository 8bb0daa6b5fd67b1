"""`blockref run` and `blockref demo`: the frame loop with LEDs, buttons and the dashboard."""

from __future__ import annotations

import json
import logging
import signal
import sys
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import cv2
import numpy as np

from pi.camera.base import Frame, FrameSource
from pi.events import Event
from pi.journal import Journal
from pi.leds.backends import LedBackend, SimulatedPanel
from pi.leds.layout import default_layout_for
from pi.leds.errors import LedError
from pi.leds.listener import SETTLING_EVENTS, LedListener, Ticker
from pi.leds.model import destinations
from pi.pipeline import Pipeline, Record
from pi.session import Session
from rules import RulesError, get_game
from vision.board import BoardView
from vision.kit import Kit

log = logging.getLogger("blockref")
LED_EVENT = "leds"
LIFTED_EVENT = "lifted"
# Events the publisher sends itself: they change nothing the LEDs show.
OWN_EVENTS = frozenset({LED_EVENT, LIFTED_EVENT})
DEMO_PIN = "2468"


@dataclass
class Snapshot:
    """Keeps the newest camera frame as JPEG for the dashboard's set-up view."""

    jpeg: bytes | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def keep(self, frame: Frame, view: BoardView | None = None) -> None:
        """Encodes and keeps a good frame, with the detected grid drawn over it when known."""
        if frame.image is None:
            return
        image = frame.image if view is None else draw_grid(frame.image, view)
        ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 80])
        if ok:
            with self._lock:
                self.jpeg = data.tobytes()

    def __call__(self) -> bytes | None:
        with self._lock:
            return self.jpeg


GRID_BGR = (0, 200, 255)


def grid_lines(view: BoardView, steps: int = 8) -> list[np.ndarray]:
    """Returns the grid's lines as pixel polylines (several points each, so lens bending shows)."""
    cells, side = view.mat.cells, view.mat.side_mm
    ticks = np.linspace(0.0, side, steps + 1)
    lines = []
    for k in range(cells + 1):
        at = k * side / cells
        for points in (np.column_stack([np.full_like(ticks, at), ticks]),
                       np.column_stack([ticks, np.full_like(ticks, at)])):
            lines.append(np.round(view.to_image(points)).astype(np.int32))
    return lines


def draw_grid(image: np.ndarray, view: BoardView) -> np.ndarray:
    """Returns a copy of the frame with the detected grid drawn over it (for setting up)."""
    drawn = image.copy()
    cv2.polylines(drawn, grid_lines(view), False, GRID_BGR, 2, cv2.LINE_AA)
    return drawn


class LedPublisher:
    """Follows the session on an LED backend and publishes each simulated frame to the page,
    and the piece held up with its legal destinations (a "lifted" event, for any backend)."""

    def __init__(self, session: Session, backend: LedBackend) -> None:
        self.session = session
        self.backend = backend
        self.listener = LedListener(session, backend)
        self.lifted_sent: str | None = None
        self._last: str | None = None

    def attach(self) -> LedPublisher:
        """Subscribes to the session (ignoring its own events) and shows the current state."""
        self.session.events.subscribe(self._on_event)
        self.listener.refresh()
        self._publish()
        return self

    def _on_event(self, event: Event) -> None:
        """Updates the LEDs for a game event, then publishes the new LED frame; a move, undo or
        new game puts the lifted piece down (the page clears it on that event too)."""
        if event.type in OWN_EVENTS:
            return
        if event.type in SETTLING_EVENTS:
            self.lifted_sent = None
        self.listener.on_event(event)
        self._publish()

    def tick(self) -> None:
        """Advances flashing and publishes the frame if it changed."""
        self.listener.tick()
        self._publish()

    def on_lifted(self, record: Record) -> None:
        """Shows where the piece the camera sees held up may go (a pipeline's `on_lifted`
        record; a lifted of None: it was put down), then publishes the new LED frame and,
        when the lifted square changed, a "lifted" event."""
        self.listener.show_lifted(record)
        self._publish()
        self._publish_lifted()

    def _publish_lifted(self) -> None:
        """Publishes {"square", "to"} when the square the LEDs show lifted differs from the last
        one sent (the listener checked it is a square name)."""
        square = self.listener.lifted
        if square == self.lifted_sent:
            return
        self.lifted_sent = square
        to = lifted_destinations(self.session, square)
        self.session.events.publish(LIFTED_EVENT, {"square": square, "to": to})

    def _publish(self) -> None:
        """Publishes the simulated panel's JSON when it differs from the last one sent."""
        if not isinstance(self.backend, SimulatedPanel):
            return
        data = self.backend.as_json()
        text = json.dumps(data, sort_keys=True)
        if text != self._last:
            self._last = text
            self.session.events.publish(LED_EVENT, data)


def lifted_destinations(session: Session, square: str | None) -> list[str]:
    """Returns the squares the legal moves from a lifted square reach (none when put down)."""
    # One snapshot gives the game and its legal moves together, even if a new game starts.
    if square is None:
        return []
    snapshot = session.snapshot()
    try:
        game = get_game(snapshot["game"], snapshot["variant"])
        return list(destinations(game, snapshot["legal"], square))
    except (RulesError, LedError) as error:  # display only: never stop the frame loop
        log.warning("the lifted piece's destinations: %s", error)
        return []


def simulated_leds(session: Session, kit: Kit) -> LedPublisher:
    """Returns a simulated LED panel for the session's board, publishing to the dashboard."""
    cells = kit.mat(session.game.name, session.game.variant).cells
    return LedPublisher(session, SimulatedPanel(default_layout_for(cells))).attach()


def print_record(record: Record) -> None:
    """Prints a pipeline record as one JSON line."""
    print(json.dumps(record), flush=True)


def run_frames(pipeline: Pipeline, source: FrameSource, snapshot: Snapshot,
               events: dict[int, list[tuple[str, str]]], stop: threading.Event,
               alive: Callable[[], None] = lambda: None) -> None:
    """Feeds frames (and the events due at each) to the pipeline until the source ends or stop."""
    for frame in source:
        if stop.is_set():
            break
        for kind, value in events.pop(frame.number, []):
            if kind == "roll":
                pipeline.on_event(frame.number, kind, value)
        pipeline.feed(frame)
        snapshot.keep(frame, pipeline.view)
        if frame.image is not None:
            alive()
        for kind, value in events.get(frame.number, []):
            pipeline.on_event(frame.number, kind, value)
        events.pop(frame.number, None)


def stop_on_signals(stop: threading.Event) -> None:
    """Makes SIGINT and SIGTERM set the stop flag (main thread only)."""
    def handler(signum: int, _frame: Any) -> None:
        stop.set()

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, handler)
        signal.signal(signal.SIGTERM, handler)


def demo(directory: Path, host: str, port: int, exit_when_done: bool) -> int:
    """Replays a bundled recording in real time with simulated LEDs and the dashboard."""
    from pi.camera.recorded import RecordedSource
    from pi.config import hash_pin
    from pi.recording import load_recording
    from vision.kit import recorded_kit
    from web import WebSettings, create_app
    from web.server import DashboardServer

    recording = load_recording(directory)
    stop = threading.Event()
    stop_on_signals(stop)
    with tempfile.TemporaryDirectory(prefix="blockref-demo-") as scratch:
        session = Session(Journal(Path(scratch) / "journal.sqlite"))
        session.new_game(recording.game, recording.variant)
        kit = recorded_kit(recording.kit, recording.directory)
        leds = simulated_leds(session, kit)
        ticker = Ticker(leds.listener).start()
        snapshot = Snapshot()
        app = create_app(session, WebSettings(pin_hash=hash_pin(DEMO_PIN), snapshot=snapshot))
        server = DashboardServer(app, host, port).start()
        print(f"blockref demo: {recording.game} on {server.url} (controls PIN {DEMO_PIN}); "
              "Ctrl-C to stop", file=sys.stderr, flush=True)
        events: dict[int, list[tuple[str, str]]] = {}
        for event in recording.events:
            events.setdefault(event.frame, []).append((event.kind, event.value))
        pipeline = Pipeline(session, kit, print_record, on_lifted=leds.on_lifted)
        try:
            run_frames(pipeline, RecordedSource(recording.directory, realtime=True), snapshot, events, stop)
            outcome = session.game.outcome(session.state)
            print_record({"outcome": None if outcome is None else outcome.as_dict()})
            while not exit_when_done and not stop.wait(0.5):
                pass
        finally:
            ticker.stop()
            server.stop()
            session.journal.close()
    return 0


class ButtonQueue:
    """Turns button presses (from gpiozero's threads) into events the frame loop drains."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self._items: list[tuple[str, str]] = []
        self._lock = threading.Lock()

    def _push(self, kind: str, value: str) -> None:
        with self._lock:
            self._items.append((kind, value))

    def drain(self) -> list[tuple[str, str]]:
        """Returns and forgets the presses queued so far."""
        with self._lock:
            items, self._items = self._items, []
        return items

    def on_done(self, player: int) -> None:
        """Queues a done press (only the player to move may end the turn)."""
        if self.session.game.to_move(self.session.state) == player:
            self._push("button", "done")

    def on_confirm(self) -> None:
        """Queues the confirmation of the first pending candidate."""
        if self.session.pending:
            self._push("confirm", self.session.pending[0])

    def on_undo(self) -> None:
        """Queues an undo."""
        self._push("button", "undo")

    def on_roll(self, text: str) -> None:
        """Queues an electronic dice roll."""
        self._push("roll", text)


def resume_or_start(session: Session, game: str, variant: str | None) -> int:
    """Resumes the journal's unfinished game (returns its last frame) or starts a new one."""
    if session.resume():
        record = session.journal.unfinished()
        frames = [e.frame for e in record.entries if e.frame is not None] if record else []
        return max(frames, default=0)
    session.new_game(game, variant)
    return 0


def run(config_file: str | None) -> int:
    """Runs the appliance from a config file until SIGTERM/SIGINT or the camera ends."""
    from pi.buttons import open_buttons
    from pi.camera import open_camera
    from pi.config import load_config
    from pi.leds.auto import open_backend
    from pi.leds.layout import load_layout, with_limits
    from pi.watchdog import Notifier
    from vision.board import Calibration
    from vision.kit import kit_from
    from web import WebSettings, create_app
    from web.server import DashboardServer

    config = load_config(config_file)
    kit = kit_from(config.vision.kit)  # read before the journal is touched: a bad file changes nothing
    calibration = None if config.vision.calibration is None else Calibration.load(config.vision.calibration)
    name = "block-arena" if config.game.name == "auto" else config.game.name
    config.journal.path.parent.mkdir(parents=True, exist_ok=True)
    session = Session(Journal(config.journal.path))
    resumed_after = resume_or_start(session, name, config.game.variant)
    cells = kit.mat(session.game.name, session.game.variant).cells
    layout = default_layout_for(cells) if config.leds.layout == "auto" else load_layout(config.leds.layout)
    layout = with_limits(layout, config.leds.brightness, config.leds.milliamps)
    leds = LedPublisher(session, open_backend(config.leds.backend, layout)).attach()
    queue = ButtonQueue(session)
    buttons = open_buttons(config.buttons, queue, lambda: session.game.to_move(session.state))
    snapshot = Snapshot()
    server = DashboardServer(create_app(session, WebSettings(pin_hash=config.web.pin, snapshot=snapshot)),
                             config.web.host, config.web.port).start()
    stop = threading.Event()
    stop_on_signals(stop)
    notifier = Notifier()
    pipeline = Pipeline(session, kit, print_record, on_lifted=leds.on_lifted, calibration=calibration)
    try:
        with open_camera(config.camera) as source:
            notifier.ready()
            for frame in source:
                if stop.is_set():
                    break
                if frame.number <= resumed_after and config.camera.source == "recorded":
                    continue
                for kind, value in queue.drain():
                    pipeline.on_event(frame.number, kind, value)
                pipeline.feed(frame)
                snapshot.keep(frame, pipeline.view)
                if frame.image is not None:
                    notifier.alive()
    finally:
        buttons.close()
        leds.backend.close()
        server.stop()
        session.journal.close()
    return 0
