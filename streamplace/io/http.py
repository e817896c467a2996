"""The one HTTP client of every REST call streamplace makes (a Flink JobManager's API).

What it promises, whatever the server does:

- a total deadline for the whole answer (:data:`DEADLINE`), not only per socket read: a
  server that drips a valid answer a byte at a time is given up on in time;
- a size cap on the body (:data:`MAX_BODY`), read in chunks: an endless or huge answer
  stops at the cap instead of filling memory;
- no redirect to another scheme, host or port, and at most :data:`MAX_REDIRECTS`;
- ``http://user:password@host`` is basic authentication: the credentials go in a header
  only, and no error, note or saved file ever shows them (:func:`Address.shown`); without
  them in the address, they come from ``STREAMPLACE_REST_USER`` and
  ``STREAMPLACE_REST_PASSWORD``, else from the netrc file's entry for the host;
- ``https://`` is verified against the system's certificate authorities, or the
  ``--cacert`` file; a client certificate where the server asks for one; ``--insecure``
  turns the verification off, and only when asked (:func:`configure`);
- every way an answer can be wrong (cut short, not HTTP, headers too long or too many, a
  body that is not UTF-8 or is compressed unasked, JSON nested too deep or with numbers too
  long) is an :class:`~streamplace.errors.InputError` naming the address without the
  credentials: exit 2, never an internal error.
"""

from __future__ import annotations

import base64
import contextlib
import http.client
import json
import socket
import ssl
import threading
import time
import urllib.parse
from dataclasses import dataclass
from typing import Any

from streamplace.errors import InputError, Unreachable
from streamplace.io.connecting import credentials, tls_context

DEADLINE = 30.0         # seconds for one whole answer
READ_TIMEOUT = 10.0     # seconds a single read may wait
MAX_BODY = 64 * 2**20   # bytes, as for input files
MAX_REDIRECTS = 3
CHUNK = 64 * 1024


@dataclass(frozen=True)
class Address:
    """A URL taken apart: what is sent, and the credentials kept out of every message."""

    scheme: str
    host: str
    port: int
    path: str              # with its query, "/" at least
    authorization: str | None = None

    @classmethod
    def parse(cls, url: str, label: str) -> Address:
        def bad(why: str) -> InputError:
            return InputError.single(f"cannot read {without_credentials(url)!r} as an "
                                     f"address: {why}", "give http://HOST:PORT/...",
                                     path=label)

        # the credentials come off first, whatever they hold ('/', '#', '?' included), so
        # that nothing parsed, and no parser's message, can carry them
        userinfo, bare = _split_userinfo(url.strip())
        try:
            parts = urllib.parse.urlsplit(bare)
            port = parts.port
        except ValueError:  # a port that is not a number, a broken IPv6 address
            raise bad("its host or port cannot be read") from None
        scheme = parts.scheme.lower()
        if scheme not in ("http", "https") or not parts.hostname:
            raise bad("only http:// and https:// addresses are read")
        authorization = None
        if userinfo is not None:
            user, _, password = userinfo.partition(":")
            authorization = "Basic " + base64.b64encode(
                f"{urllib.parse.unquote(user)}:{urllib.parse.unquote(password)}".encode()
            ).decode("ascii")
        path = parts.path or "/"
        if parts.query:
            path += f"?{parts.query}"
        if any(c in path for c in "\r\n ") or not path.isascii():
            raise bad("the path has spaces, line breaks or letters URLs cannot carry")
        return cls(scheme, parts.hostname, port or (443 if scheme == "https" else 80), path,
                   authorization)

    def shown(self) -> str:
        """The address as messages and saved files show it: never its credentials."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{self.scheme}://{host}:{self.port}{self.path}"

    def at(self, path: str) -> Address:
        return Address(self.scheme, self.host, self.port, path, self.authorization)


def is_url(value: str) -> bool:
    return value.lower().startswith(("http://", "https://"))


def get_json(address: Address, label: str, deadline: float | None = None) -> Any:
    """``GET`` ``address`` and the JSON it answers, within the total deadline."""
    ends = time.monotonic() + (DEADLINE if deadline is None else deadline)
    for _ in range(MAX_REDIRECTS + 1):
        status, reason, headers, body = _request("GET", address, label, ends)
        if status in (301, 302, 303, 307, 308):
            address = _redirected(address, headers.get("location", ""), label)
            continue
        if status != 200:
            fix = ("check the job id: GET /jobs lists the running ones" if status == 404
                   else "check the JobManager's REST address and its log")
            if status == 401:
                fix = ("give the user and password: STREAMPLACE_REST_USER and "
                       "STREAMPLACE_REST_PASSWORD, a netrc entry for the host, or "
                       "http://USER:PASSWORD@HOST:PORT/...")
            raise InputError.single(f"GET {address.shown()} answered {status} {reason}", fix,
                                    path=label)
        return _json(body, headers, address, label)
    raise InputError.single(f"GET {address.shown()} redirected more than {MAX_REDIRECTS} "
                            "times", "give the final address", path=label)


def put_json(address: Address, document: Any, label: str) -> tuple[int, str, Any]:
    """``PUT`` ``document`` as JSON to ``address``, within the total deadline: the status,
    its reason and the JSON answered (None when the body is empty or not JSON). Redirects
    are not followed: a change is sent once, to the address given."""
    ends = time.monotonic() + DEADLINE
    status, reason, headers, body = _request("PUT", address, label, ends,
                                             json.dumps(document).encode())
    try:
        answer = _json(body, headers, address, label) if body.strip() else None
    except InputError:
        answer = None
    return status, reason, answer


def _request(method: str, address: Address, label: str, ends: float, data: bytes | None = None,
             ) -> tuple[int, str, dict[str, str], bytes]:
    timeout = _left(ends, address, label)
    connection = http.client.HTTPSConnection(
        address.host, address.port, timeout=timeout, context=tls_context()) \
        if address.scheme == "https" else \
        http.client.HTTPConnection(address.host, address.port, timeout=timeout)
    headers = {"Accept": "application/json", "Accept-Encoding": "identity"}
    if data is not None:
        headers["Content-Type"] = "application/json"
    authorization = address.authorization or credentials(address.host)
    if authorization:
        headers["Authorization"] = authorization
    # the status line, the headers and the body are read in many small reads, each under
    # the read timeout: at the deadline the socket is shut, so a dripping server ends there
    # too. The socket is held here: on a "Connection: close" answer http.client lets go
    # of connection.sock once the headers are read, while the body is still read from it
    sock: list[socket.socket] = []
    watchdog = threading.Timer(max(0.0, ends - time.monotonic()), _shut, (sock,))
    watchdog.daemon = True
    watchdog.start()
    try:
        connection.connect()
        if connection.sock is not None:
            sock.append(connection.sock)
        if time.monotonic() >= ends:
            raise _late(address, label, method)
        connection.request(method, address.path, body=data, headers=headers)
        response = connection.getresponse()
        body = bytearray()
        while True:
            for held in sock:
                held.settimeout(_left(ends, address, label, method))
            chunk = response.read1(CHUNK) if hasattr(response, "read1") else \
                response.read(CHUNK)
            if not chunk:
                if response.length:  # read1 ends at EOF without saying the body was short
                    raise http.client.IncompleteRead(bytes(body), response.length)
                break
            body += chunk
            if len(body) > MAX_BODY:
                raise InputError.single(
                    f"{method} {address.shown()} answered more than {MAX_BODY // 2**20} MiB",
                    "give the JobManager's REST address, or save the job's JSON and give "
                    "the file", path=label)
        return (response.status, response.reason,
                {k.lower(): v for k, v in response.getheaders()}, bytes(body))
    except InputError:
        raise
    except (http.client.HTTPException, OSError, ValueError) as exc:
        raise _unreachable(address, label, exc, ends, method) from None
    finally:
        watchdog.cancel()
        connection.close()


def _shut(sock: list[socket.socket]) -> None:
    for held in sock:
        with contextlib.suppress(OSError):  # already closed: the read has ended anyway
            held.shutdown(socket.SHUT_RDWR)


def _left(ends: float, address: Address, label: str, method: str = "GET") -> float:
    left = ends - time.monotonic()
    if left <= 0:
        raise _late(address, label, method)
    return min(left, READ_TIMEOUT)


def _late(address: Address, label: str, method: str = "GET") -> Unreachable:
    return Unreachable.single(f"{method} {address.shown()} did not answer in whole within "
                             f"{DEADLINE:g} s", "check the JobManager and the network to it, "
                             "or save the job's JSON and give the file", path=label)


def _unreachable(address: Address, label: str, exc: Exception, ends: float,
                 method: str = "GET") -> Unreachable:
    if time.monotonic() >= ends:  # the watchdog shut the socket: the deadline, not the server
        return _late(address, label, method)
    # RemoteDisconnected is a BadStatusLine too: the first kind that matches names it
    what = {http.client.RemoteDisconnected: "the server closed the connection",
            http.client.IncompleteRead: "the answer was cut short",
            http.client.LineTooLong: "a line of the answer is too long",
            http.client.BadStatusLine: "the answer is not HTTP"}
    reason = next((text for kind, text in what.items() if isinstance(exc, kind)), None)
    if isinstance(exc, ssl.SSLCertVerificationError):
        return Unreachable.single(
            f"cannot reach {address.shown()}: its certificate is not trusted "
            f"({exc.verify_message})", "give --cacert the CA that signed the JobManager's "
            "certificate (--insecure: no verification)", path=label)
    if isinstance(exc, ssl.SSLError):
        return Unreachable.single(
            f"cannot reach {address.shown()}: TLS failed ({exc.reason or exc})", "check "
            "https:// against the JobManager's REST SSL settings, and give --cert and --key "
            "where it asks for a client certificate", path=label)
    if reason is None:
        reason = str(getattr(exc, "reason", exc)) or type(exc).__name__
    return Unreachable.single(f"cannot reach {address.shown()}: {reason}",
                             "check the JobManager's REST address (rest.address, "
                             "rest.port), or save the job JSON and give the file", path=label)


def _redirected(address: Address, location: str, label: str) -> Address:
    target = urllib.parse.urljoin(address.shown(), location)
    moved = Address.parse(target, label)
    if (moved.scheme, moved.host, moved.port) != (address.scheme, address.host, address.port):
        raise InputError.single(f"GET {address.shown()} redirects to {moved.shown()}, "
                                "another server", "give the JobManager's own REST address",
                                path=label)
    return address.at(moved.path)


def _json(body: bytes, headers: dict[str, str], address: Address, label: str) -> Any:
    encoding = headers.get("content-encoding", "identity").strip().lower()
    try:
        if encoding not in ("", "identity"):
            raise ValueError(f"it is {encoding}-compressed, which was not asked for")
        return printable(json.loads(body.decode("utf-8")))
    except (ValueError, RecursionError) as exc:  # UnicodeDecodeError and JSON errors too
        why = "nested too deep" if isinstance(exc, RecursionError) else str(exc)[:200]
        raise InputError.single(f"GET {address.shown()} did not answer JSON ({why})",
                                "give the JobManager's REST address (not its web UI proxy)",
                                path=label) from None


_CONTROLS = dict.fromkeys([*range(0x20), 0x7f, *range(0x80, 0xa0)])


def printable(answer: Any) -> Any:
    """``answer`` with every control character taken out of its strings (keys too): a
    server's words are shown on a terminal, where an escape sequence in a job's name (a
    co-tenant of a session cluster may name its job so) would act instead of being read.

    >>> printable({"name\x1b]0;x\x07": ["job\x1b[2J", 3]})
    {'name]0;x': ['job[2J', 3]}
    """
    if isinstance(answer, str):
        return answer.translate(_CONTROLS)
    if isinstance(answer, list):
        return [printable(x) for x in answer]
    if isinstance(answer, dict):
        return {printable(k): printable(v) for k, v in answer.items()}
    return answer


def without_credentials(url: str) -> str:
    """``url`` as it may be shown: ``user:password@`` left out, whatever the password holds.

    >>> without_credentials("http://u:p/a#b?c@jm:8081/jobs/x")
    'http://jm:8081/jobs/x'
    """
    return _split_userinfo(url)[1]


def _split_userinfo(url: str) -> tuple[str | None, str]:
    """The ``user:password`` of ``url`` (None when it has none) and the URL without it. A
    password may hold '/', '#', '?' or '@', which a URL parser would take for the path, the
    fragment or the host: the userinfo ends at the last '@' (the REST paths read here hold
    none)."""
    scheme, sep, rest = url.partition("://")
    if not sep or "@" not in rest:
        return None, url
    userinfo, _, tail = rest.rpartition("@")
    return userinfo, f"{scheme}{sep}{tail}"
