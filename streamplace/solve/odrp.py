"""Methods ``odrp`` and ``odp``: exact replication and placement (seed 000).

``odp`` is ODRP with every k_i = 1 (operators with a fixed ``replicas`` keep it). Reported
metrics and F come from the one evaluator on the decoded plan; the solver's objective is
kept in ``solver.model_objective`` and must agree with it.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from streamplace.errors import InfeasibleError, InputError
from streamplace.model.plan import Plan
from streamplace.solve.conclude import conclude
from streamplace.solve.ilp.odrp_compact import build_compact
from streamplace.solve.ilp.odrp_data import prepare
from streamplace.solve.ilp.odrp_multiset import build_multiset
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


def _solve(instance: Instance, options: SolveOptions, method: str,
           single_replica: bool) -> SolveResult:
    started = time.perf_counter()
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
        return SolveResult.infeasible(method, exc.reasons, time.perf_counter() - started)
    built = build_compact(data) if formulation == "compact" else build_multiset(data)
    build_seconds = time.perf_counter() - started
    start_plan = options.extra.get("start")
    start = built.start_from(start_plan) if isinstance(start_plan, Plan) else None
    outcome = _run(built.model, solver, options, options.extra.get("progress"), start)
    info: dict[str, Any] = {**outcome.solver, "formulation": formulation,
                            "build_seconds": round(build_seconds, 3)}
    if outcome.status == SolveStatus.INFEASIBLE:
        return SolveResult.infeasible(method, ["no plan satisfies the capacity, candidate, "
                                               "stability and routing constraints together"],
                                      time.perf_counter() - started, info)
    if outcome.values is None and start is not None and isinstance(start_plan, Plan) \
            and outcome.status == SolveStatus.TIME_LIMIT:
        # the solver stopped before even loading the start: the start is still the incumbent
        return conclude(method, instance, start_plan, SolveStatus.TIME_LIMIT, started=started,
                        bound=outcome.bound, gap=None, info=info)
    if outcome.values is None:
        status = outcome.status if outcome.status != SolveStatus.OPTIMAL else SolveStatus.ERROR
        return SolveResult(status, method, seconds=time.perf_counter() - started, solver=info,
                           bound=outcome.bound,
                           message="the time limit passed before any feasible plan was found"
                           if status == SolveStatus.TIME_LIMIT else "the solver failed")
    plan = Plan.model_validate({"placement": built.decode(outcome.values), "bounds_used": {
        t: list(b) for t, b in data.bounds.items()}})
    return conclude(method, instance, plan, outcome.status, started=started,
                    bound=outcome.bound, gap=outcome.gap, info=info,
                    model_objective=outcome.objective)


def _run(model: LinearModel, solver: str, options: SolveOptions, progress: Any,
         start: Sequence[float | None] | None) -> MipOutcome:
    if solver == "cbc":
        from streamplace.solve.cbc import solve_cbc

        return solve_cbc(model, options)
    from streamplace.solve.highs import solve_highs

    fn: ProgressFn | None = progress if callable(progress) else None
    return solve_highs(model, options, fn, start)
