"""``streamplace extract``: an application (and an infrastructure skeleton) from Spark event
logs. The event-log package, and PySpark with it, load only when this command runs."""

from __future__ import annotations

import enum
from typing import Annotated

import typer

from streamplace.cli.args import FormatOpt, JsonOpt, OutputOpt, QuietOpt
from streamplace.cli.console import console, handle_errors, json_shares_stderr
from streamplace.cli.emit import Emission, check_outputs, emit
from streamplace.cli.progress import reading_progress
from streamplace.io.outputs import STDOUT, Output
from streamplace.io.spark import Engine
from streamplace.io.writers import dumps, format_for


class Statistic(enum.StrEnum):
    mean = "mean"
    p95 = "p95"
    max = "max"


@handle_errors
def extract_command(
    eventlogs: Annotated[list[str], typer.Argument(
        metavar="EVENTLOG...", help="Event log files, rolling eventlog_v2_* directories or "
                                    "folders of logs (spark.eventLog.dir).")],
    output: OutputOpt = None,
    infrastructure_out: Annotated[str | None, typer.Option(
        "--infrastructure-out", help="Write an infrastructure skeleton here: one processor "
                                     "per executor host, resources = cores.")] = None,
    master: Annotated[str | None, typer.Option(
        help="Spark master to read on (default: the spark-submit one, else local[*]).")] = None,
    app_id: Annotated[str | None, typer.Option(
        "--app-id", help="Which application, when the paths hold several.")] = None,
    engine: Annotated[Engine, typer.Option(
        help="spark: read on Spark (default); python: in this process, no JVM.",
        case_sensitive=False)] = Engine.SPARK,
    rate_statistic: Annotated[Statistic, typer.Option(
        "--rate-statistic", help="Rates the application carries: mean over the log, or "
                                 "the 95th percentile or maximum over its epochs.")]
    = Statistic.mean,
    nodes: Annotated[int | None, typer.Option(
        help="With --cores: a skeleton of this many nodes, for the deployment you plan.")]
    = None,
    cores: Annotated[int | None, typer.Option(help="With --nodes: cores per node.")] = None,
    format_: FormatOpt = None,
    json_: JsonOpt = False, quiet: QuietOpt = False,
) -> None:
    """Extract: an application (and infrastructure skeleton) from Spark event logs."""
    from streamplace.cli.views.extract import render_extraction
    from streamplace.io.eventlog import extract

    check_outputs([output, infrastructure_out], eventlogs, json_)
    con = console()
    with reading_progress(con, "reading event log", enabled=not quiet) as progress:
        result = extract(eventlogs, app_id=app_id, master=master, engine=engine.value,
                         progress=progress, quiet=quiet or json_shares_stderr(),
                         rate_statistic=rate_statistic.value, nodes=nodes, cores=cores)
    assert result.documents is not None
    application, infrastructure = result.documents
    requested = format_.value if format_ else None
    emission = Emission(document={"status": "ok", "application": application,
                                  "infrastructure": infrastructure, "report": result.report()},
                        show=lambda c: render_extraction(c, result),
                        warnings=list(result.warnings))
    if infrastructure_out:
        emission.outputs.append(Output(infrastructure_out, dumps(
            infrastructure, format_for(infrastructure_out, requested))))
        emission.notes.append(f"infrastructure skeleton written to {infrastructure_out}" +
                              (f" ({nodes} nodes x {cores} cores)" if nodes else ""))
    if output or not json_:
        emission.outputs.append(Output(output or STDOUT,
                                       dumps(application, format_for(output, requested))))
        if output and output != STDOUT:
            emission.notes.append(f"application written to {output}")
    emit(emission, json_=json_, quiet=quiet)
