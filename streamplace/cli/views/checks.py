"""Rich rendering of ``validate``'s checks."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Console

from streamplace.cli.views.tables import table
from streamplace.model.validation import Check


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
