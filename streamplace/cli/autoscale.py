"""``streamplace autoscale``: observe a running Flink job, re-plan it, apply the plan, and
again, each decision one JSON line on standard output.

A step: wait the stabilisation interval (after the start, and after each rescale), read the
job's counters over the metrics window, decide. The job is rescaled only when a vertex is
back-pressured or its busy share leaves target ± boundary (the Flink autoscaler's rule), or
when the re-plan improves F by more than ``--min-improvement``; the new plan comes from
``solve --current`` (odrp, every limit of solve) or from DS2's rule (``--method ds2``).
SIGINT and SIGTERM are taken between phases: a rescale under way is waited for, then the
loop ends with a last line saying why (exit 130 / 143).
"""

from __future__ import annotations

import json
import math
import time
from typing import Annotated, Any

import typer
from rich.markup import escape

from streamplace.cli import options as opts
from streamplace.cli.apply import WaitOpt, YesOpt, confirm, prepare
from streamplace.cli.args import MaxMovesOpt, MetricOpt, ObjectiveOpt, QuietOpt
from streamplace.cli.console import console, handle_errors
from streamplace.cli.flink_args import SourceRateOpt, check_window, parse_rates, read_job
from streamplace.cli.runtime import signal_exit_code, stop_on_signals
from streamplace.errors import EngineError, InputError, Problem
from streamplace.io.engines.flink_control import WAIT
from streamplace.io.engines.flink_documents import documents, other_jobs
from streamplace.io.engines.flink_observe import Observation
from streamplace.io.readers import application_from, infrastructure_from, plan_from
from streamplace.model.application import Application
from streamplace.model.evaluate import evaluate
from streamplace.model.infrastructure import Infrastructure
from streamplace.model.objective import Objective
from streamplace.model.occupied import HeldBy, beside
from streamplace.model.plan import Plan
from streamplace.model.reconfiguration import Current
from streamplace.model.scaling import Seen, ds2, predicted, spread, triggers
from streamplace.solve import Instance, SolveOptions
from streamplace.solve.budget import StopRequest
from streamplace.solve.registry import applicable

METHODS = ("odrp", "ds2")
AUTOSCALE_WEIGHTS = "cost=0.9,response_time=0.05,availability=0.05"
"""Slots first: an observed replica costs its one slot, so that F lands at the target
utilisation with the fewest slots, as the Flink autoscaler does; response time and
availability choose among such plans (solve's balanced weights spend free slots on
response time instead)."""


@handle_errors
def autoscale_command(
    job: Annotated[str, typer.Argument(metavar="JOB", help="The running job: "
                                       "http://JOBMANAGER:8081/jobs/JOBID.")],
    method: Annotated[str, typer.Option("--method", "-m", help="odrp (re-plan with solve "
                                        "--current) or ds2 (DS2's rule).")] = "odrp",
    target_utilization: Annotated[float, typer.Option(
        "--target-utilization", help="The busy share each vertex is planned at "
                                     "(job.autoscaler.target.utilization).")] = 0.7,
    boundary: Annotated[float, typer.Option(
        "--target-utilization-boundary", help="Act when a busy share leaves target +- this "
                                              "(job.autoscaler.target.utilization.boundary)."
                                              )] = 0.3,
    metrics_window: Annotated[float, typer.Option(
        "--metrics-window", help="Seconds of counters each decision reads "
                                 "(job.autoscaler.metrics.window).")] = 60.0,
    stabilization: Annotated[float, typer.Option(
        "--stabilization-interval", help="Seconds to let the job settle after a start or a "
                                         "rescale before a window begins "
                                         "(job.autoscaler.stabilization.interval).")] = 30.0,
    min_improvement: Annotated[float, typer.Option(
        "--min-improvement", help="odrp: rescale a job that is within its boundary when F "
                                  "improves by more than this.")] = 0.05,
    max_steps: Annotated[int, typer.Option("--max-steps", help="Decisions to make, at "
                                           "most.")] = 10,
    until: Annotated[float | None, typer.Option(
        "--until", help="Seconds after which no step begins.")] = None,
    objective: ObjectiveOpt = None, weights: Annotated[str | None, typer.Option(
        "--weights", help="odrp: the weights of F, e.g. cost=1 (default: slots first, "
                          f"{AUTOSCALE_WEIGHTS}).")] = None,
    network_metric: MetricOpt = None,
    source_rate: SourceRateOpt = None, max_moves: MaxMovesOpt = None,
    time_limit: Annotated[float, typer.Option(
        "--time-limit", help="Seconds for each re-plan (odrp).")] = 20.0,
    dry_run: Annotated[bool, typer.Option(
        "--dry-run", help="Decide, but send nothing.")] = False,
    yes: YesOpt = False, wait: WaitOpt = WAIT, quiet: QuietOpt = False,
) -> None:
    """Autoscale: observe, re-plan and apply, step by step, on a running Flink job; one
    JSON line per decision."""
    _check(method, target_utilization, boundary, metrics_window, stabilization, max_steps,
           until, time_limit, min_improvement, max_moves)
    rates = parse_rates(source_rate)
    goal = opts.build_objective(objective, weights or (None if objective else AUTOSCALE_WEIGHTS),
                                network_metric)
    if not dry_run:
        confirm(yes)
    started = time.monotonic()
    stop = StopRequest()
    with stop_on_signals(stop):
        pause = stabilization
        planned: dict[str, Any] | None = None  # the running plan's prediction, when ours
        for step in range(1, max_steps + 1):
            if until is not None and time.monotonic() - started >= until:
                break
            if _sleep(pause, stop):
                break
            line = _step(step, job, method, goal, rates, target_utilization, boundary,
                         metrics_window, min_improvement, max_moves, time_limit, dry_run,
                         wait, stop)
            line["seconds"] = round(time.monotonic() - started, 1)
            line["planned"] = planned
            if line["decision"] == "rescale":
                planned = line["predicted"]
            _say(line, quiet)
            if stop:
                break
            pause = stabilization if line["decision"] == "rescale" or not line["from"] \
                else 0.0
    if stop:
        _say({"decision": "stopped", "why": [f"signal {stop.signum}"],
              "seconds": round(time.monotonic() - started, 1)}, quiet)
        raise typer.Exit(signal_exit_code(stop))


def _step(step: int, job: str, method: str, goal: Objective, rates: dict[str, float],
          target: float,
          boundary: float, window: float, min_improvement: float, max_moves: float | None,
          time_limit: float, dry_run: bool, wait: float, stop: StopRequest) -> dict[str, Any]:
    try:
        snapshot, obs = read_job(job, window, rates, load=True)
    except EngineError as exc:  # restarted or rescaled during the window: read again
        return {"step": step, "method": method, "decision": "no change", "from": {},
                "why": [f"no reading: {exc}"]}
    app, infra, now, others = _instance(obs, target, snapshot.get("load"))
    running = {op: sum(now.replicas(op).values()) for op in app.operator_ids}
    seen = [Seen(v.op, v.parallelism, v.busy, v.pressed, v.source) for v in obs.vertices]
    line: dict[str, Any] = {
        "step": step, "method": method, "window": obs.window,
        "seen": {v.op: {"parallelism": v.parallelism, "busy": _round(v.busy),
                        "busy_max": _round(max(v.window.busy)) if v.window else None,
                        "backpressured": _round(v.pressed),
                        "records_in": _round(v.meter("numRecordsInPerSecond")),
                        "records_out": _round(v.meter("numRecordsOutPerSecond")),
                        "service_rate": _round(v.service_rate)} for v in obs.vertices},
        "offered": "given" if rates else "observed (a lower bound under backpressure)",
        "occupied": {held.name: _slots(held) for held in others},
        "warnings": obs.warnings}
    why = triggers(seen, target, boundary)
    if method == "ds2":
        plan = spread(app, infra, ds2(app, running, target)) if why else None
    else:
        plan, why = _replan(app, infra, now, goal, why, max_moves, time_limit,
                            min_improvement, stop, line)
    wanted = {op: sum(plan.replicas(op).values()) for op in app.operator_ids} if plan \
        else running
    line |= {"from": running, "to": wanted, "why": why or [
        f"every vertex is busy within {target:g} +- {boundary:g}, none back-pressured"],
        "predicted": predicted(app, infra, plan or now)}
    if plan is None or wanted == running or stop:
        line["decision"] = "no change"
        if why and wanted == running:
            line["why"] = [*why, "the plan it makes is what runs"]
        return line
    if dry_run:
        line["decision"] = "dry run"
        return line
    change = prepare(job, app, infra, plan, "<re-plan>")
    line["seconds_to_rescale"] = round(change.send(wait), 1)
    line["decision"] = "rescale"
    return line


def _replan(app: Application, infra: Infrastructure, now: Plan, objective: Objective,
            why: list[str], max_moves: float | None, time_limit: float,
            min_improvement: float, stop: StopRequest,
            line: dict[str, Any]) -> tuple[Plan | None, list[str]]:
    """solve --current on the observed instance; the plan, and why it is taken."""
    current = Current({op: now.replicas(op) for op in app.operator_ids}, max_moves,
                      source="the plan the job runs")
    instance = Instance(app, infra, objective, current, None)
    result = applicable("odrp", instance).solve(instance, SolveOptions(
        time_limit=time_limit, stop=stop))
    # what runs is held to its constraints at full utilisation: between target and the
    # boundary the job is left alone (hysteresis), not re-planned for running above target
    held = evaluate(app.with_target_utilization(1.0), infra, now, objective, current)
    before = held.utility.value if held.utility is not None else None
    line["F"] = {"running": _round(before), "plan": _round(result.objective),
                 "status": result.status.value}
    if result.plan is None:
        return None, [*why, f"no plan: {result.message or result.status.value}"]
    if not why and held.violations:
        why = [f"the running plan breaks {v.message}" for v in held.violations[:3]]
    if not why and before is not None and result.objective is not None and \
            result.objective - before > min_improvement * max(abs(before), 1e-9):
        why = [f"F improves from {before:.4g} to {result.objective:.4g}"]
    return (result.plan if why else None), why


def _instance(obs: Observation, target: float, load: Any,
              ) -> tuple[Application, Infrastructure, Plan, list[HeldBy]]:
    """The observed application, the TaskManagers less the slots the cluster's other jobs
    hold (a session cluster is shared), the plan the job runs, and those other jobs."""
    docs = documents(obs)
    if "plan" not in docs:
        raise InputError.single("where the job's subtasks run is not known (see the "
                                "warnings)", "observe it again once it runs", path="JOB")
    app = application_from(docs["application"], f"<observed {obs.address}>")
    infra = infrastructure_from(docs["infrastructure"], f"<observed {obs.address}>")
    plan = plan_from(docs["plan"], f"<observed {obs.address}>", app, infra)
    try:
        others = other_jobs(obs, load)[1].applications
    except InputError as exc:  # a cluster that does not say which job holds a slot
        obs.warnings.append(f"{exc} — planned as if every slot were this job's")
        others = []
    return app.with_target_utilization(target), beside(infra, others), plan, others


def _slots(held: HeldBy) -> int:
    """The slots a job holds: a slot takes one unit of every dimension of a TaskManager."""
    return int(sum(min(dims.values(), default=0.0) for dims in held.nodes.values()))


def _sleep(seconds: float, stop: StopRequest) -> bool:
    """Sleep, in short naps so that a signal is seen at once; True when one came."""
    ends = time.monotonic() + seconds
    while not stop and time.monotonic() < ends:
        time.sleep(min(0.2, max(0.0, ends - time.monotonic())))
    return bool(stop)


def _say(line: dict[str, Any], quiet: bool) -> None:
    print(json.dumps(line), flush=True)
    if not quiet:
        moved = {op: f"{line['from'][op]}->{k}" for op, k in line.get("to", {}).items()
                 if line["from"].get(op) != k}
        console().print(f"step {line.get('step', '-')}: [bold]{line['decision']}[/] "
                        f"{escape(str(moved) if moved else '')} "
                        f"({escape('; '.join(line.get('why', [])))})")


def _round(value: float | None) -> float | None:
    return None if value is None else float(f"{value:.4g}")


def _check(method: str, target: float, boundary: float, window: float, stabilization: float,
           max_steps: int, until: float | None, time_limit: float,
           min_improvement: float, max_moves: float | None) -> None:
    problems = []
    if method not in METHODS:
        problems.append(("--method", f"{method!r} is not an autoscaling method",
                         f"give one of {', '.join(METHODS)}"))
    if not 0 < target <= 1:
        problems.append(("--target-utilization", f"{target:g} is not in (0, 1]",
                         "give e.g. 0.7"))
    if not 0 <= boundary < 1:
        problems.append(("--target-utilization-boundary", f"{boundary:g} is not in [0, 1)",
                         "give e.g. 0.3"))
    for label, value in (("--stabilization-interval", stabilization),
                         ("--time-limit", time_limit), ("--min-improvement", min_improvement),
                         ("--until", 0.0 if until is None else until),
                         ("--max-moves", 0.0 if max_moves is None else max_moves)):
        if not (math.isfinite(value) and value >= 0):
            problems.append((label, f"{value:g} is not a number >= 0", "give e.g. 30"))
    if max_steps < 1:
        problems.append(("--max-steps", f"{max_steps} is not a count >= 1", "give e.g. 5"))
    if problems:
        raise InputError([Problem(what, fix, path=label) for label, what, fix in problems])
    check_window(window)
