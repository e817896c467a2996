"""Live progress of a solve, for displays: the incumbent, the best bound, the gap, time.

Methods always call their progress function; the default does nothing, so no method checks
whether anyone is watching.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class SolverProgress:
    """A snapshot: objective of the incumbent, best bound, relative gap, search nodes."""

    seconds: float
    incumbent: float | None
    bound: float | None
    gap: float | None
    nodes: int


ProgressFn = Callable[[SolverProgress], None]


def no_progress(snapshot: SolverProgress) -> None:
    """The progress function of a solve nobody watches."""
