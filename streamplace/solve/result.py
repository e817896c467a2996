"""What every method takes and returns.

"Stopped at the time limit with an incumbent" is ``TIME_LIMIT``, never ``OPTIMAL``: only a
solver's proof makes a result optimal. Solver statuses are mapped to these in one place per
solver interface.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from streamplace.model.application import Application
from streamplace.model.evaluate import Evaluation, evaluate
from streamplace.model.infrastructure import Infrastructure
from streamplace.model.metrics import MetricLimits
from streamplace.model.objective import Objective
from streamplace.model.plan import Plan
from streamplace.model.plan import SolveStatus as SolveStatus  # one status type, shared
from streamplace.model.reconfiguration import Current
from streamplace.solve.budget import Budget, StopRequest
from streamplace.solve.mip.model import LinearModel
from streamplace.solve.progress import ProgressFn, no_progress
from streamplace.solve.solver_report import SolverReport

T = TypeVar("T")
DEFAULT_GAP = 1e-6  # relative, where --gap is not given


@dataclass(frozen=True)
class Instance:
    """One problem to solve: the application, the infrastructure and the objective, and
    when re-planning, the plan that runs now (docs/models.md sec. 2)."""

    app: Application
    infra: Infrastructure
    objective: Objective = field(default_factory=Objective)
    current: Current | None = None
    limits: MetricLimits | None = None  # hard bounds on metrics (docs/models.md sec. 2)

    def evaluate(self, plan: Plan) -> Evaluation:
        """The one evaluator's verdict on ``plan`` for this problem."""
        return evaluate(self.app, self.infra, plan, self.objective, self.current, self.limits)


class FormulationName(enum.StrEnum):
    """How ``odrp``/``odp`` write the integer program (docs/models.md, "ODRP")."""

    COMPACT = "compact"
    MULTISET = "multiset"


class MipSolver(enum.StrEnum):
    """The backend an exact method's integer program goes to (:mod:`streamplace.solve.mip`)."""

    HIGHS = "highs"
    CBC = "cbc"
    SCIP = "scip"


HighsValue = bool | int | float | str


@dataclass(frozen=True)
class SolveOptions:
    """Everything a method is told besides the instance. Each method honours the settings
    its catalog entry declares; ``params`` are its own typed parameters (checked by
    :meth:`streamplace.solve.method.Method.resolve`), ``highs`` options go to HiGHS as they
    are."""

    time_limit: float | None = None
    gap: float | None = None
    seed: int = 0
    threads: int | None = None
    formulation: FormulationName = FormulationName.COMPACT
    solver: MipSolver = MipSolver.HIGHS
    start: Plan | None = None
    params: Mapping[str, object] = field(default_factory=dict)
    highs: Mapping[str, HighsValue] = field(default_factory=dict)
    progress: ProgressFn = field(default=no_progress, compare=False)
    stop: StopRequest = field(default_factory=StopRequest, compare=False)

    @property
    def proven_gap(self) -> float:
        """The relative gap at which a plan counts as proven optimal (``--gap``)."""
        return self.gap if self.gap is not None else DEFAULT_GAP

    def budget(self) -> Budget:
        """The method's budget, starting now: the time limit and the stop request."""
        return Budget(self.time_limit, self.stop)


@dataclass(frozen=True)
class SolveResult:
    """A method's answer. ``plan`` is set exactly when ``status.has_plan`` (and may be set
    for TIME_LIMIT only if an incumbent exists)."""

    status: SolveStatus
    method: str
    plan: Plan | None = None
    objective: float | None = None
    bound: float | None = None
    seconds: float = 0.0
    message: str = ""
    solver: SolverReport = field(default_factory=lambda: SolverReport("none"))
    reasons: tuple[str, ...] = ()  # INFEASIBLE: what a person can change, one per line
    evaluation: Evaluation | None = field(default=None, repr=False, compare=False)
    program: LinearModel | None = field(default=None, repr=False, compare=False)  # the ILP

    @classmethod
    def infeasible(cls, method: str, reasons: list[str] | tuple[str, ...], seconds: float,
                   solver: SolverReport | None = None) -> SolveResult:
        return cls(SolveStatus.INFEASIBLE, method, seconds=seconds,
                   solver=solver or SolverReport(method),
                   reasons=tuple(reasons), message="; ".join(reasons))

    def __post_init__(self) -> None:
        if self.status in (SolveStatus.OPTIMAL, SolveStatus.FEASIBLE) and self.plan is None:
            raise ValueError(f"a {self.status} result needs a plan")
        if self.status in (SolveStatus.INFEASIBLE, SolveStatus.ERROR) and self.plan is not None:
            raise ValueError(f"a {self.status} result has no plan")

    def to_json(self) -> dict[str, Any]:
        """The result as ``solve --json`` reports it (the plan itself is added by the caller,
        in the file format)."""
        return {"method": self.method, "status": self.status.value,
                "objective": self.objective, "bound": self.bound, "gap": self.gap,
                "seconds": self.seconds, "message": self.message,
                "metrics": self.evaluation.metrics() if self.evaluation else None}

    @property
    def gap(self) -> float | None:
        """Relative gap |objective - bound| / max(|objective|, tiny), when both are known."""
        return relative_gap(self.objective, self.bound)


def relative_gap(objective: float | None, bound: float | None) -> float | None:
    """|objective - bound| / max(|objective|, tiny), when both are known and finite."""
    if objective is None or bound is None:
        return None
    if not (math.isfinite(objective) and math.isfinite(bound)):
        return None
    return abs(objective - bound) / max(abs(objective), 1e-10)
