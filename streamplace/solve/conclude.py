"""The one way a method's plan becomes a result.

The plan is evaluated once by the one evaluator; a plan that breaks any constraint is
refused (the method failed, and says which constraints), otherwise it is stamped with its
status, objective, metrics and solver statistics. The evaluation travels with the result,
so nothing downstream evaluates the same plan again.
"""

from __future__ import annotations

import time
from dataclasses import replace

from streamplace.model.evaluate import Evaluation
from streamplace.model.plan import ModelFamily, Plan
from streamplace.solve.result import Instance, SolveResult, SolveStatus
from streamplace.solve.solver_report import SolverReport

MISMATCH = 1e-5  # a solver's own objective may differ from the evaluator's by tolerances


def conclude(method: str, instance: Instance, plan: Plan, status: SolveStatus, *,
             model: ModelFamily, started: float, objective_metric: str = "utility",
             bound: float | None = None,
             gap: float | None = None, info: SolverReport | None = None,
             model_objective: float | None = None,
             evaluation: Evaluation | None = None) -> SolveResult:
    """Evaluate ``plan`` (unless ``evaluation`` already is its evaluation) and build the result.

    ``objective_metric`` names the metric the method optimises (``utility`` for ODRP and the
    placement heuristics, ``benoit_cost`` for trees); ``model_objective`` is the solver's own
    value of it, recorded and compared with the evaluator's.
    """
    if (plan.method, plan.model) != (method, model):
        plan = plan.model_copy(update={"method": method, "model": model})
    ev = evaluation or instance.evaluate(plan)
    info = info or SolverReport(method)
    seconds = time.perf_counter() - started
    if ev.violations:  # never hand out a plan the evaluator rejects
        return SolveResult(SolveStatus.ERROR, method, seconds=seconds, solver=info,
                           message=f"{method} failed: its plan would violate "
                                   + "; ".join(v.message for v in ev.violations[:5]))
    metrics = ev.metrics()
    value = metrics.get(objective_metric)
    if model_objective is not None:
        info = info.counting(model_objective=model_objective)
        if value is not None and abs(model_objective - value) > MISMATCH:
            info = info.counting(objective_mismatch=model_objective - value)
    if status == SolveStatus.OPTIMAL and gap is None:
        gap = 0.0
    bounds_used = plan.bounds_used
    if bounds_used is None and objective_metric == "utility" and ev.utility is not None:
        bounds_used = ev.utility.bounds_used
    final = plan.model_copy(update={
        "application": instance.app.name, "infrastructure": instance.infra.name,
        "status": status, "objective": value, "bound": bound, "gap": gap,
        "metrics": metrics, "bounds_used": bounds_used, "solver": info.to_json()})
    return SolveResult(status, method, plan=final, objective=value, bound=bound,
                       seconds=seconds, solver=info, evaluation=ev)


def tightened(result: SolveResult, bound: float | None, source: str, *,
              maximize: bool) -> SolveResult:
    """``result`` with a second valid ``bound`` where it is the tighter one, its gap then
    measured against it; the solver report records the bound under ``<source>_bound`` and,
    where it is the one kept, ``bound_from``."""
    if bound is None or result.status == SolveStatus.INFEASIBLE:
        return result  # no bound on a program proven to have no plan
    solver = result.solver.counting(**{f"{source}_bound": bound})
    tighter = result.status != SolveStatus.OPTIMAL and (
        result.bound is None or (bound < result.bound if maximize else bound > result.bound))
    if tighter:
        if result.objective is not None:  # never past the plan in hand
            bound = max(bound, result.objective) if maximize else min(bound, result.objective)
        solver = solver.counting(bound_from=source)
        result = replace(result, bound=bound)
    result = replace(result, solver=solver)
    if result.plan is not None:
        result = replace(result, plan=result.plan.model_copy(update={
            "bound": result.bound, "gap": result.gap if tighter else result.plan.gap,
            "solver": solver.to_json()}))
    return result
