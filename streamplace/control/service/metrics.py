"""autoscale's decisions as Prometheus metrics (``--metrics-port``), and whether it is
healthy: the readings still come.

The counters take the Flink operator autoscaler's names and meanings where it has them
(``AutoScaler.scalings``, ``balanced``, ``errors``: AutoscalerFlinkMetrics), its per-vertex
gauges their ScalingMetric's (``PARALLELISM``, ``RECOMMENDED_PARALLELISM``, ``LAG``); the
labels are ``flink_job`` and ``flink_job_id`` (Prometheus gives ``job`` to the scrape
itself) and ``vertex`` (the operator, as the decision lines name it). prometheus_client is
imported here alone, and only when a port is given.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from streamplace.control.clock import Clock
from streamplace.model.decision import Decision

if TYPE_CHECKING:
    from prometheus_client import CollectorRegistry

PREFIX = "streamplace_autoscale"
VERTEX = ("flink_job", "flink_job_id", "vertex")


class LoopMetrics:
    """The metrics of one autoscale process, fed each decision line as it is said."""

    def __init__(self, clock: Clock, stale_after: float) -> None:
        from prometheus_client import CollectorRegistry, Counter, Gauge

        self.clock, self.stale_after = clock, stale_after
        self.started = clock.now()
        self.last_read: float | None = None  # on the clock, when a step last read a job
        self.registry: CollectorRegistry = CollectorRegistry()
        job = ("flink_job", "flink_job_id")

        def counter(name: str, what: str, labels: tuple[str, ...] = job) -> Any:
            return Counter(f"{PREFIX}_{name}", what, labels, registry=self.registry)

        def gauge(name: str, what: str, labels: tuple[str, ...] = VERTEX) -> Any:
            return Gauge(f"{PREFIX}_{name}", what, labels, registry=self.registry)

        self.decisions = counter("decisions", "Decision lines by kind (rescale, no change, "
                                 "dry run)", (*job, "decision"))
        self.scalings = counter("scalings", "Rescales sent (the operator's "
                                "AutoScaler.scalings)")
        self.balanced = counter("balanced", "Steps that read the job and left it as it runs "
                                "(the operator's AutoScaler.balanced)")
        self.errors = counter("errors", "Steps that could not read the job (the operator's "
                              "AutoScaler.errors)")
        self.parallelism = gauge("parallelism", "Each vertex's parallelism, as last read")
        self.recommended = gauge("recommended_parallelism", "Each vertex's parallelism, as "
                                 "last decided")
        self.busy = gauge("busy", "Each vertex's busy share over the last window read")
        self.backpressured = gauge("backpressured", "Each vertex's back-pressured share over "
                                   "the last window read")
        self.lag = gauge("lag_records", "Each source's pendingRecords at the last window's end")
        since = Gauge(f"{PREFIX}_seconds_since_reading", "Seconds since a step last read a "
                      "job (since the start, before the first)", registry=self.registry)
        since.set_function(self.seconds_since_reading)

    def seconds_since_reading(self) -> float:
        return self.clock.now() - (self.last_read if self.last_read is not None
                                   else self.started)

    def healthy(self) -> tuple[bool, str]:
        """Whether the readings still come: one within ``stale_after`` seconds (of the
        start, before the first)."""
        since = self.seconds_since_reading()
        said = "since the start, no reading yet" if self.last_read is None else \
            "since the last reading"
        if since <= self.stale_after:
            return True, f"ok: {since:.0f} s {said}"
        return False, f"stale: {since:.0f} s {said}, more than {self.stale_after:.0f} s"

    def observe(self, decision: Decision) -> None:
        """One line said: each job's part of it counted and its gauges set."""
        parts = list(decision.jobs.values()) if decision.jobs else [decision]
        for part in parts:
            if part.step is None:  # the last line of a stopped loop
                continue
            self._count(part)

    def _count(self, d: Decision) -> None:
        job = (d.job or "", d.job_id or "")
        self.decisions.labels(*job, d.decision).inc()
        if not d.seen:
            self.errors.labels(*job).inc()
            return
        self.last_read = self.clock.now()
        if d.decision == "rescale":
            self.scalings.labels(*job).inc()
        elif d.to == d.from_:
            self.balanced.labels(*job).inc()
        for op, seen in d.seen.items():
            self.parallelism.labels(*job, op).set(seen.parallelism)
            self.backpressured.labels(*job, op).set(seen.backpressured)
            if seen.busy is not None:
                self.busy.labels(*job, op).set(seen.busy)
        for op, k in d.to.items():
            self.recommended.labels(*job, op).set(k)
        for op, lag in d.lag.items():
            self.lag.labels(*job, op).set(lag)
