"""Live solver progress on stderr: incumbent, bound, gap, nodes, time (terminals only)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from rich.console import Console
from rich.live import Live
from rich.text import Text

from streamplace.cli import fmt
from streamplace.solve.mip import Progress, ProgressFn


def _line(method: str, p: Progress | None) -> Text:
    if p is None:
        return Text(f"{method}: building and presolving ...", style="dim")
    incumbent = fmt.number(p.incumbent) if p.incumbent is not None else "none yet"
    bound = fmt.number(p.bound)
    gap = f"{p.gap * 100:.3g}%" if p.gap is not None else "-"
    return Text.assemble((f"{method} ", "bold"), f"{p.seconds:7.1f}s  incumbent ",
                         (incumbent, "green"), "  bound ", bound, "  gap ", (gap, "yellow"),
                         f"  nodes {p.nodes}")


@contextlib.contextmanager
def live_progress(con: Console, method: str, enabled: bool) -> Iterator[ProgressFn | None]:
    """Yields a progress callback for the solver, or None when not on a terminal."""
    if not enabled or not con.is_terminal:
        yield None
        return
    with Live(_line(method, None), console=con, refresh_per_second=8, transient=True) as live:

        def update(p: Progress) -> None:
            live.update(_line(method, p))

        yield update
