"""The application: operators, the streams between them and basic data objects (docs/formats.md).

Defaults follow the ODRP paper's Storm setting (Cardellini et al. 2017, sec. 5.2:
C_i = Res_i = 1): ``resources: 1`` and ``cost: 1`` per replica.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Annotated, Literal

from pydantic import Field, model_validator

from streamplace.errors import InfeasibleError
from streamplace.model.base import Document, StrictModel
from streamplace.model.fields import (
    MOST_REPLICAS,
    Bytes,
    Demand,
    Identifier,
    Money,
    Ops,
    PositiveRate,
    Rate,
    Seconds,
)

APPLICATION_SCHEMA = "streamplace/application/v1"
EXTRACTED = "extracted from Spark event log"
"""How the description of an application ``extract`` wrote begins."""


class Operator(StrictModel):
    """One operator of the DAG (ODRP's i, Benoit's n_i)."""

    id: Identifier = Field(description="Unique operator id.")
    name: str | None = Field(None, description="Readable name (e.g. a Spark stage name).")
    description: str | None = None
    service_rate: PositiveRate | None = Field(
        None, description="mu_i in tuples/s on the reference node; latency 1/(mu - load).")
    latency: Seconds | None = Field(
        None, description="Fixed latency (s) on the reference node, instead of service_rate.")
    input_rate: Rate | None = Field(
        None, description="Tuples/s entering the operator; default: sum of incoming stream "
                          "rates, or for a source the largest outgoing rate.")
    resources: Demand = Field(default_factory=lambda: {"units": 1.0},
                                 description="Res_i per replica.")
    cost: Money = Field(1.0, description="C_i: cost per replica per resource unit.")
    max_replicas: Annotated[int, Field(ge=1, le=MOST_REPLICAS)] | None = Field(
        None, description="k_i, the most replicas a solver may choose (default 1).")
    replicas: Annotated[int, Field(ge=1, le=MOST_REPLICAS)] | None = Field(
        None, description="Fixed instance count; excludes max_replicas.")
    replica_counts: list[Annotated[int, Field(ge=1, le=MOST_REPLICAS)]] | None = Field(
        None, min_length=1,
        description="The only replica counts it may run (e.g. the divisors of a keyed Flink "
                    "vertex's key groups, or of a source's partitions, so that every replica "
                    "takes an equal share); k_i defaults to the largest.")
    candidates: list[Identifier] | None = Field(
        None, min_length=1, description="Nodes it may run on (default: every processor).")
    work: Ops = Field(0.0, description="Operations per result (Benoit w_i).")
    output_size: Bytes | None = Field(None, description="Bytes per result (Benoit delta_i).")
    objects: list[Identifier] = Field(default_factory=list,
                                      description="Basic objects it downloads (Benoit).")
    migration_cost: Money = Field(1.0, description="Cost of starting one replica somewhere it "
                                                   "does not run now (re-planning).")
    engine_id: str | None = Field(None, description="The operator's id in the engine: a "
                                                    "Flink job vertex id, a Storm or Heron "
                                                    "component, a Kubernetes workload.")
    target_utilization: Annotated[float, Field(gt=0.0, le=1.0)] = Field(
        1.0, description="rho: a replica is stable only at a load of at most rho x "
                         "service_rate (1: strictly below it, the paper's rule).")

    @model_validator(mode="after")
    def _exclusive_fields(self) -> Operator:
        if self.replicas is not None and self.max_replicas is not None:
            raise ValueError("sets both replicas and max_replicas — keep replicas for a fixed "
                             "count, or max_replicas to let the solver choose")
        if self.replicas is not None and self.replica_counts is not None \
                and self.replicas not in self.replica_counts:
            raise ValueError(f"fixes replicas at {self.replicas}, which replica_counts does "
                             "not allow — drop one of them")
        if self.service_rate is not None and self.latency is not None:
            raise ValueError("sets both service_rate and latency — keep one: service_rate for "
                             "a load-dependent (M/M/1) latency, latency for a fixed one")
        return self

    def stable_at(self, load: float) -> bool:
        """Whether one replica keeps up with ``load`` tuples/s: ``load < mu`` at the default
        target, ``load <= rho mu`` below it (docs/models.md sec. 2)."""
        if self.service_rate is None:
            return True
        if self.target_utilization >= 1.0:
            return load < self.service_rate
        return load <= self.target_utilization * self.service_rate * (1 + 1e-12)

    @property
    def min_replicas(self) -> int:
        return self.replicas if self.replicas is not None else 1

    @property
    def replica_cap(self) -> int:
        """k_i: the largest replica count allowed."""
        if self.replicas is not None:
            return self.replicas
        if self.replica_counts is not None:
            return max((k for k in self.replica_counts
                        if self.max_replicas is None or k <= self.max_replicas), default=1)
        return self.max_replicas if self.max_replicas is not None else 1

    def allows(self, count: int) -> bool:
        """Whether ``count`` is one of its ``replica_counts`` (every count, without them)."""
        return self.replica_counts is None or count in self.replica_counts

    def aligned(self, count: int) -> int | None:
        """The fewest allowed replicas at or above ``count``, or None when none is.

        >>> Operator(id="k", replica_counts=[1, 2, 4, 8]).aligned(3)
        4
        """
        if self.replica_counts is None:
            return count
        return min((k for k in self.replica_counts if k >= count), default=None)

    @property
    def billing_units(self) -> float:
        """Res_i in the cost term C_i * Res_i: the first resource dimension listed."""
        return next(iter(self.resources.values()), 0.0)


class Stream(StrictModel):
    """A directed edge (i, j) with tuple rate lambda_(i,j) and tuple size b_(i,j)."""

    source: Identifier = Field(alias="from")
    target: Identifier = Field(alias="to")
    rate: Rate | None = Field(None, description="Tuples/s (lambda); required unless derivable.")
    tuple_size: Bytes | None = Field(
        None, description="Bytes per tuple (b); default: the producer's output_size, else 1.")


class DataObject(StrictModel):
    """A basic object held by data servers (Benoit o_k); rate_k = size * frequency."""

    id: Identifier
    size: Bytes = Field(description="delta_k in bytes.")
    frequency: Rate = Field(description="f_k: downloads per second.")

    @property
    def rate(self) -> float:
        return self.size * self.frequency


class Application(Document):
    """An application DAG (docs/formats.md, ``streamplace/application/v1``)."""

    schema_: Literal["streamplace/application/v1"] | None = Field(None, alias="schema")
    name: Identifier
    description: str | None = None
    throughput: PositiveRate | None = Field(
        None, description="Results/s the application must sustain (Benoit rho).")
    operators: list[Operator] = Field(min_length=1)
    streams: list[Stream] = Field(default_factory=list)
    objects: list[DataObject] = Field(default_factory=list)
    weight: Annotated[float, Field(gt=0.0, allow_inf_nan=False)] = Field(
        1.0, description="omega_a: this application's weight where several are placed "
                         "together (solve APP1 APP2 ... INFRA); weights are normalised to "
                         "sum 1.")
    priority: int = Field(0, description="Where applications are placed one after another "
                                         "(--bundle priority): higher first, ties in the "
                                         "order given.")

    def with_target_utilization(self, rho: float | None) -> Application:
        """This application with every operator held to utilisation ``rho`` (the
        ``--target-utilization`` flag; None keeps each operator's own)."""
        if rho is None:
            return self
        out = self.model_copy(update={"operators": [
            op.model_copy(update={"target_utilization": rho}) for op in self.operators]})
        out.attach_source(self.source)
        return out

    def scaled(self, k: float) -> Application:
        """This application with every rate it carries times ``k``: stream rates, the input
        rates operators are given and the throughput. What serves the load (service rates,
        latencies) stays: the load grows, the operators do not.

        >>> app = Application.model_validate({"name": "a", "operators": [
        ...     {"id": "s", "input_rate": 10}], "throughput": 2})
        >>> scaled = app.scaled(3)
        >>> scaled.operators[0].input_rate, scaled.throughput
        (30.0, 6.0)
        """
        if k == 1:
            return self
        out = self.model_copy(update={
            "throughput": None if self.throughput is None else self.throughput * k,
            "operators": [op if op.input_rate is None else
                          op.model_copy(update={"input_rate": op.input_rate * k})
                          for op in self.operators],
            "streams": [s if s.rate is None else s.model_copy(update={"rate": s.rate * k})
                        for s in self.streams]})
        out.attach_source(self.source)
        return out

    def without_nodes(self, gone: Collection[str]) -> Application:
        """This application where nodes ``gone`` have failed: no operator is a candidate
        for them. InfeasibleError names an operator left without a candidate."""
        if not gone:
            return self
        operators = []
        for op in self.operators:
            if op.candidates is not None:
                left = [u for u in op.candidates if u not in gone]
                if not left:
                    raise InfeasibleError([f"operator {op.id} has no candidate left when "
                                           f"{' and '.join(sorted(gone))} fail(s)"])
                op = op.model_copy(update={"candidates": left})
            operators.append(op)
        out = self.model_copy(update={"operators": operators})
        out.attach_source(self.source)
        return out

    def operator(self, op_id: str) -> Operator:
        for op in self.operators:
            if op.id == op_id:
                return op
        raise KeyError(op_id)

    @property
    def extracted(self) -> bool:
        """Whether ``streamplace extract`` wrote it (from a Spark event log)."""
        return (self.description or "").startswith(EXTRACTED)

    @property
    def operator_ids(self) -> list[str]:
        return [op.id for op in self.operators]
