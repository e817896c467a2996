"""``streamplace validate``: the plan's identity, every constraint, then thresholds."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from streamplace.cli import options as opts
from streamplace.cli.args import (
    CurrentOpt,
    IgnoreNamesOpt,
    JsonOpt,
    MaxCostOpt,
    MaxElasticEnergyOpt,
    MaxMovesOpt,
    MaxNetworkUsageOpt,
    MaxResponseTimeOpt,
    MaxTrafficOpt,
    MetricOpt,
    MinAvailabilityOpt,
    ObjectiveOpt,
    OccupiedOpt,
    QuietOpt,
    TargetUtilizationOpt,
    WeightsOpt,
)
from streamplace.cli.bundle import refuse_for_bundles
from streamplace.cli.console import handle_errors
from streamplace.cli.emit import EXIT_NO, Emission, check_outputs, emit
from streamplace.cli.opening import open_inputs
from streamplace.cli.validate_bundle import failed_checks, validate_bundle
from streamplace.cli.views.checks import render_checks
from streamplace.errors import InputError
from streamplace.io.junit import junit_xml
from streamplace.io.occupied import occupied_files
from streamplace.io.outputs import Output
from streamplace.model.checks import application_warnings
from streamplace.model.evaluate import evaluate
from streamplace.model.validation import run_checks


@handle_errors
def validate_command(
    files: Annotated[list[str], typer.Argument(
        metavar="APP... INFRA PLAN", show_default=False,
        help="The application file, the infrastructure file and the plan file; or several "
             "applications, the infrastructure and their bundle plan, each application's "
             "plan checked beside the others'.")],
    max_response_time: MaxResponseTimeOpt = None, min_availability: MinAvailabilityOpt = None,
    max_cost: MaxCostOpt = None, max_traffic: MaxTrafficOpt = None,
    max_network_usage: MaxNetworkUsageOpt = None, max_elastic_energy: MaxElasticEnergyOpt = None,
    junit_xml_: Annotated[str | None, typer.Option(
        "--junit-xml", help="Write the checks as JUnit XML for CI systems.")] = None,
    html_: Annotated[str | None, typer.Option(
        "--html", help="Write the report (streamplace report) with the checks, failed "
                       "first: a CI artifact.")] = None,
    current: CurrentOpt = None, ignore_names: IgnoreNamesOpt = False,
    max_moves: MaxMovesOpt = None,
    objective: ObjectiveOpt = None, weights: WeightsOpt = None,
    network_metric: MetricOpt = None,
    target_utilization_: TargetUtilizationOpt = None,
    occupied: OccupiedOpt = None,
    json_: JsonOpt = False, quiet: QuietOpt = False,
) -> None:
    """Check PLAN: every constraint, plus thresholds. Exit 0 if all pass, 1 if any fails."""
    started = time.perf_counter()
    if len(files) < 3:
        raise InputError.single("validate needs an application, an infrastructure and a "
                                "plan file", "streamplace validate APP [APP ...] INFRA PLAN",
                                path="APP")
    if len(files) > 3:
        given = {"--html": html_, "--current": current, "--max-moves": max_moves,
                 "--ignore-names": ignore_names}
        refuse_for_bundles(given, "drop it, or validate one application at a time with "
                                  "--occupied of the others")
        validate_bundle(files[:-2], files[-2], files[-1], opts.limit_values(
            max_response_time, min_availability, max_cost, max_traffic, max_network_usage,
            max_elastic_energy), opts.build_objective(objective, weights, network_metric),
            target_utilization_, occupied, junit_xml_, json_, quiet)
        return
    application, infrastructure, plan = files
    check_outputs([junit_xml_, html_], [application, infrastructure, plan, objective, current,
                   *occupied_files(occupied)],
                  json_)
    limits = opts.limit_flags(max_response_time, min_availability, max_cost, max_traffic,
                              max_network_usage, max_elastic_energy)
    opened = open_inputs(application, infrastructure, objective=objective, weights=weights,
                         network_metric=network_metric, target_utilization=target_utilization_,
                         current=current, max_moves=max_moves, ignore_names=ignore_names,
                         occupied=occupied)
    app_, infra, objective_ = opened.app, opened.infra, opened.objective
    plan_ = opts.read_plan(plan, app_, infra)
    ev = evaluate(app_, infra, plan_, objective_, opened.current, limits)
    checks = run_checks(ev, limits, plan_, app_, infra)
    passed = all(c.passed for c in checks)
    warnings = application_warnings(app_) + ev.warnings
    outputs = []
    if junit_xml_:
        outputs.append(Output(junit_xml_, junit_xml(
            checks, f"streamplace validate {Path(plan).name}", time.perf_counter() - started)))
    if html_:
        from streamplace.draw.report import report_html

        outputs.append(Output(html_, report_html(
            app_, infra, [(plan, plan_)], objective_, checks=checks,
            title=f"validate {Path(plan).name}: {opened.heading}")))

    def show(con: Console) -> None:
        con.print(f"[bold]{opened.heading}: validate {plan}[/]")
        render_checks(con, checks)

    emit(Emission(
        document={"command": "validate", "passed": passed, "metrics": ev.metrics(),
                  "checks": [c.to_json() for c in checks],
                  "violations": [v.to_json() for v in ev.violations], "warnings": warnings},
        outputs=outputs, show=show, warnings=warnings, code=0 if passed else EXIT_NO,
        verdict=failed_checks(checks)), json_=json_, quiet=quiet)
