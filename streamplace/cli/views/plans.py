"""Rich rendering of evaluations and checks (to stderr); computes nothing."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rich.console import Console

from streamplace import fmt
from streamplace.cli.views.placement import placement_matrix
from streamplace.cli.views.tables import table
from streamplace.model.evaluate.report import Evaluation, Usage
from streamplace.model.explain import Explanation
from streamplace.model.metrics import Metric, Term
from streamplace.model.validation import Check
from streamplace.solve.compare import Row
from streamplace.solve.method import Method
from streamplace.solve.result import SolveResult, SolveStatus


def render_evaluation(con: Console, ev: Evaluation, heading: str) -> None:
    con.print(f"[bold]{heading}[/]")
    if ev.odrp is None:
        con.print("[yellow]metrics undefined: some operators have no replica[/]")
    else:
        _metrics(con, ev)
        _utility(con, ev)
        _operators(con, ev)
        _streams(con, ev)
        _critical_path(con, ev)
        _node_usage(con, ev)
    if ev.benoit is not None:
        _benoit(con, ev)
    render_violations(con, ev)


def _metrics(con: Console, ev: Evaluation) -> None:
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


def _utility(con: Console, ev: Evaluation) -> None:
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


def _critical_path(con: Console, ev: Evaluation) -> None:
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


def _benoit(con: Console, ev: Evaluation) -> None:
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


def render_checks(con: Console, checks: Sequence[Check]) -> None:
    t = table(con, "Checks", "check", "result", "detail")
    for c in checks:
        result = "[green]pass[/]" if c.passed else "[red]FAIL[/]"
        detail = c.message + ("".join(f"\n  {d}" for d in c.details) if not c.passed else "")
        t.add_row(f"{c.group}: {c.name}", result, detail)
    con.print(t)
    failed = sum(not c.passed for c in checks)
    if failed:
        con.print(f"[red]{failed} of {len(checks)} checks failed[/]")
    else:
        con.print(f"[green]all {len(checks)} checks passed[/]")


def render_methods(con: Console, catalog: Sequence[Method]) -> None:
    t = table(con, "Methods", "method", "model", "kind", "cycles", "replication", "settings",
               "parameters", "summary")
    for column in t.columns:
        column.overflow = "fold"  # a listing is never cut short
    for m in catalog:
        settings = ", ".join(s.value for s in sorted(m.settings))
        if m.mip:
            settings += ", HiGHS options"
        t.add_row(m.name, m.model, "exact" if m.exact else "heuristic",
                  "yes" if m.cycles else "no", "yes" if m.replication else "no",
                  settings, ", ".join(p.signature for p in m.params) or "-", m.summary)
    con.print(t)


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
        _benoit(con, ev)
        placement_matrix(con, result, [p.id for p in result.plan.purchased] or processors)
        _solver_stats(con, result)
        render_violations(con, ev)
        return
    _metrics(con, ev)
    if ev.utility is not None:
        _utility(con, ev)
    placement_matrix(con, result, processors)
    if ev.odrp is not None:
        _critical_path(con, ev)
    _solver_stats(con, result)
    render_violations(con, ev)


def _solver_stats(con: Console, result: SolveResult) -> None:
    t = table(con, "Solver", "statistic", "value")
    for label, value in result.solver.shown():
        t.add_row(label, value)
    con.print(t)


def render_explanation(con: Console, ex: Explanation, heading: str) -> None:
    ev = ex.evaluation
    con.print(f"[bold]{heading}[/]")
    if ev.utility is not None:
        _utility(con, ev)
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
        _critical_path(con, ev)
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


def render_comparison(con: Console, rows: Sequence[Row], heading: str) -> None:
    bound_kind = rows[0].values["bound_kind"] if rows else "proven"
    # model-specific objectives only where some method reports them
    optional = [(key, title) for key, title in (("benoit_cost", "Benoit cost"),
                                                ("path_cost", "path cost"))
                if any(isinstance(r.values.get(key), float | int) for r in rows)]
    t = table(con, f"{heading}: methods compared (gap to the {bound_kind} bound on F)",
               "method", "status", "seconds", "utility F", "gap", "R", "C", "A", "T", "N",
               "Ecker s", *(title for _, title in optional))
    for row in rows:
        v = row.values

        def shown(key: str, as_text: Callable[[float], str] = fmt.number,
                  v: dict[str, object] = v) -> str:
            value = v.get(key)
            return as_text(float(value)) if isinstance(value, float | int) else "-"

        t.add_row(str(v["method"]), str(v["status"]), shown("seconds", "{:.2f}".format),
                  shown("utility"), shown("gap_to_bound", fmt.percent),
                  shown(Metric.RESPONSE_TIME, fmt.seconds), shown(Metric.COST),
                  shown(Metric.AVAILABILITY), shown(Metric.TRAFFIC, fmt.byte_rate),
                  shown(Metric.NETWORK_USAGE),
                  shown("ecker_score"), *(shown(key) for key, _ in optional))
    con.print(t)
    for row in rows:
        if row.values.get("message") and row.values["status"] not in ("optimal", "feasible"):
            con.print(f"[yellow]{row.values['method']}:[/] {row.values['message']}")
