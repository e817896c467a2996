"""The load a job's sources offer: where the user knows it (``--source-rate OP=RATE``), or
as their lag says (``pendingRecords``: :func:`read_backlog`).

Under backpressure a job lets through less than its sources offer, and the rates observed
are that lower bound: a plan made from them removes the bottleneck seen, and the next one
shows up at the next step. Given the offered rate of a source, every stream downstream of
it is scaled by what its producer now takes in against what it took in, so each operator
keeps the selectivity it showed (records out per record in), and one step suffices.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from graphlib import CycleError, TopologicalSorter

from streamplace.control.running.observation import Observation
from streamplace.errors import InputError, Problem


def offer(obs: Observation, rates: dict[str, float], label: str = "--source-rate",
          elasticity: dict[str, float] | None = None) -> None:
    """Scale ``obs``'s streams to the sources' offered ``rates`` (operator id or vertex
    name: records per second, over all of the source's subtasks). A vertex with an
    ``elasticity`` e sends its input's factor to the power e (a window, a join), the others
    their input's factor."""
    by_key = {v.op: v for v in obs.vertices} | {v.name: v for v in obs.vertices}
    sources = [v.op for v in obs.vertices if v.source]
    offered: dict[str, float] = {}
    problems = []
    for key, rate in rates.items():
        v = by_key.get(key)
        if v is None or not v.source:
            what = "is not an operator of the job" if v is None else "is not a source"
            problems.append(Problem(f"{key!r} {what}", f"name a source: {', '.join(sources)}",
                                    path=label))
            continue
        if not sum(s.rate for s in obs.streams if s.source == v.op):
            problems.append(Problem(f"source {key!r} sent no records in what was observed, "
                                    "so its streams cannot be scaled",
                                    "observe it while it runs", path=label))
            continue
        offered[v.op] = rate
    if problems:
        raise InputError(problems)
    factor: dict[str, float] = {}
    for op in _topological(obs):
        if op in offered:  # its streams share the offered rate as they shared what it sent
            factor[op] = offered[op] / sum(s.rate for s in obs.streams if s.source == op)
            continue
        taken = sum(s.rate for s in obs.streams if s.target == op)
        now = sum(s.rate * factor.get(s.source, 1.0) for s in obs.streams if s.target == op)
        factor[op] = (now / taken) ** (elasticity or {}).get(op, 1.0) if taken > 0 else 1.0
    for s in obs.streams:
        if factor.get(s.source, 1.0) != 1.0:
            s.rate *= factor[s.source]
            s.basis += f", scaled to the offered load (x{factor[s.source]:.3g})"


def fill_stalled(obs: Observation, metered: Observation | None) -> None:
    """A source that sent nothing over the window (paused, or stuck, while its lag grows)
    leaves its streams, and those after it, at 0, and the vertices after it idle, their
    capacity unread: nothing to scale to the offered load, nor to judge it by. Such streams
    take the rates the job's ``metered`` view holds (its life-long meters: a shorter stall
    leaves them there), and such vertices the service rate of their life; a warning says
    so."""
    quiet = stalled_sources(obs)
    if not quiet or metered is None:
        return
    rates = {(s.source, s.target): s.rate for s in metered.streams}
    for s in obs.streams:
        if s.rate == 0 and rates.get((s.source, s.target)):
            s.rate = rates[(s.source, s.target)]
            s.basis += ", from the 60 s meters: nothing flowed over the window"
    served = {v.op: v.service_rate for v in metered.vertices}
    for v in obs.vertices:
        if v.service_rate is None and served.get(v.op):
            v.service_rate = served[v.op]
    obs.warnings.append(f"{', '.join(sorted(quiet))} sent nothing over the window: its "
                        "streams are taken at the 60 s meters' rates, and the vertices "
                        "after it at the service rate of their life")


def stalled_sources(obs: Observation) -> set[str]:
    """The sources that sent nothing over the window."""
    return {v.op for v in obs.vertices if v.source
            and not sum(s.rate for s in obs.streams if s.source == v.op)}


def _topological(obs: Observation) -> list[str]:
    """The operators, each after those it reads from; as listed where a hand-edited
    snapshot has a cycle (a job graph has none)."""
    try:
        return list(TopologicalSorter({v.op: {s.source for s in obs.streams
                                              if s.target == v.op}
                                       for v in obs.vertices}).static_order())
    except CycleError:
        return [v.op for v in obs.vertices]


@dataclass(frozen=True)
class Backlog:
    """What the sources' lag says (FLIP-33 ``pendingRecords``), over a window."""

    rates: dict[str, float]   # source operator: records per second offered
    lag: dict[str, float]     # source operator: records pending at the window's end

    @property
    def seconds(self) -> float:
        """The longest lag, in seconds of its source's offered rate."""
        return max((lag / self.rates[op] if self.rates[op] > 0 else
                    (math.inf if lag > 0 else 0.0) for op, lag in self.lag.items()),
                   default=0.0)


def read_backlog(obs: Observation) -> Backlog | None:
    """The load every source offers: what it sent plus how fast its lag grew (negative
    while it drains); None unless every source reports its lag over a window, in which
    case the rates read are what the job let through, a lower bound."""
    sources = [v for v in obs.vertices if v.source]
    if not sources or any(v.pending is None or v.pending_growth is None for v in sources):
        return None
    rates = {v.op: max(0.0, (v.meter("numRecordsOutPerSecond") or 0.0)
                       + (v.pending_growth or 0.0)) for v in sources}
    return Backlog(rates, {v.op: v.pending or 0.0 for v in sources})


def catch_up_targets(backlog: Backlog, catch_up: float, restart: float,
                     target: float = 1.0, larger: bool = False) -> dict[str, float]:
    """Each source's rate to plan for, as the Flink autoscaler sizes for a backlog
    (FLINK-30593, ``AutoScalerUtils.getTargetProcessingCapacity``): a capacity of the
    offered rate over the ``target`` utilisation, plus the lag worked off over ``catch_up``
    seconds, plus what queues while the job restarts (``restart`` seconds of the offered
    rate), also worked off over ``catch_up``. Those two run at full capacity, not at the
    target: a plan divides every rate by the target, so they are planned for at ``target``
    times their size. ``catch_up`` 0: the offered rate alone.

    With ``larger``, the capacity is the larger of the two needs, not their sum: the rate at
    the target, or the rate and the backlog at full capacity. The backlog is still worked off
    within ``catch_up`` (the headroom above the target is what works it off), and once it is
    the job runs at the target, where the sum leaves a subtask more than the rate needs, and
    a scale-down after.

    >>> catch_up_targets(Backlog({"s": 100.0}, {"s": 6000.0}), 60, 30)
    {'s': 250.0}
    >>> catch_up_targets(Backlog({"s": 100.0}, {"s": 6000.0}), 60, 30, target=0.5)
    {'s': 175.0}
    >>> catch_up_targets(Backlog({"s": 100.0}, {"s": 6000.0}), 60, 30, 0.5, larger=True)
    {'s': 125.0}
    """
    if catch_up <= 0:
        return dict(backlog.rates)
    out = {}
    for op, rate in backlog.rates.items():
        extra = backlog.lag[op] / catch_up + rate * restart / catch_up
        out[op] = max(rate, target * (rate + extra)) if larger else rate + target * extra
    return out
