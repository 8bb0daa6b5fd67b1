"""Serves the dashboard with waitress in a background thread, and stops it with its streams."""

from __future__ import annotations

import threading
from typing import Any

from flask import Flask

from web.context import Dashboard

SPARE_THREADS = 6  # threads left for pages and controls when every stream slot is taken


class DashboardServer:
    """A waitress server for one dashboard app, run in a daemon thread."""

    def __init__(self, app: Flask, host: str = "127.0.0.1", port: int = 8000) -> None:
        import waitress.server  # type: ignore[import-untyped]

        self.app = app
        dash: Dashboard = app.extensions["blockref"]
        streams = dash.settings.max_streams
        self._server: Any = waitress.server.create_server(
            app, host=host, port=port, threads=streams + SPARE_THREADS,
            connection_limit=max(100, streams + 4 * SPARE_THREADS),
            ident="blockref", clear_untrusted_proxy_headers=True,
        )
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._run, name="dashboard", daemon=True)

    @property
    def port(self) -> int:
        """Returns the port the server listens on (useful when 0 was asked for)."""
        return int(self._server.effective_port)

    @property
    def url(self) -> str:
        """Returns the server's base address."""
        return f"http://{self._server.effective_host}:{self.port}"

    def start(self) -> DashboardServer:
        """Starts serving in the background and returns self."""
        self._thread.start()
        return self

    def _run(self) -> None:
        """Runs the server loop until stop() empties it."""
        try:
            self._server.run()
        except (OSError, ValueError):
            if not self._stopping.is_set():
                raise

    def stop(self, timeout: float = 5.0) -> None:
        """Ends every event stream (closing the session's event log), then every connection."""
        self._stopping.set()
        dash: Dashboard = self.app.extensions["blockref"]
        dash.session.events.close()
        self._server.task_dispatcher.shutdown(timeout=timeout)
        if not self._thread.is_alive():
            self._close_all()
            return
        try:
            self._server.trigger.pull_trigger(self._close_all)  # run by the loop, which then ends
        except OSError:  # the trigger is gone: close from here; the loop sees it within 1 s
            self._close_all()
        self._thread.join(timeout)

    def _close_all(self) -> None:
        """Closes the listening socket and every connection."""
        from waitress import wasyncore

        wasyncore.close_all(self._server._map)
