"""What a MIP backend returns, and how each backend's statuses map to ours: one table per
solver, every status it can report with the outcome it means (docs/models.md sec. 9)."""

from __future__ import annotations

from dataclasses import dataclass

from streamplace.solve.result import SolveStatus
from streamplace.solve.solver_report import SolverReport


@dataclass(frozen=True)
class StatusMeaning:
    """What a solver status means: our status with an incumbent, without one, and why."""

    with_plan: SolveStatus
    without_plan: SolveStatus
    explanation: str


@dataclass(frozen=True)
class MipOutcome:
    status: SolveStatus
    values: list[float] | None
    objective: float | None
    bound: float | None
    gap: float | None
    seconds: float
    report: SolverReport
    message: str = ""  # the status table's explanation, for anything but a proven answer
