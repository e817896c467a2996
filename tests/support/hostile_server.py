"""An HTTP server that misbehaves on purpose, one way per mode, on 127.0.0.1: what a broken
proxy, a wrong port or a hostile endpoint may answer a REST client."""

from __future__ import annotations

import gzip
import json
import socketserver
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

JOB_ID = "a" * 32
VERTEX = "b" * 32


def _http(status: str, body: bytes, *headers: str) -> bytes:
    head = [f"HTTP/1.1 {status}", f"Content-Length: {len(body)}",
            "Content-Type: application/json", *headers, "Connection: close"]
    return ("\r\n".join(head) + "\r\n\r\n").encode() + body


def _job(vertex_id: str = VERTEX) -> bytes:
    return json.dumps({"jid": JOB_ID, "name": "j", "state": "RUNNING",
                       "vertices": [{"id": vertex_id, "name": "v", "parallelism": 1}]}).encode()


class _Handler(socketserver.StreamRequestHandler):
    server: _Server

    def handle(self) -> None:
        lines = []
        while True:
            line = self.rfile.readline(65537)
            if line in (b"\r\n", b"\n", b""):
                break
            lines.append(line.decode("latin-1").strip())
        self.server.requests.append(lines)
        mode = self.server.mode
        answer = getattr(self, f"_{mode.replace('-', '_')}")(lines)
        if answer:
            self.wfile.write(answer)

    def _drip(self, lines: list[str]) -> bytes:
        for byte in _http("200 OK", _job()):  # a valid answer, one byte at a time
            self.wfile.write(bytes([byte]))
            self.wfile.flush()
            time.sleep(0.2)
            if self.server.closed.is_set():
                break
        return b""

    def _drip_body(self, lines: list[str]) -> bytes:
        """The status line and headers at once ("Connection: close", as a JobManager
        behind some proxies answers), then a long body a byte at a time: what a client
        that lets go of the socket after the headers cannot time out."""
        body = b" " * 600 + _job()
        head = _http("200 OK", b"")
        head = head.replace(b"Content-Length: 0", f"Content-Length: {len(body)}".encode())
        self.wfile.write(head)
        self.wfile.flush()
        for byte in body[:600]:  # bounded: 120 s at most, though the client stops sooner
            try:
                self.wfile.write(bytes([byte]))
                self.wfile.flush()
            except OSError:  # the client gave up and closed its end
                break
            self.server.dripped += 1
            time.sleep(0.2)
            if self.server.closed.is_set():
                break
        return b""

    def _endless(self, lines: list[str]) -> bytes:
        self.wfile.write(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
        chunk = b" " * 65536
        for _ in range(4096):  # 256 MiB at most: bounded, though the client stops far sooner
            try:
                self.wfile.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
            except OSError:
                break
        return b""

    def _cut(self, lines: list[str]) -> bytes:
        return _http("200 OK", _job())[:-20].replace(b"Connection: close", b"X: y")

    def _garbage(self, lines: list[str]) -> bytes:
        return b"SSH-2.0-OpenSSH_9.6\r\n\r\n"

    def _long_header(self, lines: list[str]) -> bytes:
        return _http("200 OK", _job(), "X-Long: " + "a" * 100_000)

    def _many_headers(self, lines: list[str]) -> bytes:
        return _http("200 OK", _job(), *(f"X-{k}: {k}" for k in range(150)))

    def _latin1(self, lines: list[str]) -> bytes:
        return _http("200 OK", b'{"name": "\xe9t\xe9"}')

    def _gzip(self, lines: list[str]) -> bytes:
        return _http("200 OK", gzip.compress(_job()), "Content-Encoding: gzip")

    def _deep(self, lines: list[str]) -> bytes:
        return _http("200 OK", b"[" * 100_000 + b"]" * 100_000)

    def _digits(self, lines: list[str]) -> bytes:
        return _http("200 OK", b'{"jid": ' + b"7" * 5000 + b"}")

    def _redirect_away(self, lines: list[str]) -> bytes:
        return _http("302 Found", b"{}", f"Location: http://127.0.0.2:{self.server.port}/x")

    def _redirect_ftp(self, lines: list[str]) -> bytes:
        return _http("302 Found", b"{}", "Location: ftp://127.0.0.1/jobs")

    def _odd_vertex(self, lines: list[str]) -> bytes:
        path = lines[0].split()[1] if lines else ""
        if path.endswith(f"/jobs/{JOB_ID}"):
            return _http("200 OK", _job("b" * 16 + " x\r\nHost: evil"))
        return _http("200 OK", b"{}")

    def _auth(self, lines: list[str]) -> bytes:
        if "Authorization: Basic dXNlcjpzM2NyM3Q=" not in lines:  # user:s3cr3t
            return _http("401 Unauthorized", b'{"errors": ["who are you"]}')
        path = lines[0].split()[1]
        body: Any = {"flink-version": "2.2.1"} if path.endswith("/config") else \
            json.loads(_job()) if path.endswith(f"/jobs/{JOB_ID}") else {}
        return _http("200 OK", json.dumps(body).encode())


class _Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, mode: str) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.mode = mode
        self.port = self.server_address[1]
        self.requests: list[list[str]] = []
        self.closed = threading.Event()
        self.dripped = 0  # body bytes the drip-body mode got out before the client left


@contextmanager
def hostile_server(mode: str) -> Iterator[_Server]:
    """A server answering every request the ``mode`` way; ``server.port`` and the request
    lines it got (``server.requests``)."""
    server = _Server(mode)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield server
    finally:
        server.closed.set()
        server.shutdown()
        server.server_close()
