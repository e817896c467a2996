"""``streamplace autoscale``: the loop of :mod:`streamplace.control.autoscale` on a running
Flink job, each decision one JSON line on standard output. This module parses the options
(defined once, in ``control/autoscale/options.py``), runs the loop and renders its lines."""

from __future__ import annotations

import contextlib
import functools
import sys
from collections.abc import Callable, Iterator
from dataclasses import fields
from typing import Annotated, Any

import typer
from rich.markup import escape

from streamplace.cli import options as opts
from streamplace.cli.args import MetricOpt, ObjectiveOpt, QuietOpt
from streamplace.cli.console import console, handle_errors
from streamplace.cli.job_args import (
    CacertOpt,
    CertOpt,
    InsecureOpt,
    KeyOpt,
    SourceRateOpt,
    YesOpt,
    confirm,
    connect,
    parse_rates,
)
from streamplace.cli.runtime import signal_exit_code, stop_on_signals
from streamplace.control.autoscale.cluster import ClusterAutoscaler
from streamplace.control.autoscale.handover import bounded, flink_configuration, handed_over
from streamplace.control.autoscale.loop import Autoscaler
from streamplace.control.autoscale.options import AUTOSCALE_WEIGHTS, AutoscaleOptions
from streamplace.control.autoscale.settings import SETTINGS
from streamplace.control.clock import SystemClock
from streamplace.control.flink.cluster import cluster_address
from streamplace.control.flink.engine import FlinkCluster, FlinkEngine
from streamplace.control.flink.rescale import JobAddress
from streamplace.control.flink.slices import slices_over
from streamplace.errors import InputError
from streamplace.io.readers import read_document
from streamplace.io.state import read_state, state_lock, write_state
from streamplace.model.bundle import MODES_HELP, BundleMode
from streamplace.model.decision import Decision
from streamplace.model.forecast import ForecastFile
from streamplace.model.jobs import JobsFile
from streamplace.model.metrics import Metric
from streamplace.solve.budget import StopRequest

_D = AutoscaleOptions()
_WEIGHTS = ",".join(f"{term}={w:g}" for term, w in AUTOSCALE_WEIGHTS.model_dump().items() if w)


def _opt(key: str) -> Any:
    s = SETTINGS[key]
    return typer.Option(s.flag, *s.aliases,
                        help=s.help + (f" ({s.flink_key})" if s.flink_key else ""))


@handle_errors
def autoscale_command(
    ctx: typer.Context,
    job: Annotated[str, typer.Argument(
        metavar="JOB", help="The running job (http://JOBMANAGER:8081/jobs/JOBID), or a "
        "session cluster's JobManager (http://JOBMANAGER:8081): every job on it.")],
    method: Annotated[str, _opt("method")] = _D.method,
    utilization_target: Annotated[float, _opt("utilization_target")] = _D.utilization_target,
    utilization_min: Annotated[float | None, _opt("utilization_min")] = None,
    utilization_max: Annotated[float | None, _opt("utilization_max")] = None,
    metrics_window: Annotated[float, _opt("metrics_window")] = _D.metrics_window,
    stabilization_interval: Annotated[float, _opt("stabilization_interval")] =
    _D.stabilization_interval,
    scale_down_interval: Annotated[float, _opt("scale_down_interval")] =
    _D.scale_down_interval,
    catch_up_duration: Annotated[float, _opt("catch_up_duration")] = _D.catch_up_duration,
    restart_time: Annotated[float | None, _opt("restart_time")] = None,
    backlog_processing_lag_threshold: Annotated[
        float, _opt("backlog_processing_lag_threshold")] = _D.backlog_processing_lag_threshold,
    scale_up_max_factor: Annotated[float, _opt("scale_up_max_factor")] =
    _D.scale_up_max_factor,
    scale_down_max_factor: Annotated[float, _opt("scale_down_max_factor")] =
    _D.scale_down_max_factor,
    vertex_min_parallelism: Annotated[int, _opt("vertex_min_parallelism")] =
    _D.vertex_min_parallelism,
    vertex_max_parallelism: Annotated[int, _opt("vertex_max_parallelism")] =
    _D.vertex_max_parallelism,
    vertex_exclude_ids: Annotated[list[str] | None, _opt("vertex_exclude_ids")] = None,
    scaling_effectiveness_threshold: Annotated[
        float, _opt("scaling_effectiveness_threshold")] = _D.scaling_effectiveness_threshold,
    scaling_effectiveness_detection_enabled: Annotated[
        bool, _opt("scaling_effectiveness_detection_enabled")] = False,
    memory_gc_pressure_threshold: Annotated[
        float, _opt("memory_gc_pressure_threshold")] = _D.memory_gc_pressure_threshold,
    memory_heap_usage_threshold: Annotated[
        float, _opt("memory_heap_usage_threshold")] = _D.memory_heap_usage_threshold,
    scaling_parallelism_alignment_mode: Annotated[
        str, _opt("scaling_parallelism_alignment_mode")] =
    _D.scaling_parallelism_alignment_mode,
    min_improvement: Annotated[float, _opt("min_improvement")] = _D.min_improvement,
    max_steps: Annotated[int | None, _opt("max_steps")] = None,
    metrics_busy_time_aggregator: Annotated[
        str, _opt("metrics_busy_time_aggregator")] = _D.metrics_busy_time_aggregator,
    until: Annotated[float | None, _opt("until")] = None,
    objective: ObjectiveOpt = None, weights: Annotated[str | None, typer.Option(
        "--weights", help="odrp: the weights of F, e.g. cost=1 (default: slots first, "
                          f"{_WEIGHTS}).")] = None,
    network_metric: MetricOpt = None, source_rate: SourceRateOpt = None,
    max_moves: Annotated[float | None, _opt("max_moves")] = None,
    max_response_time: Annotated[str | None, _opt("max_response_time")] = None,
    response_time_statistic: Annotated[
        str, _opt("response_time_statistic")] = _D.response_time_statistic,
    replan_time_limit: Annotated[float, _opt("replan_time_limit")] = _D.replan_time_limit,
    dry_run: Annotated[bool, typer.Option(
        "--dry-run", help="Decide, but send nothing.")] = False,
    yes: YesOpt = False, wait: Annotated[float, _opt("wait")] = _D.wait,
    state: Annotated[str | None, _opt("state")] = None,
    horizon: Annotated[int, _opt("horizon")] = _D.horizon,
    season: Annotated[float | None, _opt("season")] = None,
    forecast: Annotated[str | None, _opt("forecast")] = None,
    max_rescales: Annotated[str | None, _opt("max_rescales")] = None,
    forecast_max_error: Annotated[float, _opt("forecast_max_error")] = _D.forecast_max_error,
    flink_config: Annotated[str | None, typer.Option(
        "--flink-config", help="A Flink configuration whose job.autoscaler.* keys set the "
        "options not given here (a flink-conf.yaml or config.yaml; 'cluster': the job's "
        "JobManager's).")] = None,
    jobs: Annotated[str | None, typer.Option(
        "--jobs", help="With a JobManager's address (every job of a session cluster): each "
        "job's weight and priority, by name (a streamplace/jobs/v1 file).")] = None,
    bundle: Annotated[BundleMode, typer.Option(
        help="With a JobManager's address, how odrp places the jobs together: "
        f"{MODES_HELP}.")] = BundleMode.JOINT,
    metrics_port: Annotated[int | None, typer.Option(
        "--metrics-port", min=0, max=65535, help="Serve Prometheus metrics on this port "
        "(/metrics; 0: any free port, said on stderr) and /healthz, which fails once the "
        "readings stop.")] = None,
    metrics_host: Annotated[str, typer.Option(
        "--metrics-host", help="The address --metrics-port listens on.")] = "0.0.0.0",
    events: Annotated[str | None, typer.Option(
        "--events", help="Append each rescale (a dry run: its recommendation) to this file "
        "as a JSON line in the shape of the Flink operator's ScalingReport event.")] = None,
    quiet: QuietOpt = False,
    cacert: CacertOpt = None, cert: CertOpt = None, key: KeyOpt = None,
    insecure: InsecureOpt = False,
) -> None:
    """Autoscale: observe, re-plan and apply, step by step, on a running Flink job, or on
    every job of a session cluster at once (JOB: http://JOBMANAGER:8081); one JSON line per
    decision."""
    connect(cacert, cert, key, insecure)
    # every option is a parameter of the same name (options.py defines them once)
    chosen: dict[str, Any] = {f.name: ctx.params[f.name] for f in fields(AutoscaleOptions)}
    chosen["vertex_exclude_ids"] = tuple(vertex_exclude_ids or ())
    # read as solve reads it (200ms, 0.2s, 0.2): one name, one meaning
    chosen["max_response_time"] = opts.read_limits({Metric.RESPONSE_TIME: max_response_time}
                                                   ).bounds.get(Metric.RESPONSE_TIME)
    cluster = cluster_address(job)
    if cluster is None:
        JobAddress.parse(job)  # a live job's address, checked before anything is read
    clock, stop = SystemClock(), StopRequest()
    engine = FlinkCluster(cluster, clock, stop) if cluster is not None else \
        FlinkEngine(job, clock, stop)
    if flink_config is not None:
        _hand_over(ctx, chosen, flink_configuration(flink_config, engine.configuration),
                   flink_config)
    options = AutoscaleOptions(**bounded(chosen)).checked()
    if options.max_response_time is not None:  # each service's c_s^2 for (L3)'s queues
        engine.slices = slices_over(options.metrics_window)
    rates = parse_rates(source_rate)
    goal = opts.build_objective(objective, weights, network_metric)
    if objective is None and weights is None:  # slots first, unless the user weighs
        goal = goal.model_copy(update={"weights": AUTOSCALE_WEIGHTS})
    if not dry_run:
        confirm(yes)
    if cluster is None and jobs is not None:
        raise InputError.single("--jobs weighs the jobs of a session cluster", "give the "
                                "JobManager's address (http://JOBMANAGER:8081) as JOB, or "
                                "drop --jobs", path="--jobs")
    if isinstance(engine, FlinkCluster):
        _for_one_job_only(source_rate=source_rate, horizon=horizon)
        terms = read_document(JobsFile, jobs) if jobs else JobsFile()
    known = read_document(ForecastFile, forecast) if forecast else None
    with stop_on_signals(stop), state_lock(state) if state else contextlib.nullcontext(), \
            _service(options, clock, metrics_port, metrics_host, events) as service:
        kept = keep = None
        if state is not None:
            kept = read_state(state, engine.address)
            write_state(state, kept)  # unwritable: said now, with nothing sent
            keep = functools.partial(write_state, state)
        if isinstance(engine, FlinkCluster):
            ClusterAutoscaler(engine, options, goal, terms, clock, bundle, stop, state=kept,
                              keep=keep).run(lambda d: _say(d, quiet, service))
        else:
            Autoscaler(engine, options, goal, clock, stop, rates, kept, keep,
                       known=known).run(lambda d: _say(d, quiet, service))
    if stop:
        raise typer.Exit(signal_exit_code(stop))


def _hand_over(ctx: typer.Context, chosen: dict[str, Any], config: dict[str, str],
               origin: str) -> None:
    """The options a Flink configuration's job.autoscaler.* keys set, where the command line
    left them at their defaults; each key left out said once."""
    handed, left = handed_over(config, origin)
    for field, value in handed.items():
        given = ctx.get_parameter_source(field) if field in ctx.params else None
        if given is None or given.name == "DEFAULT":
            chosen[field] = value
    for line in left:
        console().print(f"[yellow]warning:[/] {escape(line)}")


def _for_one_job_only(**given: Any) -> None:
    """Options that speak of one job, refused with a cluster's address."""
    for name, value in given.items():
        if value:
            flag = "--" + name.replace("_", "-")
            raise InputError.single(f"{flag} speaks of one job, and JOB is a session "
                                    "cluster", "autoscale the job alone "
                                    f"(http://JOBMANAGER:8081/jobs/JOBID) to use {flag}",
                                    path=flag)


@contextlib.contextmanager
def _service(options: AutoscaleOptions, clock: SystemClock, port: int | None, host: str,
             events: str | None) -> Iterator[list[Callable[[Decision], None]]]:
    """What each line is handed to beside standard output: the metrics served on ``port``
    and the events file; both opened before the loop reads anything (a port taken, a file
    that cannot be written: bad input, nothing sent)."""
    handed: list[Callable[[Decision], None]] = []
    with contextlib.ExitStack() as stack:
        if port is not None:
            from streamplace.control.autoscale.loop import MISSED
            from streamplace.control.service.metrics import LoopMetrics
            from streamplace.control.service.server import serve

            # a reading is due every window and stabilisation; a rescale may wait --wait
            stale = (MISSED + 1) * (options.metrics_window + options.stabilization_interval) \
                + options.wait
            metrics = LoopMetrics(clock, stale)
            server, address = serve(metrics, host, port)
            stack.callback(server.shutdown)
            # on stderr, flushed, whatever --quiet: the line a supervisor or a test waits for
            print(f"serving metrics on {address}/metrics, health on {address}/healthz",
                  file=sys.stderr, flush=True)
            handed.append(metrics.observe)
        if events is not None:
            from streamplace.control.service.events import append_reports

            try:
                handle = stack.enter_context(open(events, "a", encoding="utf-8"))
            except OSError as exc:
                raise InputError.single(f"cannot write the events: {exc.strerror}",
                                        "give --events a file autoscale may write",
                                        file=events, path="--events") from None
            handed.append(functools.partial(append_reports, handle))
        yield handed


def _say(decision: Decision, quiet: bool,
         service: list[Callable[[Decision], None]] | None = None) -> None:
    for hand in service or []:  # first: a scrape after the line has counted it
        hand(decision)
    print(decision.line(), flush=True)
    if not quiet and decision.jobs:
        console().print(f"step {decision.step or '-'}: [bold]{decision.decision}[/] "
                        f"({escape('; '.join(decision.why))})")
        for name, part in decision.jobs.items():
            _said(part, f"  {escape(name)}")
    elif not quiet:
        _said(decision, f"step {decision.step or '-'}")


def _said(decision: Decision, label: str) -> None:
    moved = {op: f"{decision.from_[op]}->{k}" for op, k in decision.to.items()
             if decision.from_.get(op) != k}
    console().print(f"{label}: [bold]{decision.decision}[/] "
                    f"{escape(str(moved) if moved else '')} "
                    f"({escape('; '.join(decision.why))})")
