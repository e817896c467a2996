"""``streamplace observe``: an application, an infrastructure skeleton and the current plan
from a running Flink job, live over its REST API or from a snapshot saved earlier."""

from __future__ import annotations

import math
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape

from streamplace.cli import options as opts
from streamplace.cli.args import FormatOpt, IgnoreNamesOpt, JsonOpt, OutputOpt, QuietOpt
from streamplace.cli.console import handle_errors
from streamplace.cli.emit import EXIT_NO, Emission, check_outputs, emit
from streamplace.cli.job_args import (
    CacertOpt,
    CertOpt,
    InsecureOpt,
    KeyOpt,
    SourceRateOpt,
    WindowOpt,
    connect,
    parse_rates,
)
from streamplace.cli.opening import open_inputs
from streamplace.control.flink.config import cluster_config, network_buffer
from streamplace.control.flink.drift import TOLERANCE, Drift, drift
from streamplace.control.flink.holdings import holdings
from streamplace.control.flink.markers import checkpoint_interval, job_markers
from streamplace.control.flink.read import read_job
from streamplace.control.flink.rescale import JobAddress
from streamplace.control.flink.samples import part_periods, short_spans
from streamplace.control.flink.slices import slices_over
from streamplace.control.running.documents import documents
from streamplace.control.running.latency import TOLERANCE as LATENCY_TOLERANCE
from streamplace.control.running.latency import end_to_end, few_firings
from streamplace.control.running.observation import Observation
from streamplace.errors import InputError
from streamplace.io.http import is_url
from streamplace.io.outputs import STDOUT, Output
from streamplace.io.writers import dumps, format_for
from streamplace.model.application import Application
from streamplace.model.infrastructure import Infrastructure
from streamplace.model.plan import Plan


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
    occupied_out: Annotated[str | None, typer.Option(
        "--occupied-out", help="Write what the cluster's other jobs hold here (an occupied "
                               "load, for --occupied): their slots on each "
                               "TaskManager.")] = None,
    save: Annotated[str | None, typer.Option(
        "--save", help="Save what the REST API answered here (JSON), to observe again "
                       "offline.")] = None,
    window: WindowOpt = None, source_rate: SourceRateOpt = None,
    against: Annotated[str | None, typer.Option(
        "--against", help="A plan the job runs: compare what the model predicted with what "
                          "the job does (needs --application and --infrastructure); exit 1 "
                          "when the job breaks a promise of the plan.")] = None,
    application: Annotated[str | None, typer.Option(
        "--application", help="With --against: the application the plan was made "
                              "from.")] = None,
    infrastructure: Annotated[str | None, typer.Option(
        "--infrastructure", help="With --against: the infrastructure the plan was made "
                                 "for.")] = None,
    tolerance: Annotated[float | None, typer.Option(
        "--tolerance", help="With --against: how far a share (utilisation, busy) may be off, "
                            f"and by what fraction a rate may be (default {TOLERANCE:g}).")
    ] = None,
    ignore_names: IgnoreNamesOpt = False,
    format_: FormatOpt = None, json_: JsonOpt = False, quiet: QuietOpt = False,
    cacert: CacertOpt = None, cert: CertOpt = None, key: KeyOpt = None,
    insecure: InsecureOpt = False,
) -> None:
    """Observe: an application (and infrastructure skeleton, current plan) from a running
    Flink job; with --against, the plan's predictions held to what the job does."""
    from streamplace.cli.views.observe import render_drift, render_observation

    connect(cacert, cert, key, insecure)
    live = is_url(job)
    check_outputs([output, infrastructure_out, plan_out, occupied_out, save],
                  [None if live else job, against, application, infrastructure], json_)
    rates = parse_rates(source_rate)
    held = _against(against, application, infrastructure, tolerance, ignore_names)
    tolerance = TOLERANCE if tolerance is None else tolerance
    # held to markers, the window is read in slices: a lone subtask's service variability
    snapshot, obs = read_job(job, window, rates, load=occupied_out is not None,
                             slices=slices_over(window) if against and live and window else 1)
    docs = documents(obs, holdings(snapshot.get("load"), obs.address) if occupied_out
                     else None)
    requested = format_.value if format_ else None
    report: dict[str, Any] = {"status": "ok", **docs, "report": obs.report()}
    found = None
    if held is not None:
        found = drift(obs, *held, against or "--against", tolerance)
        if live:
            _latency(found, job, held, obs)
        report["drift"] = found.to_json()

    def show(con: Console) -> None:
        render_observation(con, obs)
        if found is not None:
            render_drift(con, found)

    emission = Emission(document=report, show=show, warnings=list(obs.warnings))
    if found is not None and found.broken:
        emission.code = EXIT_NO
        emission.verdict = [f"[bold red]drift:[/] {escape(b)}" for b in found.broken]
    if save:
        emission.outputs.append(Output(save, dumps(snapshot, "json")))
        emission.notes.append(f"snapshot saved to {save}")
    for path, key, what in ((infrastructure_out, "infrastructure", "infrastructure skeleton"),
                            (plan_out, "plan", "current plan"),
                            (occupied_out, "occupied", "occupied load of the other jobs")):
        if path and key in docs:
            emission.outputs.append(Output(path, dumps(docs[key], format_for(path, requested))))
            emission.notes.append(f"{what} written to {path}")
    if output or not json_:
        emission.outputs.append(Output(output or STDOUT, dumps(docs["application"],
                                                              format_for(output, requested))))
        if output and output != STDOUT:
            emission.notes.append(f"application written to {output}")
    emit(emission, json_=json_, quiet=quiet)


def _latency(found: Drift, job: str, held: tuple[Application, Infrastructure, Plan],
             obs: Observation) -> None:
    """Each source-to-sink path's predicted response time against the job's latency
    markers; where the job reports none, a note says which setting turns them on. The
    service's variability is what the window measured, where it did."""
    try:
        where = JobAddress.parse(job)
        config = cluster_config(where.address, where.base)
        measured, timeout = job_markers(job, found.vertex_of, config)
        found.latency = end_to_end(measured, *held, timeout, LATENCY_TOLERANCE,
                                   obs.variability(), network_buffer(config),
                                   checkpoint_interval(job), obs.forward(),
                                   obs.record_service(), obs.firings())
        found.notes += (short_spans(measured, obs.window or 0.0, config) + few_firings(obs)
                        + part_periods(found.latency, obs.firing_periods(), config))
    except InputError as exc:
        said = "; ".join(f"{p.message} ({p.fix})" for p in exc.problems)
        found.notes.append(f"latency not compared: {said}")


def _against(plan: str | None, application: str | None, infrastructure: str | None,
             tolerance: float | None, ignore_names: bool,
             ) -> tuple[Application, Infrastructure, Plan] | None:
    """The application and plan to hold the job to, read before the job is: a plan made
    for another application or infrastructure is refused, as every command refuses it."""
    given = {"--application": application, "--infrastructure": infrastructure,
             "--tolerance": tolerance}
    if plan is None:
        extra = [k for k, v in given.items() if v is not None]
        if extra:
            raise InputError.single(f"{extra[0]} is read only with --against",
                                    "add --against PLAN, or drop it", path=extra[0])
        return None
    missing = [k for k, v in given.items() if v is None and k != "--tolerance"]
    if missing:
        raise InputError.single(f"--against needs {' and '.join(missing)}", "give the "
                                "application and infrastructure the plan was made from",
                                path=missing[0])
    if tolerance is not None and not (math.isfinite(tolerance) and 0 < tolerance < 1):
        raise InputError.single(f"--tolerance {tolerance:g} is not in (0, 1)",
                                "give e.g. 0.1", path="--tolerance")
    opened = open_inputs(application or "", infrastructure or "")
    return opened.app, opened.infra, opts.read_plan(plan, opened.app, opened.infra,
                                                    same_instance=not ignore_names)

