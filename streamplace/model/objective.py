"""The ODRP objective: SAW weights, the network metric and normalisation bounds
(docs/formats.md)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BeforeValidator, Field, model_validator

from streamplace.model.base import Document, StrictModel
from streamplace.model.fields import Bandwidth, Money, NonNegative, Probability, Seconds
from streamplace.model.metrics import TERMS, Metric, Term

NetworkMetric = Literal[Metric.TRAFFIC, Metric.NETWORK_USAGE, Metric.ELASTIC_ENERGY]
RECONFIGURATION = Term.RECONFIGURATION
"""The fifth term, present only when re-planning against a running plan (``--current``)."""
DEFAULT_RECONFIGURATION_WEIGHT = 0.2


def terms(replanning: bool) -> tuple[Term, ...]:
    """The terms of F: the four of ODRP, and reconfiguration when re-planning."""
    return (*TERMS, RECONFIGURATION) if replanning else TERMS
OBJECTIVE_SCHEMA = "streamplace/objective/v1"


def _pair(value: object) -> object:
    if isinstance(value, list | tuple) and len(value) != 2:
        raise ValueError(f"needs exactly two values [lo, hi], got {len(value)} — "
                         "write [best, worst] like [0.005, 0.45]")
    return value


SecondsPair = Annotated[tuple[Seconds, Seconds], BeforeValidator(_pair)]
ProbabilityPair = Annotated[tuple[Probability, Probability], BeforeValidator(_pair)]
MoneyPair = Annotated[tuple[Money, Money], BeforeValidator(_pair)]
NetworkPair = Annotated[tuple[Bandwidth, Bandwidth], BeforeValidator(_pair)]


class Weights(StrictModel):
    """SAW weights; left-out terms weigh 0. Normalised to sum 1 by :meth:`normalised`."""

    response_time: NonNegative = 0.0
    availability: NonNegative = 0.0
    cost: NonNegative = 0.0
    network: NonNegative = 0.0
    reconfiguration: NonNegative = Field(0.0, description=(
        "Weight of moving running replicas (only when re-planning against a current plan); "
        f"left out, {DEFAULT_RECONFIGURATION_WEIGHT} with the others scaled to keep their "
        "ratios."))

    @model_validator(mode="after")
    def _not_all_zero(self) -> Weights:
        if self.response_time + self.availability + self.cost + self.network <= 0:
            raise ValueError("every weight of the four ODRP terms is 0 — give response time, "
                             "availability, cost or network a positive weight")
        return self

    def normalised(self, replanning: bool = False) -> dict[Term, float]:
        """Weights of the terms in play, summing to 1. Re-planning without an explicit
        reconfiguration weight gives it the default share, the others keeping their ratios."""
        four = {t: float(getattr(self, t)) for t in TERMS}
        # weights are ratios: scaled by the largest first, so that huge ones (1e308) cannot
        # overflow the sum to infinity and every normalised weight to 0
        largest = max([*four.values(), float(self.reconfiguration)])
        four = {t: w / largest for t, w in four.items()}
        if not replanning:
            total = sum(four.values())
            return {t: w / total for t, w in four.items()}
        share = self.reconfiguration / largest if RECONFIGURATION in self.model_fields_set \
            else None
        if share is None:
            scale = (1 - DEFAULT_RECONFIGURATION_WEIGHT) / sum(four.values())
            return {**{t: w * scale for t, w in four.items()},
                    RECONFIGURATION: DEFAULT_RECONFIGURATION_WEIGHT}
        total = sum(four.values()) + share
        return {**{t: w / total for t, w in four.items()}, RECONFIGURATION: share / total}


def balanced_weights() -> Weights:
    return Weights(response_time=0.25, availability=0.25, cost=0.25, network=0.25)


class Bounds(StrictModel):
    """(best, worst) normalisation pairs; availability as probabilities, the rest as values."""

    response_time: SecondsPair | None = None
    availability: ProbabilityPair | None = None
    cost: MoneyPair | None = None
    network: NetworkPair | None = None
    reconfiguration: MoneyPair | None = None

    @model_validator(mode="after")
    def _ordered(self) -> Bounds:
        for term in terms(True):
            pair = getattr(self, term)
            if pair is not None and not pair[0] < pair[1]:
                raise ValueError(f"{term}: lo {pair[0]:g} is not below hi {pair[1]:g} — "
                                 "write [lo, hi] with lo < hi")
        return self

    def as_dict(self) -> dict[Term, tuple[float, float]]:
        return {t: getattr(self, t) for t in terms(True) if getattr(self, t) is not None}


class Objective(StrictModel):
    weights: Weights = Field(default_factory=balanced_weights)
    network_metric: NetworkMetric = Metric.TRAFFIC
    bounds: Bounds = Field(default_factory=Bounds)


class ObjectiveFile(Document):
    """An objective file: ``objective:`` at the top level (docs/formats.md)."""

    schema_: Literal["streamplace/objective/v1"] | None = Field(None, alias="schema")
    objective: Objective
