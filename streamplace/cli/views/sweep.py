"""The summary of ``streamplace sweep``: per method, how its scenarios ended and what they
found; per analysis, its own figures."""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from typing import Any

from rich.console import Console

from streamplace import fmt
from streamplace.cli.views.tables import table
from streamplace.model.metrics import Metric
from streamplace.sweep import SweepReport

_STATUSES = ("optimal", "feasible", "time_limit", "infeasible", "error")


def render_sweep(con: Console, report: SweepReport) -> None:
    con.print(f"[bold]Sweep: {report.total} scenario(s), {report.ran} run now, "
              f"{report.skipped} already done ({report.seconds:.1f} s)[/]")
    by_method: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in report.rows:
        by_method[row["method"]].append(row)
    t = table(con, f"Results ({report.analysis})", "method", "rows", *_STATUSES,
              "mean F", "worst R", "mean seconds")
    for method, rows in by_method.items():
        counts = Counter(r["status"] for r in rows)
        utilities = [r["objective"] for r in rows if _finite(r.get("objective"))]
        latencies = [r[Metric.RESPONSE_TIME] for r in rows
                     if _finite(r.get(Metric.RESPONSE_TIME))]
        seconds = [r["seconds"] for r in rows if _finite(r.get("seconds"))]
        t.add_row(method, str(len(rows)), *(str(counts.get(s, 0)) for s in _STATUSES),
                  fmt.number(sum(utilities) / len(utilities)) if utilities else "-",
                  fmt.seconds(max(latencies)) if latencies else "-",
                  f"{sum(seconds) / len(seconds):.3g}" if seconds else "-")
    con.print(t)
    if report.analysis == "max-rate":
        _max_rate(con, report.rows)
    errors = [r for r in report.rows if r.get("error")]
    for row in errors[:5]:
        con.print(f"[dim]{row['scenario_id']} {row['method']} {row['failure']}: "
                  f"{row['error']}[/]", highlight=False)
    if len(errors) > 5:
        con.print(f"[dim]... and {len(errors) - 5} more rows with an error "
                  "(results.csv)[/]")


def _max_rate(con: Console, rows: list[dict[str, Any]]) -> None:
    t = table(con, "Largest feasible rate scale", "method", "failure", "scale", "below",
              "proven")
    for row in rows:
        scale, upper = row.get("max_rate_scale"), row.get("max_rate_upper")
        t.add_row(row["method"], row["failure"], fmt.number(scale), fmt.number(upper),
                  "yes" if row.get("max_rate_proven") else "no")
    con.print(t)


def _finite(value: Any) -> bool:
    return isinstance(value, int | float) and math.isfinite(value)
