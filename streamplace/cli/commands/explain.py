"""``streamplace explain``: why a plan is what it is."""

from __future__ import annotations

from streamplace.cli import options as opts
from streamplace.cli.args import (
    AppArg,
    CurrentOpt,
    IgnoreNamesOpt,
    InfraArg,
    JsonOpt,
    MetricOpt,
    ObjectiveOpt,
    OccupiedOpt,
    PlanArg,
    QuietOpt,
    TargetUtilizationOpt,
    WeightsOpt,
    WhatIfTimeOpt,
)
from streamplace.cli.console import handle_errors
from streamplace.cli.emit import Emission, check_outputs, emit
from streamplace.cli.opening import open_inputs
from streamplace.cli.runtime import signal_exit_code
from streamplace.cli.views.explain import render_explanation
from streamplace.cli.whatifs import watching_what_ifs
from streamplace.io.occupied import occupied_files
from streamplace.model.checks import application_warnings
from streamplace.model.explain import explain


@handle_errors
def explain_command(application: AppArg, infrastructure: InfraArg, plan: PlanArg,
                    objective: ObjectiveOpt = None, weights: WeightsOpt = None,
                    network_metric: MetricOpt = None,
                    target_utilization_: TargetUtilizationOpt = None,
    occupied: OccupiedOpt = None,
                    current: CurrentOpt = None, ignore_names: IgnoreNamesOpt = False,
                    time_limit: WhatIfTimeOpt = None,
                    json_: JsonOpt = False,
                    quiet: QuietOpt = False) -> None:
    """Why this plan: objective by term and operator, binding constraints, what-if moves."""
    check_outputs([], [application, infrastructure, plan, objective, current,
                   *occupied_files(occupied)])
    opts.check_settings(time_limit, None, None, None)
    opened = open_inputs(application, infrastructure, objective=objective, weights=weights,
                         network_metric=network_metric, target_utilization=target_utilization_,
                         current=current, ignore_names=ignore_names,
                         occupied=occupied)
    app_, infra = opened.app, opened.infra
    plan_ = opts.read_plan(plan, app_, infra)
    with watching_what_ifs(time_limit, quiet) as (watch, stop):
        ex = explain(app_, infra, plan_, opened.objective, watch, opened.current)
    ev = ex.evaluation
    warnings = application_warnings(app_) + ev.warnings
    emit(Emission(
        document={"command": "explain", **ex.to_json(), "warnings": warnings},
        show=lambda con: render_explanation(con, ex, f"{opened.heading}: why {plan}"),
        warnings=warnings, code=signal_exit_code(stop)),
        json_=json_, quiet=quiet or json_)
