"""A bundle plan: one plan per application placed together on one infrastructure
(docs/formats.md, ``streamplace/bundle/v1``)."""

from __future__ import annotations

import enum
from typing import Literal

from pydantic import Field

from streamplace.model.base import Document
from streamplace.model.fields import Identifier
from streamplace.model.plan import Plan, SolveStatus

BUNDLE_SCHEMA = "streamplace/bundle/v1"


class BundleMode(enum.StrEnum):
    """How a bundle, several applications placed together on one infrastructure, is
    placed: the one list of modes (``solve --bundle``, a sweep's ``bundle:``, the bundle
    plan's ``bundle``)."""

    JOINT = "joint"
    LEXICOGRAPHIC = "lexicographic"
    PRIORITY = "priority"

    @property
    def meaning(self) -> str:
        return _MEANINGS[self]

    @property
    def one_program(self) -> bool:
        """Whether the mode solves one program over every application (odrp's)."""
        return self is not BundleMode.PRIORITY


_MEANINGS = {
    BundleMode.JOINT: "one program over the weighted sum of every application's F",
    BundleMode.LEXICOGRAPHIC: "one program, priority level by level",
    BundleMode.PRIORITY: "one application after another, higher priority first",
}
MODES_HELP = "; ".join(f"{m.value}: {m.meaning}" for m in BundleMode)


class BundlePlan(Document):
    schema_: Literal["streamplace/bundle/v1"] | None = Field(None, alias="schema")
    infrastructure: str | None = None
    method: str | None = None
    bundle: BundleMode | None = Field(None, description=MODES_HELP + ".")
    status: SolveStatus | None = None
    objective: float | None = Field(None, description="F = sum_a omega_a F_a.")
    bound: float | None = None
    gap: float | None = None
    weights: dict[Identifier, float] = Field(default_factory=dict, description=(
        "omega_a per application, normalised to sum 1."))
    plans: list[Plan] = Field(min_length=1, description=(
        "One plan per application (its ``application`` field names it), in the order the "
        "applications were given; each plan's ``objective`` is its own F_a."))
