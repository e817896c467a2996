"""``streamplace evaluate``: every metric of a plan and every constraint it violates."""

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
)
from streamplace.cli.console import handle_errors
from streamplace.cli.emit import Emission, check_outputs, emit
from streamplace.cli.opening import open_inputs
from streamplace.cli.views.evaluation import render_evaluation
from streamplace.io.occupied import occupied_files
from streamplace.io.writers import plan_document
from streamplace.model.checks import application_warnings
from streamplace.model.evaluate import evaluate


@handle_errors
def evaluate_command(application: AppArg, infrastructure: InfraArg, plan: PlanArg,
                     objective: ObjectiveOpt = None, weights: WeightsOpt = None,
                     network_metric: MetricOpt = None, current: CurrentOpt = None,
                     ignore_names: IgnoreNamesOpt = False,
                     target_utilization_: TargetUtilizationOpt = None,
    occupied: OccupiedOpt = None,
                     json_: JsonOpt = False, quiet: QuietOpt = False) -> None:
    """Compute every metric of PLAN and every constraint it violates."""
    check_outputs([], [application, infrastructure, plan, objective, current,
                   *occupied_files(occupied)])
    opened = open_inputs(application, infrastructure, objective=objective, weights=weights,
                         network_metric=network_metric, target_utilization=target_utilization_,
                         current=current, ignore_names=ignore_names,
                         occupied=occupied)
    app_, infra = opened.app, opened.infra
    plan_ = opts.read_plan(plan, app_, infra)
    ev = evaluate(app_, infra, plan_, opened.objective, opened.current)
    warnings = application_warnings(app_) + ev.warnings
    emit(Emission(
        document={"command": "evaluate", "application": app_.name, "infrastructure": infra.name,
                  "feasible": ev.feasible, "complete": ev.complete, "metrics": ev.metrics(),
                  "violations": [v.to_json() for v in ev.violations], "warnings": warnings,
                  "evaluation": ev.to_json(), "plan": plan_document(plan_, ev)},
        show=lambda con: render_evaluation(con, ev, f"{opened.heading}: plan {plan}"),
        warnings=warnings), json_=json_, quiet=quiet)
