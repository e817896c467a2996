"""Tables of ``streamplace diff``: what changes, what it does to the metrics, what binds."""

from __future__ import annotations

from collections.abc import Callable

from rich.console import Console
from rich.markup import escape

from streamplace import fmt
from streamplace.cli.views.tables import table
from streamplace.model.metrics import Metric
from streamplace.model.plandiff import PlanDiff

_METRICS: dict[str, tuple[str, Callable[[float], str]]] = {
    **{m.value: (m.label, m.show) for m in Metric},
    "utility": ("utility F", lambda v: f"{v:.6g}"),
}


def render_diff(con: Console, diff: PlanDiff, heading: str) -> None:
    con.print(f"[bold]{escape(heading)}[/]")
    if not diff.changed:
        con.print("no change: both plans run the same replicas on the same nodes")
    else:
        _changes(con, diff)
        _metrics(con, diff)
        _bindings(con, diff)
    fixed, introduced = diff.violation_changes()
    for line in fixed:
        con.print(f"[green]fixed[/] {escape(line)}")
    for line in introduced:
        con.print(f"[red]introduced[/] {escape(line)}")
    if diff.changed:
        con.print("[bold]Scaling report[/] (Flink autoscaler format)")
        for change in diff.changes:
            con.print(escape(change.flink_line()), soft_wrap=True)


def _changes(con: Console, diff: PlanDiff) -> None:
    t = table(con, f"Changes: {diff.started} replica(s) started, {diff.stopped} stopped, "
                   f"reconfiguration {diff.reconfiguration:g}",
              "operator", "parallelism", "added", "removed", "moved", "capacity (tuples/s)",
              "target rate")
    for c in diff.changes:
        before, after = c.parallelism
        capacity = "-" if c.capacity_before is None or c.capacity_after is None else \
            f"{c.capacity_before:.6g} -> {c.capacity_after:.6g}"
        name = c.id if c.vertex == c.id else f"{c.id} ({c.vertex})"
        t.add_row(name, f"{before} -> {after}", fmt.multiset(c.added) or "-",
                  fmt.multiset(c.removed) or "-", str(c.moved), capacity,
                  f"{c.target_rate:.6g}/s")
    con.print(t)


def _metrics(con: Console, diff: PlanDiff) -> None:
    t = table(con, "Metrics", "metric", "current", "new", "delta")
    for name, (before, after) in diff.metric_deltas().items():
        label, show = _METRICS[name]
        if before is None or after is None:
            t.add_row(label, "-" if before is None else show(before),
                      "-" if after is None else show(after), "-")
            continue
        delta = after - before
        t.add_row(label, show(before), show(after), "0" if delta == 0 else f"{delta:+.4g}")
    con.print(t)
    con.print(f"[dim]note: {escape(diff.scoring)}[/]")


def _bindings(con: Console, diff: PlanDiff) -> None:
    gone, new = diff.binding_changes()
    if not gone and not new:
        return
    t = table(con, "Constraints that bind differently", "plan", "constraint", "subject",
              "detail")
    for label, rows in (("current only", gone), ("new only", new)):
        for b in rows:
            t.add_row(label, b.kind, b.subject, b.detail)
    con.print(t)
