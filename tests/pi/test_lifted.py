"""Tests of lifted pieces through the frame loop: rendered moves where the hand holds the piece,
the pipeline's `on_lifted` reports and the LED frame they light (the legal destinations).

The observer is replaced by one that reads the true position of each frame (the pixel observers
have their own tests); the lift watch itself works on the rendered pixels.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from pi.appliance import LedPublisher
from pi.journal import Journal
from pi.leds.backends import SimulatedPanel
from pi.leds.layout import default_layout_for
from pi.leds.model import LEGAL, LIFTED, destinations, hex_colour
from pi.pipeline import Pipeline, Record
from pi.session import Session
from tests.vision.holding import ARENA_SETUP, SAMPLES, Film, Take, film
from vision.kit import kit_named


@dataclass
class Run:
    """What the frame loop did with a film: its records, its lifted reports with the LED cells
    shown just after each, and the session."""

    film: Film
    records: list[Record]
    lifted: list[tuple[Record, dict[str, Any]]]
    session: Session


def run(filmed: Film, journal: Path) -> Run:
    """Feeds a film to a pipeline whose lifted reports drive a simulated LED panel."""
    session = Session(Journal(journal))
    session.new_game(filmed.game.name, filmed.game.variant)
    for move in filmed.setup:
        session.play(move)
    kit = kit_named()
    panel = SimulatedPanel(default_layout_for(kit.mat(filmed.game.name, filmed.game.variant).cells))
    leds = LedPublisher(session, panel).attach()
    done = Run(filmed, [], [], session)

    def on_lifted(record: Record) -> None:
        leds.on_lifted(record)
        done.lifted.append((record, panel.frame.cell_map()))

    current = [0]
    pipeline = Pipeline(session, kit, done.records.append, on_lifted=on_lifted, observer=filmed.observer(current))
    for frame in filmed.frames:
        current[0] = frame.number
        pipeline.feed(frame)
    return done


@pytest.fixture(scope="module", params=sorted(SAMPLES))
def played(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Run:
    """Returns the frame loop's run over a film of each game's moves (rendered once)."""
    game, variant, setup, moves = SAMPLES[request.param]
    filmed = film(game, variant, setup, moves, seed=2)
    return run(filmed, tmp_path_factory.mktemp("lifted") / "journal.sqlite")


def reports_in(done: Run, take: Take) -> list[tuple[Record, dict[str, Any]]]:
    """Returns the lifted reports made during a take."""
    return [(record, cells) for record, cells in done.lifted if record["frame"] in take.frames]


def test_the_lifted_square_is_reported_while_the_piece_is_held(played: Run) -> None:
    for take in played.film.takes:
        if take.sources:
            reports = reports_in(played, take)
            assert reports, take
            first = reports[0][0]
            assert first["lifted"] in take.sources and first["frame"] in take.holding, take


def test_only_a_source_is_ever_reported_and_every_report_is_cleared(played: Run) -> None:
    for take in played.film.takes:
        squares = [record["lifted"] for record, _ in reports_in(played, take)]
        assert set(squares) - {None} <= set(take.sources), take
        assert not squares or squares[-1] is None


def test_nothing_is_reported_for_a_placement(played: Run) -> None:
    placements = [take for take in played.film.takes if not take.sources]
    for take in placements:
        assert reports_in(played, take) == []


def test_the_leds_show_the_lifted_square_and_its_legal_destinations(played: Run) -> None:
    game, state = played.film.game, played.film.game.play_all(list(played.film.setup))
    for take in played.film.takes:
        shown = [(record, cells) for record, cells in reports_in(played, take) if record["lifted"]]
        for record, cells in shown:
            reached = destinations(game, game.legal(state), record["lifted"])
            assert reached, take
            lit = {square: colour for square, colour in cells.items() if colour in (LIFTED, LEGAL)}
            assert lit == {record["lifted"]: LIFTED, **dict.fromkeys(reached, LEGAL)}
        state = game.apply(state, take.move)


def test_the_dashboard_gets_the_led_frame_of_each_lift(played: Run) -> None:
    published = [event.data["frame"]["cells"] for event in played.session.events.since(0) if event.type == "leds"]
    for record, _ in played.lifted:
        if record["lifted"]:
            assert any(cells.get(record["lifted"]) == hex_colour(LIFTED) for cells in published)


def test_lifting_never_changes_the_game(played: Run) -> None:
    moves = [record["move"] for record in played.records if "move" in record]
    assert moves == [take.move for take in played.film.takes]
    assert [record for record in played.records if "alert" in record] == []


@pytest.mark.parametrize("game, variant, setup, move", [
    ("block-pt", None, (), "e9-d9"),
    ("block-arena", "7x7", ARENA_SETUP, "c1-c2"),
])
def test_a_hand_resting_on_a_piece_without_lifting_it_reports_nothing(
        game: str, variant: str | None, setup: tuple[str, ...], move: str, tmp_path: Path) -> None:
    done = run(film(game, variant, setup, [move], seed=2, hold=4, feint=True), tmp_path / "journal.sqlite")
    assert done.lifted == []
    assert [record for record in done.records if "move" in record or "alert" in record] == []
