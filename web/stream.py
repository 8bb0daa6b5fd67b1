"""GET /events: Server-Sent Events, resumable by event id, one JSON data line per event."""

from __future__ import annotations

import json
import re
from typing import Any, Iterator

from flask import Blueprint, Response, request

from pi.events import Event
from web.context import ApiError, Dashboard, Lease, dashboard

bp = Blueprint("stream", __name__)

EVENT_ID = re.compile(r"[0-9]{1,12}")
HELLO = ": hello\nretry: 3000\n\n"
KEEPALIVE = ": keepalive\n\n"


def frame(event_id: int, data: dict[str, Any]) -> str:
    """Returns one SSE message: its id and one line of JSON."""
    return f"id: {event_id}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"


def state_frame(dash: Dashboard) -> tuple[int, str]:
    """Returns the id the whole-state event stands at and that event as an SSE message."""
    data = dash.view.current()
    event_id: int = data["event_id"]
    return event_id, frame(event_id, {"id": event_id, "type": "state", **data})


def missed_some(dash: Dashboard, cursor: int, events: list[Event]) -> bool:
    """Tells whether events after the cursor were dropped from the ring (or ids restarted)."""
    first = events[0].id if events else dash.session.events.last_id + 1
    return first > cursor + 1 or cursor > dash.session.events.last_id


def catch_up(dash: Dashboard, cursor: int | None, events: list[Event]) -> tuple[int, str]:
    """Returns the new cursor and the messages bringing a client at the cursor up to date."""
    if cursor is None or missed_some(dash, cursor, events):
        return state_frame(dash)
    if not events:
        return cursor, ""
    return events[-1].id, "".join(frame(event.id, event.as_dict()) for event in events)


def resume_from() -> int | None:
    """Returns the event id the client last saw (Last-Event-ID or ?last=), if it sent one."""
    sent = request.headers.get("Last-Event-ID") or request.args.get("last")
    if sent is None or sent == "":
        return None
    if not EVENT_ID.fullmatch(sent):
        raise ApiError(400, "the last event id must be a whole number")
    return int(sent)


def messages(dash: Dashboard, cursor: int | None, lease: Lease) -> Iterator[str]:
    """Yields the hello, the catch-up, then each new event or a keepalive until the log closes."""
    log = dash.session.events
    try:
        yield HELLO
        cursor, text = catch_up(dash, cursor, [] if cursor is None else log.since(cursor))
        if text:
            yield text
        while not log.closed:
            events = log.wait_since(cursor, dash.settings.keepalive_s)
            if log.closed:
                break
            cursor, text = catch_up(dash, cursor, events)
            yield text or KEEPALIVE
    finally:
        lease.release()


@bp.get("/events")
def events() -> Response:
    """Streams the session's events to one browser."""
    dash = dashboard()
    cursor = resume_from()
    if dash.session.events.closed:
        raise ApiError(503, "the dashboard is shutting down")
    lease = dash.streams.take()
    if lease is None:
        raise ApiError(503, "too many live viewers; try again later")
    response = Response(messages(dash, cursor, lease), mimetype="text/event-stream")
    response.headers["Cache-Control"] = "no-store"
    response.headers["X-Accel-Buffering"] = "no"
    response.call_on_close(lease.release)
    return response
