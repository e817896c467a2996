"""What ``autoscale`` remembers between steps, and the file ``--state`` keeps it in
(``streamplace schema state``): one :class:`Memory`, saved whole at every step, so that a
restarted loop (a redeployed container, a crashed node) goes on as the one that stopped.

Times are wall-clock seconds (Unix time): a restarted process has a monotonic clock of its
own.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from streamplace.model.decision import Decision, Record

STATE_SCHEMA = "streamplace/autoscale-state/v2"
STATE_SCHEMA_V1 = "streamplace/autoscale-state/v1"  # read, and written again as v2
KEPT = 1000  # decisions and restarts kept: a loop that runs for months stays a small file
GROWTH_KEPT = 20  # output-growth readings kept per vertex
FINE_KEPT = 14 * 86400.0
"""Seconds of history kept at every window (two weeks: some 20,000 points at a minute's
window); older points are kept as hourly means, COARSE_KEPT of them (a year)."""
COARSE = 3600.0
COARSE_KEPT = 24 * 366
JOBS_KEPT = 100  # jobs that ended whose state a cluster's file keeps
ERRORS_KEPT = 30  # forecast errors kept, the last windows' first


class Forecasted(Record):
    """A forecast made for one window of one source, held until the window is read: every
    forecast that covered the window is held to it, the one made a horizon before as the
    one made a window before."""

    at: float = Field(description="the window's end, Unix time")
    ahead: int = Field(1, ge=1, description="windows ahead it was made")
    mean: float = Field(ge=0)
    upper: float = Field(ge=0)


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
    job_id: str | None = Field(None, description="the job's id, once read")
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
    rescaled_at: list[float] = Field(default_factory=list, description=(
        "when each rescale was sent (Unix time), oldest first: the rescale budget's count"))
    history: dict[str, list[tuple[float, float]]] = Field(
        default_factory=dict, description="source: (the window's end, the rate it offered: "
                                          "what it sent plus how fast its lag grew)")
    coarse: dict[str, list[tuple[float, float, int]]] = Field(
        default_factory=dict, description="source: (the hour's end, its mean rate, the "
                                          "windows it holds), the history older than two weeks")
    capacity: dict[str, dict[int, tuple[int, float]]] = Field(
        default_factory=dict, description="operator: parallelism -> (readings, mean records "
                                          "per second at full busy time over its subtasks)")
    forecasts: dict[str, list[Forecasted]] = Field(
        default_factory=dict, description="source: the forecasts of the windows to come")
    errors: list[float] = Field(default_factory=list, description=(
        "the last windows' forecast errors: |read - forecast| / read, over every forecast "
        "made of the window, the worst source"))
    shape: dict[str, dict[str, float]] = Field(default_factory=dict, description=(
        "operator: each input operator and the share of that input's records it takes"))
    selectivity: dict[str, float] = Field(default_factory=dict, description=(
        "operator: records it sends per record it takes, as last read"))
    counts: dict[str, list[int]] = Field(default_factory=dict, description=(
        "operator: the parallelisms it may run (its limits and alignment)"))
    groups: dict[str, str] = Field(default_factory=dict, description=(
        "operator: its slot-sharing group"))
    slots: int | None = Field(None, description="the slots the job may hold, as last read")

    def restarted(self, seconds: float, at: float) -> None:
        self.restarts = [*self.restarts, seconds][-KEPT:]
        self.rescaled_at = [*self.rescaled_at, at][-KEPT:]


class StateFile(Record):
    """The file ``autoscale --state`` keeps."""

    schema_: Literal["streamplace/autoscale-state/v2"] = Field(
        "streamplace/autoscale-state/v2", alias="schema")
    job: str = Field(description="the job's (or cluster's) address, without credentials")
    options: dict[str, Any] = Field(default_factory=dict, description=(
        "the options the run was given, as autoscale holds them"))
    memory: Memory = Field(default_factory=Memory)
    decisions: list[Decision] = Field(default_factory=list, description=(
        f"the last {KEPT} decisions, oldest first"))
    jobs: dict[str, StateFile] = Field(default_factory=dict, description=(
        "autoscale over a session cluster: each job's state by its id (its memory, and its "
        "part of each step); a job that ended is kept, the latest "
        f"{JOBS_KEPT}, so that one submitted again under its name takes its memory back"))
