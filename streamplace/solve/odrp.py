"""Methods ``odrp`` and ``odp``: exact replication and placement (seed 000).

``odp`` is ODRP with every k_i = 1 (operators with a fixed ``replicas`` keep it). Reported
metrics and F come from the one evaluator on the decoded plan; the solver's objective is
kept in ``solver.model_objective`` and must agree with it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from streamplace.errors import InfeasibleError, InputError
from streamplace.model.evaluate.constraints import placement_violations
from streamplace.model.plan import Plan
from streamplace.solve.budget import Budget, Stopped
from streamplace.solve.conclude import conclude
from streamplace.solve.ilp.odrp_compact import build_compact
from streamplace.solve.ilp.odrp_compact import estimated_columns as estimate_compact
from streamplace.solve.ilp.odrp_data import OdrpData, prepare
from streamplace.solve.ilp.odrp_multiset import build_multiset
from streamplace.solve.ilp.odrp_multiset import estimated_columns as estimate_multiset
from streamplace.solve.linear import LinearModel
from streamplace.solve.mip import MipOutcome, ProgressFn
from streamplace.solve.registry import register
from streamplace.solve.result import Instance, SolveOptions, SolveResult, SolveStatus

FORMULATIONS = ("compact", "multiset")
SOLVERS = ("highs", "cbc")
OPTIONS = ("formulation=compact|multiset", "solver=highs|cbc", "start=PLAN", "time_limit",
           "gap", "seed", "threads")


@register("odrp", model="odrp", exact=True, replication=True, options=OPTIONS,
          summary="Optimal replication and placement (ILP, HiGHS); compact or the paper's "
                  "multiset formulation", seed_paper="000")
def solve_odrp(instance: Instance, options: SolveOptions) -> SolveResult:
    return _solve(instance, options, "odrp", single_replica=False)


@register("odp", model="odrp", exact=True, options=OPTIONS,
          summary="Optimal placement with one replica per operator (ODRP with k_i = 1)",
          seed_paper="000")
def solve_odp(instance: Instance, options: SolveOptions) -> SolveResult:
    return _solve(instance, options, "odp", single_replica=True)


MAX_COLUMNS = 2_000_000  # beyond this a model needs gigabytes before HiGHS even starts


def _solve(instance: Instance, options: SolveOptions, method: str,
           single_replica: bool) -> SolveResult:
    budget = options.budget()
    formulation = str(options.extra.get("formulation", "compact"))
    solver = str(options.extra.get("solver", "highs"))
    if formulation not in FORMULATIONS:
        raise InputError.single(f"unknown formulation {formulation!r}",
                                f"use one of {', '.join(FORMULATIONS)}", path="--formulation")
    if solver not in SOLVERS:
        raise InputError.single(f"unknown solver {solver!r}", f"use one of {', '.join(SOLVERS)}",
                                path="--solver")
    try:
        data = prepare(instance, single_replica)
    except InfeasibleError as exc:
        return SolveResult.infeasible(method, exc.reasons, budget.elapsed())
    _refuse_huge(data, formulation)
    start_plan = options.extra.get("start")
    start_plan = start_plan if isinstance(start_plan, Plan) else _baseline_start(instance, data)
    try:
        built = build_compact(data, budget) if formulation == "compact" \
            else build_multiset(data, budget)
    except Stopped:
        return _stopped(method, instance, budget, start_plan,
                        {"formulation": formulation, "build_seconds": round(budget.elapsed(), 3)})
    build_seconds = budget.elapsed()
    start = built.start_from(start_plan) if start_plan is not None else None
    outcome = _run(built.model, solver, options, options.extra.get("progress"), start, budget)
    info: dict[str, Any] = {**outcome.solver, "formulation": formulation,
                            "build_seconds": round(build_seconds, 3)}
    if outcome.status == SolveStatus.INFEASIBLE:
        return SolveResult.infeasible(method, ["no plan satisfies the capacity, candidate, "
                                               "stability and routing constraints together"],
                                      budget.elapsed(), info)
    if outcome.values is None and outcome.status.stopped_early:
        return _stopped(method, instance, budget, start_plan, info, outcome.bound)
    if outcome.values is None:
        status = outcome.status if outcome.status != SolveStatus.OPTIMAL else SolveStatus.ERROR
        return SolveResult(status, method, seconds=budget.elapsed(), solver=info,
                           bound=outcome.bound, message="the solver failed")
    plan = Plan.model_validate({"placement": built.decode(outcome.values), "bounds_used": {
        t: list(b) for t, b in data.bounds.items()}})
    return conclude(method, instance, plan, outcome.status, started=budget.started,
                    bound=outcome.bound, gap=outcome.gap, info=info,
                    model_objective=outcome.objective)


def _baseline_start(instance: Instance, data: OdrpData) -> Plan | None:
    """A plan from a framework baseline (milliseconds), so that a time limit or an interrupt
    always leaves a plan when one is that easy to find; HiGHS takes it as its first
    incumbent. None when neither baseline places everything."""
    from streamplace.solve.heuristics.common import Placement, PlacementFailure
    from streamplace.solve.heuristics.frameworks import first_fit_decreasing, resource_aware

    for place in (resource_aware, first_fit_decreasing):
        state = Placement.empty(instance)
        state.counts = {op.id: data.counts[op.id][0] for op in data.ops}
        state.cands = {op.id: list(data.cands[op.id]) for op in data.ops}
        try:
            place(state)
        except PlacementFailure:
            continue
        plan = Plan.model_validate({"placement": state.nodes})
        if not placement_violations(data.graph, data.network, plan):
            return plan
    return None


def _refuse_huge(data: OdrpData, formulation: str) -> None:
    """A model that cannot fit in memory is bad input, said before any of it is built."""
    estimate = (estimate_compact if formulation == "compact" else estimate_multiset)(data)
    if estimate <= MAX_COLUMNS:
        return
    widest = max(data.ops, key=lambda op: len(data.counts[op.id]))
    counts = data.counts[widest.id]
    fix = ("use --formulation compact" if formulation == "multiset" else
           f"set max_replicas of {widest.id} to the most replicas you would run, or give its "
           "candidates finite resources so that capacity bounds it")
    raise InputError.single(
        f"the {formulation} model would need about {estimate:,} variables (limit "
        f"{MAX_COLUMNS:,}); {widest.id} alone may run {counts[0]:,} to {counts[-1]:,} replicas",
        fix, path="--formulation" if formulation == "multiset" else "max_replicas")


def _stopped(method: str, instance: Instance, budget: Budget, start_plan: Plan | None,
             info: dict[str, Any], bound: float | None = None) -> SolveResult:
    """Stopped before the solver had a plan of its own: the start plan, if any, is the best
    known; otherwise there is no plan."""
    status = SolveStatus.INTERRUPTED if budget.interrupted else SolveStatus.TIME_LIMIT
    if start_plan is not None:
        return conclude(method, instance, start_plan, status, started=budget.started,
                        bound=bound, gap=None, info=info)
    reason = "interrupted" if budget.interrupted else "the time limit passed"
    return SolveResult(status, method, seconds=budget.elapsed(), solver=info, bound=bound,
                       message=f"{reason} before any feasible plan was found")


def _run(model: LinearModel, solver: str, options: SolveOptions, progress: Any,
         start: Sequence[float | None] | None, budget: Budget) -> MipOutcome:
    if solver == "cbc":
        from streamplace.solve.cbc import solve_cbc

        return solve_cbc(model, options, budget)
    from streamplace.solve.highs import solve_highs

    fn: ProgressFn | None = progress if callable(progress) else None
    return solve_highs(model, options, fn, start, budget)
