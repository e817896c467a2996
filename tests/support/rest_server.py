"""A real HTTP server (Python's own) answering GET requests with recorded JSON, as a Flink
JobManager's REST API does: a 404 with Flink's error shape for any other path."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@contextmanager
def rest_server(answers: dict[str, Any],
                puts: dict[str, tuple[int, Any]] | None = None,
                received: list[tuple[str, Any]] | None = None) -> Iterator[str]:
    """``http://127.0.0.1:PORT`` answering each path (with its query) of ``answers``; a
    PUT to a path of ``puts`` gets its (status, JSON) and is added to ``received``."""

    class Handler(BaseHTTPRequestHandler):
        def do_PUT(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length) or b"null")
            status, answer = (puts or {}).get(self.path, (404, {"errors": ["Not found"]}))
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(json.dumps(answer).encode())
            if received is not None:
                received.append((self.path, body))

        def do_GET(self) -> None:
            body = answers.get(self.path)
            self.send_response(200 if body is not None else 404)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(json.dumps(body if body is not None
                                        else {"errors": ["Not found"]}).encode())

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
