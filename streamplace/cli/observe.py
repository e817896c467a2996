"""``streamplace observe``: an application, an infrastructure skeleton and the current plan
from a running Flink job, live over its REST API or from a snapshot saved earlier."""

from __future__ import annotations

from typing import Annotated

import typer

from streamplace.cli.args import FormatOpt, JsonOpt, OutputOpt, QuietOpt
from streamplace.cli.console import handle_errors
from streamplace.cli.emit import Emission, check_outputs, emit
from streamplace.io.engines.flink_documents import documents
from streamplace.io.engines.flink_observe import observe
from streamplace.io.engines.flink_rest import fetch_snapshot
from streamplace.io.http import is_url, without_credentials
from streamplace.io.loader import load_path
from streamplace.io.outputs import STDOUT, Output
from streamplace.io.writers import dumps, format_for


@handle_errors
def observe_command(
    job: Annotated[str, typer.Argument(
        metavar="JOB", help="The job's address http://JOBMANAGER:8081/jobs/JOBID, or a "
                            "snapshot saved with --save.")],
    output: OutputOpt = None,
    infrastructure_out: Annotated[str | None, typer.Option(
        "--infrastructure-out", help="Write an infrastructure skeleton here: one node per "
                                     "TaskManager, with its slots.")] = None,
    plan_out: Annotated[str | None, typer.Option(
        "--plan-out", help="Write the plan the job runs now here (for solve --current, "
                           "evaluate, diff).")] = None,
    save: Annotated[str | None, typer.Option(
        "--save", help="Save what the REST API answered here (JSON), to observe again "
                       "offline.")] = None,
    format_: FormatOpt = None, json_: JsonOpt = False, quiet: QuietOpt = False,
) -> None:
    """Observe: an application (and infrastructure skeleton, current plan) from a running
    Flink job."""
    from streamplace.cli.views.observe import render_observation

    live = is_url(job)
    check_outputs([output, infrastructure_out, plan_out, save], [None if live else job], json_)
    snapshot = fetch_snapshot(job) if live else load_path(job)[0]
    obs = observe(snapshot, without_credentials(job) if live else job)
    docs = documents(obs)
    requested = format_.value if format_ else None
    emission = Emission(document={"status": "ok", **docs, "report": obs.report()},
                        show=lambda c: render_observation(c, obs),
                        warnings=list(obs.warnings))
    if save:
        emission.outputs.append(Output(save, dumps(snapshot, "json")))
        emission.notes.append(f"snapshot saved to {save}")
    for path, key, what in ((infrastructure_out, "infrastructure", "infrastructure skeleton"),
                            (plan_out, "plan", "current plan")):
        if path and key in docs:
            emission.outputs.append(Output(path, dumps(docs[key], format_for(path, requested))))
            emission.notes.append(f"{what} written to {path}")
    if output or not json_:
        emission.outputs.append(Output(output or STDOUT, dumps(docs["application"],
                                                              format_for(output, requested))))
        if output and output != STDOUT:
            emission.notes.append(f"application written to {output}")
    emit(emission, json_=json_, quiet=quiet)

