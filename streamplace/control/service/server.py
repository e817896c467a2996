"""The HTTP side of ``autoscale --metrics-port``: ``/metrics`` in Prometheus's text format
and ``/healthz`` (200 while the readings come, 503 once they stop), served by a thread of
the autoscale process beside its loop."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from streamplace.control.service.metrics import LoopMetrics
from streamplace.errors import InputError


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def do_GET(self) -> None:
        from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

        metrics = self.server.metrics
        path = self.path.split("?", 1)[0]
        if path == "/metrics":
            self._send(200, generate_latest(metrics.registry), CONTENT_TYPE_LATEST)
        elif path in ("/healthz", "/health"):
            ok, said = metrics.healthy()
            self._send(200 if ok else 503, f"{said}\n".encode(), "text/plain; charset=utf-8")
        else:
            self._send(404, b"/metrics or /healthz\n", "text/plain; charset=utf-8")

    def _send(self, status: int, body: bytes, kind: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        return  # a scrape every few seconds is not worth a line on stderr


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, address: tuple[str, int], metrics: LoopMetrics) -> None:
        self.metrics = metrics
        super().__init__(address, _Handler)


def serve(metrics: LoopMetrics, host: str, port: int) -> tuple[ThreadingHTTPServer, str]:
    """Serve ``metrics`` on ``host:port`` (0: a free port) from a daemon thread; the server
    and the address it listens on. A port that is taken is bad input, said before the loop
    reads anything."""
    try:
        server = _Server((host, port), metrics)
    except OSError as exc:
        raise InputError.single(f"cannot serve metrics on {host}:{port}: {exc.strerror}",
                                "give --metrics-port a free port (0: any)",
                                path="--metrics-port") from None
    threading.Thread(target=server.serve_forever, name="metrics", daemon=True).start()
    bound_port = server.server_address[1]
    shown = host if host not in ("", "0.0.0.0") else "127.0.0.1"
    return server, f"http://{shown}:{bound_port}"
