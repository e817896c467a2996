"""The horizon program of a job (``solve/horizon/``), built from what the loop knows of it:
the load each source will offer (a forecast online, the rates a run saw in hindsight), the
job's graph and selectivities, each vertex's capacity curve and the parallelisms it may run.
The same builder serves ``--horizon`` and ``report --optimum``.

What a window needs of a vertex, from the load its sources offer (docs/models.md, (H5)):

    floor[v,t]     = max(in[v,t..t+1] / target, upper[v,t..t+1] / utilization.max)
                     (+ the lag now, worked off within catch-up.duration, in the first)
    restarted[v,t] = floor[v,t] + in[v,t] * restart / catch-up.duration

where in[v,t] is what the mean rates send the vertex (the sources' rates through the
selectivities the job shows) and upper the same at the forecast's upper band. Taking the next
window's load too makes a scale-up lead the rise: a rescale takes effect a restart after the
window it is decided in begins, never sooner.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from graphlib import CycleError, TopologicalSorter

from streamplace.control.autoscale.capacity import Curve
from streamplace.control.autoscale.latency_ahead import latency_paths
from streamplace.control.autoscale.options import AutoscaleOptions
from streamplace.control.running.latency import PathLatency
from streamplace.control.running.observation import Observation
from streamplace.solve.horizon.instance import (
    Budget,
    HorizonInstance,
    HorizonVertex,
    LatencyPath,
)


@dataclass(frozen=True)
class Shape:
    """The job's graph as the program needs it."""

    inputs: dict[str, dict[str, float]]   # op: input op -> share of the input's records
    selectivity: dict[str, float]         # op: records sent per record taken

    @property
    def sources(self) -> list[str]:
        return [op for op, ins in self.inputs.items() if not ins]


def shape_of(obs: Observation) -> Shape:
    """The shape a window shows: each stream's share of what its producer sent, each
    vertex's records out per record in."""
    sent = {v.op: v.meter("numRecordsOutPerSecond") or 0.0 for v in obs.vertices}
    taken = {v.op: v.meter("numRecordsInPerSecond") or 0.0 for v in obs.vertices}
    inputs: dict[str, dict[str, float]] = {v.op: {} for v in obs.vertices}
    for s in obs.streams:
        inputs[s.target][s.source] = s.rate / sent[s.source] if sent[s.source] > 0 else 1.0
    selectivity = {v.op: (sent[v.op] / taken[v.op] if taken[v.op] > 0 else 1.0)
                   for v in obs.vertices if not v.source}
    return Shape(inputs, selectivity)


def gains(shape: Shape) -> dict[str, dict[str, float]]:
    """source -> vertex -> records the vertex takes in per record the source sends (a
    source: 1 per record it sends).

    >>> gains(Shape({"s": {}, "w": {"s": 1.0}, "k": {"w": 1.0}}, {"w": 0.5}))
    {'s': {'s': 1.0, 'w': 1.0, 'k': 0.5}}
    """
    try:
        order = list(TopologicalSorter({op: set(ins) for op, ins in shape.inputs.items()}
                                       ).static_order())
    except CycleError:
        order = list(shape.inputs)
    out: dict[str, dict[str, float]] = {}
    for source in shape.sources:
        into = {source: 1.0}
        for op in order:
            if op in into or not shape.inputs.get(op):
                continue
            amount = sum(into[u] * (shape.selectivity.get(u, 1.0) if shape.inputs.get(u)
                                    else 1.0) * share
                         for u, share in shape.inputs[op].items() if u in into)
            if amount > 0:
                into[op] = amount
        out[source] = into
    return out


@dataclass(frozen=True)
class Demand:
    """Records per second each vertex takes in each window, at the mean rates and at their
    upper band; and the records it must still take for the sources' lag now."""

    mean: dict[str, list[float]]
    upper: dict[str, list[float]]
    backlog: dict[str, float] = field(default_factory=dict)


def demand(rates: Mapping[str, tuple[Sequence[float], Sequence[float]]], shape: Shape,
           lag: dict[str, float]) -> Demand:
    """What each vertex takes in each window when each source offers its (mean, upper)
    rates, window by window."""
    windows = min((len(m) for m, _ in rates.values()), default=0)
    ops = list(shape.inputs)
    mean = {op: [0.0] * windows for op in ops}
    upper = {op: [0.0] * windows for op in ops}
    backlog = dict.fromkeys(ops, 0.0)
    for source, reach in gains(shape).items():
        if source not in rates:
            continue
        m, u = rates[source]
        for op, gain in reach.items():
            for t in range(windows):
                mean[op][t] += gain * m[t]
                upper[op][t] += gain * u[t]
            backlog[op] += gain * lag.get(source, 0.0)
    return Demand(mean, upper, backlog)


@dataclass(frozen=True)
class VertexFacts:
    """What a vertex may run, and what it can do at each count."""

    op: str
    allowed: list[int]            # the parallelisms it may run (limits, alignment)
    running: int
    curve: Curve | None
    group: str = "default"


@dataclass(frozen=True)
class Setting:
    """The options the program takes, and the facts of the cluster."""

    options: AutoscaleOptions
    windows: int                  # windows to plan (the demand holds one more, for the lead)
    slots: int                    # the slots the job may hold
    restart: float                # seconds a rescale stops the job
    rescaled_at: tuple[float, ...] = ()   # Unix times of past rescales
    now: float = 0.0
    durations: tuple[float, ...] = ()     # seconds each window lasts (default: the window)


def instance(facts: list[VertexFacts], need: Demand, setting: Setting,
             latency: tuple[list[PathLatency], float, str] | None = None,
             ) -> tuple[HorizonInstance, list[str]]:
    """The horizon program, and what it had to give up (a load no parallelism carries is
    planned at the most the vertex may run); with ``latency`` (the paths beside their
    markers, ``--max-response-time`` and the statistic it holds), each path held below it in
    every window (H7), every count a vertex on it may run a column."""
    o, windows = setting.options, setting.windows
    said: list[str] = []
    vertices = []
    on_paths = {h.stream[1] for p in latency[0] for h in p.predicted.path} if latency else set()
    for f in facts:
        mean = need.mean.get(f.op) or [0.0] * (windows + 1)
        upper = need.upper.get(f.op) or [0.0] * (windows + 1)
        lead = [max(mean[t:t + 2]) for t in range(windows)]
        lead_up = [max(upper[t:t + 2]) for t in range(windows)]
        floor = [max(m / o.utilization_target, u / o.high) for m, u in zip(lead, lead_up,
                                                                         strict=True)]
        if floor and o.catch_up_duration > 0:
            floor[0] = max(floor[0], mean[0] + need.backlog.get(f.op, 0.0)
                           / o.catch_up_duration)
        extra = [m * setting.restart / o.catch_up_duration if o.catch_up_duration > 0
                 else 0.0 for m in mean[:windows]]
        restarted = [a + b for a, b in zip(floor, extra, strict=True)]
        counts = _counts(f, max(restarted, default=0.0), o, f.op in on_paths)
        if f.curve is None:  # no capacity known (it never took time): nothing to hold
            vertices.append(HorizonVertex(f.op, tuple(counts), (0.0,) * len(counts),
                                          f.running, f.group, (0.0,) * windows,
                                          (0.0,) * windows))
            continue
        capacity = [f.curve.at(k) for k in counts]
        top = max(capacity)
        if any(x > top for x in restarted):
            said.append(f"{f.op}: no parallelism it may run carries the load "
                        f"({max(restarted):.4g}/s needed, {top:.4g}/s at {counts[-1]}): "
                        "planned at the most")
            floor = [min(x, top) for x in floor]
            restarted = [min(x, top) for x in restarted]
        vertices.append(HorizonVertex(f.op, tuple(counts), tuple(capacity), f.running,
                                      f.group, tuple(floor), tuple(restarted)))
    held = _slots({f.op: f.running for f in facts}, {f.op: f.group for f in facts})
    busy_work = sum(need.mean[f.op][0] / f.curve.at(1) for f in facts
                    if f.curve and f.curve.at(1) > 0 and need.mean.get(f.op))
    paths: tuple[LatencyPath, ...] = ()
    if latency:
        paths, left = latency_paths(
            latency[0], latency[1], {v.op: list(v.counts) for v in vertices},
            {op: list(m) for op, m in need.mean.items()},
            {f.op: f.curve for f in facts}, windows, latency[2])
        said += left
    return HorizonInstance(o.metrics_window, tuple(vertices), max(setting.slots, held),
                           setting.restart * (held + busy_work), _budgets(setting),
                           setting.durations, paths), said


def _slots(counts: dict[str, int], groups: dict[str, str]) -> int:
    widest: dict[str, int] = {}
    for op, k in counts.items():
        widest[groups[op]] = max(widest.get(groups[op], 0), k)
    return sum(widest.values())


def _counts(f: VertexFacts, most_needed: float, o: AutoscaleOptions,
            every: bool = False) -> list[int]:
    """The parallelisms worth a column: those it may run, within the vertex limits and its
    useful capacity, up to the first that carries the most any window needs (``every``:
    all of them, a latency bound may ask more than the load does); and the one it runs."""
    useful = f.curve.useful if f.curve else max(f.allowed, default=f.running)
    out = []
    for k in sorted(f.allowed):
        if k < o.vertex_min_parallelism or k > min(o.vertex_max_parallelism, useful):
            continue
        out.append(k)
        if not every and (f.curve is None or f.curve.at(k) >= most_needed):
            break
    return sorted({*out, f.running})


def _budgets(setting: Setting) -> tuple[Budget, ...]:
    """``--max-rescales`` over its period; and, where the period is longer than the
    horizon, its pace over the horizon's length (the budget's share of it, rounded up):
    a plan that sees only the next windows would spend a day's budget in its first hour."""
    o, windows = setting.options, setting.windows
    if o.max_rescales is None:
        return ()
    most, seconds = o.rescale_budget
    out = []
    period = max(1, math.ceil(seconds / o.metrics_window))
    for count, length in ((most, period), (math.ceil(most * windows / period), windows)):
        spent = tuple(sum(1 for at in setting.rescaled_at
                          if at >= setting.now + (t - length + 1) * o.metrics_window)
                      for t in range(windows))
        out.append(Budget(count, length, spent))
    return tuple(out) if period > windows else tuple(out[:1])
