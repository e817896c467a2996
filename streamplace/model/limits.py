"""Hard bounds on a plan's ODRP metrics: at most so much response time, cost or network
load, at least so much availability (docs/models.md sec. 2, "Metric limits"). The compact
ODRP program enforces them as rows; every method's plan is checked against them by the
evaluator, so a plan over a limit is never handed out as feasible.

>>> limits = MetricLimits({"response_time": 0.1}, min_availability=0.99)
>>> [label for label, _bound in limits.items()]
['max_response_time', 'min_availability']
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field

from streamplace.model.evaluate.report import OdrpMetrics, Subject, Violation

LIMIT_TOLERANCE = 2e-7
"""How closely a metric must keep its limit, relative to the limit: the one tolerance of
every limit check (the evaluator, hence ``solve`` and the sweep's analyses, and
``validate``). The
compact program's limit rows are scaled to a right-hand side of 1, so HiGHS's primal
feasibility tolerance (1e-7, absolute on that row) is 1e-7 relative, within this: a plan
the solver calls feasible is never refused for a rounding of its own. It stays below the
Pareto front's step (1e-6 relative), so each point of a front excludes the one before."""

CAPPED = ("response_time", "cost", "traffic", "network_usage", "elastic_energy")
"""The metrics an upper limit may bound (lower is better for each)."""


@dataclass(frozen=True)
class MetricLimits:
    upper: Mapping[str, float] = field(default_factory=dict)
    min_availability: float | None = None

    def __post_init__(self) -> None:
        unknown = set(self.upper) - set(CAPPED)
        if unknown:
            raise ValueError(f"no upper limit on {', '.join(sorted(unknown))}")
        floor = self.min_availability
        if floor is not None and not 0 <= floor <= 1:
            raise ValueError(f"min_availability {floor:g} is not in [0, 1]")

    def __bool__(self) -> bool:
        return bool(self.upper) or self.min_availability is not None

    def items(self) -> Iterator[tuple[str, float]]:
        for metric, bound in self.upper.items():
            yield f"max_{metric}", bound
        if self.min_availability is not None:
            yield "min_availability", self.min_availability

    def violations(self, metrics: OdrpMetrics) -> list[Violation]:
        out = []
        for metric, value, bound in self.broken(metrics.metric):
            if metric == "availability":
                out.append(Violation("limit.min_availability",
                                     Subject("plan", ("availability",)),
                                     f"availability is {value:.6g}, below its limit "
                                     f"{bound:.6g}", bound - value))
            else:
                out.append(Violation(f"limit.max_{metric}", Subject("plan", (metric,)),
                                     f"{metric} is {value:.6g}, above its limit {bound:.6g}",
                                     value - bound))
        return out

    def broken(self, metric: Callable[[str], float]) -> list[tuple[str, float, float]]:
        """The limits the metrics (by name) break: (metric, value, limit) each. Read
        through a function, so the evaluator's metrics and a search's running sums are
        checked alike."""
        out = [(name, metric(name), bound) for name, bound in self.upper.items()
               if not meets_upper(metric(name), bound)]
        floor = self.min_availability
        if floor is not None and not meets_lower(metric("availability"), floor):
            out.append(("availability", metric("availability"), floor))
        return out


def meets_upper(value: float, bound: float) -> bool:
    """``value <= bound`` within :data:`LIMIT_TOLERANCE` (NaN never meets a limit).

    >>> meets_upper(1.0 + 1e-7, 1.0), meets_upper(1.0 + 1e-6, 1.0)
    (True, False)
    """
    return not math.isnan(value) and value <= bound + _slack(bound)


def meets_lower(value: float, floor: float) -> bool:
    """``value >= floor`` within :data:`LIMIT_TOLERANCE`."""
    return not math.isnan(value) and value >= floor - _slack(floor)


def _slack(bound: float) -> float:
    return LIMIT_TOLERANCE * abs(bound) + 1e-12
