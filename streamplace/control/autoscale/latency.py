"""``--max-response-time`` held to the running job: each source-to-sink path's latency, read
from its latency markers (the mean, or the p99 ``--response-time-statistic`` names), against
the limit; and the limit the re-plan holds the model's response time to, less what the model
missed on the running job."""

from __future__ import annotations

import math
from collections.abc import Callable

from streamplace.control.autoscale.stages import LatencyHold, Observed
from streamplace.control.running.latency import (
    TOLERANCE,
    Measured,
    PathLatency,
    end_to_end,
    unmeasured,
)
from streamplace.control.running.observation import Observation
from streamplace.errors import InputError

Markers = Callable[[dict[str, str]], tuple[dict[tuple[str, str], Measured], float]]
"""The engine's markers: (source, operator) -> measured, and the buffer timeout."""


def hold_latency(markers: Markers, obs: Observation, observed: Observed,
                 limit: float | None, first: bool, statistic: str = "mean",
                 ) -> LatencyHold | None:
    """``limit`` (None: not held) against the job's markers' ``statistic``. None read at
    the ``first`` step is bad input (exit 2, with the setting that turns them on), later a
    warning."""
    if limit is None:
        return None
    try:
        measured, timeout = markers({v.op: v.id for v in obs.vertices})
        return _held(measured, timeout, observed, obs, limit, statistic)
    except InputError as exc:
        if first:
            raise
        obs.warnings.append(f"the latency was not read: {exc}")
        return None


def _held(markers: dict[tuple[str, str], Measured], timeout: float, observed: Observed,
          obs: Observation, limit: float, statistic: str) -> LatencyHold:
    """The paths' markers' ``statistic`` against ``limit`` (seconds), and the re-plan's
    bound on the model's response time R (docs/models.md, "Response time against latency
    markers"): a marker's mean age is R less the source's sojourn and one service per
    operator after it, plus the buffer timeouts, plus e, what the model misses on the
    running job (measured less predicted). So the markers' mean stays under the limit when

        R <= limit - s - e - buffers + sum over the path of 1/mu_i

    (the source's sojourn taken at its least, 1/mu: a sufficient bound), where s is the
    spread read between the held statistic and the mean (0 for the mean; for the p99, its
    queueing part shrinks as the counts rise, so holding it as read is on the safe side).
    The tightest path sets it; a path whose prediction is unbounded (an operator at its
    capacity) has no e to calibrate, and the re-plan's stability mends it first.
    ``obs``: the window read, whose measured c_s^2 and forward streams (L3) takes, as
    ``observe --against`` does."""
    paths = end_to_end(markers, observed.app, observed.infra, observed.plan, timeout,
                       TOLERANCE, obs.variability(), forward=obs.forward(),
                       records=obs.record_service(), firings=obs.firings())
    missing = unmeasured(markers, observed.app)
    if missing:  # a bound held on some paths only would be said held on all
        raise InputError.single(
            "no latency markers are read on " + ", ".join(f"{s} -> {t}" for s, t in missing)
            + ": --max-response-time would not be held there", "keep every sink a vertex "
            "of its own (disableChaining()) and its sources' markers on "
            "(metrics.latency.interval), or hold the bound where it is read with observe "
            "--against", path="metrics.latency.interval")
    _reachable(paths, limit, timeout)
    measured = {p.name: round(p.measured.held(statistic), 4) for p in paths}
    said_as = "on average" if statistic == "mean" else f"at its {statistic}"
    broken = [f"{p.name} takes {p.measured.held(statistic) * 1000:.0f} ms {said_as} "
              f"(latency markers), above --max-response-time {limit * 1000:.0f} ms by "
              f"{(p.measured.held(statistic) - limit) * 1000:.0f} ms" for p in paths
              if p.measured.held(statistic) > limit]
    calibrated = [p for p in paths if math.isfinite(p.predicted.marker)]
    if not calibrated:
        return LatencyHold(broken, None, measured, [
            "no path's latency could be predicted (an operator at its capacity): the re-plan "
            "holds stability first"] if paths else ["no source-to-sink path reports markers"],
            paths)
    spread = {p.name: p.measured.above_mean(statistic) for p in calibrated}
    bounds = {p.name: limit - spread[p.name] - (p.measured.mean - p.predicted.marker)
              - p.predicted.buffers + p.predicted.service for p in calibrated}
    fixed = {p.name: p.measured.mean - p.predicted.waiting for p in calibrated}
    name = min(bounds, key=lambda k: bounds[k])
    if fixed[name] + spread[name] >= limit:
        above = f", and the {statistic}'s {spread[name] * 1000:.0f} ms above the mean as " \
            "read" if spread[name] else ""
        return LatencyHold(broken, None, measured, [
            f"on {name}, what no parallelism shortens (buffer timeouts, the network, and "
            f"what the model does not see: {fixed[name] * 1000:.0f} ms{above}) already "
            "exceeds the limit: no plan can hold it (lower "
            "execution.buffer-timeout.interval)"], paths)
    above = f"; the {statistic} read {spread[name] * 1000:.0f} ms above the mean" \
        if statistic != "mean" else ""
    return LatencyHold(broken, bounds[name], measured, [
        f"the re-plan holds the model's response time below {bounds[name] * 1000:.0f} ms "
        f"(calibrated on {name}: the markers {fixed[name] * 1000:.0f} ms above the model's "
        f"queueing{above})"], paths)


def _reachable(paths: list[PathLatency], limit: float, timeout: float) -> None:
    """Bad input where the buffers and the network alone hold a path's markers above
    ``limit``: the waits for the flushes (half a flush per hop, less where a checkpoint's
    barrier flushes sooner), over the tasks' starts, which no parallelism shortens
    (a lucky run's timers may meet it; the next restart draws them again)."""
    for p in paths:
        floor = p.predicted.unshortened
        if floor >= limit:
            raise InputError.single(
                f"--max-response-time {limit * 1000:g} ms is below what {p.name} takes "
                f"whatever its parallelism: {floor * 1000:.0f} ms on average over its "
                f"{len(p.predicted.path)} hops (the waits for each buffer's flush: "
                f"execution.buffer-timeout.interval {timeout * 1000:g} ms, or a full buffer "
                f"or a checkpoint's barrier sooner; and the network)",
                "give a bound above it, or lower execution.buffer-timeout.interval",
                path="--max-response-time")

