"""A bundle plan: one plan per application placed together on one infrastructure
(docs/formats.md, ``streamplace/bundle/v1``)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from streamplace.model.base import Document
from streamplace.model.fields import Identifier
from streamplace.model.plan import Plan, SolveStatus

BUNDLE_SCHEMA = "streamplace/bundle/v1"


class BundlePlan(Document):
    schema_: Literal["streamplace/bundle/v1"] | None = Field(None, alias="schema")
    infrastructure: str | None = None
    method: str | None = None
    bundle: Literal["joint", "lexicographic", "priority"] | None = Field(None, description=(
        "joint: one program over the weighted sum of every application's F; lexicographic: "
        "one program, priority level by level; priority: one after another, higher "
        "priority first."))
    status: SolveStatus | None = None
    objective: float | None = Field(None, description="F = sum_a omega_a F_a.")
    bound: float | None = None
    gap: float | None = None
    weights: dict[Identifier, float] = Field(default_factory=dict, description=(
        "omega_a per application, normalised to sum 1."))
    plans: list[Plan] = Field(min_length=1, description=(
        "One plan per application (its ``application`` field names it), in the order the "
        "applications were given; each plan's ``objective`` is its own F_a."))
