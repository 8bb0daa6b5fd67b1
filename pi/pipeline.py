"""The frame loop shared by `blockref run`, `replay` and `demo`: camera to referee to session.

Per frame: a bad frame or a lost board is a status (an alert when it changes), never a move; the
board fix feeds the scene gate on the rectified board region; when the scene becomes still after a
change (or a `done` arrives, or a recording ends: `finish`), the observer reads every cell and the
referee's inference explains the change with legal moves, which the session checks, journals and
publishes. The inference runs on a belief (vision/belief.py, kept in step by pi/beliefs.py): when
moves look alike it keeps them all and reports one; when a later observation shows another was
played, the reported moves are taken back (journalled undos) and that one's moves played as
corrections.
In the records a rewind shows only as a `move` whose `ply` is not one more than the last: the
move list is always the moves up to `ply` - 1, then that move.
Events the camera cannot see (a Blockade roll, a `done` button) come in through `on_event`.
While the board is not still, a LiftWatch looks for a piece held up by the player to move and
sends `{"frame", "lifted": square or None}` to `on_lifted` when that changes (display only: the
LEDs show where it may go; it never changes the game).
"""

from __future__ import annotations

import copy
import importlib
import logging
from dataclasses import dataclass, field, replace
from types import ModuleType
from typing import Any, Callable, Protocol, Sequence

from pi.beliefs import BeliefKeeper
from pi.camera.base import Frame
from pi.session import Session
from rules import RulesError
from vision.belief import Belief, run_start
from vision.board import BoardFix, BoardTracker, BoardView, Calibration, VisionError
from vision.expect import expected_view
from vision.gate import GateState, SceneGate, StillEvent
from vision.infer import Reading, either, stale_misreads
from vision.kit import Kit
from vision.lifted import LiftWatch
from vision.observation import Observation
from vision.observe.context import ObserveError, Scene, prepare
from vision.pose import CameraPlace, PoseError, lens_pinned, locate_camera
from vision.sight import view_of

GATE_PX_PER_MM = 0.4  # with the 140 mm margin, about as many pixels as 0.5 gave with 80 mm
GATE_MARGIN_MM = 140.0  # past the furthest a tall edge piece leans (8 cubes under the lowest, most tilted camera)
OBSERVER_MODULES = {"block-arena": "block_arena", "block-pt": "block_pt", "tuned": "tuned",
                    "blockade": "blockade", "block-block": "block_block"}
END_MOVES = {"blockade": "end"}
SECOND_LOOKS = "read again under each of these moves, the board shows every one of them"
log = logging.getLogger("blockref")


class Observer(Protocol):
    """Reads a prepared still frame into an Observation, given the referee's current position."""

    def __call__(self, scene: Scene, board: dict[str, Any], memory: Any) -> Observation: ...


def observer_for(game: str, kit: Kit) -> tuple[Observer, Any]:
    """Returns the pixel observer of a game (imported on first use) and a fresh memory for it."""
    module = observer_module(game)
    observe: Observer = module.observe
    return observe, module.new_memory(kit)


def observer_module(game: str) -> ModuleType:
    """Returns a game's observer module (imported on first use), or raises ObserveError."""
    try:
        return importlib.import_module(f"vision.observe.{OBSERVER_MODULES[game]}")
    except ModuleNotFoundError:
        raise ObserveError(f"the camera cannot read {game} yet: it has no pixel observer") from None


class Anticipator(Protocol):
    """Readies an observer's memory to read a board fix under a new position; tells whether it could."""

    def __call__(self, scene: Scene, board: dict[str, Any], memory: Any) -> bool: ...


def second_look_for(game: str) -> bool:
    """Tells whether a game's observer reads a still frame under a trial position fairly enough
    for a second look (its module's SECOND_LOOK): not where it takes the hidden pieces from the
    position it is given."""
    return bool(getattr(observer_module(game), "SECOND_LOOK", False))


def second_look_asks_for(game: str) -> bool:
    """Tells whether a game's observer reads trial positions fairly enough to settle a question
    with a second look too (its module's SECOND_LOOK_ASKS): not where a question is about what
    it cannot see well, so that a look under a candidate only leans to that candidate."""
    return bool(getattr(observer_module(game), "SECOND_LOOK_ASKS", False))


def lens_from_markers_for(game: str) -> bool:
    """Tells whether a game's board fix, without a lens calibration, corrects the distortion the
    markers tell (vision.radial; its observer module's LENS_FROM_MARKERS, True unless it says so)."""
    return bool(getattr(observer_module(game), "LENS_FROM_MARKERS", True))


def lens_needs_focal_for(game: str) -> bool:
    """Tells whether a game's board fix keeps the distortion the markers tell only where they pin
    it down or the homography through it tells the focal length too (vision.pose.lens_pinned; its
    observer module's LENS_NEEDS_FOCAL, False unless it says so)."""
    return bool(getattr(observer_module(game), "LENS_NEEDS_FOCAL", False))


def tracker_for(kit: Kit, game: str, variant: str | None, calibration: Calibration | None = None) -> BoardTracker:
    """Returns a board tracker for a game's mat that corrects the distortion the markers tell
    where the game's observer takes it (lens_from_markers_for, lens_needs_focal_for) and no
    calibration is given."""
    return BoardTracker(kit, kit.mat(game, variant), calibration, estimate_lens=lens_from_markers_for(game),
                        lens_kept=lens_pinned if lens_needs_focal_for(game) else None)


def anticipator_for(game: str) -> Anticipator | None:
    """Returns a game's observer's `anticipate` (vision.observe.reading.anticipate), if it has one."""
    found: Anticipator | None = getattr(observer_module(game), "anticipate", None)
    return found


Record = dict[str, Any]
Board = dict[str, Any]  # a position in the board format (rules' `board`)
Look = tuple[Observation, Reading, Belief]  # a second look at a still scene: what it saw, read, led to
Sink = Callable[[Record], None]


@dataclass
class Pipeline:
    """Turns frames and events into accepted moves and alerts on a session (see module doc)."""

    session: Session
    kit: Kit
    sink: Sink = field(default=lambda record: None)
    on_lifted: Sink = field(default=lambda record: None)
    observer: Observer | None = None
    anticipator: Anticipator | None = None
    second_look: bool = True  # an illegal reading gets a second look (see _second_look)
    second_look_asks: bool = False  # so does a question
    calibration: Calibration | None = None  # the lens's, when given: the board tracker undistorts with it
    tracker: BoardTracker | None = None
    gate: SceneGate = field(default_factory=SceneGate)
    memory: Any = None
    trouble: str = ""
    last_frame: Frame | None = None
    view: BoardView | None = None
    lifts: LiftWatch | None = None
    _place: tuple[int, CameraPlace] | None = None
    _game_key: tuple[str, str | None] | None = None
    _still: Scene | None = None  # the last still scene read, to anticipate the next position on
    _anticipated: object = None  # the session state last read or anticipated
    _settled: object = None  # the session state a still scene was read into (a move or no change),
    # while the scene has stayed still since: a `done` then has nothing new to read
    beliefs: BeliefKeeper = field(init=False)

    def __post_init__(self) -> None:
        self._follow_game(keep_observer=self.observer is not None)
        self.beliefs = BeliefKeeper(self.session)

    @property
    def belief(self) -> Belief:
        """Returns the belief over the session's game (in step with the session)."""
        return self.beliefs.current()

    def _follow_game(self, keep_observer: bool = False) -> None:
        """Sets up the board tracker, gate, observer and memory for the session's game."""
        game = self.session.game
        self._game_key = game.key
        self.tracker = tracker_for(self.kit, game.name, game.variant, self.calibration)
        self.gate = SceneGate()
        self.lifts = LiftWatch(self.kit)
        self.view, self.last_frame, self._place, self._still, self._settled = None, None, None, None, None
        if not keep_observer:
            self.observer, self.memory = observer_for(game.name, self.kit)
            self.anticipator = anticipator_for(game.name)
            self.second_look = second_look_for(game.name)
            self.second_look_asks = second_look_asks_for(game.name)

    # -- frames --------------------------------------------------------------------------

    def feed(self, frame: Frame) -> None:
        """Takes one camera frame: status, board fix, gate, and a reading when still."""
        if self.session.game.key != self._game_key:
            self._follow_game()
        if frame.image is None:
            self._report_trouble(frame.number, "camera", f"camera: {frame.status}")
            return
        assert self.tracker is not None
        try:
            fix = self.tracker.update(frame.image)
        except VisionError as error:  # a frame the lens calibration does not fit (another aspect ratio)
            self._report_trouble(frame.number, "board", f"board not found: {error}")
            return
        if fix.view is None:
            self._report_trouble(frame.number, "board", f"board not found: {fix.message}")
            return
        self._clear_trouble()
        before = (self.last_frame, self.view)
        self.last_frame, self.view = frame, fix.view
        region = fix.view.rectify(frame.image, GATE_PX_PER_MM, GATE_MARGIN_MM)
        self.gate.beyond = GATE_MARGIN_MM / (fix.view.mat.side_mm + 2 * GATE_MARGIN_MM)
        self.gate.update(region, frame.t_ms)
        self._watch_lifts(frame, fix)
        event = self.gate.event
        if event is not None and event.late:  # the frame before was still; motion began on this one
            if before[0] is not None and before[1] is not None:
                self._read(before[0].number, event, before)
        elif event is not None:  # a still after motion: the gate's change flag misses low-contrast pieces
            self._read(frame.number, event)
        else:
            self._anticipate()
        if self.gate.state is not GateState.STILL:
            self._settled = None

    def _anticipate(self) -> None:
        """Readies the observer, on a frame that reads nothing (the hand's trip), to read the next
        still frame under the position the session now holds: once per position."""
        state = self.session.state
        if self.anticipator is None or self._still is None or state is self._anticipated:
            return
        self._anticipated = state
        if self.session.game.outcome(state) is not None:
            return
        try:
            self.anticipator(self._still, self.session.game.board(state), self.memory)
        except Exception as error:  # only a saving: a fault there costs the next reading its speed
            log.warning("the observer could not anticipate the position: %r", error)

    def _watch_lifts(self, frame: Frame, fix: BoardFix) -> None:
        """Keeps still frames for the lift watch and asks it about the others (markers in view);
        reports the lifted square when it changes."""
        assert self.lifts is not None and frame.image is not None and fix.view is not None
        before = self.lifts.square
        if self.gate.state is GateState.STILL:
            self.lifts.rest(frame.image, fix.view, frame.t_ms)
        elif fix.ok:
            try:
                self.lifts.watch(frame.image, fix.view, frame.t_ms, self.session.game, self.session.state)
            except Exception as error:  # display only: a fault there must never stop the referee
                log.warning("frame %d: the lift watch failed: %r", frame.number, error)
        if self.lifts.square != before:
            self.on_lifted({"frame": frame.number, "lifted": self.lifts.square})

    # -- events --------------------------------------------------------------------------

    def on_event(self, frame_number: int, kind: str, value: str) -> None:
        """Takes an input the camera cannot see: a roll, a done button, a confirm or an undo."""
        if kind == "roll":
            if not self._defer(value, frame_number):
                self._play(value, frame_number)
        elif kind == "button" and value == "done":
            self._done(frame_number)
        elif kind == "button" and value == "undo":
            self._guard(frame_number, self.session.undo)
        elif kind == "confirm":
            if self._play(value, frame_number, kind="confirm"):
                self._play_deferred(frame_number)
        else:
            self._alert(frame_number, "input", f"unknown event {kind!r} with value {value!r}")

    def _done(self, frame_number: int) -> None:
        """Ends the turn: reads any change now (a still scene read already, with nothing played
        since, has none), then plays `end`, or `pass` if nothing changed; while a question about
        the turn's move is open, keeps the `end` to play once it is answered (Blockade: the roll
        that follows is kept too, and the next turn read through the question), or, where no
        `end` may be kept (other games, or the next turn's end: see _defer), says so and ends
        nothing (the move would be lost)."""
        reading = None
        if self._settled is not None and self._settled is self.session.state:
            reading = Reading("none")  # read already, and nothing has moved or been played since
        elif self.last_frame is not None and self.view is not None:
            reading = self._read(frame_number, self.gate.force_still())
        open_question = self.beliefs.current().asked
        game = self.session.game
        closing = END_MOVES.get(game.name)
        if open_question:
            if closing is None or not self._defer(closing, frame_number):
                still = either(self.beliefs.current().asked)
                self._alert(frame_number, "input", f"done pressed, but the move is not confirmed yet: {still}")
            return
        if closing is not None:
            self._play(closing, frame_number)
        elif reading is None or reading.kind == "none":
            if "pass" in game.legal(self.session.state):
                self._play("pass", frame_number)
            else:
                self._alert(frame_number, "input", "done pressed, but no move was seen and "
                                                   "passing is not allowed now")

    def _defer(self, move: str, frame_number: int) -> bool:
        """Keeps a move from an event (a done's `end`, a roll) after each candidate of the
        question left unanswered that it may follow, and on the session to play once the
        players answer, and says so; tells whether it could (no question, or it follows none
        of them). A question still open at the next turn's end keeps nothing more and drops
        what it kept: the board has gone on past what its candidates explain (Blockade random
        look 303: the next player's moves, never caught up with, stood in the way of every later
        reading), and the referee reads on from the position before it, as it did before
        anything was kept."""
        belief = self.beliefs.current()
        later = belief.deferred(move) if belief.asked else None
        if later is None:
            if belief.kept:  # the question outlived the next turn: its kept moves go, as if refused
                self.beliefs.hold(belief.undeferred())
                self.session.take_deferred()
            return False
        self.beliefs.hold(later)
        self.session.defer(move)
        self._alert(frame_number, "input", f"{move} kept until the move is confirmed: {either(belief.asked)}")
        return True

    def _play_deferred(self, frame_number: int, played: Sequence[str] = ()) -> None:
        """Plays the moves from events kept while a question stood, unless the moves just
        played (a later look's settling of the question) held them already."""
        deferred = self.session.take_deferred()
        if deferred and run_start(played, deferred) is None:
            for move in deferred:
                self._play(move, frame_number)

    def finish(self) -> None:
        """Ends the frames (a recording's end): a change the gate saw settle, but not yet for its
        whole window, is read as a `done` would read it (no `end` or `pass` played); if the last
        frame still moved, says so and reads nothing; a lost board has already said so."""
        last, over = self.last_frame, self.session.game.outcome(self.session.state) is not None
        if last is None or over or self.gate.state is GateState.STILL or self.trouble in ("camera", "board"):
            return
        if self.gate.quiet_frames > 0:
            self._read(last.number, self.gate.force_still())
        else:
            self._report_trouble(last.number, "moving", "the frames end while the board is still "
                                                        "moving: its last change is not read")

    # -- reading -------------------------------------------------------------------------

    def _read(self, frame_number: int, event: StillEvent,
              shot: tuple[Frame | None, BoardView | None] | None = None) -> Reading | None:
        """Observes the still frame (the last one, or the given frame with its board view) and
        acts on the referee's reading of the change."""
        frame, view = shot or (self.last_frame, self.view)
        assert frame is not None and view is not None and self.observer is not None
        if self.session.game.outcome(self.session.state) is not None:
            return None
        try:
            place = self._camera_place(view)
            scene = prepare(frame.image, view, place, self.kit)  # type: ignore[arg-type]
            state = self.session.state
            seen = self.observer(scene, self.session.game.board(state), self.memory)
            self._still, self._anticipated = scene, state
        except (ObserveError, PoseError) as error:
            self._report_trouble(frame_number, "reading", f"cannot read the board: {error}")
            return None
        except Exception as error:  # an observer fault must cost one reading, never the referee
            log.exception("frame %d: the observer failed", frame_number)
            self._report_trouble(frame_number, "reading", f"cannot read the board: the observer failed ({error!r})")
            return None
        return self.on_observation(frame_number, seen, scene)

    def on_observation(self, frame_number: int, seen: Observation, scene: Scene | None = None) -> Reading:
        """Reads an observation of the still board with the belief and acts on the reading (an
        illegal one or a question after a second look at the scene, if given); an observation
        read as a move or as no change is kept, so a cell misread the same way at the next
        reading does not stand in the way of explaining what changed."""
        belief, epoch = self.beliefs.current(), self.beliefs.epoch
        reading, after = belief.read(seen, self.beliefs.seen)
        if scene is not None and self._looks_again(reading):
            seen, reading, after = self._second_look(scene, seen, belief, reading) or (seen, reading, after)
        self._act(frame_number, reading)
        if reading.kind == "move":
            self.beliefs.accept(after, reading, seen)
        else:
            if reading.kind == "none":
                self.beliefs.unchanged(seen, epoch)
            self.beliefs.hold(after)  # a question's candidates, an illegal change's nearest explanations
        self._settled = self.session.state if reading.kind in ("move", "none") else None
        return reading

    def _looks_again(self, reading: Reading) -> bool:
        """Tells whether a reading gets a second look: an illegal one, and a question (not one
        that takes back reported moves) where the observer allows it."""
        return reading.kind == "illegal" or (reading.kind == "ambiguous" and self.second_look_asks
                                             and not reading.rewind)

    def _second_look(self, scene: Scene, first: Observation, belief: Belief, reading: Reading) -> Look | None:
        """Returns the observation, reading and belief of a still scene read again under the
        position one of an illegal reading's nearest legal explanations (or one of a question's
        candidates) leads to, when exactly one of them is then read as itself (a question when
        several are); else None. A piece that moved can hide or show what the position before it
        cannot predict (an upright block leaning over the cell it left, a meeple over the other
        cell of its lying block: Block Arena fresh-b 612 asked Md9-d7 or Md9-d8), so cells near
        it may read wrong until the moved piece is drawn where it now stands. The second looks
        learn nothing: each reads with a copy of the observer's memory. Moves that change a
        square the first look read as a lasting misreading are not tried: after a move the
        camera missed, such a square is where the board and the position part, and a move
        through it would only hide that. Nor are moves the first look rules out
        (Belief.fits_first_look): a look under a trial position leans to its pieces wherever it
        cannot see well."""
        if not self.second_look or not belief.certain or self.observer is None:
            return None
        found = [look for moves, board in self._trials(first, belief, reading)
                 if (look := self._look_as(scene, belief, moves, board)) is not None]
        if len(found) < 2:
            return found[0] if found else None
        candidates = tuple(look[1].moves for look in found)
        asked = Reading("ambiguous", candidates=candidates, reason=SECOND_LOOKS, changed=reading.changed,
                        frame=reading.frame)
        return found[0][0], asked, replace(belief, asked=candidates)

    def _trials(self, first: Observation, belief: Belief, reading: Reading) -> list[tuple[tuple[str, ...], Board]]:
        """Returns the nearest explanations of an illegal reading (a question's candidates) worth
        a second look, each with the position it leads to: those that change no square the first
        look read as a lasting misreading, and that the first look leaves possible
        (Belief.fits_first_look)."""
        game = self.session.game
        current = view_of(game, belief.state)
        lasting = stale_misreads(current, first, self.beliefs.seen)
        trials = []
        for moves in reading.nearest if reading.kind == "illegal" else reading.candidates:
            try:
                board = game.board(game.play_all(list(moves), belief.state))
            except RulesError:
                continue
            after = expected_view(game.name, board)
            keeps_lasting = all(after[square] == current[square] for square in lasting)
            if keeps_lasting and belief.fits_first_look(first, moves, self.beliefs.seen):
                trials.append((moves, board))
        return trials

    def _look_as(self, scene: Scene, belief: Belief, moves: tuple[str, ...], board: Board) -> Look | None:
        """Returns the observation, reading and belief of a still scene read under the position
        some moves lead to (board), when the reading is exactly those moves; else None."""
        assert self.observer is not None
        try:
            seen = self.observer(scene, board, copy.deepcopy(self.memory))
        except ObserveError:
            return None
        except Exception as error:  # only a second chance: a fault there leaves the first reading
            log.warning("the second look at the board failed: %r", error)
            return None
        again, after = belief.read(seen, self.beliefs.seen)
        if again.kind != "move" or again.moves != moves or again.rewind:
            return None
        return seen, again, after

    def _act(self, frame_number: int, reading: Reading) -> None:
        """Plays (after taking back what a rewind names), asks about, or alerts on a reading."""
        if reading.kind == "move":
            for _ in range(reading.rewind):
                self._guard(frame_number, self.session.undo)
            for move in reading.moves:
                self._play(move, frame_number, kind="correction" if reading.rewind else "move")
            self._play_deferred(frame_number, reading.moves)
        elif reading.kind == "ambiguous":
            self._ask(frame_number, reading)
        elif reading.kind == "illegal":
            self._alert(frame_number, "illegal", reading.message(), tuple(reading.changed))

    def _ask(self, frame_number: int, reading: Reading) -> None:
        """Asks the players to confirm an ambiguous reading: the session gets the candidates
        of one move (followed by the moves kept from events meanwhile, which a confirm plays
        after it); after a rewind they must first take back the reported moves, so it gets none."""
        options = either(reading.candidates)
        plural = "" if reading.rewind == 1 else "s"
        back = f"take back {reading.rewind} move{plural}, then " if reading.rewind else ""
        kept = self.session.deferred
        single = [] if reading.rewind else [c[0] for c in reading.candidates if c and c[1:] in ((), kept)]
        self.session.ask(single, frame_number)
        self.sink({"frame": frame_number, "alert": "ambiguous: " + back + options})

    def _camera_place(self, view: BoardView) -> CameraPlace:
        """Returns the camera place for a board fix, computed once per fix."""
        if self._place is None or self._place[0] != id(view):
            self._place = (id(view), locate_camera(view))
        return self._place[1]

    # -- session -------------------------------------------------------------------------

    def _play(self, move: str, frame_number: int, kind: str = "move") -> bool:
        """Plays a move on the session and records it, or alerts with the referee's reason;
        tells whether it was played."""
        try:
            canonical = self.session.play(move, frame_number, kind=kind)
        except RulesError as error:
            self._alert(frame_number, "illegal", f"{move}: {getattr(error, 'reason', error)}")
            return False
        self.sink({"frame": frame_number, "move": canonical, "ply": len(self.session.moves)})
        return True

    def _guard(self, frame_number: int, action: Callable[[], object]) -> None:
        """Runs a session control, turning its error into an alert."""
        try:
            action()
        except (RulesError, RuntimeError) as error:
            self._alert(frame_number, "input", str(error))

    def _alert(self, frame_number: int, kind: str, message: str, squares: tuple[str, ...] = ()) -> None:
        """Raises an alert on the session and records it."""
        self.session.alert(kind, message, squares, frame_number)
        self.sink({"frame": frame_number, "alert": message})

    def _report_trouble(self, frame_number: int, kind: str, message: str) -> None:
        """Alerts camera, board or reading trouble once per stretch of that trouble."""
        if kind != self.trouble:
            self.trouble = kind
            self._alert(frame_number, "camera", message)

    def _clear_trouble(self) -> None:
        """Forgets the last trouble once frames are good again."""
        self.trouble = ""
