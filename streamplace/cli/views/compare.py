"""Rich rendering of ``compare``: the methods side by side."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rich.console import Console

from streamplace import fmt
from streamplace.cli.views.tables import table
from streamplace.model.metrics import Metric
from streamplace.solve.compare import Row


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
