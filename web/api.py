"""The JSON API: the state, the camera snapshot, and the controls (new, undo, confirm, roll)."""

from __future__ import annotations

from flask import Blueprint, Response, jsonify

from pi.session import SessionError
from rules import RulesError
from rules.registry import all_games
from web.context import ApiError, dashboard, read_fields, text_field

bp = Blueprint("api", __name__, url_prefix="/api")


def done() -> Response:
    """Returns the answer to a control that worked: ok and the new state."""
    return jsonify(ok=True, state=dashboard().view.current())


@bp.errorhandler(RulesError)
@bp.errorhandler(SessionError)
def refused(error: Exception) -> tuple[Response, int]:
    """Answers a control the referee or the session refused: 400 with its message."""
    return jsonify(error=str(error)), 400


@bp.get("/state")
def state() -> Response:
    """Returns the current state: snapshot, board, last move, hints, LED frame."""
    return jsonify(dashboard().view.current())


@bp.get("/games")
def games() -> Response:
    """Returns the games a new game may be, each with its variants (first is the default)."""
    listed: dict[str, list[str]] = {}
    for game in all_games():
        listed.setdefault(game.name, [])
        if game.variant is not None:
            listed[game.name].append(game.variant)
    return jsonify(games=[{"name": name, "variants": variants} for name, variants in listed.items()])


@bp.get("/snapshot.jpg")
def snapshot() -> Response:
    """Returns the latest camera image, or 404 when there is none."""
    source = dashboard().settings.snapshot
    if source is None:
        raise ApiError(404, "no camera snapshot is available")
    try:
        image = source()
    except Exception as error:  # the camera is outside our control: report, do not crash
        raise ApiError(503, f"the camera snapshot failed: {error}") from None
    if not image:
        raise ApiError(404, "no camera snapshot is available")
    return Response(bytes(image), mimetype="image/jpeg", headers={"Cache-Control": "no-store"})


@bp.post("/new")
def new_game() -> Response:
    """Starts a new game: {"game": name, "variant": name or null}."""
    fields = read_fields(("game",), ("variant",))
    assert fields["game"] is not None
    dashboard().session.new_game(fields["game"], fields["variant"])
    return done()


@bp.post("/undo")
def undo() -> Response:
    """Takes back the last accepted move (the body is empty or {})."""
    read_fields(())
    dashboard().session.undo()
    return done()


@bp.post("/confirm")
def confirm() -> Response:
    """Plays the chosen reading of an ambiguous move (or a correction): {"move": text}."""
    dashboard().session.confirm(text_field("move"))
    return done()


@bp.post("/roll")
def roll() -> Response:
    """Plays a Blockade roll entered by the players: {"roll": "roll:b4g5"}."""
    value = text_field("roll")
    if not value.startswith("roll:"):
        raise ApiError(400, "a roll is written like roll:b4g5 (cool) or roll:r2y3 (warm)")
    dashboard().session.play(value)
    return done()
