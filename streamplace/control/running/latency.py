"""The response time held to the running job: the model's prediction of its latency markers,
against what they measured (read by the engine: ``control/flink/markers.py``).

With ``metrics.latency.interval`` set (on the cluster, or in the job), each source emits a
marker at that interval; every operator it reaches records, per source, a histogram of the
marker's age on arrival. A marker is not processed: it waits behind the records queued at
each operator, and in each output buffer until it is flushed
(``execution.buffer-timeout.interval``, 100 ms by default: a uniform wait of half that on
average at rates too low to fill a 32 KiB buffer).
So the model predicts a marker's mean age from the source to an operator as

    sum over the operators after the source of W_q,i = R_i - 1/mu_i   (eq. 1's sojourn less
    one service) + sum over the streams of (delay + buffer-timeout / 2)

where R_path, the response time the model prints, counts one service at every operator
and no buffer: (L1), the sensitivity ``--max-response-time`` re-plans with. The prediction
held to the markers is (L3), hop by hop (``hops.py``): the flush at the timeout or when a
buffer fills or a checkpoint's barrier passes (one barrier along the whole path), the
records flushed with the marker, a queue of the service's measured variability; its mean,
its p99 and what no run exceeds. Both are given side by side
(docs/models.md, "Response time against latency markers").
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property
from itertools import pairwise

from streamplace.control.running.hops import (
    ASSUMED_VARIABILITY,
    SEGMENT,
    Distribution,
    Hop,
    channel_flush,
    distribution,
)
from streamplace.control.running.observation import Observation
from streamplace.errors import InputError
from streamplace.model.application import Application
from streamplace.model.evaluate import evaluate
from streamplace.model.graph import build_graph
from streamplace.model.infrastructure import Infrastructure
from streamplace.model.plan import Plan

BUFFER_TIMEOUT = 0.1  # seconds: execution.buffer-timeout.interval's default
TOLERANCE = 0.25      # a marker prediction this share off the measured mean is said to be off
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
    markers: float | None = None  # how many a subtask's histogram holds, where known
    span: float | None = None     # the seconds they arrived over, where known

    def held(self, statistic: str) -> float:
        """The value ``--response-time-statistic`` holds: the mean, or the p99."""
        return self.p99 if statistic == "p99" else self.mean

    def above_mean(self, statistic: str) -> float:
        """How far the held value lies above the mean: the spread a bound on the p99 takes
        from the limit before it bounds the mean (none for the mean itself)."""
        return max(0.0, self.held(statistic) - self.mean)


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
    path: tuple[Hop, ...] = field(default=())  # (L3)'s terms, hop by hop

    @property
    def marker(self) -> float:
        """(L1): the M/M/1 waits, the network and half a timeout per hop."""
        return self.waiting + self.network + self.buffers

    @property
    def unshortened(self) -> float:
        """(L3)'s part no parallelism shortens: the waits for the flushes, and the network."""
        return self.expected.flushes + sum(h.delay for h in self.path)

    @cached_property
    def expected(self) -> Distribution:
        """(L3): the marker's age hop by hop, its mean, p99 and promise."""
        return distribution(self.path)


def predicted_markers(app: Application, infra: Infrastructure, plan: Plan, timeout: float,
                      pairs: list[tuple[str, str]], variability: dict[str, float] | None = None,
                      segment: float = SEGMENT, barrier: float = math.inf,
                      forward: frozenset[tuple[str, str]] = frozenset(),
                      records: dict[str, float] | None = None,
                      firings: dict[str, tuple[float, ...]] | None = None,
                      ) -> dict[tuple[str, str], Predicted]:
    """The model's R and marker age along the longest path from each pair's source to its
    operator (pairs the graph does not join are left out); ``variability``: the service's
    c_s^2 of the operators it was measured for, ``segment`` the network buffer's bytes,
    ``barrier`` the seconds between two checkpoints (their barriers flush every buffer),
    ``forward`` the streams sent subtask to subtask (else every producer subtask to every
    consumer subtask), ``records`` the busy seconds a record typically takes, of the
    operators it was measured for (their rho and 1/mu then leave out the work no record
    brings, which counts towards their capacity, and, as ``firings`` says how long one
    firing of it read took, in seconds, towards the markers' wait behind them)."""
    ev = evaluate(app, infra, plan)
    if ev.odrp is None:
        raise InputError.single("the plan does not place every operator", "give a "
                                "complete plan", path="--against")
    graph = build_graph(app)
    r = {m.id: m.latency for m in ev.odrp.operators}
    mu = {op.id: op.service_rate for op in app.operators}
    delay = {(s.source, s.target): s.delay for s in ev.odrp.streams}
    measured = variability or {}
    metrics = {m.id: m for m in ev.odrp.operators}
    streams = {(s.source, s.target): s for s in ev.odrp.streams}

    def hop(p: str, k: str) -> Hop:
        m, s = metrics[k], streams[(p, k)]
        served = mu.get(k) or math.inf  # a subtask's records per second of busy time
        # a forward stream sends each producer subtask's records to one consumer subtask
        channels = 1 if (p, k) in forward else max(1, metrics[p].count)
        flush, filled = channel_flush(timeout, s.rate / (channels * max(1, m.count)),
                                      s.bytes_per_s / s.rate if s.rate > 0 else 0.0, segment)
        busy, service, total = m.load_per_replica / served, 1 / served, None
        fired: tuple[float, ...] = ()
        if k in per_record and per_record[k] < service:
            busy, service, total = m.load_per_replica * per_record[k], per_record[k], busy
            fired = (firings or {}).get(k, ())
        return Hop((p, k), flush, filled, busy, channels, service,
                   measured.get(k, ASSUMED_VARIABILITY), k in measured, delay.get((p, k), 0.0),
                   barrier, total, fired)

    per_record = records or {}

    out: dict[tuple[str, str], Predicted] = {}
    for source, op in pairs:
        best, via = _longest(graph.topological_order(), graph.preds, source, r, delay, mu,
                             timeout)
        if op in best:
            total, waiting, network, buffers, hops, service = best[op]
            walk = [op]
            while walk[-1] in via:
                walk.append(via[walk[-1]])
            path = tuple(hop(p, k) for k, p in pairwise(walk))[::-1]
            out[(source, op)] = Predicted(source, op, total, waiting, network, buffers, hops,
                                          service, path)
    return out


Step = tuple[float, float, float, float, int, float]
"""R, waiting, network, buffers, hops, sum of 1/mu along the longest path so far."""


def _longest(order: list[str], preds: dict[str, list[str]], source: str,
             r: dict[str, float], delay: dict[tuple[str, str], float],
             mu: dict[str, float | None], timeout: float,
             ) -> tuple[dict[str, Step], dict[str, str]]:
    """The longest path's terms to each operator, and the predecessor it came by."""
    def served(op: str) -> float:
        rate = mu.get(op)
        return 1 / rate if rate else 0.0

    best: dict[str, Step] = {source: (r[source], 0.0, 0.0, 0.0, 0, served(source))}
    via: dict[str, str] = {}
    for op in order:
        if op == source:
            continue
        into = [(best[p], delay.get((p, op), 0.0), p) for p in preds.get(op, []) if p in best]
        if not into:
            continue
        (total, waiting, network, buffers, hops, service), d, came = max(
            into, key=lambda x: x[0][0] + x[1])
        best[op] = (total + d + r[op], waiting + max(0.0, r[op] - served(op)), network + d,
                    buffers + timeout / 2, hops + 1, service + served(op))
        via[op] = came
    return best, via


@dataclass(frozen=True)
class PathLatency:
    """One source-to-sink path: the model's prediction against the markers measured."""

    predicted: Predicted
    measured: Measured
    tolerance: float

    @property
    def name(self) -> str:
        return f"{self.predicted.source} -> {self.predicted.op}"

    @property
    def off(self) -> str | None:
        """Where the marker's predicted age is off the measured mean by more than the
        tolerance (a share of the measured mean, and at least one buffer-timeout's tenth)."""
        p, m = self.predicted, self.measured
        gap = p.expected.mean - m.mean
        if abs(gap) <= max(self.tolerance * m.mean, 0.01):
            return None
        return (f"{p.source} -> {p.op}: markers {m.mean * 1000:.0f} ms on average, the model "
                f"{p.expected.mean * 1000:.0f} ms ({'above' if gap > 0 else 'below'} by "
                f"{abs(gap) * 1000:.0f} ms)")

    def to_json(self) -> dict[str, object]:
        p, m, e = self.predicted, self.measured, self.predicted.expected
        return {"source": p.source, "operator": p.op, "predicted_r": p.response_time,
                "predicted_marker": e.mean, "predicted_p99": e.p99, "promised": e.promise,
                "phase_band": e.band, "dominant": e.dominant(p.path),
                "waiting": p.waiting, "delays": p.network, "buffers": p.buffers,
                "flush_waits": e.flushes,
                "hops": p.hops, "service": p.service, "l1_marker": p.marker,
                "per_hop": [{"stream": list(h.stream), "flush": h.flush, "filled": h.filled,
                             "busy": h.busy, "channels": h.channels, "service": h.service,
                             "delay": h.delay, "barrier": h.barrier, "total": h.total,
                             "firing": h.firing, "firings": list(h.firings), "fired": h.fired,
                             "buffer": h.buffer, "batch": h.batch, "queue": h.queue,
                             "variability": h.variability, "measured": h.measured}
                            for h in p.path],
                "measured_mean": m.mean, "measured_median": m.median, "measured_p99": m.p99,
                "measured_markers": m.markers,
                "off": self.off}


def end_to_end(measured: dict[tuple[str, str], Measured], app: Application,
               infra: Infrastructure, plan: Plan, timeout: float, tolerance: float,
               variability: dict[str, float] | None = None,
               segment: float = SEGMENT, barrier: float = math.inf,
               forward: frozenset[tuple[str, str]] = frozenset(),
               records: dict[str, float] | None = None,
               firings: dict[str, tuple[float, ...]] | None = None) -> list[PathLatency]:
    """Every source-to-sink path of the running job whose markers were ``measured`` ((source
    operator, operator): its markers): the model's prediction against them. InputError
    (exit 2) with the setting that turns them on where the job reports none."""
    if not measured:
        raise InputError.single(OFF[0], OFF[1], path="metrics.latency.interval")
    graph = build_graph(app)
    pairs = [(s, t) for s in graph.sources for t in graph.sinks if (s, t) in measured]
    if not pairs:  # as good as none: a bound held on no path is held on nothing
        raise InputError.single(
            "the job's latency markers reach no sink it lists (a sink chained into another "
            "vertex reports under an operator id that is not a vertex's)",
            "keep the sink a vertex of its own (disableChaining()), so that its markers "
            "are read", path="metrics.latency.interval")
    predicted = predicted_markers(app, infra, plan, timeout, pairs, variability, segment,
                                  barrier, forward, records, firings)
    return [PathLatency(predicted[pair], measured[pair], tolerance) for pair in pairs
            if pair in predicted]


def unmeasured(measured: dict[tuple[str, str], Measured], app: Application,
               ) -> list[tuple[str, str]]:
    """The source-to-sink paths of the application that its markers do not report (a
    source that reaches the sink, and no marker of it read there)."""
    graph = build_graph(app)
    missing = []
    for source in graph.sources:
        reached, todo = {source}, [source]
        while todo:
            for nxt in graph.succs[todo.pop()]:
                if nxt not in reached:
                    reached.add(nxt)
                    todo.append(nxt)
        missing += [(source, sink) for sink in graph.sinks
                    if sink in reached and sink != source and (source, sink) not in measured]
    return missing


PERIODS = 3  # firings a window holds at least for their share of the time to hold still


def few_firings(obs: Observation) -> list[str]:
    """A note for each operator whose window held fewer than PERIODS of its firings: the
    share of the time they take, which sets how many markers wait behind one, then swings
    with how many a window holds (q8's join, firings every 10 s read over 10-12 s: 0.17 to
    0.36 for one load), and a firing cut by the window's ends is read short."""
    out = []
    for v in obs.vertices:
        w = v.window
        if w is not None and w.firings and w.times_fired < PERIODS:
            times = "once" if w.times_fired == 1 else "twice"
            out.append(f"{v.op}'s windows fired {times} in the {w.seconds:.0f} s "
                       "window read: the share of time its firings take, and the markers' "
                       "wait behind them, swings with how many a window holds; read over at "
                       f"least {PERIODS} of their periods (observe --window "
                       f"{math.ceil(PERIODS * w.seconds / w.times_fired)})")
    return out
