"""A run against its hindsight optimum (``report --optimum STATE...``): from the rates the run
actually saw (its state's history), the horizon program solved once over the whole run, with
perfect knowledge and the run's own options, budget, restart time and capacity curves; and
both measured alike:

- slot-seconds: the slots held over each window, times its length;
- rescales;
- backlogged records: what had to wait, as a share of the records offered: what the
  sources offered while each restart stopped the job (its measured length times the rate),
  and, for a run, what joined the sources' lag beyond that (its growth from one window
  read to the next);
- windows back-pressured: those in which a source was back-pressured 10% or more (the
  optimum: at most one a rescale, the window its restart's catch-up falls in).

A run of any method (odrp reactive or ahead, the Flink rule, DS2) is measured the same way,
so each is given as a gap to the same optimum.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, fields
from typing import Any

from streamplace.control.autoscale.capacity import fit
from streamplace.control.autoscale.evaluate import RESTART_TIME
from streamplace.control.autoscale.options import AutoscaleOptions
from streamplace.control.autoscale.predict import (
    Setting,
    Shape,
    VertexFacts,
    demand,
    instance,
)
from streamplace.control.running.observation import PRESSED, slots_taken
from streamplace.model.decision import Decision
from streamplace.model.state import StateFile
from streamplace.solve.horizon.program import HorizonPlan, solve_horizon


@dataclass(frozen=True)
class Figures:
    slot_seconds: float
    rescales: int
    backlogged: float    # records that joined the backlog
    offered: float       # records offered
    pressed: int         # windows back-pressured
    windows: int

    @property
    def backlog_share(self) -> float:
        return self.backlogged / self.offered if self.offered > 0 else 0.0


def readings(state: StateFile) -> list[Decision]:
    """The run's steps that read the job, in time order."""
    return sorted((d for d in state.decisions if d.seen and d.at is not None),
                  key=lambda d: d.at or 0.0)


def durations(said: list[Decision], window: float) -> list[float]:
    """Each window's length: from the step before to this one (the first: its window)."""
    out = []
    for i, d in enumerate(said):
        before = said[i - 1].at if i else None
        out.append((d.at or 0.0) - before if before is not None else (d.window or window))
    return out


def run_figures(state: StateFile) -> Figures:
    said = readings(state)
    options = _options(state)
    spans = durations(said, options.metrics_window)
    groups = state.memory.groups
    rates = _rates(state, said)
    slot_seconds = sum(slots_taken(groups, d.from_) * span for d, span in zip(
        said, spans, strict=True))
    backlogged, last = 0.0, said[0].lag if said else {}
    for i, d in enumerate(said):
        if i:
            backlogged += sum(max(0.0, lag - last.get(op, lag)) for op, lag in d.lag.items())
            last = d.lag
        if d.decision == "rescale" and d.seconds_to_rescale:
            backlogged += d.seconds_to_rescale * sum(r[i] for r in rates.values())
    offered = sum(sum(r[i] for r in rates.values()) * span for i, span in enumerate(spans))
    pressed = sum(1 for d in said if any(v.backpressured >= PRESSED for op, v in
                                         d.seen.items() if op in rates))
    return Figures(slot_seconds, sum(1 for d in said if d.decision == "rescale"),
                   backlogged, offered, pressed, len(said))


def optimum(state: StateFile, time_limit: float | None, max_rescales: str | None = None,
            ) -> tuple[Figures | None, HorizonPlan | None, list[str]]:
    """The hindsight optimum's figures, its plan, and what it rests on (or why there is
    none); ``max_rescales``: a budget instead of the run's own (runs compared under one)."""
    said = readings(state)
    memory = state.memory
    if len(said) < 2 or not memory.shape:
        return None, None, ["fewer than two windows read, or no shape of the job kept: "
                            "nothing to plan over"]
    options = _options(state, **({"max_rescales": max_rescales} if max_rescales else {}))
    spans = durations(said, options.metrics_window)
    rates = _rates(state, said)
    need = demand({op: ([*r, r[-1]], [*r, r[-1]]) for op, r in rates.items()},
                  Shape(memory.shape, memory.selectivity), {})
    first = said[0].from_
    facts = []
    notes = []
    for op, allowed in sorted(memory.counts.items()):
        service = said[0].seen[op].service_rate if op in said[0].seen else None
        curve = fit(memory.capacity.get(op, {}), service)
        if curve is not None and not curve.linear:
            notes.append(curve.said(op))
        facts.append(VertexFacts(op, allowed, first.get(op, 1), curve,
                                 memory.groups.get(op, "default")))
    restart = statistics.fmean(memory.restarts) if memory.restarts else RESTART_TIME
    program, gave_up = instance(facts, need, Setting(
        options, len(said), memory.slots or 10**6, restart, durations=tuple(spans)))
    plan = solve_horizon(program, time_limit)
    notes += gave_up
    if plan.over_budget:
        notes.append(f"the rescale budget cannot carry the run's load: the optimum is "
                     f"{plan.over_budget} rescale(s) over it")
    if plan.slots is None or plan.rescales is None:
        return None, plan, [*notes, f"no optimum: {plan.status.value}"]
    total = [sum(r[t] for r in rates.values()) for t in range(len(said))]
    backlogged = sum(restart * total[t] for t, r in enumerate(plan.rescales) if r)
    offered = sum(total[t] * span for t, span in enumerate(spans))
    figures = Figures(sum(s * span for s, span in zip(plan.slots, spans, strict=True)),
                      sum(plan.rescales), backlogged, offered, sum(plan.rescales), len(said))
    return figures, plan, [f"restart {restart:.3g} s, {len(said)} windows, "
                           f"{plan.status.value}", *notes]


def _options(state: StateFile, **over: Any) -> AutoscaleOptions:
    """The run's options, as its state keeps them; ``over``: those given instead."""
    known = {f.name for f in fields(AutoscaleOptions)}
    given: dict[str, Any] = {k: (tuple(v) if isinstance(v, list) else v)
                             for k, v in state.options.items() if k in known}
    return AutoscaleOptions(**{**given, **over})


def _rates(state: StateFile, said: list[Decision]) -> dict[str, list[float]]:
    """Each source's offered rate at each window read: the history's point of it."""
    out: dict[str, list[float]] = {}
    for op, points in state.memory.history.items():
        out[op] = [_nearest(points, d.at or 0.0) for d in said]
    return out


def _nearest(points: list[tuple[float, float]], at: float) -> float:
    return min(points, key=lambda p: abs(p[0] - at))[1] if points else 0.0


def against_optimum(name: str, state: StateFile, time_limit: float | None,
                    max_rescales: str | None = None) -> dict[str, Any]:
    """A run's figures beside its optimum's, and the gaps (the run over the optimum, as a
    share of the optimum), as ``report --optimum --json`` gives them."""
    run = run_figures(state)
    best, _plan, notes = optimum(state, time_limit, max_rescales)

    def doc(f: Figures) -> dict[str, Any]:
        return {"slot_seconds": round(f.slot_seconds, 1), "rescales": f.rescales,
                "backlogged": round(f.backlogged, 1), "offered": round(f.offered, 1),
                "backlog_share": round(f.backlog_share, 6), "pressed": f.pressed,
                "windows": f.windows}

    gap = None if best is None else {
        "slot_seconds": (run.slot_seconds - best.slot_seconds) / best.slot_seconds
        if best.slot_seconds > 0 else 0.0,
        "rescales": run.rescales - best.rescales,
        "backlog_share": run.backlog_share - best.backlog_share,
        "pressed": run.pressed - best.pressed}
    options = _options(state)
    method = options.method + (f" ahead ({options.horizon} windows)" if options.horizon
                               else "")
    return {"state": name, "job": state.job, "method": method, "run": doc(run),
            "optimum": doc(best) if best is not None else None, "gap": gap,
            "notes": notes}
