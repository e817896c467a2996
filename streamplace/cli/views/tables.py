"""The one table style of every summary: left-aligned text columns, right-aligned numbers,
rounded boxes on a terminal and plain ASCII off one."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from streamplace.cli.console import table_box

__all__ = ["table"]

_TEXT_COLUMNS = {"change", "critical", "statistic", "value", "metric", "term", "operator",
                 "replicas", "stream", "node", "resources used", "constraint", "subject",
                 "problem", "check", "result", "detail", "method", "model", "kind", "options",
                 "summary", "resource", "bounds (best, worst)", "status", "name", "from",
                 "to", "settings", "parameters", "cycles", "run"}


def table(con: Console, title: str, *columns: str) -> Table:
    table = Table(title=title, box=table_box(con), title_justify="left", title_style="bold")
    for col in columns:
        table.add_column(col, justify="left" if col in _TEXT_COLUMNS else "right")
    return table
