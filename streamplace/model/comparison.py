"""Several methods' plans side by side, every number from the one evaluator."""

from __future__ import annotations

from dataclasses import dataclass

from streamplace.model.evaluate import evaluate
from streamplace.solve.result import Instance, SolveResult

COLUMNS = ("method", "status", "seconds", "utility", "gap_to_bound", "response_time", "cost",
           "availability", "traffic", "network_usage", "elastic_energy", "ecker_score",
           "benoit_cost", "message")


@dataclass(frozen=True)
class Row:
    values: dict[str, object]


def compare_rows(instance: Instance, results: list[SolveResult]) -> list[Row]:
    """One row per result; the gap is to the best bound any exact method proved on F
    (or, when none did, to the best F found, and then says so in ``bound_kind``)."""
    metrics = {}
    for r in results:
        if r.plan is not None:
            ev = evaluate(instance.app, instance.infra, r.plan, instance.objective)
            metrics[r.method] = ev.metrics()
    bounds = [r.bound for r in results if r.bound is not None and r.plan is not None
              and "utility" in metrics.get(r.method, {}) and r.method not in _TREE]
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
                         "gap_to_bound": gap, **{k: m.get(k) for k in COLUMNS[5:13]},
                         "message": r.message, "bound_kind": "proven" if bounds else "best found"}))
    return rows


_TREE = frozenset({"benoit"})
