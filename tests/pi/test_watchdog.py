"""Tests of the systemd notifications against a fake notify socket."""

from __future__ import annotations

import os
import socket
from pathlib import Path
from typing import Iterator

import pytest

from pi.watchdog import Notifier, notify, one_line, watchdog_interval


class FakeSystemd:
    """A datagram socket standing for systemd's notify socket."""

    def __init__(self, address: str) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        bind_to = "\0" + address[1:] if address.startswith("@") else address
        self.sock.bind(bind_to)
        self.sock.setblocking(False)
        self.address = address

    def received(self) -> list[str]:
        """Returns the notifications waiting on the socket."""
        messages: list[str] = []
        while True:
            try:
                messages.append(self.sock.recv(4096).decode("utf-8"))
            except BlockingIOError:
                return messages


@pytest.fixture
def systemd(tmp_path: Path) -> Iterator[FakeSystemd]:
    """Returns a fake notify socket on a path."""
    fake = FakeSystemd(str(tmp_path / "notify"))
    yield fake
    fake.sock.close()


def env_for(fake: FakeSystemd, **extra: str) -> dict[str, str]:
    """Returns an environment pointing at the fake socket."""
    return {"NOTIFY_SOCKET": fake.address, **extra}


def test_notify_sends_one_datagram(systemd: FakeSystemd) -> None:
    assert notify("READY=1", env_for(systemd))
    assert systemd.received() == ["READY=1"]


def test_abstract_sockets_are_reached(tmp_path: Path) -> None:
    fake = FakeSystemd(f"@blockref-test-{os.getpid()}-{tmp_path.name}")
    try:
        assert notify("WATCHDOG=1", env_for(fake))
        assert fake.received() == ["WATCHDOG=1"]
    finally:
        fake.sock.close()


def test_without_notify_socket_nothing_is_sent(systemd: FakeSystemd) -> None:
    notifier = Notifier({})
    assert not notifier.enabled
    assert not notify("READY=1", {}) and not notifier.ready() and not notifier.status("x")
    assert not notifier.alive() and not notifier.stopping()
    assert systemd.received() == []


def test_a_vanished_socket_is_logged_not_raised(tmp_path: Path,
                                                caplog: pytest.LogCaptureFixture) -> None:
    assert not notify("READY=1", {"NOTIFY_SOCKET": str(tmp_path / "gone")})
    assert "cannot notify systemd" in caplog.text


def test_ready_and_status_are_single_lines(systemd: FakeSystemd) -> None:
    notifier = Notifier(env_for(systemd))
    assert notifier.enabled
    notifier.ready("camera ok,\nLEDs ok")
    notifier.status("waiting for\tthe board")
    notifier.stopping()
    assert systemd.received() == ["READY=1\nSTATUS=camera ok, LEDs ok",
                                  "STATUS=waiting for the board", "STOPPING=1"]
    assert one_line("  a\n\nb  ") == "a b"


def test_alive_pets_the_watchdog_at_a_third_of_its_interval(systemd: FakeSystemd) -> None:
    now = [0.0]
    notifier = Notifier(env_for(systemd, WATCHDOG_USEC="30000000"), clock=lambda: now[0])
    assert notifier.ping_every == 10.0
    sent = []
    for second in range(0, 31):
        now[0] = float(second)
        sent.append(notifier.alive())
    assert [second for second, yes in enumerate(sent) if yes] == [0, 10, 20, 30]
    assert systemd.received() == ["WATCHDOG=1"] * 4


def test_the_watchdog_interval_is_only_for_this_process() -> None:
    assert watchdog_interval({"WATCHDOG_USEC": "5000000"}) == 5.0
    assert watchdog_interval({"WATCHDOG_USEC": "5000000", "WATCHDOG_PID": str(os.getpid())}) == 5.0
    assert watchdog_interval({"WATCHDOG_USEC": "5000000", "WATCHDOG_PID": "1"}) is None
    assert watchdog_interval({"WATCHDOG_USEC": "0"}) is None
    assert watchdog_interval({"WATCHDOG_USEC": "soon"}) is None
    assert watchdog_interval({}) is None


def test_without_a_watchdog_alive_sends_nothing(systemd: FakeSystemd) -> None:
    notifier = Notifier(env_for(systemd))
    assert notifier.ping_every is None and not notifier.alive()
    assert systemd.received() == []
