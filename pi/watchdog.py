"""systemd notifications (sd_notify) without a dependency: READY=1, WATCHDOG=1 and STATUS=
sent as datagrams to $NOTIFY_SOCKET; without NOTIFY_SOCKET every call is a no-op.

Send WATCHDOG=1 from the loop that proves frames arrive (`Notifier.alive()` after each good
frame), never from a timer thread: a stuck camera must let systemd restart the service."""

from __future__ import annotations

import logging
import os
import socket
import time
from typing import Callable, Mapping

log = logging.getLogger(__name__)


def socket_address(value: str) -> str:
    """Returns the address to send to: a path, or an abstract socket for a leading '@'."""
    return "\0" + value[1:] if value.startswith("@") else value


def notify(message: str, env: Mapping[str, str] | None = None) -> bool:
    """Sends one notification to $NOTIFY_SOCKET; tells whether it went (failures are logged)."""
    target = (os.environ if env is None else env).get("NOTIFY_SOCKET", "")
    if not target:
        return False
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as sock:
            sock.connect(socket_address(target))
            sock.sendall(message.encode("utf-8"))
        return True
    except OSError as error:
        log.warning("cannot notify systemd at %s: %s", target, error)
        return False


def watchdog_interval(env: Mapping[str, str]) -> float | None:
    """Returns systemd's watchdog interval in seconds for this process, or None if unset."""
    usec = env.get("WATCHDOG_USEC", "")
    pid = env.get("WATCHDOG_PID", "")
    if not usec.isdigit() or int(usec) == 0 or (pid and pid != str(os.getpid())):
        return None
    return int(usec) / 1_000_000


class Notifier:
    """The service's link to systemd: ready, status, and alive() petting the watchdog when due."""

    def __init__(self, env: Mapping[str, str] | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._env = dict(os.environ if env is None else env)
        self._clock = clock
        interval = watchdog_interval(self._env)
        self.ping_every = None if interval is None else interval / 3
        self._last_ping: float | None = None

    @property
    def enabled(self) -> bool:
        """Tells whether systemd listens (NOTIFY_SOCKET is set)."""
        return bool(self._env.get("NOTIFY_SOCKET"))

    def ready(self, status: str = "running") -> bool:
        """Tells systemd that start-up is done (Type=notify), with a status line."""
        return notify(f"READY=1\nSTATUS={one_line(status)}", self._env)

    def status(self, text: str) -> bool:
        """Sets the status line that `systemctl status` shows."""
        return notify(f"STATUS={one_line(text)}", self._env)

    def stopping(self) -> bool:
        """Tells systemd that the service is shutting down."""
        return notify("STOPPING=1", self._env)

    def alive(self) -> bool:
        """Pets the watchdog if it is due; tells whether a WATCHDOG=1 was sent."""
        if self.ping_every is None:
            return False
        now = self._clock()
        if self._last_ping is not None and now - self._last_ping < self.ping_every:
            return False
        self._last_ping = now
        return notify("WATCHDOG=1", self._env)


def one_line(text: str) -> str:
    """Returns text on one line (a newline would start a new notification field)."""
    return " ".join(text.split())
