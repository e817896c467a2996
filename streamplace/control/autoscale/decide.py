"""Decide: the parallelism the job should run, and why; odrp re-plans the observed
instance with ``solve --current``, ds2 applies DS2's rule."""

from __future__ import annotations

from dataclasses import dataclass

from streamplace.control.autoscale.evaluate import Observed
from streamplace.control.autoscale.options import AutoscaleOptions
from streamplace.control.autoscale.rule import ds2, spread
from streamplace.model.decision import Replan, number
from streamplace.model.evaluate import evaluate
from streamplace.model.objective import Objective
from streamplace.model.plan import Plan
from streamplace.model.reconfiguration import Current
from streamplace.solve import Instance, SolveOptions
from streamplace.solve.budget import StopRequest
from streamplace.solve.registry import applicable


@dataclass(frozen=True)
class Proposal:
    plan: Plan | None            # None: leave the job as it runs
    why: list[str]
    replan: Replan | None = None  # odrp's F before and after


def decide(observed: Observed, triggered: list[str], options: AutoscaleOptions,
           objective: Objective, stop: StopRequest) -> Proposal:
    if options.method == "ds2":
        if not triggered:
            return Proposal(None, [])
        wanted = ds2(observed.app, observed.running)
        return Proposal(spread(observed.app, observed.infra, wanted), triggered)
    return _replan(observed, triggered, options, objective, stop)


def _replan(observed: Observed, why: list[str], options: AutoscaleOptions,
            objective: Objective, stop: StopRequest) -> Proposal:
    """solve --current on the observed instance; the plan, and why it is taken."""
    app, infra, now = observed.app, observed.infra, observed.plan
    current = Current({op: now.replicas(op) for op in app.operator_ids}, options.max_moves,
                      source="the plan the job runs")
    instance = Instance(app, infra, objective, current, None)
    result = applicable("odrp", instance).solve(instance, SolveOptions(
        time_limit=options.replan_time_limit, stop=stop))
    # what runs is held to its constraints at full utilisation: within its bounds the job
    # is left alone (hysteresis), not re-planned for running above target
    held = evaluate(app.with_target_utilization(1.0), infra, now, objective, current)
    before = held.utility.value if held.utility is not None else None
    replan = Replan(running=number(before), plan=number(result.objective),
                    status=result.status.value)
    if result.plan is None:
        return Proposal(None, [*why, f"no plan: {result.message or result.status.value}"],
                        replan)
    if not why and held.violations:
        why = [f"the running plan breaks {v.message}" for v in held.violations[:3]]
    if not why and before is not None and result.objective is not None and \
            result.objective - before > options.min_improvement * max(abs(before), 1e-9):
        why = [f"F improves from {before:.4g} to {result.objective:.4g}"]
    return Proposal(result.plan if why else None, why, replan)
