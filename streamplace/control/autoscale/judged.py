"""A step's reading of one job, evaluated: what the decision is made on (the per-job loop's
and, for each job, the cluster's)."""

from __future__ import annotations

from dataclasses import dataclass

from streamplace.control.autoscale.collect import Reading
from streamplace.control.autoscale.evaluate import Observed
from streamplace.control.autoscale.held import HeldLatency
from streamplace.control.running.offered import Backlog


@dataclass
class Judged:
    """A step's reading of the job, evaluated: what the decision is made on."""

    number: int
    reading: Reading
    offered: str                 # where the offered load comes from
    backlog: Backlog | None
    observed: Observed
    triggered: list[str]
    latency: HeldLatency | None = None  # where --max-response-time is held

    @property
    def capacity(self) -> dict[str, float]:
        return {v.op: v.service_rate * v.parallelism
                for v in self.reading.observation.vertices if v.service_rate}
