"""Progress on stderr: on a terminal a live line (a solver's incumbent, bound, gap, nodes
and time; an event-log reading job's tasks); off a terminal (a CI log) a solver's progress
as plain lines, the first when the solver has its first plan, the first with a bound at
once, and then at most one every ``PLAIN_EVERY`` seconds, so a log shows a long solve is
alive without flooding. Where
there is nothing to show the displays are functions that do nothing, so callers never
check."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from rich.console import Console
from rich.live import Live
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskProgressColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text

from streamplace import fmt
from streamplace.cli.console import ClosedPipe, pipe_closed_meanwhile
from streamplace.solve.progress import ProgressFn, SolverProgress, no_progress

if TYPE_CHECKING:  # the event-log package loads only when extract runs
    from streamplace.io.eventlog.read import ReadProgress


def _line(method: str, p: SolverProgress | None) -> Text:
    if p is None:
        return Text(f"{method}: building and presolving ...", style="dim")
    incumbent = fmt.number(p.incumbent) if p.incumbent is not None else "none yet"
    bound = fmt.number(p.bound)
    gap = f"{p.gap * 100:.3g}%" if p.gap is not None else "-"
    return Text.assemble((f"{method} ", "bold"), f"{p.seconds:7.1f}s  incumbent ",
                         (incumbent, "green"), "  bound ", bound, "  gap ", (gap, "yellow"),
                         f"  nodes {p.nodes}")


@contextlib.contextmanager
def live_progress(con: Console, method: str, enabled: bool) -> Iterator[ProgressFn]:
    """A progress function for the solver: a live line on a terminal, else nothing."""
    if not enabled:
        yield no_progress
        return
    if not con.is_terminal:
        yield _plain_lines(con, method)
        return
    with Live(_line(method, None), console=con, refresh_per_second=8, transient=True) as live:

        def update(p: SolverProgress) -> None:
            live.update(_line(method, p))

        yield update


PLAIN_EVERY = 10.0


def _plain_lines(con: Console, method: str) -> ProgressFn:
    shown: list[float] = []
    bounded = [False]  # whether a line with a bound was shown: the first one is news
    closed = [False]   # the reader went away (``| head``): the solve goes on, unsaid

    def show(p: SolverProgress) -> None:
        first_bound = p.bound is not None and not bounded[0]
        if closed[0] or p.incumbent is None or (shown and p.seconds - shown[-1] < PLAIN_EVERY
                                                and not first_bound):
            return
        shown.append(p.seconds)
        bounded[0] = bounded[0] or p.bound is not None
        parts = [f"{method}: {p.seconds:.1f}s", f"incumbent {fmt.number(p.incumbent)}"]
        if p.bound is not None:
            parts.append(f"bound {fmt.number(p.bound)}")
        if p.gap is not None:
            parts.append(f"gap {p.gap * 100:.3g}%")
        if p.nodes:
            parts.append(f"nodes {p.nodes}")
        try:
            con.print(", ".join(parts), highlight=False, markup=False)
        except ClosedPipe:  # raised in the solver's callback it would end the solve as a
            closed[0] = True  # solver error: the solve goes on, the command ends with 141
            pipe_closed_meanwhile()

    return show


def _no_reading(done: float, total: float) -> None:
    return None


@contextlib.contextmanager
def reading_progress(con: Console, label: str, enabled: bool) -> Iterator[ReadProgress]:
    """A progress bar over an event-log reading job (tasks, or bytes read in one process)."""
    if not enabled or not con.is_terminal:
        yield _no_reading
        return
    columns = (TextColumn("{task.description}"), BarColumn(), TaskProgressColumn(),
               TimeElapsedColumn())
    with Progress(*columns, console=con, transient=True) as bar:
        task = bar.add_task(label, total=None)

        def update(done: float, total: float) -> None:
            bar.update(task, completed=done, total=total)

        yield update


def _no_count(done: int, total: int) -> None:
    return None


@contextlib.contextmanager
def count_progress(con: Console, label: str, enabled: bool,
                   ) -> Iterator[Callable[[int, int], None]]:
    """A bar over counted work (a sweep's scenarios): done / total, elapsed, time left."""
    if not enabled or not con.is_terminal:
        yield _no_count
        return
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
               TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn())
    with Progress(*columns, console=con, transient=True) as bar:
        task = bar.add_task(label, total=None)

        def update(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        yield update
