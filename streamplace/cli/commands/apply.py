"""``streamplace apply``: hand a plan to a running Flink job, and wait until it runs it."""

from __future__ import annotations

from typing import Annotated

import typer
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
from streamplace.cli.job_args import (
    WAIT,
    CacertOpt,
    CertOpt,
    InsecureOpt,
    JobArg,
    KeyOpt,
    WaitOpt,
    YesOpt,
    check_wait,
    confirm,
    connect,
)
from streamplace.cli.opening import open_inputs
from streamplace.cli.views.rescale import render_change
from streamplace.control.clock import SystemClock
from streamplace.control.flink.change import LOWER_BOUNDS, prepare
from streamplace.errors import InputError
from streamplace.model.evaluate import evaluate

DryRunOpt = Annotated[bool, typer.Option(
    "--dry-run", help="Check everything and show the change; send nothing.")]
ForceOpt = Annotated[bool, typer.Option(
    "--force", help="Send a plan that breaks a constraint all the same (on-call rolling "
                    "back to the parallelism the job ran before); each broken constraint "
                    "is said as a warning.")]
LowerBoundOpt = Annotated[str, typer.Option(
    "--lower-bound", help="keep: each vertex keeps the lower bound of parallelism it has "
                          "(lowered only to the plan), as the Flink autoscaler does; upper: "
                          "the plan's parallelism is the lower bound too, and the job runs "
                          "it or fails.")]


@handle_errors
def apply_command(
    application: AppArg, infrastructure: InfraArg, plan: PlanArg, job: JobArg,
    dry_run: DryRunOpt = False, yes: YesOpt = False, wait: WaitOpt = WAIT,
    ignore_names: IgnoreNamesOpt = False, target_utilization_: TargetUtilizationOpt = None,
    lower_bound: LowerBoundOpt = "keep", force: ForceOpt = False, json_: JsonOpt = False,
    quiet: QuietOpt = False,
    cacert: CacertOpt = None, cert: CertOpt = None, key: KeyOpt = None,
    insecure: InsecureOpt = False,
) -> None:
    """Apply PLAN to the running Flink job JOB (adaptive scheduler): show the change, send
    it, wait until every vertex runs it. Exit 1: the plan breaks a constraint (--force sends
    it all the same); 2: bad input or a job that cannot take it, nothing sent; 3: the job
    did not get there, or the change may have been sent."""
    connect(cacert, cert, key, insecure)
    check_wait(wait)
    if lower_bound not in LOWER_BOUNDS:
        raise InputError.single(f"--lower-bound {lower_bound!r} is not one of "
                                f"{', '.join(LOWER_BOUNDS)}", "give keep (the default) or "
                                "upper", path="--lower-bound")
    opened = open_inputs(application, infrastructure, target_utilization=target_utilization_)
    plan_ = opts.read_plan(plan, opened.app, opened.infra, not ignore_names)
    broken = [v.message for v in evaluate(opened.app, opened.infra, plan_).violations]
    if broken and not force:
        emit(Emission(document={"command": "apply", "applied": False, "broken": broken},
                      code=EXIT_NO, verdict=[f"[bold red]not applied:[/] the plan breaks "
                                             f"{escape(b)}" for b in broken]),
             json_=json_, quiet=quiet)
        return
    change = prepare(job, opened.app, opened.infra, plan_, plan, lower_bound)
    warned = [f"forced: the plan breaks {b}" for b in broken]
    forced = {"forced": broken} if broken else {}
    if not change.moves or dry_run:
        emit(Emission(document={**change.to_json(applied=False), **forced}, warnings=warned,
                      show=lambda con: render_change(con, change),
                      verdict=["dry run: nothing was sent" if change.moves else
                               "the job already runs the plan: nothing to apply"]),
             json_=json_, quiet=quiet)
        return
    if not quiet:
        render_change(console(), change)
    confirm(yes)
    seconds = change.send(wait, SystemClock())  # an interrupt from here on says the change was sent
    emit(Emission(document={**change.to_json(applied=True, seconds=seconds), **forced},
                  warnings=warned,
                  verdict=[f"applied: the job runs the plan ({seconds:.1f} s)"]),
         json_=json_, quiet=quiet)
