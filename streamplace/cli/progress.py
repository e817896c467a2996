"""Live progress on stderr (terminals only): a solver's incumbent, bound, gap, nodes and time;
an event-log reading job's tasks."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import TYPE_CHECKING

from rich.console import Console
from rich.live import Live
from rich.progress import BarColumn, Progress, TaskProgressColumn, TextColumn, TimeElapsedColumn
from rich.text import Text

from streamplace.cli import fmt
from streamplace.solve.mip import Progress as SolveProgress
from streamplace.solve.mip import ProgressFn

if TYPE_CHECKING:  # the event-log package loads only when extract runs
    from streamplace.io.eventlog.read import Progress as ReadProgressFn


def _line(method: str, p: SolveProgress | None) -> Text:
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

        def update(p: SolveProgress) -> None:
            live.update(_line(method, p))

        yield update


@contextlib.contextmanager
def reading_progress(con: Console, label: str, enabled: bool) -> Iterator[ReadProgressFn | None]:
    """A progress bar over an event-log reading job (tasks, or bytes read in one process)."""
    if not enabled or not con.is_terminal:
        yield None
        return
    columns = (TextColumn("{task.description}"), BarColumn(), TaskProgressColumn(),
               TimeElapsedColumn())
    with Progress(*columns, console=con, transient=True) as bar:
        task = bar.add_task(label, total=None)

        def update(done: float, total: float) -> None:
            bar.update(task, completed=done, total=total)

        yield update
