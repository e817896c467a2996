"""Arguments and options several commands share, declared once."""

from __future__ import annotations

import enum
from typing import Annotated

import typer

AppArg = Annotated[str, typer.Argument(metavar="APP",
                                       help="Application file (YAML/JSON, - = stdin).")]
InfraArg = Annotated[str, typer.Argument(metavar="INFRA", help="Infrastructure file.")]
PlanArg = Annotated[str, typer.Argument(metavar="PLAN", help="Plan file.")]
ObjectiveOpt = Annotated[str | None, typer.Option("--objective", help="Objective file.")]
WeightsOpt = Annotated[str | None, typer.Option(
    "--weights", help="SAW weights r=..,a=..,c=..,z=.. (instead of an objective file).")]
MetricOpt = Annotated[str | None, typer.Option(
    "--network-metric", help="traffic | network_usage | elastic_energy.")]
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
MaxResponseTimeOpt = Annotated[str | None, typer.Option(
    help="At most this response time R (seconds, or e.g. '200 ms').")]
MinAvailabilityOpt = Annotated[str | None, typer.Option(help="At least this availability A.")]
MaxCostOpt = Annotated[str | None, typer.Option(help="At most this cost C.")]
MaxTrafficOpt = Annotated[str | None, typer.Option(
    help="At most this traffic T (bytes/s, or e.g. '2 MB/s').")]
TargetUtilizationOpt = Annotated[float | None, typer.Option(
    "--target-utilization", help="rho in (0, 1]: a replica may run at most at rho x its "
                                 "service rate (default 1: strictly below it).")]
