"""``streamplace sweep``: families of scenarios on Spark (docs/cli.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from streamplace.cli import options as opts
from streamplace.cli.args import JsonOpt, QuietOpt, TargetUtilizationOpt
from streamplace.cli.console import console, handle_errors, json_shares_stderr
from streamplace.cli.emit import Emission, check_outputs, emit
from streamplace.cli.progress import count_progress
from streamplace.cli.runtime import signal_exit_code, stop_on_signals
from streamplace.cli.signals import Interrupted
from streamplace.cli.views.sweep import render_sweep
from streamplace.io.spark import Engine
from streamplace.solve.budget import StopRequest
from streamplace.sweep import SweepReport, run_sweep
from streamplace.sweep.checks import LARGE_SWEEP
from streamplace.sweep.scenarios import ExpansionStopped


@handle_errors
def sweep_command(
    sweep: Annotated[str, typer.Argument(help="The sweep file (docs/formats.md).")],
    output: Annotated[str | None, typer.Option(
        "-o", "--output", help="The results folder (default: sweep-<file name>).")] = None,
    master: Annotated[str | None, typer.Option(
        help="Spark master URL (default: the session spark-submit provides, else "
             "local[*]).")] = None,
    resume: Annotated[bool, typer.Option(
        "--resume", help="Continue the sweep the folder holds: run only what it lacks.")]
    = False,
    engine: Annotated[Engine, typer.Option(
        help="spark (default) or python (one scenario after another, no JVM; CSV only).",
        case_sensitive=False)] = Engine.SPARK,
    target_utilization_: TargetUtilizationOpt = None,
    yes: Annotated[bool, typer.Option(
        "--yes", help=f"Run a sweep of more than {LARGE_SWEEP:,} scenarios.")] = False,
    json_: JsonOpt = False, quiet: QuietOpt = False,
) -> None:
    """Solve every scenario of SWEEP: tables, plans and plots in one folder."""
    check_outputs([], [sweep], json_)
    opts.check_target_utilization(target_utilization_)
    folder = output or f"sweep-{Path(sweep).stem}"
    stop = StopRequest()
    con = console()
    with count_progress(con, "scenarios", enabled=not quiet) as progress, \
            stop_on_signals(stop):
        try:
            report = run_sweep(sweep, folder, master=master, engine=engine, resume=resume,
                               quiet=quiet or json_shares_stderr(), progress=progress,
                               stop=stop, target_utilization=target_utilization_, yes=yes)
        except ExpansionStopped as exc:  # nothing ran or was written: end as at once
            raise Interrupted(exc.signum) from None
    emit(Emission(
        document=_document(report),
        show=lambda c: render_sweep(c, report),
        notes=[f"results in {report.folder}/"],
        warnings=report.warnings,
        verdict=_verdict(report),
        code=signal_exit_code(stop)),
        json_=json_, quiet=quiet)


def _document(report: SweepReport) -> dict[str, object]:
    return {"command": "sweep", "folder": str(report.folder), "analysis": report.analysis,
            "scenarios": report.total, "skipped": report.skipped, "ran": report.ran,
            "seconds": round(report.seconds, 3), "interrupted": report.interrupted,
            "files": [str(p) for p in report.files], "columns": list(report.columns),
            "warnings": report.warnings,
            "rows": report.rows}


def _verdict(report: SweepReport) -> list[str]:
    if not report.interrupted:
        return []
    left = report.total - report.skipped - report.ran
    return [f"[yellow]interrupted:[/] {left} scenario(s) not run; --resume continues"]

