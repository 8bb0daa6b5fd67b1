"""Measures `blockref demo`: start-up time to a serving dashboard and resident memory.

Run from the repository root:  .venv/bin/python -m bench.appliance_bench
Starts the demo in a child process, times until /api/state answers, samples the child's
resident set size (VmRSS) every 0.2 s until the recording ends, and prints the figures
(targets: resident memory <= 200 MB).
"""

from __future__ import annotations

import subprocess
import sys
import time
import urllib.request
from pathlib import Path


def rss_mb(pid: int) -> float | None:
    """Returns a process's resident set size in MB, or None once it is gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    except OSError:
        return None
    return None


def main() -> None:
    """Runs the demo once and prints start-up time and peak resident memory."""
    start = time.perf_counter()
    child = subprocess.Popen([sys.executable, "-m", "pi.cli", "demo", "--port", "0", "--exit-when-done"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    assert child.stderr is not None
    url = child.stderr.readline().split(" on ", 1)[1].split(" ", 1)[0]
    urllib.request.urlopen(url + "/api/state", timeout=30).read()
    started = time.perf_counter() - start
    peak = 0.0
    while child.poll() is None:
        peak = max(peak, rss_mb(child.pid) or 0.0)
        time.sleep(0.2)
    print(f"start-up to a serving dashboard: {started:.2f} s")
    print(f"peak resident memory of blockref demo: {peak:.1f} MB (target <= 200 MB)")


if __name__ == "__main__":
    main()
