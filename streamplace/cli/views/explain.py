"""Rich rendering of ``explain``: F by term, operators, binding constraints, what-ifs."""

from __future__ import annotations

from rich.console import Console

from streamplace import fmt
from streamplace.cli.views.evaluation import critical_path, render_violations, utility_table
from streamplace.cli.views.tables import table
from streamplace.model.explain import Explanation


def render_explanation(con: Console, ex: Explanation, heading: str) -> None:
    ev = ex.evaluation
    con.print(f"[bold]{heading}[/]")
    if ev.utility is not None:
        utility_table(con, ev)
    if ex.operators:
        t = table(con, "Operators", "operator", "replicas", "latency", "critical", "load",
                   "cost", "traffic out")
        for op in ex.operators:
            load = fmt.percent(op.utilisation) if op.utilisation is not None else "-"
            t.add_row(op.id, fmt.multiset(op.replicas), fmt.seconds(op.latency),
                      "yes" if op.on_critical_path else "", load, fmt.number(op.compute_cost),
                      fmt.byte_rate(op.traffic_out))
        con.print(t)
    if ev.odrp is not None:
        critical_path(con, ev)
    if ex.binding:
        t = table(con, "Binding constraints", "constraint", "subject", "detail")
        for b in ex.binding:
            t.add_row(b.kind, b.subject, b.detail)
        con.print(t)
    if ex.what_if:
        t = table(con, "What if: the best single change per operator", "operator", "change",
                   "utility F", "delta F", "response time", "cost")
        for w in ex.what_if:
            style = "green" if w.delta > 1e-12 else ("" if w.delta > -1e-12 else "red")
            t.add_row(w.operator, w.move, f"{w.utility:.6g}",
                      f"[{style}]{w.delta:+.4g}[/]" if style else f"{w.delta:+.4g}",
                      fmt.seconds(w.response_time), fmt.number(w.cost))
        con.print(t)
    for note in ex.notes:
        con.print(f"[dim]note: {note}[/]")
    render_violations(con, ev)
