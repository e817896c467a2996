"""What placing a bundle of applications returns."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from streamplace.model.plan import Plan
from streamplace.solve.bundle.instance import BundleEvaluation
from streamplace.solve.result import SolveStatus, relative_gap


@dataclass(frozen=True)
class Level:
    """One priority level of a lexicographic solve: the weighted F of its applications
    reached, then held while the levels below were optimised."""

    priority: int
    applications: tuple[str, ...]
    value: float
    status: SolveStatus
    bound: float | None

    def to_json(self) -> dict[str, Any]:
        return {"priority": self.priority, "applications": list(self.applications),
                "value": self.value, "status": self.status.value, "bound": self.bound}


@dataclass(frozen=True)
class BundleResult:
    """``plans`` (one per application) exactly when ``status.has_plan``; ``objective`` is
    the evaluated F = sum_a omega_a F_a, ``bound`` the solver's proof where it gave one."""

    status: SolveStatus
    method: str
    mode: str  # joint | lexicographic | priority
    plans: dict[str, Plan] | None = None
    evaluation: BundleEvaluation | None = None
    objective: float | None = None
    bound: float | None = None
    seconds: float = 0.0
    message: str = ""
    reasons: tuple[str, ...] = ()
    levels: tuple[Level, ...] = ()  # lexicographic only

    @property
    def gap(self) -> float | None:
        return relative_gap(self.objective, self.bound)

    def to_json(self) -> dict[str, Any]:
        per_app = {}
        if self.evaluation is not None:
            for name, ev in self.evaluation.evaluations.items():
                per_app[name] = {"weight": self.evaluation.weights[name],
                                 "utility": ev.utility.value if ev.utility else None,
                                 "metrics": ev.metrics() if ev.complete else None}
        return {"method": self.method, "bundle": self.mode, "status": self.status.value,
                "objective": self.objective, "bound": self.bound, "gap": self.gap,
                "seconds": round(self.seconds, 3), "message": self.message,
                "reasons": list(self.reasons), "applications": per_app,
                **({"levels": [lv.to_json() for lv in self.levels]} if self.levels else {})}
