"""Decide ahead (``--horizon N``): the forecast measured against what was read, the horizon
program solved over the next N windows, its first window's counts proposed. Where the
forecast cannot be trusted, or no plan comes, the reactive rule decides, said; and where the
job is in trouble now (a vertex above its bounds, back-pressured, a latency bound broken)
that the plan does not meet, each vertex takes at least what the reactive rule asks: a
forecast that missed a spike leaves the job no worse than the reactive loop by more than
the window in which it was seen."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from streamplace.control.autoscale.capacity import Curve, fit
from streamplace.control.autoscale.evaluate import RESTART_TIME
from streamplace.control.autoscale.forecast import forecast, keep, measure, recent_error, trusted
from streamplace.control.autoscale.history import offered_rates
from streamplace.control.autoscale.options import AutoscaleOptions
from streamplace.control.autoscale.predict import (
    Setting,
    VertexFacts,
    demand,
    instance,
    shape_of,
)
from streamplace.control.autoscale.rule import spread
from streamplace.control.autoscale.stages import Assessment, Proposal
from streamplace.errors import InputError
from streamplace.model.decision import PlanAhead
from streamplace.model.forecast import ForecastFile
from streamplace.model.state import Memory
from streamplace.solve.budget import StopRequest
from streamplace.solve.horizon.instance import LatencyPath
from streamplace.solve.horizon.program import solve_horizon


@dataclass
class Ahead:
    """What planning ahead keeps within one process (the rest is in the memory)."""

    options: AutoscaleOptions
    known: ForecastFile | None = None
    solved_once: bool = False

    def propose(self, a: Assessment, memory: Memory, now: float, stop: StopRequest,
                reactive: Callable[[], Proposal]) -> tuple[Proposal, PlanAhead]:
        """What the plan ahead asks (or the reactive rule, where it cannot), no vertex past
        where its fitted capacity stops growing."""
        fitted = curves(a, memory)
        proposal, ahead = self._propose(a, memory, now, stop, reactive, fitted)
        return _capped(a, proposal, fitted, ahead), ahead

    def _propose(self, a: Assessment, memory: Memory, now: float, stop: StopRequest,
                 reactive: Callable[[], Proposal], fitted: dict[str, Curve],
                 ) -> tuple[Proposal, PlanAhead]:
        o = self.options
        obs = a.reading.observation
        sources = [v.op for v in obs.vertices if v.source]
        known = self._known(a)
        measure(memory, offered_rates(obs, {}), now, o.metrics_window)
        trust, record = trusted(memory, o.forecast_max_error)
        made = forecast(memory, sources, now, o.metrics_window, o.horizon + 1, o.season,
                        known)
        capacity = [fitted[op].said(op) for op in sorted(fitted)]
        error = recent_error(memory)
        if isinstance(made, str):
            return self._fallback(reactive, PlanAhead(
                forecast=[], error=error, trusted=False, fallback=made, capacity=capacity))
        keep(memory, made)
        if not trust:
            return self._fallback(reactive, PlanAhead(
                forecast=made.said, error=error, trusted=False, fallback=record,
                capacity=capacity))
        restart = o.restart_time if o.restart_time is not None else \
            memory.restarts[-1] if memory.restarts else RESTART_TIME
        lag = dict(a.backlog.lag) if a.backlog else {}
        rates = {op: (f.mean, f.upper) for op, f in made.sources.items()}
        slots = sum(t.slots for t in obs.taskmanagers) - sum(a.observed.occupied().values())
        held = (a.latency.paths, o.max_response_time, o.response_time_statistic) \
            if a.latency and a.latency.paths and o.max_response_time else None
        program, said = instance(facts(a, fitted), demand(rates, shape_of(obs), lag), Setting(
            o, o.horizon, slots, restart, tuple(memory.rescaled_at), now), held)
        plan = solve_horizon(program, o.replan_time_limit, stop)
        said += _latency_said(program.paths, plan.late)
        if plan.over_budget:
            said.append(f"the rescale budget (--max-rescales {o.max_rescales}) cannot carry "
                        f"the load: {plan.over_budget} rescale(s) over it (capacity first, "
                        "the budget second)")
        if plan.counts is None and not self.solved_once and plan.status.value == "time_limit":
            raise InputError.single(
                f"the program over --horizon {o.horizon} windows found no plan within "
                f"--replan-time-limit {o.replan_time_limit:g} s", "shorten --horizon, or give "
                "the re-plan more time", path="--horizon")
        self.solved_once = True
        ahead = PlanAhead(forecast=made.said, error=error, trusted=True, capacity=capacity,
                          windows=program.windows, status=plan.status.value, said=said)
        if plan.counts is None or plan.slots is None or plan.rescales is None:
            ahead.fallback = f"the horizon program gave no plan ({plan.status.value}"  \
                f"{': ' + plan.message if plan.message else ''})"
            return self._fallback(reactive, ahead)
        ahead.counts, ahead.slots = plan.counts, plan.slots
        ahead.rescales = [t for t, r in enumerate(plan.rescales) if r]
        counts = dict(plan.counts[0])
        why = [f"planned {program.windows} windows ahead: {plan.slots[0]} slots now, "
               f"{max(plan.slots)} at most, {len(ahead.rescales)} rescale(s) planned"]
        if a.pressing and not _catching_up(a):  # trouble now: what the reactive rule asks
            asked = reactive()
            if asked.plan is not None:
                more = {op: sum(asked.plan.replicas(op).values()) for op in counts}
                raised = {op for op, k in more.items() if k > counts[op]}
                if raised:
                    counts.update({op: more[op] for op in raised})
                    why.append(f"{', '.join(sorted(raised))} raised to what the reactive "
                               f"rule asks: {'; '.join(a.pressing)}")
        running = a.observed.running
        target = None if counts == running else spread(a.observed.app, a.observed.infra,
                                                       counts)
        return Proposal(target, why if target is not None else []), ahead

    def _fallback(self, reactive: Callable[[], Proposal], ahead: PlanAhead,
                  ) -> tuple[Proposal, PlanAhead]:
        proposal = reactive()
        why = [*proposal.why] if proposal.why else []
        return Proposal(proposal.plan, [*why, f"the reactive rule decides: {ahead.fallback}"]
                        if proposal.plan is not None else why, proposal.replan), ahead

    def _known(self, a: Assessment) -> ForecastFile | None:
        """The forecast file, its sources named by operator: one the job does not have is
        bad input."""
        if self.known is None:
            return None
        obs = a.reading.observation
        names = {v.op: v.op for v in obs.vertices if v.source} | \
            {v.name: v.op for v in obs.vertices if v.source}
        unknown = sorted(self.known.sources() - set(names))
        if unknown:
            raise InputError.single(
                f"the forecast file names {', '.join(map(repr, unknown))}, not a source of "
                f"the job (its sources: {', '.join(sorted(set(names.values())))})",
                "name each source by its operator id or its vertex name", path="--forecast")
        return self.known.model_copy(update={
            "rates": {names[s]: r for s, r in self.known.rates.items()},
            "events": [e.model_copy(update={"sources": [names[s] for s in e.sources]})
                       if e.sources else e for e in self.known.events]})


def _latency_said(paths: tuple[LatencyPath, ...], late: list[float] | None) -> list[str]:
    """Whether the plan holds --max-response-time in every window it planned."""
    if not paths or late is None:
        return []
    names = ", ".join(p.name for p in paths)
    over = [t for t, s in enumerate(late) if s > 1e-6]
    if not over:
        return [f"--max-response-time held in every window planned on {names} (the "
                f"queues within {min(p.room for p in paths) * 1000:.0f} ms)"]
    by = "a vertex on it at its capacity" if max(late) >= 1.0 else \
        f"by up to {max(late) * 1000:.0f} ms"  # a count that cannot carry counts as 1 s
    return [f"--max-response-time not held in {len(over)} of the {len(late)} windows "
            f"planned on {names} ({by}): no count the slots hold keeps the queues within "
            "it"]


CAPPED_FROM = 3
"""Distinct parallelisms a capacity curve must be read at before it caps a vertex."""


def _capped(a: Assessment, proposal: Proposal, fitted: dict[str, Curve],
            ahead: PlanAhead) -> Proposal:
    """No vertex past where its fitted capacity stops growing (a curve read at CAPPED_FROM
    parallelisms or more: two readings draw a line through any noise, and a cap drawn from
    them would keep a job from the readings that could lift it): a subtask more there only
    takes a slot. Said, also where the cap leaves the job as it runs."""
    if proposal.plan is None:
        return proposal
    counts = {op: sum(proposal.plan.replicas(op).values()) for op in a.observed.running}
    cut = {}
    for op, k in counts.items():
        most = cap(fitted.get(op), k, a.observed.running[op])
        if most is not None:
            cut[op] = most
    if not cut:
        return proposal
    said = [f"{op}: not scaled past {k}, where its fitted capacity stops growing "
            f"({fitted[op].at(k):.4g}/s)" for op, k in sorted(cut.items())]
    ahead.said.extend(said)
    counts.update(cut)
    if counts == a.observed.running:  # the triggers stay said: the job is left as it is
        return Proposal(None, [*proposal.why, *said], proposal.replan)
    return Proposal(spread(a.observed.app, a.observed.infra, counts), [*proposal.why, *said],
                    proposal.replan)


def cap(curve: Curve | None, asked: int, running: int) -> int | None:
    """The parallelism ``asked`` is cut to, where ``curve`` stops growing below it (never
    below what runs), or None where it stands.

    >>> noisy = fit({1: (3, 98.0), 2: (2, 70.0)})  # two parallelisms: no cap drawn
    >>> cap(noisy, 6, 2) is None
    True
    >>> cap(fit({2: (5, 200.0), 4: (2, 390.0), 8: (1, 400.0)}), 9, 4)
    6
    """
    if curve is None or curve.points < CAPPED_FROM or curve.linear:
        return None
    most = max(curve.useful, running)
    return most if asked > most else None


def _catching_up(a: Assessment) -> bool:
    """Whether the job is only working off a lag (every source's lag shrank over the
    window: the capacity is above what is offered), as after a restart: its backpressure is
    the catch-up the plan sized for, not a load the forecast missed."""
    sources = [v for v in a.reading.observation.vertices if v.source]
    return bool(sources) and all(v.pending_growth is not None and v.pending_growth < 0
                                 for v in sources)


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


def facts(a: Assessment, fitted: dict[str, Curve]) -> list[VertexFacts]:
    """What each vertex of the assessed job may run."""
    running = a.observed.running
    return [VertexFacts(op.id, op.replica_counts or list(range(1, op.replica_cap + 1)),
                        running[op.id], fitted.get(op.id),
                        a.reading.groups.get(op.id, "default"))
            for op in a.observed.app.operators]
