"""``--max-response-time`` held to the running job: each source-to-sink path's mean latency,
read from its latency markers, against the limit; and the limit the re-plan holds the
model's response time to, less what the model missed on the running job."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from streamplace.control.autoscale.evaluate import Observed
from streamplace.control.flink.markers import job_markers
from streamplace.control.running.latency import TOLERANCE, PathLatency, end_to_end
from streamplace.control.running.observation import Observation
from streamplace.errors import InputError


@dataclass(frozen=True)
class HeldLatency:
    broken: list[str]              # each path above the limit, and by how much
    model_limit: float | None      # the re-plan's bound on the model's response time
    measured: dict[str, float] = field(default_factory=dict)  # "source -> sink": mean, s
    said: list[str] = field(default_factory=list)


def hold_latency(job: str, obs: Observation, observed: Observed, limit: float | None,
                 first: bool) -> HeldLatency | None:
    """``limit`` (None: not held) against the job's markers. None read at the ``first``
    step is bad input (exit 2, with the setting that turns them on), later a warning."""
    if limit is None:
        return None
    try:
        return _held(job, obs, observed, limit)
    except InputError as exc:
        if first:
            raise
        obs.warnings.append(f"the latency was not read: {exc}")
        return None


def _held(job: str, obs: Observation, observed: Observed, limit: float) -> HeldLatency:
    """The paths' markers against ``limit`` (seconds), and the re-plan's bound on the
    model's response time R (docs/models.md, "Response time against latency markers"): a
    marker's age is R less the source's sojourn and one service per operator after it, plus
    the buffer timeouts, plus e, what the model misses on the running job (measured less
    predicted). So the markers stay under the limit when

        R <= limit - e - buffers + sum over the path of 1/mu_i

    (the source's sojourn taken at its least, 1/mu: a sufficient bound). The tightest path
    sets it; a path whose prediction is unbounded (an operator after the source at its
    capacity) has no e to calibrate, and the re-plan's stability mends it first."""
    markers, timeout = job_markers(job, {v.op: v.id for v in obs.vertices})
    paths = end_to_end(markers, observed.app, observed.infra, observed.plan, timeout,
                       TOLERANCE)
    measured = {_name(p): round(p.measured.mean, 4) for p in paths}
    broken = [f"{_name(p)} takes {p.measured.mean * 1000:.0f} ms on average (latency "
              f"markers), above --max-response-time {limit * 1000:.0f} ms by "
              f"{(p.measured.mean - limit) * 1000:.0f} ms" for p in paths
              if p.measured.mean > limit]
    calibrated = [p for p in paths if math.isfinite(p.predicted.marker)]
    if not calibrated:
        return HeldLatency(broken, None, measured, [
            "no path's latency could be predicted (an operator at its capacity): the re-plan "
            "holds stability first"] if paths else ["no source-to-sink path reports markers"])
    bounds = {_name(p): limit - (p.measured.mean - p.predicted.marker) - p.predicted.buffers
              + p.predicted.service for p in calibrated}
    fixed = {_name(p): p.measured.mean - p.predicted.waiting for p in calibrated}
    name = min(bounds, key=lambda k: bounds[k])
    if fixed[name] >= limit:
        return HeldLatency(broken, None, measured, [
            f"on {name}, what no parallelism shortens (buffer timeouts, the network, and "
            f"what the model does not see: {fixed[name] * 1000:.0f} ms) already exceeds the "
            "limit: no plan can hold it (lower execution.buffer-timeout.interval)"])
    return HeldLatency(broken, bounds[name], measured, [
        f"the re-plan holds the model's response time below {bounds[name] * 1000:.0f} ms "
        f"(calibrated on {name}: the markers {fixed[name] * 1000:.0f} ms above the model's "
        "queueing)"])


def _name(p: PathLatency) -> str:
    return f"{p.predicted.source} -> {p.predicted.op}"
