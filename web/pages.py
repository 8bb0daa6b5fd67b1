"""The two pages: the live dashboard with controls, and the read-only spectator view."""

from __future__ import annotations

from flask import Blueprint, render_template

bp = Blueprint("pages", __name__)


@bp.get("/")
def live() -> str:
    """Returns the live page: board, state, alerts and (after the PIN) the controls."""
    return render_template("dashboard.html", mode="live")


@bp.get("/spectate")
def spectate() -> str:
    """Returns the read-only page: the same view without any control."""
    return render_template("dashboard.html", mode="spectate")
