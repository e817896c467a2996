"""The one HTTP client (streamplace/io/http.py) against servers that misbehave: every answer
that is not a JobManager's is exit 2 in words, within a total deadline and a size cap, and
no message or saved file shows a password."""

from __future__ import annotations

import contextlib
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from streamplace.errors import InputError
from streamplace.io import http
from streamplace.io.http import Address

from ..conftest import run
from ..support.hostile_server import JOB_ID, hostile_server


def observe(port: int, *more: str, userinfo: str = ""):
    return run("observe", f"http://{userinfo}127.0.0.1:{port}/jobs/{JOB_ID}", *more)


@pytest.mark.parametrize(("mode", "said"), [
    ("cut", "cut short"),
    ("garbage", "not HTTP"),
    ("long-header", "too long"),
    ("many-headers", "cannot reach"),
    ("latin1", "did not answer JSON"),
    ("gzip", "gzip-compressed, which was not asked for"),
    ("deep", "nested too deep"),
    ("digits", "did not answer JSON"),
    ("redirect-away", "another server"),
    ("redirect-ftp", "only http:// and https://"),
    ("odd-vertex", "not a Flink vertex id"),
])
def test_a_broken_answer_is_bad_input_in_words(mode, said):
    with hostile_server(mode) as server:
        done = observe(server.port)
    assert done.exit_code == 2, (mode, done.stderr)
    assert said in done.stderr, (mode, done.stderr)
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr
    if mode == "odd-vertex":  # the id was refused before it went into any address
        assert all("evil" not in " ".join(lines) for lines in server.requests[1:])


def test_a_dripping_server_is_given_up_on_at_the_deadline(monkeypatch):
    """A valid answer, one byte every 0.2 s, takes minutes: the whole answer has a
    deadline (set low here; the server is slower than any deadline by design)."""
    monkeypatch.setattr(http, "DEADLINE", 1.0)
    with hostile_server("drip") as server:
        done = observe(server.port)
    assert done.exit_code == 2 and "did not answer in whole within 1 s" in done.stderr


def test_a_body_dripping_after_the_headers_is_given_up_on_at_the_deadline(monkeypatch):
    """On a "Connection: close" answer http.client lets go of the socket once the headers
    are read; the deadline must reach the socket the body is still read from (were it not,
    the read would end only when the server stops, cut short, 120 s on)."""
    monkeypatch.setattr(http, "DEADLINE", 1.0)
    with hostile_server("drip-body") as server:
        done = observe(server.port)
        dripped = server.dripped  # what the client had taken when it gave up
    assert done.exit_code == 2 and "did not answer in whole within 1 s" in done.stderr
    assert dripped < 600  # it left mid-body, at its deadline, not when the server stopped


def test_an_endless_answer_stops_at_the_size_cap(monkeypatch):
    monkeypatch.setattr(http, "MAX_BODY", 2 * 2**20)
    with hostile_server("endless") as server:
        done = observe(server.port)
    assert done.exit_code == 2 and "answered more than 2 MiB" in done.stderr


def test_credentials_are_sent_as_basic_auth_and_never_shown():
    """The right password gets the job (the server answers 401 otherwise); neither the
    wrong one nor the right one shows in a message or in the snapshot --save writes."""
    from streamplace.control.flink.job import fetch_snapshot

    with hostile_server("auth") as server:
        wrong = observe(server.port, userinfo="user:wrong-one@")
        right = observe(server.port, userinfo="user:s3cr3t@")
        snapshot = fetch_snapshot(f"http://user:s3cr3t@127.0.0.1:{server.port}/jobs/{JOB_ID}")
    assert wrong.exit_code == 2 and "401" in wrong.stderr
    assert "wrong-one" not in wrong.stderr + wrong.stdout
    # the messages name the server, whose port may hold "401" (39401 did)
    assert "401" not in right.stderr.replace(f"127.0.0.1:{server.port}", "")
    assert "s3cr3t" not in right.stderr + right.stdout
    assert snapshot["job"]["jid"] == JOB_ID and snapshot["config"]["flink-version"] == "2.2.1"
    saved = json.dumps(snapshot)  # what --save writes
    assert "s3cr3t" not in saved and snapshot["address"].startswith("http://127.0.0.1:")
    assert any("Authorization: Basic dXNlcjpzM2NyM3Q=" in lines for lines in server.requests)


@pytest.mark.parametrize(("url", "said"), [
    ("http://127.0.0.1:port/jobs/" + JOB_ID, "cannot read"),
    ("http://[::1/jobs/" + JOB_ID, "cannot read"),
    ("http://u:secret@127.0.0.1:99999/jobs/" + JOB_ID, "cannot read"),
    ("HTTP://127.0.0.1:1/jobs/latest", "32 hex digits"),
])
def test_addresses_that_are_not_addresses_are_bad_input(url, said):
    done = run("observe", url)
    assert done.exit_code == 2, done.stderr
    assert said in done.stderr and "secret" not in done.stderr


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=400))
def test_any_bytes_for_an_answer_are_an_answer_or_bad_input(data):
    """Whatever the bytes, the client returns JSON or raises InputError: never another
    exception."""
    import socket
    import threading

    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)

        def answer() -> None:
            conn, _ = listener.accept()
            with conn:
                conn.recv(65536)
                conn.sendall(data)

        worker = threading.Thread(target=answer, daemon=True)
        worker.start()
        address = Address.parse(f"http://127.0.0.1:{listener.getsockname()[1]}/x", "URL")
        with contextlib.suppress(InputError):  # the one exception allowed
            http.get_json(address, "URL", deadline=10)
        worker.join(timeout=10)
