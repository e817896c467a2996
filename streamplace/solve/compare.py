"""Several methods on one instance, side by side, every number from the one evaluator."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from streamplace.model.metrics import METRIC_NAMES
from streamplace.solve.method import Method
from streamplace.solve.result import Instance, SolveOptions, SolveResult, SolveStatus

COLUMNS = ("method", "status", "seconds", "utility", "gap_to_bound", *METRIC_NAMES,
           "ecker_score", "benoit_cost", "path_cost", "message")
METRICS = COLUMNS[5:14]


@dataclass(frozen=True)
class Row:
    values: dict[str, object]


def attempt(method: Method, instance: Instance, options: SolveOptions) -> SolveResult:
    """Run one method; one that does not apply to the instance says why instead of failing
    the whole comparison, and one not started because of a stop request says so."""
    reason = method.accepts(instance)
    if reason is not None:
        return SolveResult(SolveStatus.ERROR, method.name, message=f"does not apply: {reason}")
    if options.stop:
        return SolveResult(SolveStatus.INTERRUPTED, method.name,
                           message="not run: interrupted before it started")
    return method.solve(instance, options)


def compare_rows(results: Sequence[SolveResult], models: Sequence[str]) -> list[Row]:
    """One row per result (``models[k]`` is the model family of ``results[k]``). The gap is
    to the best bound an exact method proved on F (only ODRP methods bound F; a tree ILP
    bounds cost), or to the best F found, as ``bound_kind`` says."""
    metrics = {r.method: r.evaluation.metrics() for r in results if r.evaluation is not None}
    bounds = [r.bound for r, model in zip(results, models, strict=True)
              if r.bound is not None and r.plan is not None and model == "odrp"]
    found = [m["utility"] for m in metrics.values() if "utility" in m]
    best = max(bounds) if bounds else (max(found) if found else None)
    rows = []
    for r in results:
        m = metrics.get(r.method, {})
        utility = m.get("utility")
        gap = None
        if utility is not None and best is not None and best != 0:
            gap = max(0.0, (best - utility) / abs(best))
        rows.append(Row({"method": r.method, "status": r.status.value,
                         "seconds": round(r.seconds, 3), "utility": utility,
                         "gap_to_bound": gap, **{k: m.get(k) for k in METRICS},
                         "message": r.message, "bound_kind": "proven" if bounds else "best found"}))
    return rows
