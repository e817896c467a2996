"""``streamplace apply``: hand a plan to a running Flink job, and wait until it runs it."""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape

from streamplace.cli import options as opts
from streamplace.cli.args import (
    AppArg,
    IgnoreNamesOpt,
    InfraArg,
    JsonOpt,
    PlanArg,
    QuietOpt,
    TargetUtilizationOpt,
)
from streamplace.cli.console import console, handle_errors
from streamplace.cli.emit import EXIT_NO, Emission, emit
from streamplace.cli.opening import open_inputs
from streamplace.cli.signals import Interrupted
from streamplace.cli.views.tables import table
from streamplace.errors import EngineError, InputError
from streamplace.io.engines.common import ExportOptions
from streamplace.io.engines.flink import export_flink
from streamplace.io.engines.flink_control import (
    WAIT,
    JobAddress,
    check_cluster,
    free_slots,
    put_parallelism,
    running,
    runs,
    wait_for,
)
from streamplace.io.http import get_json
from streamplace.model.application import Application
from streamplace.model.evaluate import evaluate
from streamplace.model.infrastructure import Infrastructure
from streamplace.model.plan import Plan

JobArg = Annotated[str, typer.Argument(
    metavar="JOB", help="The running job: http://JOBMANAGER:8081/jobs/JOBID.")]
YesOpt = Annotated[bool, typer.Option(
    "--yes", "-y", help="Change the job without asking (needed off a terminal: CI).")]
DryRunOpt = Annotated[bool, typer.Option(
    "--dry-run", help="Check everything and show the change; send nothing.")]
WaitOpt = Annotated[float, typer.Option(
    "--wait", help="Seconds to wait for every vertex to run the plan (exit 3 after).")]


@handle_errors
def apply_command(
    application: AppArg, infrastructure: InfraArg, plan: PlanArg, job: JobArg,
    dry_run: DryRunOpt = False, yes: YesOpt = False, wait: WaitOpt = WAIT,
    ignore_names: IgnoreNamesOpt = False, target_utilization_: TargetUtilizationOpt = None,
    json_: JsonOpt = False, quiet: QuietOpt = False,
) -> None:
    """Apply PLAN to the running Flink job JOB (adaptive scheduler): show the change, send
    it, wait until every vertex runs it. Exit 1: the plan breaks a constraint; 2: bad input
    or a job that cannot take it; 3: the job did not get there."""
    opened = open_inputs(application, infrastructure, target_utilization=target_utilization_)
    plan_ = opts.read_plan(plan, opened.app, opened.infra, not ignore_names)
    broken = _broken(opened.app, opened.infra, plan_)
    if broken:
        emit(Emission(document={"command": "apply", "applied": False, "broken": broken},
                      code=EXIT_NO, verdict=[f"[bold red]not applied:[/] the plan breaks "
                                             f"{escape(b)}" for b in broken]),
             json_=json_, quiet=quiet)
        return
    change = prepare(job, opened.app, opened.infra, plan_, plan)
    if not change.moves or dry_run:
        emit(Emission(document=change.to_json(applied=False), show=change.show,
                      verdict=["dry run: nothing was sent" if change.moves else
                               "the job already runs the plan: nothing to apply"]),
             json_=json_, quiet=quiet)
        return
    if not quiet:
        change.show(console())
    confirm(yes)
    seconds = change.send(wait)
    emit(Emission(document=change.to_json(applied=True, seconds=seconds),
                  verdict=[f"applied: the job runs the plan ({seconds:.1f} s)"]),
         json_=json_, quiet=quiet)


def confirm(yes: bool) -> None:
    """Off a terminal (CI), or in a CI job, a running job changes only with --yes."""
    if yes:
        return
    if os.environ.get("CI") or not sys.stdin.isatty():
        raise InputError.single("apply changes a running job, and this is not a terminal "
                                "(or CI is set)", "add --yes to change it, or --dry-run to "
                                "see the change", path="--yes")
    if not typer.confirm("Change the running job?", default=False, err=True):
        raise typer.Exit(EXIT_NO)


def _broken(app: Application, infra: Infrastructure, plan: Plan) -> list[str]:
    ev = evaluate(app, infra, plan)
    return [v.message for v in ev.violations]


class Change:
    """What a plan changes in a running job, checked and ready to send."""

    def __init__(self, where: JobAddress, version: str, job: Any, body: dict[str, Any],
                 names: dict[str, str]) -> None:
        self.where, self.version, self.job, self.body = where, version, job, body
        self.names = names
        self.before = running(job)
        self.wanted = {vid: b["parallelism"]["upperBound"] for vid, b in body.items()}
        self.moves = {vid: (self.before.get(vid), k) for vid, k in self.wanted.items()
                      if self.before.get(vid) != k}

    def show(self, con: Console) -> None:
        rows = table(con, f"{self.job.get('name')} ({self.where.jid}, Flink {self.version})",
                     "vertex", "runs", "plan")
        for vid, k in self.wanted.items():
            old = self.before.get(vid)
            rows.add_row(escape(self.names[vid]), str(old), str(k) if old == k
                         else f"[bold]{k}[/]")
        con.print(rows)

    def send(self, wait: float) -> float:
        """PUT the requirements and wait for them; the seconds it took."""
        started = time.monotonic()
        put_parallelism(self.where, self.body)
        try:
            wait_for(self.where, self.wanted, wait)
        except Interrupted:
            console().print("[yellow]interrupted:[/] the change was sent and Flink carries "
                            "it out: observe the job to see where it stands")
            raise
        return time.monotonic() - started

    def to_json(self, applied: bool, seconds: float | None = None) -> dict[str, Any]:
        return {"command": "apply", "applied": applied, "job": self.where.jid,
                "flink_version": self.version, "seconds": seconds,
                "changes": [{"vertex": vid, "name": self.names[vid], "from": old, "to": new}
                            for vid, (old, new) in self.moves.items()],
                "parallelism": {self.names[vid]: k for vid, k in self.wanted.items()}}


def prepare(job: str, app: Application, infra: Infrastructure, plan: Plan,
            plan_file: str) -> Change:
    """The change, once the job, its cluster and the plan are known to fit together; else
    an InputError (exit 2: another job, not running, no adaptive scheduler) or an
    EngineError (exit 3: too few slots), with nothing sent."""
    where = JobAddress.parse(job)
    found = get_json(where.at(where.job), "JOB")
    if not isinstance(found, dict) or not isinstance(found.get("vertices"), list):
        raise InputError.single("the address does not answer as a Flink job",
                                "give http://JOBMANAGER:8081/jobs/JOBID", path="JOB")
    if found.get("state") != "RUNNING":
        raise InputError.single(f"the job is {found.get('state')}, not RUNNING",
                                "apply a plan to a running job", path="JOB")
    version = check_cluster(where)
    exported = export_flink(app, infra, plan, ExportOptions(flink_job=found,
                                                            flink_version=version,
                                                            flink_job_file=plan_file))
    if "rest" in exported.withheld:
        raise InputError.single(f"the plan cannot be sent: {exported.withheld['rest']}",
                                "re-plan within the job's max parallelism", file=plan_file)
    body = json.loads(next(a.text for a in exported.artifacts if a.name == "rest"))
    names = {v["id"]: v["name"] for v in found["vertices"] if isinstance(v, dict)}
    change = Change(where, version, found, body, names)
    needed = max(change.wanted.values(), default=0)
    have = free_slots(where, max(change.before.values(), default=0))
    if have is not None and needed > have and change.moves:
        raise EngineError(f"the plan needs {needed} slots and the cluster has {have} for this "
                          f"job: nothing was sent; {runs(found)}")
    return change
