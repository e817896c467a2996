"""``streamplace compare``: several methods on one instance, one table."""

from __future__ import annotations

from dataclasses import replace
from typing import Annotated

import typer

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
    QuietOpt,
    TargetUtilizationOpt,
    WeightsOpt,
)
from streamplace.cli.console import console, handle_errors
from streamplace.cli.emit import EXIT_NO_ANSWER, Emission, check_outputs, emit
from streamplace.cli.opening import open_inputs
from streamplace.cli.progress import live_progress
from streamplace.cli.runtime import signal_exit_code, stop_on_signals
from streamplace.cli.views.compare import render_comparison
from streamplace.errors import InputError
from streamplace.io.occupied import occupied_files
from streamplace.io.outputs import Output
from streamplace.io.writers import csv_text
from streamplace.model.checks import application_warnings
from streamplace.solve import Instance, SolveOptions, get_method
from streamplace.solve.budget import StopRequest
from streamplace.solve.compare import attempt, compare_rows

DEFAULT_COMPARE = "odrp,odp,resource-aware,first-fit-decreasing,round-robin"


@handle_errors
def compare_command(
    application: AppArg, infrastructure: InfraArg,
    methods_: Annotated[str, typer.Option("--methods", help="Comma-separated methods.")] =
    DEFAULT_COMPARE,
    objective: ObjectiveOpt = None, weights: WeightsOpt = None, network_metric: MetricOpt = None,
    time_limit: Annotated[float | None, typer.Option(help="Seconds per method.")] = None,
    seed: Annotated[int | None, typer.Option(help="Random seed for every method.")] = None,
    csv: Annotated[str | None, typer.Option("--csv", help="Also write the table as CSV.")] =
    None, current: CurrentOpt = None, ignore_names: IgnoreNamesOpt = False,
    target_utilization_: TargetUtilizationOpt = None,
    occupied: OccupiedOpt = None,
    json_: JsonOpt = False, quiet: QuietOpt = False,
) -> None:
    """Run several methods and show one table: every metric, time, status, gap to the bound."""
    check_outputs([csv], [application, infrastructure, objective, current,
                   *occupied_files(occupied)], json_)
    opts.check_settings(time_limit, None, None, seed)
    names = [m.strip() for m in methods_.split(",") if m.strip()]
    if not names:
        raise InputError.single("no method named", "write e.g. --methods odrp,round-robin",
                                path="--methods")
    try:
        for name in names:  # unknown names fail before any work
            get_method(name)
    except InputError as exc:
        raise InputError([replace(p, path="--methods") for p in exc.problems]) from None
    opened = open_inputs(application, infrastructure, objective=objective, weights=weights,
                         network_metric=network_metric, target_utilization=target_utilization_,
                         current=current, ignore_names=ignore_names,
                         occupied=occupied)
    app_, infra = opened.app, opened.infra
    instance = Instance(app_, infra, opened.objective, opened.current)
    chosen = [get_method(name, instance) for name in names]
    con = console()
    stop = StopRequest()
    results = []
    with stop_on_signals(stop):
        for method in chosen:
            with live_progress(con, method.name, enabled=not quiet) as progress:
                results.append(attempt(method, instance, SolveOptions(
                    time_limit=time_limit, seed=seed or 0, progress=progress, stop=stop)))
    rows = compare_rows(results, [m.model for m in chosen])
    code = signal_exit_code(stop) or (
        0 if any(r.plan is not None for r in results) else EXIT_NO_ANSWER)
    emit(Emission(
        document=[r.values for r in rows],
        outputs=[Output(csv, csv_text(rows))] if csv else [],
        show=lambda c: render_comparison(c, rows, opened.heading),
        warnings=application_warnings(app_), code=code), json_=json_, quiet=quiet)
