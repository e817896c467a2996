"""The ODRP metrics of a plan (Cardellini et al. 2017, eqs. 1-20): their names, which way is
better, how they read, and hard limits on them (docs/models.md sec. 2, "Metric limits").

Every module names a metric through :class:`Metric`; a limit is a :class:`MetricLimits`,
checked with one tolerance (:data:`LIMIT_TOLERANCE`) by the evaluator (hence ``solve``,
``validate``, ``explain`` and the sweep's analyses) and matched by the compact program's
limit rows.

>>> limits = MetricLimits({Metric.RESPONSE_TIME: 0.1, Metric.AVAILABILITY: 0.99})
>>> [label for label, _bound in limits.items()]
['max_response_time', 'min_availability']
>>> Metric.NETWORK_USAGE.flag, Metric.AVAILABILITY.flag
('--max-network-usage', '--min-availability')
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import NamedTuple

from streamplace import fmt
from streamplace.model.units import Dimension


class Metric(StrEnum):
    RESPONSE_TIME = "response_time"
    COST = "cost"
    AVAILABILITY = "availability"
    TRAFFIC = "traffic"
    NETWORK_USAGE = "network_usage"
    ELASTIC_ENERGY = "elastic_energy"

    @property
    def higher_is_better(self) -> bool:
        return self is Metric.AVAILABILITY

    @property
    def limit_name(self) -> str:
        """``max_cost``, ``min_availability``: the limit's key in files and JSON."""
        return f"{'min' if self.higher_is_better else 'max'}_{self.value}"

    @property
    def flag(self) -> str:
        return "--" + self.limit_name.replace("_", "-")

    @property
    def label(self) -> str:
        """``response time R``: the name and symbol tables show."""
        return _INFO[self].label

    @property
    def dimension(self) -> Dimension:
        """How a limit on it is read (units accepted)."""
        return _INFO[self].dimension

    def show(self, value: float) -> str:
        """The value as tables print it, with its unit."""
        return _INFO[self].show(value)

    def exact(self, value: float) -> str:
        """The value to six digits with its base unit, as checks against limits print it."""
        return f"{value:.6g}{_INFO[self].unit if math.isfinite(value) else ''}"

    @property
    def term(self) -> Term:
        """The objective's term that weighs it (eq. 21): ``network`` for the network
        metrics, the metric's own name otherwise (the inverse of :meth:`Term.metric`)."""
        return Term.NETWORK if self in NETWORK_METRICS else Term(self.value)

    def per_byte(self, delay: float) -> float:
        """What one byte/s over a link of ``delay`` seconds adds to a network metric (eqs.
        5, 19-20): 1 for traffic, the delay for network usage, its square for elastic
        energy."""
        return {Metric.TRAFFIC: 1.0, Metric.NETWORK_USAGE: delay,
                Metric.ELASTIC_ENERGY: delay * delay}[self]


class _Info(NamedTuple):
    label: str
    dimension: Dimension
    unit: str
    show: Callable[[float], str]


_INFO = {
    Metric.RESPONSE_TIME: _Info("response time R", "time", "s", fmt.seconds),
    Metric.COST: _Info("cost C", "money", "", fmt.number),
    Metric.AVAILABILITY: _Info("availability A", "plain", "", lambda v: f"{v:.6g}"),
    Metric.TRAFFIC: _Info("traffic T", "bandwidth", "B/s", fmt.byte_rate),
    Metric.NETWORK_USAGE: _Info("network usage N", "plain", " B",
                                lambda v: f"{fmt.number(v)} B"),
    Metric.ELASTIC_ENERGY: _Info("elastic energy EE", "plain", " B·s",
                                 lambda v: f"{fmt.number(v)} B·s"),
}

METRIC_NAMES = tuple(m.value for m in Metric)
"""The metrics' names in table and file order (plain strings, for columns and keys)."""

NETWORK_METRICS = (Metric.TRAFFIC, Metric.NETWORK_USAGE, Metric.ELASTIC_ENERGY)
"""The metrics the objective's network term may use (``network_metric``)."""


class Term(StrEnum):
    """The terms of the utility F (eq. 21): one per metric but the network term, which
    weighs the chosen network metric, and reconfiguration when re-planning.

    >>> [t.letter for t in Term]
    ['r', 'a', 'c', 'z', 'm']
    """

    RESPONSE_TIME = "response_time"
    AVAILABILITY = "availability"
    COST = "cost"
    NETWORK = "network"
    RECONFIGURATION = "reconfiguration"

    @property
    def letter(self) -> str:
        """The short name ``--weights`` takes (``r=0.5,c=0.5``)."""
        return "z" if self is Term.NETWORK else ("m" if self is Term.RECONFIGURATION
                                                 else self.value[0])

    @property
    def higher_is_better(self) -> bool:
        return self is Term.AVAILABILITY

    def metric(self, network_metric: str) -> Metric:
        """The metric the term weighs (reconfiguration has none: ValueError)."""
        if self is Term.RECONFIGURATION:
            raise ValueError("reconfiguration weighs replicas started, not a metric")
        return Metric(network_metric) if self is Term.NETWORK else Metric(self.value)


TERMS = (Term.RESPONSE_TIME, Term.AVAILABILITY, Term.COST, Term.NETWORK)
"""The four SAW terms of ODRP (eq. 21)."""


def term_named(key: str) -> Term | None:
    """The term a weight's key names, by letter or in full (None if none does).

    >>> term_named("z"), term_named("cost"), term_named("utility")
    (<Term.NETWORK: 'network'>, <Term.COST: 'cost'>, None)
    """
    for term in Term:
        if key in (term.letter, term.value):
            return term
    return None

LIMIT_TOLERANCE = 2e-7
"""How closely a metric must keep its limit, relative to the limit: the one tolerance of
every limit check. The compact program's limit rows are scaled to a right-hand side of 1,
so HiGHS's primal feasibility tolerance (1e-7, absolute on that row) is 1e-7 relative,
within this: a plan the solver calls feasible is never refused for a rounding of its own.
It stays below the Pareto front's step (1e-6 relative), so each point of a front excludes
the one before."""


@dataclass(frozen=True)
class MetricLimits:
    """At most so much of each metric where lower is better, at least so much availability.
    Keys may be given as names (``"cost"``) or members."""

    bounds: Mapping[Metric, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        try:
            bounds = {Metric(name): float(bound) for name, bound in self.bounds.items()}
        except ValueError as exc:
            raise ValueError(f"{exc}: limits apply to {', '.join(Metric)}") from None
        floor = bounds.get(Metric.AVAILABILITY)
        if floor is not None and not 0 <= floor <= 1:
            raise ValueError(f"min_availability {floor:g} is not in [0, 1]")
        object.__setattr__(self, "bounds", {m: bounds[m] for m in Metric if m in bounds})

    @classmethod
    def named(cls, values: Mapping[str, float | None]) -> MetricLimits:
        """From ``max_cost``/``min_availability`` keys (files, sweep settings); None and
        missing keys set no limit."""
        bounds = {}
        for m in Metric:
            bound = values.get(m.limit_name)
            if bound is not None:
                bounds[m] = bound
        return cls(bounds)

    def __bool__(self) -> bool:
        return bool(self.bounds)

    def __contains__(self, metric: object) -> bool:
        return metric in self.bounds

    def items(self) -> Iterator[tuple[str, float]]:
        """(``max_cost``, bound) pairs, in :class:`Metric` order."""
        for metric, bound in self.bounds.items():
            yield metric.limit_name, bound

    def broken(self, metric: Callable[[Metric], float]) -> list[tuple[Metric, float, float]]:
        """The limits the metrics break: (metric, value, limit) each. Read through a
        function, so the evaluator's metrics and a search's running sums are checked
        alike."""
        return [(m, metric(m), bound) for m, bound in self.bounds.items()
                if not meets(m, metric(m), bound)]


def meets(metric: Metric, value: float, bound: float) -> bool:
    """``value`` keeps the limit ``bound`` on ``metric``, within :data:`LIMIT_TOLERANCE`
    (NaN never does).

    >>> meets(Metric.COST, 1.0 + 1e-7, 1.0), meets(Metric.COST, 1.0 + 1e-6, 1.0)
    (True, False)
    >>> meets(Metric.AVAILABILITY, 0.98, 0.99)
    False
    """
    if math.isnan(value):
        return False
    slack = LIMIT_TOLERANCE * abs(bound) + 1e-12
    return value >= bound - slack if metric.higher_is_better else value <= bound + slack
