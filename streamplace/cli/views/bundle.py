"""Rich rendering of a bundle's placement: one row per application (to stderr)."""

from __future__ import annotations

from rich.console import Console

from streamplace import fmt
from streamplace.cli.views.tables import table
from streamplace.model.application import Application
from streamplace.model.metrics import Metric
from streamplace.solve.bundle.result import BundleResult

_SHOWN = (Metric.RESPONSE_TIME, Metric.AVAILABILITY, Metric.COST)


def render_bundle(con: Console, result: BundleResult, apps: list[Application],
                  heading: str) -> None:
    how = {"joint": "together (one program)", "priority": "in priority order",
           "lexicographic": "together, priority level by level"}[result.mode]
    con.print(f"[bold]{heading}[/]: {result.method}, placed {how}: {result.status.value}")
    if result.evaluation is None:
        return
    t = table(con, "Applications", "name", "weight", "priority", "F",
              *(m.label for m in _SHOWN), "replicas")
    for app in apps:
        ev = result.evaluation.evaluations[app.name]
        values = ev.metrics() if ev.complete else {}
        plan = (result.plans or {}).get(app.name)
        replicas = sum(sum(plan.replicas(op.id).values()) for op in app.operators) \
            if plan is not None else 0
        t.add_row(app.name, f"{result.evaluation.weights[app.name]:.3g}", str(app.priority),
                  fmt.number(ev.utility.value if ev.utility else None),
                  *(m.show(values[m.value]) if m.value in values else "-" for m in _SHOWN),
                  str(replicas))
    con.print(t)
    if result.objective is not None:
        bound = f", bound {result.bound:.6g}" if result.bound is not None else ""
        gap = f", gap {result.gap * 100:.3g}%" if result.gap is not None else ""
        con.print(f"F = sum of weight x F per application = {result.objective:.6g}{bound}{gap}")
