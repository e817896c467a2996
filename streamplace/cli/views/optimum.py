"""Rich rendering of ``report --optimum``: each run beside its hindsight optimum."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.console import Console

from streamplace.cli.views.tables import table


def render_optimum(con: Console, rows: Sequence[dict[str, Any]]) -> None:
    t = table(con, "Each run against its hindsight optimum (gap: the run over the optimum)",
              "run", "method", "windows", "slot-seconds", "gap", "rescales", "optimum",
              "backlogged", "optimum ", "back-pressured", "optimum  ")
    for row in rows:
        run, best = row["run"], row["optimum"]
        if best is None:
            t.add_row(row["state"], row["method"], str(run["windows"]),
                      f"{run['slot_seconds']:.0f}", "-", str(run["rescales"]), "-",
                      f"{run['backlog_share']:.2%}", "-", str(run["pressed"]), "-")
            continue
        t.add_row(row["state"], row["method"], str(run["windows"]),
                  f"{run['slot_seconds']:.0f}", f"{row['gap']['slot_seconds']:+.1%}",
                  str(run["rescales"]), str(best["rescales"]),
                  f"{run['backlog_share']:.2%}", f"{best['backlog_share']:.2%}",
                  str(run["pressed"]), str(best["pressed"]))
    con.print(t)
    for row in rows:
        for note in row["notes"]:
            con.print(f"[dim]{row['state']}: {note}[/]")
