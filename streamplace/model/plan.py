"""A placement plan (docs/formats.md, ``streamplace/plan/v1``): replicas per operator per node.

Only ``placement`` is needed in a plan written by hand; the rest is what solvers record.
``placement`` also accepts a multiset as a list (``parser: [n1, n1, n3]``).
"""

from __future__ import annotations

import enum
from collections import Counter
from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Field, WithJsonSchema

from streamplace.model.base import Document, StrictModel
from streamplace.model.fields import MOST_REPLICAS, Identifier

PLAN_SCHEMA = "streamplace/plan/v1"
ModelFamily = Literal["odrp", "benoit", "ecker", "sbon", "path", "baseline"]
"""The model a method optimises; evaluate and validate apply that model's own rules (the
95% headroom of Ecker et al., the bandwidths of path tasks) to the plans it makes."""


class SolveStatus(enum.StrEnum):
    """How a method ended; a plan file's ``status`` (docs/models.md sec. 9)."""

    OPTIMAL = "optimal"          # proven optimal (within the requested gap)
    FEASIBLE = "feasible"        # a valid plan, optimality not claimed (heuristics)
    TIME_LIMIT = "time_limit"    # stopped by the time limit; plan is the incumbent, if any
    INTERRUPTED = "interrupted"  # stopped by SIGINT/SIGTERM; plan is the incumbent, if any
    LIMIT = "limit"              # stopped by another solver limit (iterations, nodes,
                                 # solutions, memory, an objective target); incumbent if any
    INFEASIBLE = "infeasible"    # proven that no valid plan exists
    ERROR = "error"              # the method failed; no plan

    @property
    def has_plan(self) -> bool:
        """Whether a result of this status may carry a plan."""
        return self not in (SolveStatus.INFEASIBLE, SolveStatus.ERROR)

    @property
    def stopped_early(self) -> bool:
        """Stopped before the method finished: the plan, if any, is the best so far."""
        return self in (SolveStatus.TIME_LIMIT, SolveStatus.INTERRUPTED, SolveStatus.LIMIT)


def _multiset(value: object) -> object:
    if isinstance(value, list):
        if not all(isinstance(v, str | int) and not isinstance(v, bool) for v in value):
            raise ValueError("a list placement holds node ids — write [n1, n1, n3] or "
                             "{n1: 2, n3: 1}")
        return dict(Counter(str(v) for v in value))
    return value


Replicas = Annotated[int, Field(ge=0, le=MOST_REPLICAS)]
Multiset = Annotated[
    dict[Identifier, Replicas],
    BeforeValidator(_multiset),
    WithJsonSchema({"anyOf": [
        {"type": "object", "additionalProperties": {"type": "integer", "minimum": 0}},
        {"type": "array", "items": {"type": "string"}},
    ], "description": "replicas per node, {n1: 2, n3: 1}, or a multiset [n1, n1, n3]"}),
]


class Route(StrictModel):
    stream: Annotated[list[Identifier], Field(min_length=2, max_length=2)]
    source: Identifier = Field(alias="from")
    target: Identifier = Field(alias="to")
    path: Annotated[list[Identifier], Field(min_length=2)]


class Download(StrictModel):
    node: Identifier
    object: Identifier
    server: Identifier


class Purchase(StrictModel):
    id: Identifier
    class_: Identifier = Field(alias="class")


class Plan(Document):
    schema_: Literal["streamplace/plan/v1"] | None = Field(None, alias="schema")
    application: str | None = None
    infrastructure: str | None = None
    method: str | None = None
    model: ModelFamily | None = None
    status: SolveStatus | None = None
    objective: float | None = None
    bound: float | None = None
    gap: float | None = None
    placement: dict[Identifier, Multiset]
    routes: list[Route] = Field(default_factory=list)
    downloads: list[Download] = Field(default_factory=list)
    purchased: list[Purchase] = Field(default_factory=list)
    metrics: dict[str, Any] | None = None
    bounds_used: dict[str, Any] | None = None
    solver: dict[str, Any] | None = None

    def replicas(self, op_id: str) -> dict[str, int]:
        """U_i as {node: count}, zero counts dropped."""
        return {n: c for n, c in self.placement.get(op_id, {}).items() if c > 0}
