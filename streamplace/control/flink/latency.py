"""The response time held to the running job: Flink's latency markers read, and the model's
prediction of them.

With ``metrics.latency.interval`` set (on the cluster, or in the job), each source emits a
marker at that interval; every operator it reaches records, per source, a histogram of the
marker's age on arrival. Flink 2.2.1 (checked; 1.20 is not) lists them among each
vertex's metrics (``GET /jobs/:jid/vertices/:vid/metrics``), not the job's, one per
reporting subtask:
``<subtask>.latency.source_id.<vertex>[.source_subtask_index.<k>].operator_id.<vertex>
.operator_subtask_index.<k>.latency_<stat>``, ``stat`` one of ``mean``, ``median``,
``p99`` ... in milliseconds (``metrics.latency.granularity``: ``operator`` by default,
``subtask`` adds the source's subtask; ``single`` names no source and is not read).

A marker is not processed: it waits behind the records queued at each operator, and in each
output buffer until it is flushed (``execution.buffer-timeout.interval``, 100 ms by
default: a uniform wait of half that on average at rates too low to fill a 32 KiB buffer).
So the model predicts a marker's mean age from the source to an operator as

    sum over the operators after the source of W_q,i = R_i - 1/mu_i   (eq. 1's sojourn less
    one service) + sum over the streams of (delay + buffer-timeout / 2)

where R_path, the response time the model prints, counts one service at every operator
and no buffer. Both are given side by side (docs/models.md, "Response time against
latency markers").
"""

from __future__ import annotations

import re
import statistics
from collections import defaultdict
from dataclasses import dataclass

from streamplace.control.flink.rescale import JobAddress
from streamplace.errors import InputError
from streamplace.io.http import get_json
from streamplace.model.application import Application
from streamplace.model.evaluate import evaluate
from streamplace.model.graph import build_graph
from streamplace.model.infrastructure import Infrastructure
from streamplace.model.plan import Plan

MARKER = re.compile(r"^\d+\.latency\.source_id\.([0-9a-f]{32})(?:\.source_subtask_index\.\d+)?"
                    r"\.operator_id\.([0-9a-f]{32})\.operator_subtask_index\.\d+\."
                    r"latency_(mean|median|p99)$")
BUFFER_TIMEOUT = 0.1  # seconds: execution.buffer-timeout.interval's default
TOLERANCE = 0.25      # a marker prediction this share off the measured mean is said to be off
BUFFER_KEYS = ("execution.buffer-timeout.interval", "execution.buffer-timeout")  # 2.x, 1.x
OFF = ("the job reports no latency markers", "set metrics.latency.interval (e.g. 1000, in "
       "ms) in the cluster's config.yaml, or in the job "
       "(ExecutionConfig#setLatencyTrackingInterval), with metrics.latency.granularity "
       "operator or subtask")


@dataclass(frozen=True)
class Measured:
    """A source's markers at one operator, over its subtasks, in seconds."""

    mean: float     # the mean of the subtasks' means
    median: float   # the median of their medians
    p99: float      # the largest of their 99th percentiles


@dataclass(frozen=True)
class Predicted:
    source: str
    op: str
    response_time: float   # R of the longest path, as the model prints it (eqs. 8-11)
    waiting: float         # sum of W_q = R_i - 1/mu_i after the source
    network: float         # sum of the streams' delays
    buffers: float         # hops x buffer-timeout / 2
    hops: int
    service: float = 0.0   # sum of 1/mu_i over the path, its source included

    @property
    def marker(self) -> float:
        return self.waiting + self.network + self.buffers


def fetch_markers(where: JobAddress, vertices: dict[str, str]) -> dict[tuple[str, str], Measured]:
    """(source operator, operator): its markers, from each vertex's metrics (``vertices``:
    vertex id -> operator id). Empty where the job reports none."""
    found: dict[tuple[str, str], dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for vid in vertices:
        listed = get_json(where.at(f"{where.job}/vertices/{vid}/metrics"), "JOB")
        ids = [m.get("id") for m in listed if isinstance(m, dict)] \
            if isinstance(listed, list) else []
        wanted = [i for i in ids if isinstance(i, str) and MARKER.match(i)]
        for chunk in range(0, len(wanted), 40):  # a URL of reasonable length
            got = get_json(where.at(f"{where.job}/vertices/{vid}/metrics?get="
                                    + ",".join(wanted[chunk:chunk + 40])), "JOB")
            for m in got if isinstance(got, list) else []:
                hit = MARKER.match(str(m.get("id")))
                value = _number(m.get("value"))
                if hit and value is not None and hit.group(1) in vertices \
                        and hit.group(2) in vertices:
                    key = (vertices[hit.group(1)], vertices[hit.group(2)])
                    found[key][hit.group(3)].append(value / 1000)
    return {key: Measured(statistics.fmean(s["mean"]), statistics.median(s["median"]),
                          max(s["p99"]))
            for key, s in found.items() if s["mean"] and s["median"] and s["p99"]}


def buffer_timeout(where: JobAddress) -> float:
    """The cluster's buffer timeout in seconds (a job may set its own: not visible here)."""
    listed = get_json(where.at("/jobmanager/config"), "JOB")
    settings = {e.get("key"): e.get("value") for e in listed if isinstance(e, dict)} \
        if isinstance(listed, list) else {}
    for key in BUFFER_KEYS:
        if key in settings:
            return _duration(str(settings[key]))
    return BUFFER_TIMEOUT


def predicted_markers(app: Application, infra: Infrastructure, plan: Plan, timeout: float,
                      pairs: list[tuple[str, str]]) -> dict[tuple[str, str], Predicted]:
    """The model's R and marker age along the longest path from each pair's source to its
    operator (pairs the graph does not join are left out)."""
    ev = evaluate(app, infra, plan)
    if ev.odrp is None:
        raise InputError.single("the plan does not place every operator", "give a "
                                "complete plan", path="--against")
    graph = build_graph(app)
    r = {m.id: m.latency for m in ev.odrp.operators}
    mu = {op.id: op.service_rate for op in app.operators}
    delay = {(s.source, s.target): s.delay for s in ev.odrp.streams}
    out: dict[tuple[str, str], Predicted] = {}
    for source, op in pairs:
        best = _longest(graph.topological_order(), graph.preds, source, r, delay, mu, timeout)
        if op in best:
            total, waiting, network, buffers, hops, service = best[op]
            out[(source, op)] = Predicted(source, op, total, waiting, network, buffers, hops,
                                          service)
    return out


Step = tuple[float, float, float, float, int, float]
"""R, waiting, network, buffers, hops, sum of 1/mu along the longest path so far."""


def _longest(order: list[str], preds: dict[str, list[str]], source: str,
             r: dict[str, float], delay: dict[tuple[str, str], float],
             mu: dict[str, float | None], timeout: float) -> dict[str, Step]:
    def served(op: str) -> float:
        rate = mu.get(op)
        return 1 / rate if rate else 0.0

    best: dict[str, Step] = {source: (r[source], 0.0, 0.0, 0.0, 0, served(source))}
    for op in order:
        if op == source:
            continue
        into = [(best[p], delay.get((p, op), 0.0)) for p in preds.get(op, []) if p in best]
        if not into:
            continue
        (total, waiting, network, buffers, hops, service), d = max(
            into, key=lambda x: x[0][0] + x[1])
        best[op] = (total + d + r[op], waiting + max(0.0, r[op] - served(op)), network + d,
                    buffers + timeout / 2, hops + 1, service + served(op))
    return best


def _number(value: object) -> float | None:
    try:
        out = float(str(value))
    except ValueError:
        return None
    return out if out == out and out >= 0 else None


def _duration(text: str) -> float:
    """Seconds from Flink's duration (``100 ms``, ``1 s``, a plain number of ms)."""
    found = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*(ms|s|min)?\s*", text)
    if not found:
        return BUFFER_TIMEOUT
    value, unit = float(found.group(1)), found.group(2) or "ms"
    return value * {"ms": 0.001, "s": 1.0, "min": 60.0}[unit]


@dataclass(frozen=True)
class PathLatency:
    """One source-to-sink path: the model's prediction against the markers measured."""

    predicted: Predicted
    measured: Measured
    tolerance: float

    @property
    def off(self) -> str | None:
        """Where the marker's predicted age is off the measured mean by more than the
        tolerance (a share of the measured mean, and at least one buffer-timeout's tenth)."""
        p, m = self.predicted, self.measured
        gap = p.marker - m.mean
        if abs(gap) <= max(self.tolerance * m.mean, 0.01):
            return None
        return (f"{p.source} -> {p.op}: markers {m.mean * 1000:.0f} ms on average, the model "
                f"{p.marker * 1000:.0f} ms ({'above' if gap > 0 else 'below'} by "
                f"{abs(gap) * 1000:.0f} ms)")

    def to_json(self) -> dict[str, object]:
        p, m = self.predicted, self.measured
        return {"source": p.source, "operator": p.op, "predicted_r": p.response_time,
                "predicted_marker": p.marker, "waiting": p.waiting, "delays": p.network,
                "buffers": p.buffers, "hops": p.hops, "service": p.service,
                "measured_mean": m.mean,
                "measured_median": m.median, "measured_p99": m.p99, "off": self.off}


def end_to_end(job: str, vertex_of: dict[str, str], app: Application, infra: Infrastructure,
               plan: Plan, tolerance: float) -> list[PathLatency]:
    """Every source-to-sink path of the running job ``job`` (``vertex_of``: operator ->
    vertex id): the model's prediction against its markers. InputError (exit 2) with the
    setting that turns them on where the job reports none."""
    where = JobAddress.parse(job)
    measured = fetch_markers(where, {vid: op for op, vid in vertex_of.items()})
    if not measured:
        raise InputError.single(OFF[0], OFF[1], path="metrics.latency.interval")
    graph = build_graph(app)
    pairs = [(s, t) for s in graph.sources for t in graph.sinks if (s, t) in measured]
    predicted = predicted_markers(app, infra, plan, buffer_timeout(where), pairs)
    return [PathLatency(predicted[pair], measured[pair], tolerance) for pair in pairs
            if pair in predicted]
