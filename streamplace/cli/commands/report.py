"""``streamplace report``: plans (and sweeps) as one self-contained HTML file."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from streamplace.cli import options as opts
from streamplace.cli.args import (
    JsonOpt,
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
    output: Annotated[str | None, typer.Option(
        "-o", "--output", help="The HTML file to write (with --optimum, optional).")] = None,
    title: Annotated[str | None, typer.Option(help="The report's title.")] = None,
    optimum: Annotated[bool, typer.Option(
        "--optimum", help="With autoscale --state files: each run against its hindsight "
        "optimum (the horizon program over the rates it saw, with perfect knowledge and the "
        "run's own options): slot-seconds, rescales, backlogged records, windows "
        "back-pressured, each as a gap.")] = False,
    max_rescales: Annotated[str | None, typer.Option(
        "--max-rescales", help="With --optimum: the optimum of every run under this budget "
        "(N/h, N/day), not each run's own.")] = None,
    json_: JsonOpt = False,
    objective: ObjectiveOpt = None, weights: WeightsOpt = None,
    network_metric: MetricOpt = None, time_limit: WhatIfTimeOpt = None,
    target_utilization_: TargetUtilizationOpt = None,
    occupied: OccupiedOpt = None, quiet: QuietOpt = False,
) -> None:
    """One HTML file, self-contained: each plan's metrics, utility, drawing, binding
    constraints and best changes; a comparison of several plans; a sweep's plots; or an
    autoscale run's history."""
    states = [(p, doc) for p in files if (doc := state_document(p)) is not None]
    if optimum:
        _optimum(files, states, output, title, max_rescales, time_limit, json_, quiet)
        return
    if output is None:
        raise InputError.single("-o is where the report goes", "give -o report.html",
                                path="-o")
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


def _optimum(files: list[str], states: list[tuple[str, dict[str, Any]]],
             output: str | None, title: str | None, max_rescales: str | None,
             time_limit: float | None, json_: bool, quiet: bool) -> None:
    """Each run's figures beside its hindsight optimum's; the history page too with -o."""
    if not states or len(states) < len(files):
        others = [p for p in files if p not in dict(states)]
        raise InputError.single(f"--optimum reads autoscale --state files, and "
                                f"{others[0] if others else 'nothing'} is not one",
                                "give the state files of the runs to measure",
                                path=others[0] if others else "STATE")
    from streamplace.cli.views.optimum import render_optimum
    from streamplace.control.autoscale.hindsight import against_optimum
    from streamplace.control.autoscale.options import AutoscaleOptions
    from streamplace.io.state import runs_in

    if max_rescales is not None:
        try:
            AutoscaleOptions(max_rescales=max_rescales).rescale_budget  # noqa: B018
        except ValueError as exc:
            raise InputError.single(f"--max-rescales {max_rescales!r} {exc}", "give e.g. "
                                    "12/h or 20/day", path="--max-rescales") from None
    runs = [run for path, _doc in states for run in runs_in(path)]
    rows = [against_optimum(name, state, time_limit or 60.0, max_rescales)
            for name, state in runs]
    outputs = []
    if output is not None:
        check_outputs([output], [path for path, _ in states])
        from streamplace.draw.history import history_html

        outputs.append(Output(output, history_html(_documents(runs), title)))
    emit(Emission(document={"command": "report", "optimum": rows}, outputs=outputs,
                  show=lambda con: render_optimum(con, rows)), json_=json_, quiet=quiet)


def _history(states: list[tuple[str, dict[str, Any]]], others: list[str], output: str,
             title: str | None, quiet: bool) -> None:
    if others:
        raise InputError.single(f"{others[0]} is not an autoscale state file, beside "
                                f"{states[0][0]}, which is", "report state files on their "
                                "own, and plans in another report", path=others[0])
    check_outputs([output], [path for path, _ in states])
    from streamplace.draw.history import history_html
    from streamplace.io.state import runs_in

    text = history_html(_documents([run for path, _ in states for run in runs_in(path)]),
                        title)
    emit(Emission(outputs=[Output(output, text)], notes=[
        f"report written to {output} ({len(text) / 1024:.0f} KiB, {len(states)} autoscale "
        "history(ies))"]), quiet=quiet)


def _documents(runs: list[tuple[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
    """Each run's state as the history page reads it (a cluster's file: each job's)."""
    return [(name, state.model_dump(mode="json", by_alias=True)) for name, state in runs]
