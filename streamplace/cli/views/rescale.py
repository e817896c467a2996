"""A change to a running job, as ``apply`` shows it before sending it."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape

from streamplace.cli.views.tables import table
from streamplace.control.flink.change import Change


def render_change(con: Console, change: Change) -> None:
    rows = table(con, f"{change.job.get('name')} ({change.where.jid}, Flink {change.version})",
                 "vertex", "runs", "plan")
    before = change.before
    for vid, k in change.wanted.items():
        old = before.get(vid)
        rows.add_row(escape(change.names[vid]), str(old), str(k) if old == k
                     else f"[bold]{k}[/]")
    con.print(rows)
