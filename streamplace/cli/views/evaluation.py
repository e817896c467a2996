"""Rich rendering of one plan's evaluation (``evaluate``, and the parts ``solve`` and
``explain`` show of it), to stderr; computes nothing."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Console

from streamplace import fmt
from streamplace.cli.views.tables import table
from streamplace.model.evaluate.report import Evaluation, Usage
from streamplace.model.metrics import Term


def render_evaluation(con: Console, ev: Evaluation, heading: str) -> None:
    con.print(f"[bold]{heading}[/]")
    if ev.odrp is None:
        con.print("[yellow]metrics undefined: some operators have no replica[/]")
    else:
        metrics_table(con, ev)
        utility_table(con, ev)
        _operators(con, ev)
        _streams(con, ev)
        critical_path(con, ev)
        _node_usage(con, ev)
    if ev.benoit is not None:
        benoit_summary(con, ev)
    render_violations(con, ev)


def metrics_table(con: Console, ev: Evaluation) -> None:
    o = ev.odrp
    assert o is not None
    t = table(con, "Metrics", "metric", "value")
    t.add_row("response time R", fmt.seconds(o.response_time))
    t.add_row("cost C", f"{fmt.number(o.cost)} (compute {fmt.number(o.compute_cost)}, "
                        f"network {fmt.number(o.network_cost)})")
    t.add_row("availability A", f"{o.availability:.6g}")
    t.add_row("traffic T", fmt.byte_rate(o.traffic))
    t.add_row("network usage N", f"{fmt.number(o.network_usage)} B")
    t.add_row("elastic energy EE", f"{fmt.number(o.elastic_energy)} B·s")
    t.add_row("nodes used", f"{len(o.used_nodes)} ({', '.join(o.used_nodes)})")
    if ev.utility is not None:
        t.add_row("utility F", f"[bold]{ev.utility.value:.6g}[/]")
    if ev.ecker is not None:
        e = ev.ecker
        t.add_row("Ecker score s", f"{e.score:.6g} (lat {fmt.seconds(e.s_lat)}, "
                                   f"sup {e.s_sup:.3g}, co {e.s_co:.3g}, event {e.s_event:.3g})")
    con.print(t)


def utility_table(con: Console, ev: Evaluation) -> None:
    u = ev.utility
    assert u is not None
    t = table(con, f"Utility F = {u.value:.6g} (network metric: {u.network_metric})",
               "term", "weight", "value", "bounds (best, worst)", "normalised", "contribution")
    for term in u.terms:
        source = " derived" if term.derived_bound else ""
        best, worst = (term.hi, term.lo) if Term(term.term).higher_is_better else (term.lo, term.hi)
        t.add_row(term.metric, f"{term.weight:.3g}", fmt.number(term.value),
                  f"({fmt.number(best)}, {fmt.number(worst)}){source}",
                  f"{term.normalised:.4g}", f"{term.contribution:.4g}")
    con.print(t)


def _operators(con: Console, ev: Evaluation) -> None:
    o = ev.odrp
    assert o is not None
    t = table(con, "Operators", "operator", "replicas", "input", "per replica", "latency",
               "cost")
    for op in o.operators:
        latency = fmt.seconds(op.latency) if op.stable else "[red]unstable[/]"
        t.add_row(op.id, fmt.multiset(op.replicas), f"{op.input_rate:.4g}/s",
                  f"{op.load_per_replica:.4g}/s", latency, fmt.number(op.cost))
    con.print(t)


def _streams(con: Console, ev: Evaluation) -> None:
    o = ev.odrp
    assert o is not None
    if not o.streams:
        return
    t = table(con, "Streams", "stream", "rate", "delay", "traffic", "network usage",
               "link cost")
    for s in o.streams:
        t.add_row(f"{s.source} -> {s.target}", f"{s.rate:.4g}/s", fmt.seconds(s.delay),
                  fmt.byte_rate(s.traffic), fmt.number(s.network_usage), fmt.number(s.link_cost))
    con.print(t)


def critical_path(con: Console, ev: Evaluation) -> None:
    o = ev.odrp
    assert o is not None
    parts = [f"{s.name} ({fmt.seconds(s.seconds)})" for s in o.critical_steps
             if s.kind == "operator" or s.seconds > 0]
    con.print(f"[bold]Critical path[/] ({fmt.seconds(o.response_time)}): " + " → ".join(parts))


def _node_usage(con: Console, ev: Evaluation) -> None:
    o = ev.odrp
    assert o is not None
    t = table(con, "Node usage", "node", "resources used")
    for node, dims in o.node_usage.items():
        t.add_row(node, ", ".join(
            f"{fmt.number(used)} / {fmt.number(cap)} {d}" if cap != float("inf")
            else f"{fmt.number(used)} {d} (unbounded)" for d, (used, cap) in dims.items()))
    con.print(t)


def benoit_summary(con: Console, ev: Evaluation) -> None:
    b = ev.benoit
    assert b is not None
    kind = "bought platform" if b.mode == "constr" else "processors used"
    con.print(f"[bold]In-network tree ({b.mode})[/]: cost {fmt.number(b.cost)} for "
              f"throughput {b.throughput:g}/s; {kind}: "
              + (", ".join(f"{p} ({c})" for p, c in b.purchased.items())
                 if b.mode == "constr" else ", ".join(b.used_processors)))
    t = table(con, "Utilisation", "resource", "subject", "used", "capacity", "share")
    groups: Sequence[tuple[str, list[Usage], bool]] = (
        ("compute (1)", b.compute, False), ("processor card (2)", b.processor_cards, True),
        ("server card (3)", b.server_cards, True), ("server link (4)", b.server_links, True),
        ("processor link (5)", b.processor_links, True))
    for label, rows, is_bytes in groups:
        for row in rows:
            used = fmt.byte_rate(row.used) if is_bytes else f"{row.used:.4g}"
            cap = fmt.byte_rate(row.capacity) if is_bytes else f"{row.capacity:.4g}"
            t.add_row(label, str(row.subject), used, cap, fmt.percent(row.fraction))
    con.print(t)


def render_violations(con: Console, ev: Evaluation) -> None:
    if ev.violations:
        t = table(con, f"[red]{len(ev.violations)} violated constraint(s)[/]",
                   "constraint", "subject", "problem")
        for v in ev.violations:
            t.add_row(v.constraint, str(v.subject), v.problem)
        con.print(t)
    else:
        con.print("[green]every constraint is satisfied[/]")
    for w in ev.warnings:
        con.print(f"[yellow]warning:[/] {w}")
