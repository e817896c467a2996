"""``streamplace diff``: what a new plan changes against the plan that runs now."""

from __future__ import annotations

from typing import Annotated

import typer

from streamplace.cli import options as opts
from streamplace.cli.args import (
    AppArg,
    IgnoreNamesOpt,
    InfraArg,
    JsonOpt,
    MetricOpt,
    ObjectiveOpt,
    OccupiedOpt,
    QuietOpt,
    TargetUtilizationOpt,
    WeightsOpt,
)
from streamplace.cli.console import handle_errors
from streamplace.cli.emit import EXIT_NO, Emission, check_outputs, emit
from streamplace.cli.opening import open_inputs
from streamplace.cli.views.diff import render_diff
from streamplace.io.occupied import occupied_files
from streamplace.model.plandiff import diff_plans


@handle_errors
def diff_command(
    application: AppArg, infrastructure: InfraArg,
    current: Annotated[str, typer.Argument(help="The plan that runs now.")],
    new: Annotated[str, typer.Argument(help="The plan to move to.")],
    fail_on_change: Annotated[bool, typer.Option(
        "--fail-on-change", help="Exit 1 when the plans differ (for CI).")] = False,
    objective: ObjectiveOpt = None, weights: WeightsOpt = None,
    network_metric: MetricOpt = None,
    target_utilization_: TargetUtilizationOpt = None,
    occupied: OccupiedOpt = None,
    ignore_names: IgnoreNamesOpt = False, json_: JsonOpt = False, quiet: QuietOpt = False,
) -> None:
    """Per operator, the replicas NEW adds and removes against CURRENT; the metric deltas
    and the constraints that bind differently."""
    check_outputs([], [application, infrastructure, current, new, objective,
                   *occupied_files(occupied)])
    opened = open_inputs(application, infrastructure, objective=objective, weights=weights,
                         network_metric=network_metric, target_utilization=target_utilization_,
                         occupied=occupied)
    app_, infra = opened.app, opened.infra
    before, after = (opts.read_plan(path, app_, infra, not ignore_names)
                     for path in (current, new))
    diff = diff_plans(app_, infra, before, after, opened.objective)
    emit(Emission(
        document={"command": "diff", "application": app_.name, "infrastructure": infra.name,
                  **diff.to_json()},
        show=lambda con: render_diff(con, diff, f"{opened.heading}: {current} -> "
                                                f"{new}"),
        code=EXIT_NO if fail_on_change and diff.changed else 0), json_=json_, quiet=quiet)
