"""Planning ahead (``--horizon N``): the job's next N windows planned at once by the horizon
program (``solve/horizon/``), from the forecast of each source's load
(:mod:`~streamplace.control.autoscale.forecast`), each vertex's fitted capacity curve
(:mod:`~streamplace.control.autoscale.capacity`) and the rescale budget; the first window's
counts are run, and the next step plans again (a receding horizon).

What a window needs of a vertex, from the load its sources offer (docs/models.md, (H5)):

    floor[v,t]     = max(in[v,t..t+1] / target, upper[v,t..t+1] / utilization.max)
                     (+ the lag now, worked off within catch-up.duration, in the first)
    restarted[v,t] = floor[v,t] + in[v,t] * restart / catch-up.duration

where in[v,t] is what the forecast mean sends the vertex (the sources' rates through the
selectivities the job shows) and upper the same at the forecast's upper band. Taking the next
window's load too makes a scale-up lead the rise: a rescale takes effect a restart after the
window it is decided in begins, never sooner.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from graphlib import TopologicalSorter

from streamplace.control.autoscale.capacity import Curve, fit
from streamplace.control.autoscale.forecast import Forecast
from streamplace.control.autoscale.options import AutoscaleOptions
from streamplace.control.autoscale.stages import Assessment
from streamplace.control.running.observation import Observation
from streamplace.model.application import Operator
from streamplace.model.state import Memory
from streamplace.solve.horizon.instance import Budget, HorizonInstance, HorizonVertex


@dataclass(frozen=True)
class Demand:
    """Records per second each vertex takes in each window, at the forecast's mean and at
    its upper band."""

    mean: dict[str, list[float]]
    upper: dict[str, list[float]]
    backlog: dict[str, float] = field(default_factory=dict)  # records each vertex must
    # still take for the lag now


def gains(obs: Observation) -> dict[str, dict[str, float]]:
    """source -> vertex -> records the vertex takes in per record the source sends, through
    the selectivities (records out per record in) and the streams' shares the window
    showed."""
    by = {v.op: v for v in obs.vertices}
    sent = {v.op: v.meter("numRecordsOutPerSecond") or 0.0 for v in obs.vertices}
    taken = {v.op: v.meter("numRecordsInPerSecond") or 0.0 for v in obs.vertices}
    order = list(TopologicalSorter({v.op: {s.source for s in obs.streams if s.target == v.op}
                                    for v in obs.vertices}).static_order())
    out: dict[str, dict[str, float]] = {}
    for source in (v.op for v in obs.vertices if v.source):
        into = {source: 1.0}
        for op in order:
            if op == source or by[op].source:
                continue
            amount = 0.0
            for s in obs.streams:
                if s.target == op and s.source in into:
                    share = s.rate / sent[s.source] if sent[s.source] > 0 else 1.0
                    made = into[s.source] * (1.0 if by[s.source].source else
                                             _selectivity(sent[s.source], taken[s.source]))
                    amount += made * share
            if amount > 0:
                into[op] = amount
        out[source] = into
    return out


def _selectivity(out: float, into: float) -> float:
    return out / into if into > 0 else 1.0


def demand(made: Forecast, obs: Observation, lag: dict[str, float]) -> Demand:
    """What each vertex takes in each window at the forecast rates, and the records it must
    still take for the sources' lag now."""
    g = gains(obs)
    windows = made.windows
    mean = {v.op: [0.0] * windows for v in obs.vertices}
    upper = {v.op: [0.0] * windows for v in obs.vertices}
    backlog = {v.op: 0.0 for v in obs.vertices}
    for source, reach in g.items():
        f = made.sources.get(source)
        if f is None:
            continue
        for op, gain in reach.items():
            for t in range(windows):
                mean[op][t] += gain * f.mean[t]
                upper[op][t] += gain * f.upper[t]
            backlog[op] += gain * lag.get(source, 0.0)
    return Demand(mean, upper, backlog)


def curves(a: Assessment, memory: Memory) -> dict[str, Curve]:
    """Each vertex's capacity curve: fitted from its readings, else linear at the service
    rate the window showed."""
    service = {op.id: op.service_rate for op in a.observed.app.operators}
    out = {}
    for v in a.reading.observation.vertices:
        curve = fit(memory.capacity.get(v.op, {}), service.get(v.op))
        if curve is not None:
            out[v.op] = curve
    return out


def instance(a: Assessment, need: Demand, fitted: dict[str, Curve], o: AutoscaleOptions,
             memory: Memory, now: float, restart: float) -> tuple[HorizonInstance, list[str]]:
    """The horizon program of this step, and what it had to give up (a load no parallelism
    carries is planned at the most the vertex may run)."""
    app, running = a.observed.app, a.observed.running
    step, windows = o.metrics_window, o.horizon  # the forecast holds one window more
    said: list[str] = []
    vertices = []
    for op in app.operators:
        curve = fitted.get(op.id)
        mean = need.mean.get(op.id) or [0.0] * (windows + 1)
        upper = need.upper.get(op.id) or [0.0] * (windows + 1)
        lead = [max(mean[t:t + 2]) for t in range(windows)]
        lead_up = [max(upper[t:t + 2]) for t in range(windows)]
        floor = [max(m / o.utilization_target, u / o.high) for m, u in zip(lead, lead_up,
                                                                         strict=True)]
        if floor and o.catch_up_duration > 0:
            floor[0] = max(floor[0], mean[0] + need.backlog.get(op.id, 0.0)
                           / o.catch_up_duration)
        extra = [m * restart / o.catch_up_duration if o.catch_up_duration > 0 else 0.0
                 for m in mean[:windows]]
        restarted = [f + e for f, e in zip(floor, extra, strict=True)]
        counts = _counts(op, running[op.id], curve, max(restarted, default=0.0), o)
        capacity = [curve.at(k) if curve else math.inf for k in counts]
        top = max(capacity)
        if any(f > top for f in restarted):
            said.append(f"{op.id}: no parallelism it may run carries the forecast "
                        f"({max(restarted):.4g}/s needed, {top:.4g}/s at {counts[-1]}): "
                        "planned at the most")
            floor = [min(f, top) for f in floor]
            restarted = [min(f, top) for f in restarted]
        vertices.append(HorizonVertex(op.id, tuple(counts), tuple(capacity), running[op.id],
                                      a.reading.groups.get(op.id, "default"), tuple(floor),
                                      tuple(restarted)))
    obs = a.reading.observation
    slots = sum(t.slots for t in obs.taskmanagers) - sum(a.observed.occupied().values())
    held = a.slots(running)
    busy_work = sum(need.mean[op.id][0] / fitted[op.id].at(1)
                    for op in app.operators if op.id in fitted and fitted[op.id].at(1) > 0)
    return HorizonInstance(step, tuple(vertices), max(slots, held),
                           restart * (held + busy_work), _budgets(o, memory, now, windows)), said


def _counts(operator: Operator, running: int, curve: Curve | None, most_needed: float,
            o: AutoscaleOptions) -> list[int]:
    """The parallelisms worth a column: those the alignment mode accepts, within the
    vertex's limits and its useful capacity, up to the first that carries the most any
    window needs; and the one it runs."""
    allowed = operator.replica_counts or list(range(1, operator.replica_cap + 1))
    useful = curve.useful if curve else operator.replica_cap
    upper = min(o.vertex_max_parallelism, operator.replica_cap, useful)
    out = []
    for k in sorted(allowed):
        if k < o.vertex_min_parallelism or k > upper:
            continue
        out.append(k)
        if curve is None or curve.at(k) >= most_needed:
            break
    return sorted({*out, running}) or [running]


def _budgets(o: AutoscaleOptions, memory: Memory, now: float,
             windows: int) -> tuple[Budget, ...]:
    """``--max-rescales`` over its period; and, where the period is longer than the
    horizon, its pace over the horizon's length (the budget's share of it, rounded up):
    a plan that sees only the next windows would spend a day's budget in its first hour."""
    if o.max_rescales is None:
        return ()
    most, seconds = o.rescale_budget
    out = []
    period = max(1, math.ceil(seconds / o.metrics_window))
    for count, length in ((most, period), (math.ceil(most * windows / period), windows)):
        spent = tuple(sum(1 for at in memory.rescaled_at
                          if at >= now + (t - length + 1) * o.metrics_window)
                      for t in range(windows))
        out.append(Budget(count, length, spent))
    return tuple(out) if period > windows else tuple(out[:1])
