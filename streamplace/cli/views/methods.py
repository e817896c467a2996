"""Rich rendering of ``methods``: the catalog."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Console

from streamplace.cli.views.tables import table
from streamplace.solve.method import Method


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
