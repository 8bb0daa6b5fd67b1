"""Replays a recorded game directory through the same pipeline as the appliance."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any, Callable

from pi.camera.recorded import RecordedSource
from pi.events import EventLog
from pi.journal import Journal
from pi.leds.backends import SimulatedPanel
from pi.leds.layout import default_layout_for
from pi.leds.listener import LedListener
from pi.pipeline import Pipeline, Record
from pi.recording import Recording, load_recording
from pi.session import Session
from vision.board import Calibration
from vision.kit import Kit, recorded_kit


def open_session(recording: Recording, journal_path: Path, events: EventLog | None = None) -> Session:
    """Returns a session on a journal with the recording's game started."""
    session = Session(Journal(journal_path), events)
    session.new_game(recording.game, recording.variant)
    return session


def attach_leds(session: Session, kit: Kit) -> LedListener:
    """Returns a simulated LED panel following the session (the LED frames of the pipeline)."""
    cells = kit.mat(session.game.name, session.game.variant).cells
    panel = SimulatedPanel(default_layout_for(cells))
    return LedListener(session, panel).attach()


def drive(pipeline: Pipeline, recording: Recording, source: RecordedSource) -> None:
    """Feeds every frame and event of a recording to the pipeline, in frame order, then ends the
    frames (the last move is read if the recording ends on a scene settling: Pipeline.finish)."""
    events = list(recording.events)
    for frame in source:
        while events and events[0].frame <= frame.number and events[0].kind == "roll":
            event = events.pop(0)
            pipeline.on_event(event.frame, event.kind, event.value)
        pipeline.feed(frame)
        while events and events[0].frame <= frame.number:
            event = events.pop(0)
            pipeline.on_event(event.frame, event.kind, event.value)
    for event in events:
        pipeline.on_event(event.frame, event.kind, event.value)
    pipeline.finish()


def replay(directory: str | Path, sink: Callable[[Record], None],
           session_hook: Callable[[Session], Any] | None = None, realtime: bool = False,
           calibration: Calibration | None = None) -> Session:
    """Runs a recorded game through the pipeline, sending each accepted move and alert to sink,
    then the outcome; returns the session (journal in a temporary directory unless hooked;
    calibration: the lens's, as the appliance's config gives it)."""
    recording = load_recording(directory)
    kit = recorded_kit(recording.kit, recording.directory)
    source = RecordedSource(recording.directory, realtime=realtime)
    with tempfile.TemporaryDirectory(prefix="blockref-replay-") as scratch:
        session = open_session(recording, Path(scratch) / "journal.sqlite")
        if session_hook is not None:
            session_hook(session)
        leds = attach_leds(session, kit)
        pipeline = Pipeline(session, kit, sink, on_lifted=leds.show_lifted, calibration=calibration)
        drive(pipeline, recording, source)
        outcome = session.game.outcome(session.state)
        sink({"outcome": None if outcome is None else outcome.as_dict()})
        session.journal.close()
    return session
