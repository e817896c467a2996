"""What ``autoscale`` remembers between steps, and the file ``--state`` keeps it in
(``streamplace schema state``): one :class:`Memory`, saved whole at every step, so that a
restarted loop (a redeployed container, a crashed node) goes on as the one that stopped.

Times are wall-clock seconds (Unix time): a restarted process has a monotonic clock of its
own.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from streamplace.model.decision import Decision, Record

STATE_SCHEMA = "streamplace/autoscale-state/v2"
STATE_SCHEMA_V1 = "streamplace/autoscale-state/v1"  # read, and written again as v2
KEPT = 1000  # decisions and restarts kept: a loop that runs for months stays a small file
GROWTH_KEPT = 20  # output-growth readings kept per vertex


class PendingScaleDown(Record):
    """A scale-down recommended and waiting out ``scale-down.interval``."""

    first: float = Field(ge=0, description="when it was first recommended (Unix time)")
    most: int = Field(ge=1, description="the largest parallelism recommended since")


class ScaleUp(Record):
    """The last scale-up of a vertex, held to what it was meant to raise."""

    to: int = Field(ge=1, description="the parallelism it was scaled up to")
    before: float = Field(ge=0, description="its capacity before, records per second")
    expected: float = Field(ge=0, description="the capacity expected after")


class Memory(Record):
    """Everything a step leaves for the next."""

    steps: int = Field(0, ge=0, description="steps taken, over every run")
    name: str | None = Field(None, description="the job's name, once read")
    read_once: bool = Field(False, description="whether any reading came through")
    missed: int = Field(0, ge=0, description="readings in a row the engine did not answer")
    restarts: list[float] = Field(default_factory=list, description=(
        "seconds each rescale took, oldest first"))
    pending: dict[str, PendingScaleDown] = Field(default_factory=dict, description=(
        "operator: its delayed scale-down"))
    scale_ups: dict[str, ScaleUp] = Field(default_factory=dict, description=(
        "operator: its last scale-up, for scaling.effectiveness.*"))
    output_growth: dict[str, list[tuple[float, float]]] = Field(
        default_factory=dict, description="operator: (records in, records out) per second, "
                                          "the readings its output growth is fitted from")
    lower_bound: bool = Field(False, description=(
        "the last rescale was sized from what a back-pressured job let through"))
    planned: dict[str, float | None] | None = Field(None, description=(
        "the utilisation autoscale predicted for the plan that runs, when it made it"))

    def restarted(self, seconds: float) -> None:
        self.restarts = [*self.restarts, seconds][-KEPT:]


class StateFile(Record):
    """The file ``autoscale --state`` keeps."""

    schema_: Literal["streamplace/autoscale-state/v2"] = Field(
        "streamplace/autoscale-state/v2", alias="schema")
    job: str = Field(description="the job's (or cluster's) address, without credentials")
    memory: Memory = Field(default_factory=Memory)
    decisions: list[Decision] = Field(default_factory=list, description=(
        f"the last {KEPT} decisions, oldest first"))
