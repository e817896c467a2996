"""A proxy in front of a real JobManager that forwards every call and can tamper with the
answers on the way back, as a broken metrics path would: a vertex's subtask counters answered
``complete: false``, and one of its subtasks dropped from the list."""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

TIMEOUT = 30


@dataclass
class Proxy:
    upstream: str                        # http://127.0.0.1:PORT of the JobManager
    url: str = ""                        # the proxy's own
    tamper: Callable[[str, Any], Any] | None = None  # (path, answer) -> answer sent
    puts: list[str] = field(default_factory=list)


def incomplete_vertex(name: str) -> Callable[[str, Any], Any]:
    """A tamper for the vertex ``name``'s details (``GET /jobs/:jid/vertices/:vid``): its
    first subtask's counters answered incomplete, its last subtask left out."""
    def tamper(path: str, answer: Any) -> Any:
        if isinstance(answer, dict) and answer.get("name") == name and "subtasks" in answer:
            subtasks = answer["subtasks"]
            for key in list(subtasks[0].get("metrics", {})):
                if not key.endswith("-complete"):
                    subtasks[0]["metrics"][f"{key}-complete"] = False
            answer["subtasks"] = subtasks[:-1] if len(subtasks) > 1 else subtasks
        return answer
    return tamper


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        return

    def _forward(self, method: str) -> None:
        proxy = self.server.proxy
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0)) or None
        if method == "PUT":
            proxy.puts.append(self.path)
        request = urllib.request.Request(proxy.upstream + self.path, data=body, method=method,
                                         headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
                status, data = response.status, response.read()
        except urllib.error.HTTPError as exc:
            status, data = exc.code, exc.read()
        if proxy.tamper is not None and status == 200 and data:
            data = json.dumps(proxy.tamper(self.path, json.loads(data))).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        self._forward("GET")

    def do_PUT(self) -> None:
        self._forward("PUT")

    def do_PATCH(self) -> None:
        self._forward("PATCH")


class _Server(ThreadingHTTPServer):
    proxy: Proxy


@contextmanager
def flink_proxy(upstream: str) -> Iterator[Proxy]:
    """The proxy on a free port of 127.0.0.1, forwarding to ``upstream``."""
    server = _Server(("127.0.0.1", 0), _Handler)
    server.proxy = Proxy(upstream)
    server.proxy.url = f"http://127.0.0.1:{server.server_address[1]}"
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield server.proxy
    finally:
        server.shutdown()
        server.server_close()
