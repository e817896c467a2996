"""Rich rendering of a solve: status, metrics, placement, critical path, solver statistics."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Console

from streamplace.cli.views.evaluation import (
    benoit_summary,
    critical_path,
    metrics_table,
    render_violations,
    utility_table,
)
from streamplace.cli.views.placement import placement_matrix
from streamplace.cli.views.tables import table
from streamplace.model.evaluate.report import Evaluation
from streamplace.solve.result import SolveResult, SolveStatus


def render_solve(con: Console, result: SolveResult, ev: Evaluation | None,
                 processors: Sequence[str], tree: bool = False) -> None:
    """Status, metrics, the operator x node placement, critical path and solver statistics."""
    status_style = {"optimal": "green", "feasible": "cyan", "time_limit": "yellow"}.get(
        result.status.value, "red")
    gap = f", gap {max(result.gap, 0.0) * 100:.4g}%" if result.gap is not None else ""
    if result.gap is not None and result.gap < 1e-9:
        gap = ", gap 0%"
    bound = f", bound {result.bound:.6g}" if result.bound is not None else ""
    objective = f" objective {result.objective:.6g}" if result.objective is not None else ""
    con.print(f"[bold]{result.method}[/]: [{status_style}]{result.status.value}[/]{objective}"
              f"{bound}{gap} in {result.seconds:.2f}s")
    if result.message and result.status != SolveStatus.INFEASIBLE:  # the CLI lists reasons
        con.print(result.message)
    if ev is None or result.plan is None:
        return
    if tree and ev.benoit is not None:
        benoit_summary(con, ev)
        placement_matrix(con, result, [p.id for p in result.plan.purchased] or processors)
        _solver_stats(con, result)
        render_violations(con, ev)
        return
    metrics_table(con, ev)
    if ev.utility is not None:
        utility_table(con, ev)
    placement_matrix(con, result, processors)
    if ev.odrp is not None:
        critical_path(con, ev)
    _solver_stats(con, result)
    render_violations(con, ev)


def _solver_stats(con: Console, result: SolveResult) -> None:
    t = table(con, "Solver", "statistic", "value")
    for label, value in result.solver.shown():
        t.add_row(label, value)
    con.print(t)
