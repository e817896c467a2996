"""A sweep file (docs/formats.md, ``streamplace/sweep/v1``): a base instance, the methods,
the axes whose every combination is one scenario, and the analysis run on each."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, field_validator, model_validator

from streamplace.model.base import Document, StrictModel
from streamplace.model.bundle import MODES_HELP, BundleMode
from streamplace.model.fields import Bandwidth, Money, NonNegative, Positive, Seconds
from streamplace.model.metrics import Metric, MetricLimits, Term, term_named

SWEEP_SCHEMA = "streamplace/sweep/v1"
Failure = Literal["none", "each-node", "each-link", "pairs-of-nodes"]
Analysis = Literal["grid", "max-rate", "pareto"]


class Axes(StrictModel):
    """Every combination of the values of the axes is one scenario (per method)."""

    rate_scale: list[Positive] = Field([1.0], min_length=1, description=(
        "Multiplies every rate of the application (stream rates, input rates, throughput)."))
    failures: list[Failure] = Field(["none"], min_length=1, description=(
        "none | each-node (one scenario per processing node removed) | each-link | "
        "pairs-of-nodes."))
    weights: list[dict[str, NonNegative]] | None = Field(None, min_length=1, description=(
        "Objective weights per scenario, as in --weights: r, a, c, z (or the term names)."))
    seed: list[Annotated[int, Field(ge=0, le=2**31 - 1)]] = Field([0], min_length=1)
    arrivals: list[Annotated[list[str], Field(min_length=1)]] | None = Field(
        None, min_length=1, description=(
            "With applications: which of them are placed together in each scenario, by "
            "name (default: all of them at once)."))

    @field_validator("weights")
    @classmethod
    def _known_terms(cls, value: list[dict[str, float]] | None,
                     ) -> list[dict[str, float]] | None:
        for weights in value or []:
            unknown = [k for k in weights if term_named(k) is None]
            if unknown:
                raise ValueError(f"unknown weight {unknown[0]!r}: use r, a, c, z (or "
                                 "response_time, availability, cost, network)")
            if not any(v > 0 for k, v in weights.items()
                       if term_named(k) != Term.RECONFIGURATION):
                raise ValueError("every weight of r, a, c and z is 0 in some entry")
        return value


class Thresholds(StrictModel):
    """Limits a plan must meet, besides feasibility (hard rows for odrp and odp)."""

    max_response_time: Seconds | None = None
    min_availability: Annotated[float, Field(ge=0.0, le=1.0)] | None = None
    max_cost: Money | None = None
    max_traffic: Bandwidth | None = None
    max_network_usage: NonNegative | None = None
    max_elastic_energy: NonNegative | None = None

    def limits(self) -> MetricLimits:
        """The same limits as ``solve``'s flags give (one type, one tolerance)."""
        return MetricLimits.named(self.model_dump())


class MaxRate(Thresholds):
    """``analysis: max-rate``: the largest rate scale still feasible within the thresholds,
    by bisection between ``low`` and ``high`` (times the scenario's own rate scale)."""

    low: Positive = Field(0.125, description="A scale expected to be feasible.")
    high: Positive = Field(16.0, description="The largest scale tried.")
    tolerance: Annotated[float, Field(gt=0.0, lt=1.0)] = Field(
        0.01, description="Stop when the bracket is within this fraction of its low end.")

    @model_validator(mode="after")
    def _ordered(self) -> MaxRate:
        if not self.low < self.high:
            raise ValueError(f"low {self.low:g} is not below high {self.high:g}")
        return self


class Pareto(StrictModel):
    """``analysis: pareto``: the exact front of two metrics by the epsilon-constraint
    method (optimise the first, bound the second, tighten the bound point by point)."""

    metrics: tuple[Metric, Metric] = (Metric.RESPONSE_TIME, Metric.COST)
    max_points: Annotated[int, Field(ge=2, le=10_000)] = 200
    step: Annotated[float, Field(gt=0.0, lt=1.0)] = Field(
        1e-6, description="Relative step by which the bound on the second metric is "
                          "tightened past each point found.")

    @model_validator(mode="after")
    def _two(self) -> Pareto:
        if self.metrics[0] == self.metrics[1]:
            raise ValueError("the two metrics of a front must differ")
        return self


class SweepFile(Document):
    schema_: Literal["streamplace/sweep/v1"] | None = Field(None, alias="schema")
    application: str | None = Field(None, description=(
        "Application file, relative to the sweep file."))
    applications: list[str] | None = Field(None, min_length=2, description=(
        "Application files placed together on the infrastructure (instead of application), "
        "as solve APP1 APP2 ... INFRA does."))
    bundle: BundleMode = Field(BundleMode.JOINT, description=(
        "With applications: how they are placed, as solve --bundle: " + MODES_HELP + "."))
    infrastructure: str | None = None
    infrastructures: list[str] | None = Field(None, min_length=1, description=(
        "Infrastructure files: an axis (instead of infrastructure)."))
    objective: str | None = None
    methods: list[str] = Field(["odrp"], min_length=1)
    time_limit: Positive | None = Field(
        30.0, description="Seconds per scenario (per probe for analyses).")
    analysis: Analysis = "grid"
    target_utilization: Annotated[float, Field(gt=0.0, le=1.0)] | None = Field(
        None, description="rho for every operator (as --target-utilization).")
    max_rate: MaxRate | None = None
    pareto: Pareto | None = None
    axes: Axes = Field(default_factory=Axes)

    @model_validator(mode="after")
    def _consistent(self) -> SweepFile:
        if (self.application is None) == (self.applications is None):
            raise ValueError("give application or applications (placed together), not both "
                             "and not neither")
        if self.applications is None and (self.axes.arrivals is not None
                                          or "bundle" in self.model_fields_set):
            raise ValueError("axes.arrivals and bundle need applications: several "
                             "application files placed together")
        if self.applications is not None and self.analysis != "grid":
            raise ValueError("applications placed together run as a grid: drop analysis "
                             f"{self.analysis}")
        if (self.infrastructure is None) == (self.infrastructures is None):
            raise ValueError("give infrastructure or infrastructures (an axis), not both "
                             "and not neither")
        if self.max_rate is not None and self.analysis != "max-rate":
            raise ValueError("max_rate settings need analysis: max-rate")
        if self.pareto is not None and self.analysis != "pareto":
            raise ValueError("pareto settings need analysis: pareto")
        if self.analysis == "max-rate" and self.axes.rate_scale != [1.0]:
            raise ValueError("max-rate finds the rate scale itself: drop axes.rate_scale "
                             "(set max_rate.low and max_rate.high instead)")
        if self.analysis == "pareto" and self.axes.weights is not None:
            raise ValueError("a Pareto front sets its own objective: drop axes.weights")
        return self

    @property
    def application_files(self) -> list[str]:
        return self.applications or [self.application or ""]

    @property
    def infrastructure_files(self) -> list[str]:
        return self.infrastructures or [self.infrastructure or ""]
