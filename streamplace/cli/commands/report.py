"""``streamplace report``: plans (and sweeps) as one self-contained HTML file."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from streamplace.cli import options as opts
from streamplace.cli.args import (
    MetricOpt,
    ObjectiveOpt,
    OccupiedOpt,
    QuietOpt,
    TargetUtilizationOpt,
    WeightsOpt,
    WhatIfTimeOpt,
)
from streamplace.cli.console import handle_errors
from streamplace.cli.emit import Emission, check_outputs, emit
from streamplace.cli.opening import open_inputs
from streamplace.cli.runtime import signal_exit_code
from streamplace.cli.whatifs import watching_what_ifs
from streamplace.draw.report import report_html
from streamplace.errors import InputError
from streamplace.io.occupied import occupied_files
from streamplace.io.outputs import Output
from streamplace.io.state import state_document
from streamplace.sweep.store import MARKER


@handle_errors
def report_command(
    files: Annotated[list[str], typer.Argument(
        metavar="APPLICATION INFRASTRUCTURE PLAN|SWEEP_DIR... | STATE...",
        help="The application and infrastructure, then plan files and sweep folders (as "
             "`streamplace sweep` writes them); or autoscale --state files alone.")],
    output: Annotated[str, typer.Option("-o", "--output", help="The HTML file to write.")],
    title: Annotated[str | None, typer.Option(help="The report's title.")] = None,
    objective: ObjectiveOpt = None, weights: WeightsOpt = None,
    network_metric: MetricOpt = None, time_limit: WhatIfTimeOpt = None,
    target_utilization_: TargetUtilizationOpt = None,
    occupied: OccupiedOpt = None, quiet: QuietOpt = False,
) -> None:
    """One HTML file, self-contained: each plan's metrics, utility, drawing, binding
    constraints and best changes; a comparison of several plans; a sweep's plots; or an
    autoscale run's history."""
    states = [(p, doc) for p in files if (doc := state_document(p)) is not None]
    if states:
        _history(states, [p for p in files if p not in dict(states)], output, title, quiet)
        return
    if len(files) < 3:
        raise InputError.single("nothing to report", "give the application, the "
                                "infrastructure and at least one plan or sweep folder, or "
                                "autoscale --state files")
    application, infrastructure, inputs = files[0], files[1], files[2:]
    sweeps = [Path(p) for p in inputs if Path(p).is_dir()]
    for folder in sweeps:
        if not (folder / MARKER).exists():
            raise InputError.single(f"{folder} is a folder but holds no sweep",
                                    "give plan files, or folders written by streamplace sweep",
                                    path=str(folder))
    plan_files = [p for p in inputs if not Path(p).is_dir()]
    if not plan_files and not sweeps:
        raise InputError.single("nothing to report", "give at least one plan or sweep folder")
    check_outputs([output], [application, infrastructure, objective, *plan_files,
                   *occupied_files(occupied)])
    opts.check_settings(time_limit, None, None, None)
    opened = open_inputs(application, infrastructure, objective=objective, weights=weights,
                         network_metric=network_metric, target_utilization=target_utilization_,
                         occupied=occupied)
    app_, infra = opened.app, opened.infra
    plans = [(path, opts.read_plan(path, app_, infra)) for path in plan_files]
    with watching_what_ifs(time_limit, quiet, graceful=False) as (watch, stop):
        text = report_html(app_, infra, plans, opened.objective, sweeps=sweeps, title=title,
                           watch=watch)
    written = [f"report written to {output} ({len(text) / 1024:.0f} KiB, "
               f"{len(plans)} plan(s), {len(sweeps)} sweep(s))"]
    emit(Emission(outputs=[] if stop else [Output(output, text)],
                  code=signal_exit_code(stop),
                  notes=[f"stopped by a signal: {output} was not written"] if stop
                  else written), quiet=quiet)


def _history(states: list[tuple[str, dict[str, Any]]], others: list[str], output: str,
             title: str | None, quiet: bool) -> None:
    if others:
        raise InputError.single(f"{others[0]} is not an autoscale state file, beside "
                                f"{states[0][0]}, which is", "report state files on their "
                                "own, and plans in another report", path=others[0])
    check_outputs([output], [path for path, _ in states])
    from streamplace.draw.history import history_html

    text = history_html(states, title)
    emit(Emission(outputs=[Output(output, text)], notes=[
        f"report written to {output} ({len(text) / 1024:.0f} KiB, {len(states)} autoscale "
        "history(ies))"]), quiet=quiet)
