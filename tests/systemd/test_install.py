"""Checks of systemd/install.sh: valid bash, strict mode, and a dry run that only prints."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent
SCRIPT = ROOT / "systemd" / "install.sh"


def dry_run(path_dir: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Returns the result of `install.sh --dry-run`, with stub commands first on PATH if given."""
    env = dict(os.environ)
    if path_dir is not None:
        env["PATH"] = f"{path_dir}:{env['PATH']}"
    return subprocess.run(["bash", str(SCRIPT), "--dry-run"], capture_output=True, text=True,
                          check=False, timeout=60, env=env)


def stub(folder: Path, name: str, body: str) -> None:
    """Writes an executable shell stub standing for a system command."""
    file = folder / name
    file.write_text(f"#!/bin/sh\n{body}\n", encoding="utf-8")
    file.chmod(file.stat().st_mode | stat.S_IXUSR)


def test_the_script_parses_and_is_strict() -> None:
    done = subprocess.run(["bash", "-n", str(SCRIPT)], capture_output=True, text=True,
                          check=False, timeout=30)
    assert done.returncode == 0, done.stderr
    text = SCRIPT.read_text(encoding="utf-8")
    assert text.startswith("#!/usr/bin/env bash\n") and "\nset -euo pipefail\n" in text
    assert os.access(SCRIPT, os.X_OK)


def test_shellcheck_finds_nothing() -> None:
    if shutil.which("shellcheck") is None:
        pytest.skip("shellcheck is not installed")
    done = subprocess.run(["shellcheck", str(SCRIPT)], capture_output=True, text=True,
                          check=False, timeout=60)
    assert done.returncode == 0, done.stdout


def test_a_dry_run_prints_every_step_and_changes_nothing() -> None:
    before = {path: path.exists() for path in (Path("/opt/blockref"), Path("/etc/blockref"),
                                               Path("/etc/systemd/system/blockref.service"))}
    done = dry_run()
    assert done.returncode == 0, done.stderr
    out = done.stdout
    for expected in (
        "+ apt-get update",
        "apt-get install -y --no-install-recommends python3-picamera2 python3-numpy "
        "python3-opencv",
        "+ /usr/bin/python3 -m venv --system-site-packages /opt/blockref/venv",
        "numpy==",
        "--constraint /opt/blockref/constraints.txt /opt/blockref/src\\[pi\\]",
        "+ install -m 0644 /opt/blockref/src/systemd/blockref.service "
        "/etc/systemd/system/blockref.service",
        "+ systemctl enable blockref.service",
    ):
        assert expected in out, expected
    assert {path: path.exists() for path in before} == before


def test_a_dry_run_on_an_installed_pi_skips_what_is_there(tmp_path: Path) -> None:
    stub(tmp_path, "getent", "exit 0")  # the user and every group exist
    stub(tmp_path, "raspi-config", 'echo 0')  # SPI is enabled
    done = dry_run(tmp_path)
    assert done.returncode == 0, done.stderr
    assert "user blockref exists" in done.stdout and "SPI is enabled" in done.stdout
    assert "useradd" not in done.stdout and "groupadd" not in done.stdout
    assert "do_spi" not in done.stdout


def test_a_dry_run_on_a_fresh_pi_creates_the_user_and_enables_spi(tmp_path: Path) -> None:
    stub(tmp_path, "getent", "exit 2")  # nothing exists yet
    stub(tmp_path, "raspi-config", 'echo 1')  # SPI is off
    done = dry_run(tmp_path)
    assert done.returncode == 0, done.stderr
    assert "+ useradd --system --user-group --home-dir /var/lib/blockref" in done.stdout
    assert "+ groupadd --system gpio" in done.stdout
    assert "+ raspi-config nonint do_spi 0" in done.stdout
    assert "reboot" in done.stdout and "systemctl restart" not in done.stdout


def test_unknown_options_are_refused() -> None:
    done = subprocess.run(["bash", str(SCRIPT), "--yes-please"], capture_output=True,
                          text=True, check=False, timeout=30)
    assert done.returncode == 2
    assert done.stderr.strip() == "install.sh: unknown option '--yes-please' (try --help)"
