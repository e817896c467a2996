"""Arguments and options several commands share, declared once."""

from __future__ import annotations

import enum
from typing import Annotated, Any

import typer

from streamplace.model.metrics import NETWORK_METRICS, Metric

AppArg = Annotated[str, typer.Argument(metavar="APP",
                                       help="Application file (YAML/JSON, - = stdin).")]
InfraArg = Annotated[str, typer.Argument(metavar="INFRA", help="Infrastructure file.")]
PlanArg = Annotated[str, typer.Argument(metavar="PLAN", help="Plan file.")]
ObjectiveOpt = Annotated[str | None, typer.Option("--objective", help="Objective file.")]
WeightsOpt = Annotated[str | None, typer.Option(
    "--weights", help="SAW weights r=..,a=..,c=..,z=.. (instead of an objective file).")]
MetricOpt = Annotated[str | None, typer.Option(
    "--network-metric", help=" | ".join(NETWORK_METRICS) + ".")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON document on stdout.")]
QuietOpt = Annotated[bool, typer.Option("--quiet", "-q", help="No tables on stderr.")]
OutputOpt = Annotated[str | None, typer.Option(
    "-o", "--output", help="Write here (- = stdout; default: stdout).")]
CurrentOpt = Annotated[str | None, typer.Option(
    "--current", help="The plan that runs now: re-plan with the cost of moving replicas.")]
IgnoreNamesOpt = Annotated[bool, typer.Option(
    "--ignore-names", help="Use a plan that names another application or infrastructure "
                           "(only the name changed).")]
MaxMovesOpt = Annotated[float | None, typer.Option(
    "--max-moves", help="With --current: the most a plan may cost in replicas started where "
                        "none runs now (0: start none).")]
OccupiedOpt = Annotated[list[str] | None, typer.Option(
    "--occupied", help="What other applications hold (repeatable): an occupied-load file, or "
                       "APP:PLAN (another application and the plan it runs). Plans use what "
                       "is left.")]
TimeLimitOpt = Annotated[float | None, typer.Option(
    help="Seconds for the whole command; the best plan so far is written with status "
         "time_limit.")]

WhatIfTimeOpt = Annotated[float | None, typer.Option(
    "--time-limit", help="Seconds for the whole command; what-ifs not tried by then are "
                         "left out, and a note says how many.")]


class OutputFormat(enum.StrEnum):
    """The format of a written plan or application (default: from the file's extension)."""

    yaml = "yaml"
    json = "json"


FormatOpt = Annotated[OutputFormat | None, typer.Option(
    "--format", help="yaml or json (default: from -o's extension, else yaml).")]


def _limit(metric: Metric, example: str = "") -> Any:
    side = "At least" if metric.higher_is_better else "At most"
    return typer.Option(metric.flag, help=f"{side} this {metric.label}{example}.")


MaxResponseTimeOpt = Annotated[str | None, _limit(Metric.RESPONSE_TIME,
                                                  " (seconds, or e.g. '200 ms')")]
MinAvailabilityOpt = Annotated[str | None, _limit(Metric.AVAILABILITY)]
MaxCostOpt = Annotated[str | None, _limit(Metric.COST)]
MaxTrafficOpt = Annotated[str | None, _limit(Metric.TRAFFIC, " (bytes/s, or e.g. '2 MB/s')")]
MaxNetworkUsageOpt = Annotated[str | None, _limit(Metric.NETWORK_USAGE,
                                                  " (bytes, as bytes/s x seconds)")]
MaxElasticEnergyOpt = Annotated[str | None, _limit(Metric.ELASTIC_ENERGY)]
TargetUtilizationOpt = Annotated[float | None, typer.Option(
    "--utilization-target", "--target-utilization",
    help="rho in (0, 1]: a replica may run at most at rho x its service rate (default 1: "
         "strictly below it); the Flink autoscaler's utilization.target.")]
