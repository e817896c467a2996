"""``streamplace``: the commands of cli.md. Thin layer over the library; Rich on stderr."""

from __future__ import annotations

import enum
import sys
import time
from dataclasses import asdict
from pathlib import Path
from typing import Annotated

import typer

from streamplace import __version__
from streamplace.cli.console import console, handle_errors
from streamplace.cli.options import build_objective, parse_limit, parse_solver_options
from streamplace.cli.progress import live_progress, reading_progress
from streamplace.cli.render import (
    render_checks,
    render_comparison,
    render_evaluation,
    render_explanation,
    render_methods,
    render_solve,
)
from streamplace.errors import InputError
from streamplace.io.junit import write_junit
from streamplace.io.readers import read_instance, read_plan_for
from streamplace.io.schema import json_schema
from streamplace.io.writers import (
    atomic_write,
    csv_text,
    dumps,
    format_for,
    json_text,
    plan_document,
)
from streamplace.model.evaluate import evaluate
from streamplace.model.explain import explain
from streamplace.model.network import Network
from streamplace.model.validation import Thresholds, run_checks
from streamplace.solve import Instance, SolveOptions, SolveStatus, get_method
from streamplace.solve.compare import attempt, compare_rows
from streamplace.solve.registry import methods as registered_methods

app = typer.Typer(
    name="streamplace",
    help="Decide where the operators of a stream-processing application run, and how many "
         "replicas each needs.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
    rich_markup_mode=None,
)

AppArg = Annotated[str, typer.Argument(metavar="APP",
                                       help="Application file (YAML/JSON, - = stdin).")]
InfraArg = Annotated[str, typer.Argument(metavar="INFRA", help="Infrastructure file.")]
PlanArg = Annotated[str, typer.Argument(metavar="PLAN", help="Plan file.")]
ObjectiveOpt = Annotated[str | None, typer.Option("--objective", help="Objective file.")]
WeightsOpt = Annotated[str | None, typer.Option(
    "--weights", help="SAW weights r=..,a=..,c=..,z=.. (override the objective file's).")]
MetricOpt = Annotated[str | None, typer.Option(
    "--network-metric", help="traffic | network_usage | elastic_energy.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON document on stdout.")]
QuietOpt = Annotated[bool, typer.Option("--quiet", "-q", help="No tables on stderr.")]


class SchemaKind(enum.StrEnum):
    application = "application"
    infrastructure = "infrastructure"
    plan = "plan"
    objective = "objective"


def _version(value: bool) -> None:
    if value:
        print(f"streamplace {__version__}")
        raise typer.Exit(0)


@app.callback()
def _root(version: Annotated[bool, typer.Option(
        "--version", callback=_version, is_eager=True, help="Print the version.")] = False,
) -> None:
    """streamplace: operator replication and placement for stream processing."""


def _same_file(a: str, b: str) -> bool:
    return a != "-" and b != "-" and Path(a).resolve() == Path(b).resolve()


def _guard_output(output: str | None, *inputs: str | None) -> None:
    """Never write over an input: nothing the user had is lost."""
    for source in inputs:
        if output and source and _same_file(output, source):
            raise InputError.single(f"output {output!r} is also an input",
                                    "write to another file", path="output")


class OutputFormat(enum.StrEnum):
    yaml = "yaml"
    json = "json"


@app.command("solve")
@handle_errors
def solve_cmd(
    application: AppArg, infrastructure: InfraArg,
    method: Annotated[str, typer.Option("--method", "-m", help="A method of `streamplace "
                                        "methods`.")] = "odrp",
    objective: ObjectiveOpt = None, weights: WeightsOpt = None, network_metric: MetricOpt = None,
    formulation: Annotated[str, typer.Option(
        help="ILP form for odrp/odp: compact (default) or multiset (the paper's eqs. 21-32).",
    )] = "compact",
    solver: Annotated[str, typer.Option(help="MIP solver: highs (in-process) or cbc.")] = "highs",
    time_limit: Annotated[float | None, typer.Option(
        help="Seconds; the incumbent is written with status time_limit.")] = None,
    gap: Annotated[float | None, typer.Option(
        help="Relative gap at which a MIP counts as optimal (default 1e-6).")] = None,
    seed: Annotated[int, typer.Option(help="Random seed (same seed, same plan).")] = 0,
    threads: Annotated[int | None, typer.Option(help="Solver threads.")] = None,
    start: Annotated[str | None, typer.Option(help="A plan to start from (MIP start).")] = None,
    solver_option: Annotated[list[str] | None, typer.Option(
        "--solver-option", help="A HiGHS option as name=value (repeatable), e.g. "
                                "mip_pscost_minreliable=0.")] = None,
    output: Annotated[str | None, typer.Option("-o", "--output", help="Write the plan here "
                                               "(default: stdout).")] = None,
    format_: Annotated[OutputFormat | None, typer.Option(
        "--format", help="Plan format (default: from -o's extension, else yaml).")] = None,
    json_: JsonOpt = False, quiet: QuietOpt = False,
) -> None:
    """Solve: choose replicas and nodes for every operator, write the plan."""
    _guard_output(output, application, infrastructure, objective, start)
    app_, infra = read_instance(application, infrastructure)
    objective_ = build_objective(objective, weights, network_metric)
    info = get_method(method)
    extra: dict[str, object] = {"formulation": formulation, "solver": solver,
                                "solver_options": parse_solver_options(solver_option or [])}
    if start:
        extra["start"] = read_plan_for(start, app_, infra)
    con = console()
    with live_progress(con, method, enabled=not quiet) as progress:
        if progress is not None:
            extra["progress"] = progress
        result = info.solve(Instance(app_, infra, objective_),
                            SolveOptions(time_limit=time_limit, gap=gap, seed=seed,
                                         threads=threads, extra=extra))
    ev = result.evaluation
    if not quiet:
        render_solve(con, result, ev, Network(infra).processors, tree=info.model == "benoit")
    document = plan_document(result.plan, ev) if result.plan is not None else None
    if document is not None:
        fmt_ = format_for(output, format_.value if format_ else None)
        if output:
            atomic_write(output, dumps(document, fmt_))
            if not quiet:
                con.print(f"plan written to {output}")
        elif not json_:
            sys.stdout.write(dumps(document, fmt_))
    if json_:
        sys.stdout.write(json_text({
            "command": "solve", "method": result.method, "status": result.status.value,
            "objective": result.objective, "bound": result.bound, "gap": result.gap,
            "seconds": result.seconds, "message": result.message,
            "metrics": ev.metrics() if ev else None, "plan": document}))
    if result.status == SolveStatus.INFEASIBLE:
        for reason in result.reasons or (result.message,):
            con.print(f"[bold red]infeasible:[/] {reason}")
        raise typer.Exit(1)
    if result.plan is None:
        con.print(f"[bold red]no plan:[/] {result.message or result.status.value}")
        raise typer.Exit(3)


DEFAULT_COMPARE = "odrp,odp,resource-aware,first-fit-decreasing,round-robin"


@app.command("compare")
@handle_errors
def compare_cmd(
    application: AppArg, infrastructure: InfraArg,
    methods_: Annotated[str, typer.Option("--methods", help="Comma-separated methods.")] =
    DEFAULT_COMPARE,
    objective: ObjectiveOpt = None, weights: WeightsOpt = None, network_metric: MetricOpt = None,
    time_limit: Annotated[float | None, typer.Option(help="Seconds per method.")] = None,
    seed: Annotated[int, typer.Option(help="Random seed for every method.")] = 0,
    csv: Annotated[str | None, typer.Option("--csv", help="Also write the table as CSV.")] =
    None,
    json_: JsonOpt = False,
) -> None:
    """Run several methods and show one table: every metric, time, status, gap to the bound."""
    _guard_output(csv, application, infrastructure, objective)
    app_, infra = read_instance(application, infrastructure)
    objective_ = build_objective(objective, weights, network_metric)
    names = [m.strip() for m in methods_.split(",") if m.strip()]
    infos = [get_method(name) for name in names]  # unknown names fail before any work
    instance = Instance(app_, infra, objective_)
    results = []
    con = console()
    for info in infos:
        with live_progress(con, info.name, enabled=True) as progress:
            extra: dict[str, object] = {"progress": progress} if progress else {}
            results.append(attempt(info, instance, SolveOptions(
                time_limit=time_limit, seed=seed, extra=extra)))
    rows = compare_rows(results, infos)
    if csv:
        atomic_write(csv, csv_text(rows))
    if json_:
        sys.stdout.write(json_text([r.values for r in rows]))
    render_comparison(con, rows, f"{app_.name} on {infra.name}")
    if not any(r.plan is not None for r in results):
        raise typer.Exit(3)


@app.command("evaluate")
@handle_errors
def evaluate_cmd(application: AppArg, infrastructure: InfraArg, plan: PlanArg,
                 objective: ObjectiveOpt = None, weights: WeightsOpt = None,
                 network_metric: MetricOpt = None, json_: JsonOpt = False,
                 quiet: QuietOpt = False) -> None:
    """Compute every metric of PLAN and every constraint it violates."""
    app_, infra = read_instance(application, infrastructure)
    plan_ = read_plan_for(plan, app_, infra)
    objective_ = build_objective(objective, weights, network_metric)
    ev = evaluate(app_, infra, plan_, objective_)
    if not quiet:
        render_evaluation(console(), ev, f"{app_.name} on {infra.name}: plan {plan}")
    if json_:
        sys.stdout.write(json_text({
            "command": "evaluate", "application": app_.name, "infrastructure": infra.name,
            "feasible": ev.feasible, "complete": ev.complete, "metrics": ev.metrics(),
            "violations": [v.__dict__ for v in ev.violations], "warnings": ev.warnings,
            "evaluation": ev.to_dict(), "plan": plan_document(plan_, ev)}))


@app.command("validate")
@handle_errors
def validate_cmd(
    application: AppArg, infrastructure: InfraArg, plan: PlanArg,
    max_response_time: Annotated[str | None, typer.Option(
        help="Fail when R exceeds this (seconds, or e.g. '200 ms').")] = None,
    min_availability: Annotated[str | None, typer.Option(
        help="Fail when A is below this (0-1).")] = None,
    max_cost: Annotated[str | None, typer.Option(help="Fail when C exceeds this.")] = None,
    max_traffic: Annotated[str | None, typer.Option(
        help="Fail when T exceeds this (bytes/s, or e.g. '2 MB/s').")] = None,
    junit_xml: Annotated[str | None, typer.Option(
        "--junit-xml", help="Write the checks as JUnit XML for CI systems.")] = None,
    objective: ObjectiveOpt = None, json_: JsonOpt = False, quiet: QuietOpt = False,
) -> None:
    """Check PLAN: every constraint, plus thresholds. Exit 0 if all pass, 1 if any fails."""
    started = time.perf_counter()
    _guard_output(junit_xml, application, infrastructure, plan, objective)
    thresholds = Thresholds(
        max_response_time=parse_limit(max_response_time, "--max-response-time", "time"),
        min_availability=parse_limit(min_availability, "--min-availability", "plain"),
        max_cost=parse_limit(max_cost, "--max-cost", "money"),
        max_traffic=parse_limit(max_traffic, "--max-traffic", "bandwidth"),
    )
    app_, infra = read_instance(application, infrastructure)
    plan_ = read_plan_for(plan, app_, infra)
    ev = evaluate(app_, infra, plan_, build_objective(objective, None, None))
    checks = run_checks(ev, thresholds, plan_.method)
    passed = all(c.passed for c in checks)
    if junit_xml:
        write_junit(junit_xml, checks, f"streamplace validate {Path(plan).name}",
                    time.perf_counter() - started)
    if not quiet:
        con = console()
        con.print(f"[bold]{app_.name} on {infra.name}: validate {plan}[/]")
        render_checks(con, checks)
        for w in ev.warnings:
            con.print(f"[yellow]warning:[/] {w}")
    if json_:
        sys.stdout.write(json_text({
            "command": "validate", "passed": passed, "metrics": ev.metrics(),
            "checks": [c.__dict__ for c in checks],
            "violations": [v.__dict__ for v in ev.violations], "warnings": ev.warnings}))
    raise typer.Exit(0 if passed else 1)


@app.command("explain")
@handle_errors
def explain_cmd(application: AppArg, infrastructure: InfraArg, plan: PlanArg,
                objective: ObjectiveOpt = None, weights: WeightsOpt = None,
                network_metric: MetricOpt = None, json_: JsonOpt = False) -> None:
    """Why this plan: objective by term and operator, binding constraints, what-if moves."""
    app_, infra = read_instance(application, infrastructure)
    plan_ = read_plan_for(plan, app_, infra)
    ex = explain(app_, infra, plan_, build_objective(objective, weights, network_metric))
    if json_:
        sys.stdout.write(json_text({
            "command": "explain", "metrics": ex.evaluation.metrics(),
            "utility": asdict(ex.evaluation.utility) if ex.evaluation.utility else None,
            "critical_path": ex.evaluation.odrp.critical_path if ex.evaluation.odrp else None,
            "operators": [asdict(o) for o in ex.operators],
            "binding": [asdict(b) for b in ex.binding],
            "what_if": [asdict(w) for w in ex.what_if], "notes": ex.notes,
            "violations": [asdict(v) for v in ex.evaluation.violations]}))
    else:
        render_explanation(console(), ex, f"{app_.name} on {infra.name}: why {plan}")


class Engine(enum.StrEnum):
    spark = "spark"
    python = "python"


@app.command("extract")
@handle_errors
def extract_cmd(
    eventlogs: Annotated[list[str], typer.Argument(
        metavar="EVENTLOG...", help="Event log files, rolling eventlog_v2_* directories or "
                                    "folders of logs (spark.eventLog.dir).")],
    output: Annotated[str | None, typer.Option(
        "-o", "--output", help="Write the application here (default: stdout).")] = None,
    infrastructure_out: Annotated[str | None, typer.Option(
        "--infrastructure-out", help="Write an infrastructure skeleton here: one processor "
                                     "per executor host, resources = cores.")] = None,
    master: Annotated[str | None, typer.Option(
        help="Spark master to read on (default: the spark-submit one, else local[*]).")] = None,
    app_id: Annotated[str | None, typer.Option(
        "--app-id", help="Which application, when the paths hold several.")] = None,
    engine: Annotated[Engine, typer.Option(
        help="spark: read on Spark (default); python: in this process, no JVM.")] = Engine.spark,
    format_: Annotated[OutputFormat | None, typer.Option(
        "--format", help="Output format (default: from -o's extension, else yaml).")] = None,
    json_: JsonOpt = False, quiet: QuietOpt = False,
) -> None:
    """Extract: an application (and infrastructure skeleton) from Spark event logs."""
    from streamplace.cli.render_extract import render_extraction
    from streamplace.io.eventlog import extract

    _guard_output(output, *eventlogs)
    _guard_output(infrastructure_out, *eventlogs, output)
    con = console()
    with reading_progress(con, "reading event log", enabled=not quiet) as progress:
        result = extract(eventlogs, app_id=app_id, master=master, engine=engine.value,
                         progress=progress)
    application, infrastructure = result.application_document(), \
        result.infrastructure_document()
    if not quiet:
        render_extraction(con, result)
    fmt_ = format_for(output, format_.value if format_ else None)
    if infrastructure_out:
        atomic_write(infrastructure_out,
                     dumps(infrastructure, format_for(infrastructure_out,
                                                      format_.value if format_ else None)))
        if not quiet:
            con.print(f"infrastructure skeleton written to {infrastructure_out}")
    if output:
        atomic_write(output, dumps(application, fmt_))
        if not quiet:
            con.print(f"application written to {output}")
    if json_:
        print(json_text({"status": "ok", "application": application,
                         "infrastructure": infrastructure, "report": result.report()}))
    elif not output:
        sys.stdout.write(dumps(application, fmt_))


@app.command("schema")
@handle_errors
def schema_cmd(kind: Annotated[SchemaKind, typer.Argument(help="Which file kind.")]) -> None:
    """Print the JSON Schema of a file kind on stdout."""
    sys.stdout.write(json_text(json_schema(kind.value)))


@app.command("methods")
@handle_errors
def methods_cmd(json_: JsonOpt = False) -> None:
    """List every method: its model, exact or heuristic, and its options."""
    infos = registered_methods()
    if json_:
        sys.stdout.write(json_text([
            {"name": m.name, "model": m.model, "exact": m.exact, "summary": m.summary,
             "options": list(m.options), "cycles": m.cycles, "replication": m.replication,
             "trees": m.trees} for m in infos]))
    else:
        render_methods(console(), infos)


def main() -> None:
    app(prog_name="streamplace")
