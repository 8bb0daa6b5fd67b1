"""Times live events: from Session.play() to the move's event read by each of N SSE clients.

Run from the repository root:  .venv/bin/python -m bench.sse_bench [--clients 50] [--moves 20]
[--gap 0.05] [--timeout 60] [--json]
Serves the dashboard with waitress (web.server.DashboardServer) on a free loopback port, opens
--clients concurrent GET /events streams from threads of a child process (so that reading them
does not share the server's interpreter lock), then plays --moves pawn moves of a Block (PT) game
with Session.play(), --gap seconds apart. Each client notes time.monotonic_ns() (one clock for
every process on Linux) when it reads a move's data line; a sample is that time minus the time
just before play(). Prints the median, 99th percentile and worst delay in milliseconds and how
many samples are missing. Bounded: at most --moves moves (<= 400) and --timeout seconds in all.
For comparison, ../shared/notes/HARDWARE.md saw events about 20 ms after the change under waitress.
"""

from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing
import statistics
import tempfile
import threading
import time
from multiprocessing.synchronize import Event as EventType
from pathlib import Path
from typing import Any

from bench.report import JSON_ALSO, add_options
from bench.rules_bench import percentile
from pi.journal import Journal
from pi.session import Session
from web import WebSettings, create_app
from web.server import DashboardServer

PAWN_CYCLE = ("e9-e8", "e1-e2", "e8-e9", "e2-e1")  # Block (PT): both pawns step out and back


def read_moves(port: int, moves: int, deadline: float, connected: Any,
               results: list[tuple[int, int]]) -> None:
    """Follows /events until `moves` move events arrived or the deadline passed, noting (ply, ns)."""
    link = http.client.HTTPConnection("127.0.0.1", port, timeout=max(1.0, deadline - time.monotonic()))
    try:
        link.request("GET", "/events")
        answer = link.getresponse()
        seen = 0
        while seen < moves and time.monotonic() < deadline:
            line = answer.readline()
            if not line:
                return
            if not line.startswith(b"data: "):
                continue
            received = time.monotonic_ns()
            event = json.loads(line[6:])
            if event["type"] == "state":
                connected.release()
            elif event["type"] == "move":
                results.append((event["ply"], received))
                seen += 1
    except OSError:
        return
    finally:
        link.close()


def client_process(port: int, clients: int, moves: int, deadline: float, ready: EventType,
                   out: Any) -> None:
    """Runs the clients in threads; sets ready once all are connected; sends back their samples."""
    connected = threading.Semaphore(0)
    results: list[list[tuple[int, int]]] = [[] for _ in range(clients)]
    threads = [threading.Thread(target=read_moves, args=(port, moves, deadline, connected, results[i]),
                                daemon=True) for i in range(clients)]
    for thread in threads:
        thread.start()
    for _ in range(clients):
        if not connected.acquire(timeout=max(0.0, deadline - time.monotonic())):
            break
    ready.set()
    for thread in threads:
        thread.join(max(0.0, deadline - time.monotonic()))
    out.put(results)


def play_moves(session: Session, moves: int, gap: float, deadline: float) -> dict[int, int]:
    """Plays the moves a gap apart and returns the time just before each play, by ply."""
    started: dict[int, int] = {}
    for index in range(moves):
        if time.monotonic() >= deadline:
            break
        started[index + 1] = time.monotonic_ns()
        session.play(PAWN_CYCLE[index % len(PAWN_CYCLE)])
        time.sleep(gap)
    return started


def run(clients: int, moves: int, gap: float, timeout: float) -> dict[str, float]:
    """Returns the latency figures of one bounded run."""
    deadline = time.monotonic() + timeout
    with tempfile.TemporaryDirectory() as folder:
        session = Session(Journal(Path(folder) / "journal.sqlite"))
        session.new_game("block-pt")
        server = DashboardServer(create_app(session, WebSettings(max_streams=clients)), port=0).start()
        context = multiprocessing.get_context("spawn")
        ready, out = context.Event(), context.Queue()
        child = context.Process(target=client_process,
                                args=(server.port, clients, moves, deadline, ready, out))
        try:
            child.start()
            ready.wait(max(0.0, deadline - time.monotonic()))
            started = play_moves(session, moves, gap, deadline)
            results: list[list[tuple[int, int]]] = out.get(timeout=max(1.0, deadline - time.monotonic() + 5))
        finally:
            server.stop()
            stop_child(child)
            session.journal.close()
    return figures(results, started, clients)


def stop_child(child: Any) -> None:
    """Waits briefly for the client process, then ends it if it is still running."""
    if child.pid is None:
        return
    child.join(5)
    if child.is_alive():
        child.terminate()
        child.join(5)


def figures(results: list[list[tuple[int, int]]], started: dict[int, int], clients: int) -> dict[str, float]:
    """Returns median, p99 and worst latency (ms), the sample count and the missing count."""
    samples = [(received - started[ply]) / 1e6 for client in results for ply, received in client
               if ply in started]
    expected = clients * len(started)
    if not samples:
        return {"clients": clients, "moves": len(started), "n": 0, "missing": expected}
    return {"clients": clients, "moves": len(started), "n": len(samples), "missing": expected - len(samples),
            "median_ms": statistics.median(samples), "p99_ms": percentile(samples, 0.99),
            "max_ms": max(samples)}


def main() -> None:
    """Parses the arguments, runs the benchmark and prints the figures."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--clients", type=int, default=50, help="concurrent SSE clients")
    parser.add_argument("--moves", type=int, default=20, help="moves to play (at most 400)")
    parser.add_argument("--gap", type=float, default=0.05, help="seconds between moves")
    parser.add_argument("--timeout", type=float, default=60.0, help="bound on the whole run")
    add_options(parser, json_help=JSON_ALSO)
    args = parser.parse_args()
    if not 1 <= args.clients <= 500 or not 1 <= args.moves <= 400 or args.timeout <= 0 or args.gap < 0:
        parser.error("need 1-500 clients, 1-400 moves, a positive timeout and a gap >= 0")
    result = run(args.clients, args.moves, args.gap, args.timeout)
    print(f"{result['clients']:.0f} clients, {result['moves']:.0f} moves: {result['n']:.0f} samples, "
          f"{result['missing']:.0f} missing")
    if result["n"]:
        print(f"play -> event received: median {result['median_ms']:.1f} ms, "
              f"p99 {result['p99_ms']:.1f} ms, max {result['max_ms']:.1f} ms")
    if args.json:
        print(json.dumps(result))


if __name__ == "__main__":
    main()
