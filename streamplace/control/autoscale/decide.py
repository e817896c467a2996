"""Decide: the parallelism the job should run, and why; odrp re-plans the observed
instance with ``solve --current``, ds2 applies DS2's rule, and flink the Flink autoscaler's
(DS2's count, capped and aligned to the key groups or partitions: a baseline, so that a
run of odrp can be set beside what the Flink autoscaler would have done).

One job alone and a cluster's jobs planned together share the two judgements made here:
when a re-plan is worth a rescale (:func:`improves`: the hysteresis) and what each job runs
when no plan can carry the load (:func:`fallback`)."""

from __future__ import annotations

from streamplace.control.autoscale.alignment import flink_align
from streamplace.control.autoscale.options import AutoscaleOptions
from streamplace.control.autoscale.rule import ds2, spread
from streamplace.control.autoscale.stages import Assessment, Observed, Proposal
from streamplace.model.decision import Replan, number
from streamplace.model.evaluate import evaluate
from streamplace.model.metrics import Metric, MetricLimits
from streamplace.model.objective import Objective
from streamplace.model.reconfiguration import Current
from streamplace.solve import Instance, SolveOptions, SolveStatus
from streamplace.solve.baseline.ds2 import ds2_parallelism
from streamplace.solve.budget import StopRequest
from streamplace.solve.registry import applicable

FALLBACK = "each vertex at what DS2 asks, its sources sized too, within the most it may run"


def propose(a: Assessment, options: AutoscaleOptions, objective: Objective,
            stop: StopRequest) -> Proposal:
    """What the method asks for the job ``a`` assesses."""
    observed, triggered = a.observed, a.triggered
    if options.method in ("ds2", "flink"):
        if not triggered:
            return Proposal(None, [])
        wanted = ds2(observed.app, observed.running)
        if options.method == "flink":
            wanted = aligned(observed, wanted, options)
        return Proposal(spread(observed.app, observed.infra, wanted), triggered)
    return _replan(observed, triggered, options, objective, stop,
                   a.latency.model_limit if a.latency else None)


def improves(before: float | None, after: float | None, least: float,
             whose: str = "") -> str | None:
    """Why a re-plan within every bound is worth a rescale: its F above what runs by more
    than the share ``least`` (``--min-improvement``); None when it is not."""
    if before is None or after is None or after - before <= least * max(abs(before), 1e-9):
        return None
    return f"{whose}F improves from {before:.4g} to {after:.4g}"


def fallback(observed: Observed) -> dict[str, int]:
    """More load than the slots carry stably (the re-plan proved there is no plan): rather
    than leave the job back-pressured, each vertex gets what DS2 asks, its sources sized
    from the rate they send by their own busy time too (a source holding slots it does not
    need keeps them from the vertices, or the jobs, that do)."""
    app = observed.app
    out = ds2(app, observed.running)
    sends = {op.id: sum(s.rate or 0.0 for s in app.streams if s.source == op.id)
             for op in app.operators}
    for op in app.operators:
        if not any(s.target == op.id for s in app.streams) and op.service_rate:
            out[op.id] = min(ds2_parallelism(op, sends[op.id]), op.replica_cap)
    return out


def aligned(observed: Observed, wanted: dict[str, int], options: AutoscaleOptions,
            ) -> dict[str, int]:
    """The Flink autoscaler's last step on DS2's counts: each source or keyed vertex capped
    at its partitions or key groups and aligned to them (``JobVertexScaler.scale``)."""
    out = dict(wanted)
    running = observed.running
    for op, n in observed.shares.items():
        upper = min(n, options.vertex_max_parallelism)
        target = min(max(wanted[op], 1), upper)
        out[op] = flink_align(running[op], target, n, upper,
                              options.scaling_parallelism_alignment_mode)
    return out


def _replan(observed: Observed, why: list[str], options: AutoscaleOptions,
            objective: Objective, stop: StopRequest,
            response_limit: float | None = None) -> Proposal:
    """solve --current on the observed instance (its response time held below
    ``response_limit``, where given); the plan, and why it is taken."""
    app, infra, now = observed.app, observed.infra, observed.plan
    current = Current({op: now.replicas(op) for op in app.operator_ids}, options.max_moves,
                      source="the plan the job runs")
    limits = MetricLimits({Metric.RESPONSE_TIME: response_limit}) \
        if response_limit is not None else None
    instance = Instance(app, infra, objective, current, limits)
    result = applicable("odrp", instance).solve(instance, SolveOptions(
        time_limit=options.replan_time_limit, stop=stop))
    # what runs is held to its constraints at full utilisation: within its bounds the job
    # is left alone (hysteresis), not re-planned for running above target
    held = evaluate(app.with_target_utilization(1.0), infra, now, objective, current)
    before = held.utility.value if held.utility is not None else None
    replan = Replan(running=number(before), plan=number(result.objective),
                    status=result.status.value)
    if result.plan is None:
        said = f"no plan: {result.message or result.status.value}"
        if result.status is not SolveStatus.INFEASIBLE or not why:
            return Proposal(None, [*why, said], replan)
        # the offered load is more than the slots carry stably: rather than leave the job
        # back-pressured, each vertex gets what DS2 asks, within what it may run
        return Proposal(spread(app, infra, fallback(observed)), [*why, said, FALLBACK],
                        replan)
    if not why and held.violations:
        why = [f"the running plan breaks {v.message}" for v in held.violations[:3]]
    better = improves(before, result.objective, options.min_improvement)
    if not why and better:
        why = [better]
    return Proposal(result.plan if why else None, why, replan)
