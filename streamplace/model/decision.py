"""The line ``autoscale`` writes for each step: a typed record with a published JSON Schema
(``streamplace schema decision``), from which docs/cli.md lists its keys.

Numbers that are not finite (an F of minus infinity, where a vertex runs at its capacity)
are written as the strings ``"inf"``, ``"-inf"`` and ``"nan"``: every line is strict JSON,
which jq, Go and ``JSON.parse`` read.
"""

from __future__ import annotations

import json
import math
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

DECISION_SCHEMA = "streamplace/decision/v1"
Number = float | Literal["inf", "-inf", "nan"]


class Record(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class VertexSeen(Record):
    """One operator of the running job over the metrics window."""

    parallelism: int
    busy: float | None = Field(description="share of time busy, averaged over subtasks")
    busy_max: float | None = Field(description="the busiest subtask's share (over a window)")
    backpressured: float = Field(description="share of time back-pressured")
    records_in: float | None = Field(description="records per second in, all subtasks")
    records_out: float | None = Field(description="records per second out, all subtasks")
    service_rate: float | None = Field(description="records per second of busy time, per "
                                                   "subtask")


class Replan(Record):
    """odrp's F for what runs (held to its constraints at full utilisation) and for the
    plan it made, and the solve's status."""

    running: Number | None
    plan: Number | None
    status: str


class PlanAhead(Record):
    """What planning ahead (``--horizon``) made of the step."""

    forecast: list[str] = Field(description="the forecast of each source: how it was made")
    error: float | None = Field(description="how far off the last windows' forecasts were, "
                                            "as a share of what was read (the worst source)")
    trusted: bool = Field(description="whether the forecast was planned on")
    fallback: str | None = Field(None, description="why the reactive rule decided instead")
    capacity: list[str] = Field(default_factory=list, description="each vertex's capacity "
                                                                  "curve, and what it rests on")
    windows: int = Field(0, description="windows planned")
    counts: list[dict[str, int]] = Field(default_factory=list, description=(
        "per window planned: operator -> parallelism (the first is run)"))
    slots: list[int] = Field(default_factory=list, description="per window planned: slots")
    rescales: list[int] = Field(default_factory=list, description=(
        "the windows planned to begin with a rescale (0: this step's)"))
    status: str | None = Field(None, description="the horizon program's status")
    said: list[str] = Field(default_factory=list, description=(
        "what the plan had to give up: the budget, a load no parallelism carries"))


class Decision(Record):
    """One step of ``autoscale``."""

    step: int | None = Field(None, description="1, 2, ...; none on the last line")
    method: str | None = Field(None, description="odrp, ds2 or flink")
    decision: Literal["rescale", "no change", "dry run", "stopped"]
    why: list[str] = Field(description="why this decision, in words")
    window: float | None = Field(None, description="seconds the counters covered")
    seen: dict[str, VertexSeen] = Field(default_factory=dict,
                                        description="operator: what it did over the window")
    offered: str | None = Field(None, description="whether the offered load was given or "
                                                  "read (a lower bound under backpressure)")
    lag: dict[str, float] = Field(default_factory=dict,
                                  description="source: its pendingRecords at the window's "
                                              "end, where it reports them")
    occupied: dict[str, int] = Field(default_factory=dict,
                                     description="another job of the cluster: its slots")
    warnings: list[str] = Field(default_factory=list, description="what the reading "
                                                                  "could not be sure of")
    from_: dict[str, int] = Field(default_factory=dict, alias="from",
                                  description="operator: parallelism before")
    to: dict[str, int] = Field(default_factory=dict,
                               description="operator: parallelism decided")
    predicted: dict[str, float | None] = Field(
        default_factory=dict, description="operator: utilisation predicted for what runs "
                                          "after the decision")
    planned: dict[str, float | None] | None = Field(
        None, description="the prediction of the plan the job runs, when autoscale made it")
    F: Replan | None = Field(None, description="odrp's F before and after (odrp only)")
    seconds: float = Field(description="seconds since autoscale started")
    at: float | None = Field(None, description="Unix time of the step's end")
    time: str | None = Field(None, description="the step's end, ISO 8601 in UTC")
    job: str | None = Field(None, description="the job's name, once read")
    job_id: str | None = Field(None, description="the job's id, once read")
    seconds_to_rescale: float | None = Field(None, description="seconds from the PUT until "
                                                               "every vertex ran the plan")
    latency: dict[str, float] = Field(default_factory=dict, description=(
        "source -> sink: the mean age of the job's latency markers in seconds (their p99 "
        "with --response-time-statistic p99), where --max-response-time reads them"))
    slots: int | None = Field(None, description="a session cluster's slots the jobs shared "
                                                "(autoscale over the cluster)")
    ahead: PlanAhead | None = Field(None, description="planning ahead (--horizon): the "
                                                      "forecast, the plan, the fallback")
    jobs: dict[str, Decision] = Field(default_factory=dict, description=(
        "job name: its part of the step (autoscale over the cluster), each a decision of "
        "its own"))

    def line(self) -> str:
        """The strict JSON line, keys by their published names."""
        return json.dumps(_strict(self.model_dump(by_alias=True)),
                          allow_nan=False)


def number(value: float | None) -> Number | None:
    """A float as the record holds it: four figures, non-finite values as words."""
    if value is None:
        return None
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return float(f"{value:.4g}")


def _strict(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return number(value)
    if isinstance(value, dict):
        return {k: _strict(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_strict(v) for v in value]
    return value


def keys_markdown() -> str:
    """The keys of a decision line, as docs/cli.md lists them, from the record itself."""
    rows = ["| key | meaning |", "|---|---|"]
    for name, f in Decision.model_fields.items():
        rows.append(f"| `{f.alias or name}` | {f.description or ''} |")
    return "\n".join(rows) + "\n"
