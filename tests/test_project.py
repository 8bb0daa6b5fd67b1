"""Checks on the project itself: CI runs the README's test command; typing stays strict."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def readme_commands() -> list[str]:
    """Returns the shell commands of README.md's fenced sh blocks, in order."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return [block.strip() for block in re.findall(r"```sh\n(.*?)```", text, re.S)]


def test_ci_runs_the_readme_test_command() -> None:
    test_command = readme_commands()[1]
    assert "pytest" in test_command
    assert test_command in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def test_rules_and_vision_pass_mypy_strict() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "rules", "vision"],
        cwd=ROOT, capture_output=True, text=True, check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_no_module_is_too_long() -> None:
    for package in ("rules", "vision", "pi", "web"):
        for module in (ROOT / package).rglob("*.py"):
            lines = module.read_text(encoding="utf-8").count("\n")
            assert lines <= 650, f"{module.relative_to(ROOT)} has {lines} lines"


def test_readme_first_command_runs_the_referee_or_demo() -> None:
    import shlex

    from pi.cli import build_parser

    first = readme_commands()[0]
    argv = shlex.split(first.split(".venv/bin/blockref", 1)[1])
    args = build_parser().parse_args(argv)
    assert args.command in ("rules", "demo")
    if args.command == "rules":
        assert args.handler(args) == 0
