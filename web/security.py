"""The dashboard's defences: PIN checks, login rate limits, CSRF tokens, safe headers.

PIN hashes are pi.config's salted PBKDF2 (`python -m pi.config hash-pin` makes one)."""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import threading
import time
from collections import OrderedDict, deque
from typing import Callable

PIN_TEXT = re.compile(r"[^\x00-\x1f\x7f-\x9f]{1,64}")  # printable, as pi.config.hash_pin wants

CSP = "; ".join([
    "default-src 'self'", "script-src 'self'", "style-src 'self'", "img-src 'self'",
    "connect-src 'self'", "object-src 'none'", "base-uri 'none'", "form-action 'self'",
    "frame-ancestors 'none'",
])
SAFE_HEADERS: dict[str, str] = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Resource-Policy": "same-origin",
    "Permissions-Policy": "camera=(), microphone=(), geolocation=()",
}


def pin_fingerprint(stored: str) -> str:
    """Returns a short digest of the stored PIN hash, kept in the cookie to end old logins."""
    return hashlib.sha256(stored.encode("ascii")).hexdigest()[:16]


def new_token() -> str:
    """Returns a fresh random CSRF token."""
    return secrets.token_urlsafe(32)


def same_token(sent: str | None, kept: object) -> bool:
    """Tells whether a sent CSRF token equals the one kept in the session."""
    if not isinstance(kept, str) or not kept or sent is None:
        return False
    return hmac.compare_digest(sent.encode("utf-8", "replace"), kept.encode("utf-8"))


class RateLimiter:
    """Allows at most `limit` attempts per client address in any `window` seconds."""

    def __init__(self, limit: int, window: float, clock: Callable[[], float] = time.monotonic,
                 max_clients: int = 4096) -> None:
        self.limit = limit
        self.window = window
        self._clock = clock
        self._max_clients = max_clients
        self._seen: OrderedDict[str, deque[float]] = OrderedDict()
        self._lock = threading.Lock()

    def retry_after(self, client: str) -> float:
        """Returns the seconds a client must wait before its next attempt (0 when allowed)."""
        with self._lock:
            times = self._recent(client)
            if len(times) < self.limit:
                return 0.0
            return max(0.0, times[0] + self.window - self._clock())

    def record(self, client: str) -> None:
        """Counts one attempt by a client."""
        with self._lock:
            self._seen[client] = self._recent(client)
            self._seen[client].append(self._clock())
            self._seen.move_to_end(client)
            while len(self._seen) > self._max_clients:
                self._seen.popitem(last=False)

    def _recent(self, client: str) -> deque[float]:
        """Returns a client's attempts inside the window, dropping older ones."""
        times = self._seen.get(client, deque())
        horizon = self._clock() - self.window
        while times and times[0] <= horizon:
            times.popleft()
        return times
