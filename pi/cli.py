"""The `blockref` command line: one subcommand per job, one clear error per bad input."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, NoReturn, Sequence

from rules import Game, RulesError, game_names, get_game
from rules.registry import all_games


class UsageError(Exception):
    """Raised for bad command-line input; main prints it as one sentence and exits 2."""


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one sentence, not a usage dump."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{self.prog}: {message}")


def read_moves_file(path: str) -> list[str]:
    """Returns the moves of a moves file: whitespace-separated, '#' starts a comment."""
    try:
        data = Path(path).read_bytes()
    except OSError as error:
        raise UsageError(f"cannot read moves file {path!r}: {error.strerror or error}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise UsageError(f"moves file {path!r} is not UTF-8 text") from None
    if "\x00" in text:
        raise UsageError(f"moves file {path!r} is not a text file (it holds NUL bytes)")
    moves: list[str] = []
    for line in text.splitlines():
        moves.extend(line.split("#", 1)[0].split())
    return moves


def play_moves(game: Game[Any, Any], moves: list[str]) -> Any:
    """Returns the state after the moves, or raises UsageError naming the first bad one."""
    state = game.initial_state()
    for index, text in enumerate(moves, start=1):
        try:
            state = game.apply(state, text)
        except RulesError as error:
            reason = getattr(error, "reason", str(error))
            raise UsageError(f"illegal move {text!r} at ply {index}: {reason}") from None
    return state


def cmd_rules(args: argparse.Namespace) -> int:
    """Plays moves from the start and prints the resulting state as one JSON object."""
    try:
        game = get_game(args.game, args.variant)
    except RulesError as error:
        raise UsageError(str(error)) from None
    if args.moves is not None and args.moves_file is not None:
        raise UsageError("give the moves either with --moves or with --moves-file, not both")
    if args.moves_file is not None:
        moves = read_moves_file(args.moves_file)
    else:
        moves = (args.moves or "").split()
    state = play_moves(game, moves)
    print(json.dumps(game.summary(state)))
    return 0


def cmd_mat(args: argparse.Namespace) -> int:
    """Writes a game's printable mat, or its marker sticker sheet, as SVG or PDF."""
    from vision.kit import KitError, kit_named, load_kit  # imported here: OpenCV loads slowly
    from vision.mat import MatError, mat_page, sticker_page, write_page

    try:
        game = get_game(args.game, args.variant)
    except RulesError as error:
        raise UsageError(str(error)) from None
    try:
        kit = load_kit(args.kit) if args.kit is not None else kit_named()
        mat = kit.mat(game.name, game.variant)
        page = sticker_page(kit, mat) if args.stickers else mat_page(kit, mat)
        write_page(page, args.out)
    except (KitError, MatError) as error:
        raise UsageError(str(error)) from None
    what = "marker stickers (A4)" if args.stickers else f"mat ({page.width:g} x {page.height:g} mm)"
    print(f"wrote the {mat.label} {what} to {args.out}")
    return 0


def cmd_replay(args: argparse.Namespace) -> int:
    """Replays a recorded game through the whole pipeline, printing moves and alerts as JSON."""
    from pi.camera.base import CameraError
    from pi.recording import RecordingError
    from pi.replay import replay
    from pi.threads import limit_threads
    from vision.board import Calibration, VisionError
    from vision.kit import KitError
    from vision.observe.context import ObserveError

    limit_threads()

    def emit(record: dict[str, Any]) -> None:
        print(json.dumps(record), flush=True)

    try:
        calibration = None if args.calibration is None else Calibration.load(args.calibration)
        replay(args.directory, emit, calibration=calibration)
    except (RecordingError, CameraError, KitError, ObserveError, VisionError) as error:
        raise UsageError(f"cannot replay {args.directory!r}: {error}") from None
    return 0


def frame_paths(given: Sequence[str]) -> list[Path]:
    """Returns the image files given, a directory standing for its .jpg and .png files in order."""
    found: list[Path] = []
    for name in given:
        path = Path(name)
        found += sorted(p for p in path.iterdir() if p.suffix.lower() in (".jpg", ".jpeg", ".png")) \
            if path.is_dir() else [path]
    return found


def cmd_calibrate(args: argparse.Namespace) -> int:
    """Fits the camera's lens to frames of the printed mat and writes the calibration JSON."""
    from vision.board import VisionError
    from vision.frames import read_frame
    from vision.kit import KitError, kit_named, load_kit
    from vision.lens import calibrate

    try:
        kit = load_kit(args.kit) if args.kit is not None else kit_named()
        game = get_game(args.game, args.variant) if args.game else None
        mat = kit.mat(game.name, game.variant) if game is not None else None
        decoded = [read_frame(path) for path in frame_paths(args.frames)]
        frames = [frame.image for frame in decoded if frame.image is not None]
        fit = calibrate(frames, kit, mat)
        fit.calibration.save(args.out)
    except (KitError, RulesError, VisionError) as error:
        raise UsageError(f"cannot calibrate: {error}") from None
    except OSError as error:
        raise UsageError(f"cannot calibrate: {error.strerror or error}") from None
    matrix, k1 = fit.calibration.camera_matrix, float(fit.calibration.dist_coeffs[0])
    print(f"wrote {args.out}: focal length {matrix[0, 0]:.1f} px, k1 {k1:.3f}, from {fit.views} of "
          f"{len(decoded)} frames ({len(decoded) - len(frames)} unreadable); corners missed by "
          f"{fit.rms_px:.2f} px RMS")
    return 0


DEMO_RECORDING = Path(__file__).resolve().parent.parent / "fixtures" / "tuned-neutral"


def cmd_demo(args: argparse.Namespace) -> int:
    """Replays the bundled recorded game with simulated LEDs and the dashboard."""
    from pi.appliance import demo
    from pi.camera.base import CameraError
    from pi.recording import RecordingError
    from pi.threads import limit_threads
    from vision.kit import KitError

    limit_threads()
    try:
        return demo(Path(args.recording), args.host, args.port, args.exit_when_done)
    except (RecordingError, CameraError, KitError) as error:
        raise UsageError(f"cannot run the demo on {args.recording!r}: {error}") from None
    except OSError as error:
        raise UsageError(f"cannot serve the dashboard on {args.host}:{args.port}: {error.strerror or error}") from None


def cmd_run(args: argparse.Namespace) -> int:
    """Runs the appliance: camera, referee, LEDs, buttons and dashboard."""
    from pi.appliance import run
    from pi.buttons import ButtonError
    from pi.camera.base import CameraError
    from pi.config import ConfigError
    from pi.journal import JournalError
    from pi.leds.errors import LedError
    from pi.threads import limit_threads
    from vision.board import VisionError
    from vision.kit import KitError

    limit_threads()
    try:
        return run(args.config)
    except (ConfigError, CameraError, LedError, ButtonError, JournalError, KitError, VisionError) as error:
        raise UsageError(str(error)) from None


def rules_epilog() -> str:
    """Returns the help text naming every game's variants, scores and house rulings."""
    lines = ["games:"]
    for game in all_games():
        if game.variant is not None and game.variant != type(game).variants[0]:
            continue
        variants = ", ".join(type(game).variants) or "none"
        lines.append(f"  {game.name} (variants: {variants})")
        if game.scores_doc:
            lines.append(f"    scores: {game.scores_doc}")
        if game.counters_doc:
            lines.append(f"    counters: {game.counters_doc}")
        for ruling in game.house_rules:
            lines.append(f"    house ruling: {ruling}")
    return "\n".join(lines)


def build_parser() -> argparse.ArgumentParser:
    """Returns the parser of the whole command line."""
    parser = _Parser(prog="blockref", description="Referee companion for physical block games.")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    rules = commands.add_parser(
        "rules",
        help="play moves from the start and print the state as JSON",
        description="Plays the moves from the start and prints one JSON object: game, variant, "
        "to_move, ply, legal, outcome, scores, counters.",
        epilog=rules_epilog(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    rules.add_argument("game", metavar="GAME", help="one of " + ", ".join(game_names()))
    rules.add_argument("--variant", help="the variant (block-arena: 9x9 or 7x7; block-block: set name)")
    rules.add_argument("--moves", help='moves in RULES.md notation, separated by spaces: "M1 M2 ..."')
    rules.add_argument("--moves-file", help="a text file of moves separated by white space")
    rules.set_defaults(handler=cmd_rules)
    mat = commands.add_parser(
        "mat",
        help="write a game's printable mat (or marker stickers) as SVG or PDF",
        description="Writes the game's mat at true scale (grid, corner markers, game marker, "
        "legend), or with --stickers an A4 sheet of its markers with cut marks, as SVG or PDF "
        "by the extension of --out. Print at 100%%.",
    )
    mat.add_argument("game", metavar="GAME", help="one of " + ", ".join(game_names()))
    mat.add_argument("--variant", help="the variant (block-arena: 9x9 or 7x7)")
    mat.add_argument("--out", required=True, metavar="FILE", help="the file to write: .svg or .pdf")
    mat.add_argument("--stickers", action="store_true", help="write the A4 marker sticker sheet")
    mat.add_argument("--kit", metavar="FILE", help="a kit TOML file (default: the bundled kit)")
    mat.set_defaults(handler=cmd_mat)
    replay = commands.add_parser(
        "replay",
        help="run a recorded game through the whole pipeline and print what the referee did",
        description="Runs vision, referee, LED frames and counters on a recorded game directory "
        "and prints one JSON object per line: each accepted move {frame, move, ply}, each alert "
        "{frame, alert}, and finally {outcome}. No hardware, no network.",
    )
    replay.add_argument("directory", metavar="DIR", help="a recorded game directory (INTERFACES.md)")
    replay.add_argument("--json", action="store_true", help="print JSON lines (the default and only format)")
    replay.add_argument("--calibration", metavar="FILE",
                        help="the camera's lens calibration JSON (camera_matrix, dist_coeffs, image_size), "
                        "as the appliance's vision.calibration")
    replay.set_defaults(handler=cmd_replay)
    demo = commands.add_parser(
        "demo",
        help="replay a bundled recorded game with simulated LEDs and the dashboard",
        description="Replays a recorded game in real time through the full pipeline, with the "
        "simulated LED panel and the web dashboard on http://127.0.0.1:8000 (controls PIN 2468).",
    )
    demo.add_argument("--recording", default=str(DEMO_RECORDING), metavar="DIR",
                      help="the recorded game directory (default: the bundled one)")
    demo.add_argument("--host", default="127.0.0.1", help="the dashboard's address")
    demo.add_argument("--port", type=int, default=8000, help="the dashboard's port")
    demo.add_argument("--exit-when-done", action="store_true",
                      help="stop when the recording ends instead of serving until Ctrl-C")
    demo.set_defaults(handler=cmd_demo)
    calibrate = commands.add_parser(
        "calibrate",
        help="fit the camera's lens to frames of the printed mat and write its calibration",
        description="Fits the camera's focal length and radial distortion to frames that show a "
        "printed mat (its game marker and at least four of its markers) at several tilts and "
        "places in the frame, and writes the JSON that vision.calibration in the config and "
        "`blockref replay --calibration` read. At least four such frames, all of one size.",
    )
    calibrate.add_argument("frames", nargs="+", metavar="FRAME", help="JPEG or PNG frames, or directories of them")
    calibrate.add_argument("--out", required=True, metavar="FILE", help="the calibration JSON to write")
    calibrate.add_argument("--game", help="the mat's game, when its game marker may not show")
    calibrate.add_argument("--variant", help="the mat's variant (block-arena: 9x9 or 7x7)")
    calibrate.add_argument("--kit", metavar="FILE", help="a kit TOML file (default: the bundled kit)")
    calibrate.set_defaults(handler=cmd_calibrate)
    run = commands.add_parser(
        "run",
        help="run the appliance: camera, referee, LEDs, buttons and dashboard",
        description="Runs blockref on the table. The built-in defaults (pi/default-config.toml) "
        "are read first, then the --config file; an unfinished game in the journal is resumed.",
    )
    run.add_argument("--config", metavar="FILE", help="a TOML config file (see pi/default-config.toml)")
    run.set_defaults(handler=cmd_run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Runs the command line and returns its exit status (2 for any bad input)."""
    try:
        args = build_parser().parse_args(argv)
        status: int = args.handler(args)
        return status
    except UsageError as error:
        print(str(error), file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
