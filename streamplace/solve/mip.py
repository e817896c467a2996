"""What a MIP backend returns, with solver statuses mapped to ours in each backend."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from streamplace.solve.result import SolveStatus


@dataclass(frozen=True)
class MipOutcome:
    status: SolveStatus
    values: list[float] | None
    objective: float | None
    bound: float | None
    gap: float | None
    seconds: float
    solver: dict[str, Any] = field(default_factory=dict)
