"""A JobManager's REST API on 127.0.0.1 that a test scripts: the sample job of
``samples/flink/paced-snapshot.json`` on a cluster of the adaptive scheduler, whose counters
move each time a vertex is read (one second of the job per read), and whose faults (a reset
connection, a dropped one, a held answer, a 404, counters flagged incomplete) are queued
per path.

Each fault is what a real JobManager or the network between does; the server answers with
Python's own ``http.server``, over real sockets.
"""

from __future__ import annotations

import copy
import json
import socket
import ssl
import struct
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

SAMPLE = Path(__file__).resolve().parent.parent.parent / "samples" / "flink" / \
    "paced-snapshot.json"
FAULTS = ("reset", "drop", "hold", "404", "incomplete")


@dataclass
class JobManager:
    """What the fake answers, and what it was asked: change it while the test runs."""

    snapshot: dict[str, Any]
    busy: dict[str, float | list[float]]   # vertex name: share of time busy, per subtask
    pressed: dict[str, float]              # vertex name: share of time back-pressured
    records: dict[str, float] = field(default_factory=dict)  # name: records a subtask takes
    pending: dict[str, float] = field(default_factory=dict)  # source name: pendingRecords
    growth: dict[str, float] = field(default_factory=dict)   # source name: per second of job
    slots_total: int = 8
    memory: dict[str, float] = field(default_factory=dict)  # TaskManager metric: its max
    partitions: dict[str, int] = field(default_factory=dict)  # source name: Kafka partitions
    listed: list[dict[str, str]] | None = None  # GET /jobs/overview's jobs, where not its own
    latency: dict[str, float] = field(default_factory=dict)
    """vertex name: the mean age in ms of the source's latency markers there (the median
    is 0.9 of it, the p99 twice it), as each vertex's metrics list them."""
    markers_in_job: bool = False
    """The markers listed in the job's metrics, as Flink 1.20 lists them (else per vertex)."""
    checkpoints: dict[str, Any] | None = None
    """GET /jobs/:jid/checkpoints/config's answer (None: checkpointing off, a 404)."""
    config: list[dict[str, str]] = field(default_factory=lambda: [
        {"key": "jobmanager.scheduler", "value": "adaptive"}])  # GET /jobmanager/config
    settle: bool = True                    # whether the job takes up a PUT's parallelism
    authorization: str | None = None       # the Authorization header it asks for, if any
    put_fault: str | None = None           # drop | hold | None
    faults: dict[str, list[str]] = field(default_factory=dict)  # path part: queued faults
    after_put: dict[str, list[str]] = field(default_factory=dict)  # queued once a PUT comes
    on_put: Callable[[], None] | None = None  # what changes in the job once a PUT comes
    on_load: Callable[[], None] | None = None
    """What changes once a reading ends: autoscale reads what every job holds
    (``/jobs/overview``) after the window's second end, so the next step reads the change
    from its first request on, whatever the test thread's pace."""
    requests: list[tuple[str, str]] = field(default_factory=list)
    puts: list[Any] = field(default_factory=list)
    released: threading.Event = field(default_factory=threading.Event)
    url: str = ""

    @property
    def jid(self) -> str:
        return str(self.snapshot["job"]["jid"])

    @property
    def job_url(self) -> str:
        return f"{self.url}/jobs/{self.jid}"

    def vertex_id(self, name: str) -> str:
        return next(v["id"] for v in self.snapshot["job"]["vertices"] if v["name"] == name)

    def fault(self, path_part: str, *kinds: str, after_put: bool = False) -> None:
        """Queue ``kinds`` for the requests whose path holds ``path_part`` (``=PATH``: is
        PATH), at once or from the first PUT on."""
        assert all(k in FAULTS for k in kinds), kinds
        (self.after_put if after_put else self.faults).setdefault(path_part, []).extend(kinds)

    def gets(self, path_part: str) -> int:
        return sum(1 for method, path in self.requests if method == "GET" and path_part in path)

    # -- answers -------------------------------------------------------------------------

    def answer(self, path: str) -> Any:
        jid, job = self.jid, self.snapshot["job"]
        if path == "/config":
            return self.snapshot["config"]
        if path == "/jobmanager/config":
            return self.config
        if path.startswith("/taskmanagers/metrics?get="):
            asked = path.partition("=")[2].split(",")
            if not all(name in self.memory for name in asked):
                return []  # as Flink: nothing when one name is missing
            return [{"id": n, "min": 0, "max": self.memory[n], "avg": self.memory[n],
                     "sum": self.memory[n]} for n in asked]
        if path == "/overview":
            return {"slots-total": self.slots_total,
                    "slots-available": self.slots_total - self._held()}
        if path == f"/jobs/{jid}":
            return job
        if path == "/jobs/overview":
            if self.on_load is not None:
                self.on_load()
            return {"jobs": self.listed if self.listed is not None else
                    [{"jid": jid, "name": job["name"], "state": job["state"]}]}
        if path == "/taskmanagers":
            return self.snapshot["taskmanagers"]
        if path.startswith("/taskmanagers/"):
            return self._taskmanager(path.removeprefix("/taskmanagers/"))
        if path == f"/jobs/{jid}/checkpoints/config":
            return self.checkpoints
        if path.startswith(f"/jobs/{jid}/metrics"):  # Flink 1.20 lists the markers here
            rest = path.removeprefix(f"/jobs/{jid}/")
            return [] if not self.markers_in_job else [
                m for vid in self.snapshot["vertices"] for m in self._markers(vid, rest, "")]
        prefix = f"/jobs/{jid}/vertices/"
        if path.startswith(prefix):
            vid, _, rest = path.removeprefix(prefix).partition("/")
            if vid in self.snapshot["vertices"] and not rest:
                return self._tick(vid)
            if vid in self.snapshot["vertices"] and rest.startswith("metrics"):
                return self._markers(vid, rest)
            if vid in self.snapshot["metrics"] and rest == "subtasks/metrics":
                return self._listed(vid)
            if vid in self.snapshot["metrics"] and rest.startswith("subtasks/metrics"):
                if ".pendingRecords" in rest:
                    lag = self.pending[self._name(vid)]
                    return [{"id": f"Source__{self._name(vid)}.pendingRecords", "min": 0,
                             "max": lag, "avg": lag / 2, "sum": lag}]
                return self.snapshot["metrics"][vid]
        return None

    def take_put(self, body: Any, path: str = "") -> None:
        self.puts.append(body)
        for part, kinds in self.after_put.items():
            self.faults.setdefault(part, []).extend(kinds)
        self.after_put = {}
        if self.settle:
            for v in self.snapshot["job"]["vertices"]:
                wanted = body.get(v["id"], {}).get("parallelism", {}).get("upperBound")
                if isinstance(wanted, int) and wanted != v["parallelism"]:
                    self._rescale(v, wanted)
        if self.on_put is not None:  # the job as it runs after the change
            self.on_put()

    def _markers(self, vid: str, rest: str, subtask: str = "0.") -> list[dict[str, Any]]:
        """The source's latency markers at ``vid``, listed (``metrics``) or valued
        (``metrics?get=``), for its one subtask 0: in the vertex's metrics as 2.x lists
        them, or (``markers_in_job``) without the subtask in the job's, as 1.20 does."""
        mean = self.latency.get(self._name(vid))
        if mean is None or (self.markers_in_job and subtask):
            return []
        source = self.snapshot["job"]["vertices"][0]["id"]
        stem = (f"{subtask}latency.source_id.{source}.operator_id.{vid}."
                "operator_subtask_index.0.latency")
        values = {f"{stem}_mean": mean, f"{stem}_median": 0.9 * mean, f"{stem}_p99": 2 * mean,
                  f"{stem}_p75": 1.1 * mean}
        if "?get=" not in rest:
            return [{"id": name} for name in values]
        asked = rest.partition("?get=")[2].split(",")
        return [{"id": name, "value": str(values[name])} for name in asked if name in values]

    def _name(self, vid: str) -> str:
        return next(v["name"] for v in self.snapshot["job"]["vertices"] if v["id"] == vid)

    def _listed(self, vid: str) -> list[dict[str, str]]:
        """The metric ids a vertex's subtasks have: a source with a lag has its
        operator-scoped pendingRecords among them (FLIP-33)."""
        ids = [{"id": m["id"]} for m in self.snapshot["metrics"][vid]]
        ids += [{"id": f"Source__{self._name(vid)}.KafkaSourceReader.topic.t.partition.{p}."
                       "currentOffset"} for p in range(self.partitions.get(self._name(vid), 0))]
        if self._name(vid) in self.pending:
            ids.append({"id": f"Source__{self._name(vid)}.pendingRecords"})
        return ids

    def _held(self) -> int:
        """Slots the job holds: its widest vertex per slot-sharing group, added up."""
        widest: dict[str, int] = {}
        for v in self.snapshot["job"]["vertices"]:
            group = str(v.get("slotSharingGroupId"))
            widest[group] = max(widest.get(group, 0), v["parallelism"])
        return sum(widest.values())

    def _taskmanager(self, tm: str) -> Any:
        listed = [t for t in self.snapshot["taskmanagers"]["taskmanagers"] if t["id"] == tm]
        if not listed:
            return None
        slots = sum(1 for det in self.snapshot["vertices"].values()
                    for s in det["subtasks"] if s.get("taskmanager-id") == tm) // max(
            1, len(self.snapshot["vertices"]))
        return {**listed[0], "allocatedSlots": [{"jobId": self.jid, "resource": {}}
                                                for _ in range(slots)]}

    def _tick(self, vid: str) -> Any:
        """One second more of the job in every subtask's counters."""
        details = self.snapshot["vertices"][vid]
        name = details.get("name") or next(v["name"] for v in self.snapshot["job"]["vertices"]
                                           if v["id"] == vid)
        shares, pressed = self.busy.get(name, 0.5), self.pressed.get(name, 0.0)
        if name in self.pending:
            self.pending[name] = max(0.0, self.pending[name] + self.growth.get(name, 0.0))
        for k, s in enumerate(details["subtasks"]):
            busy = shares[k % len(shares)] if isinstance(shares, list) else shares
            m = s["metrics"]
            m["accumulated-busy-time"] = m.get("accumulated-busy-time", 0) + 1000 * busy
            m["accumulated-backpressured-time"] = \
                m.get("accumulated-backpressured-time", 0) + 1000 * pressed
            m["accumulated-idle-time"] = \
                m.get("accumulated-idle-time", 0) + 1000 * (1 - busy - pressed)
            for k in ("read-records", "write-records"):
                m[k] = m.get(k, 0) + self.records.get(name, 50)
            for k in ("read-bytes", "write-bytes"):
                m[k] = m.get(k, 0) + 50 * 40
        return details

    def _rescale(self, vertex: dict[str, Any], k: int) -> None:
        vertex["parallelism"] = k
        details = self.snapshot["vertices"][vertex["id"]]
        first = details["subtasks"][0]
        tms = [t["id"] for t in self.snapshot["taskmanagers"]["taskmanagers"]]
        details["subtasks"] = [
            {**copy.deepcopy(first), "subtask": i, "status": "RUNNING",
             "taskmanager-id": tms[i % len(tms)],
             "metrics": {k2: 0 for k2 in first["metrics"]}} for i in range(k)]


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def _fault(self) -> str | None:
        jm = self.server.jm
        for part, queued in jm.faults.items():
            hit = self.path == part[1:] if part.startswith("=") else part in self.path
            if hit and queued:
                return queued.pop(0)
        return None

    def _act(self, fault: str | None) -> bool:
        """Carry out a connection-level fault; True when nothing more is to be sent."""
        if fault == "reset":  # an RST: what a restarted proxy or a dropped route sends
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                                       struct.pack("ii", 1, 0))
            self.connection.close()
            return True
        if fault == "drop":  # closed without a word
            self.connection.shutdown(socket.SHUT_RDWR)
            return True
        if fault == "hold":  # never answers until the test ends
            self.server.jm.released.wait(600)
            return True
        return False

    def do_GET(self) -> None:
        jm = self.server.jm
        jm.requests.append(("GET", self.path))
        if jm.authorization is not None and \
                self.headers.get("Authorization") != jm.authorization:
            self._send(401, {"errors": ["Unauthorized"]})
            return
        fault = self._fault()
        if self._act(fault):
            return
        body = None if fault == "404" else jm.answer(self.path)
        if fault == "incomplete" and isinstance(body, dict) and "subtasks" in body:
            body = copy.deepcopy(body)
            for s in body["subtasks"]:
                s["metrics"] |= {"read-records": 0, "read-records-complete": False,
                                 "write-records": 0, "write-records-complete": False}
        self._send(200 if body is not None else 404,
                   body if body is not None else {"errors": ["Not found"]})

    def do_PUT(self) -> None:
        jm = self.server.jm
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length) or b"null")
        jm.requests.append(("PUT", self.path))
        if not self.path.endswith("/resource-requirements"):
            self._send(404, {"errors": ["Not found"]})
            return
        jm.take_put(body, self.path)
        if self._act(jm.put_fault):
            return
        self._send(200, {})

    def _send(self, status: int, body: Any) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    jm: JobManager


def sample_snapshot() -> dict[str, Any]:
    """The sample job's snapshot, each vertex's details carrying its name."""
    snapshot: dict[str, Any] = json.loads(SAMPLE.read_text())
    for vid, details in snapshot["vertices"].items():
        details.setdefault("name", next(v["name"] for v in snapshot["job"]["vertices"]
                                        if v["id"] == vid))
    return snapshot


@contextmanager
def serving(target: Any, tls: ssl.SSLContext | None = None) -> Iterator[str]:
    """``target`` (a JobManager, or what answers as one) served on a free port of
    127.0.0.1 (over TLS with ``tls``), its address yielded; its held answers released at
    the end."""
    server = _Server(("127.0.0.1", 0), _Handler)
    server.jm = target
    if tls is not None:
        server.socket = tls.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        scheme = "https" if tls is not None else "http"
        yield f"{scheme}://127.0.0.1:{server.server_address[1]}"
    finally:
        target.released.set()
        server.shutdown()
        server.server_close()


@contextmanager
def fake_jobmanager(busy: dict[str, float | list[float]] | None = None,
                    pressed: dict[str, float] | None = None,
                    tls: ssl.SSLContext | None = None) -> Iterator[JobManager]:
    """The fake on a free port of 127.0.0.1; ``busy`` and ``pressed`` per vertex name."""
    jm = JobManager(sample_snapshot(), busy or {}, pressed or {})
    with serving(jm, tls) as url:
        jm.url = url
        yield jm
