"""``streamplace export``: what an engine takes to run a plan (docs/engines.md)."""

from __future__ import annotations

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
    OutputOpt,
    PlanArg,
    QuietOpt,
    TargetUtilizationOpt,
)
from streamplace.cli.console import handle_errors
from streamplace.cli.emit import EXIT_NO, Emission, check_outputs, emit
from streamplace.cli.job_args import CacertOpt, CertOpt, InsecureOpt, KeyOpt, connect
from streamplace.cli.opening import open_inputs
from streamplace.cli.views.tables import table
from streamplace.control.flink.job import fetch_job, saved_job
from streamplace.errors import InputError
from streamplace.io.engines import Export, ExportOptions, Target, export
from streamplace.io.http import is_url, without_credentials
from streamplace.io.loader import load_path
from streamplace.io.outputs import STDOUT, Output
from streamplace.model.evaluate import evaluate


@handle_errors
def export_command(
    application: AppArg, infrastructure: InfraArg, plan: PlanArg,
    to: Annotated[Target, typer.Option("--to", help="The engine.", case_sensitive=False)],
    artifact: Annotated[str | None, typer.Option(
        "--artifact", help="Which artifact to write (default: the target's first; the "
                           "tables name them all).")] = None,
    output: OutputOpt = None,
    flink_job: Annotated[str | None, typer.Option(
        "--flink-job", help="flink: the JSON of GET /jobs/:jobid, for the job vertex ids: a "
                            "file (or a snapshot of observe --save), or the job's address "
                            "http://JOBMANAGER:8081/jobs/JOBID (then the version comes from "
                            "GET /config).")]
    = None,
    flink_version: Annotated[str | None, typer.Option(
        "--flink-version", help="flink: the cluster's version (e.g. 2.2.1): on 2.x the rest "
                                "body is the default artifact, the one that takes effect.")]
    = None,
    flux: Annotated[str | None, typer.Option(
        "--flux", help="storm: the topology's Flux YAML, to merge the plan into.")] = None,
    topology: Annotated[str | None, typer.Option(
        help="storm, heron: the topology name (default: the application's).")] = None,
    cluster: Annotated[str, typer.Option(
        help="heron: cluster[/role[/env]].")] = "local",
    image: Annotated[str, typer.Option(
        help="kubernetes: the container image; {application} and {operator} are filled "
             "in.")] = ExportOptions.image,
    namespace: Annotated[str, typer.Option(help="kubernetes: the namespace.")] = "default",
    node_label: Annotated[str, typer.Option(
        help="kubernetes: the node label whose values are the plan's node ids.")] =
    ExportOptions.node_label,
    ignore_names: IgnoreNamesOpt = False, target_utilization_: TargetUtilizationOpt = None,
    strict: Annotated[bool, typer.Option(
        "--strict", help="Refuse a plan that violates a constraint: exit 1, nothing "
                         "written (for CI).")] = False,
    json_: JsonOpt = False, quiet: QuietOpt = False,
    cacert: CacertOpt = None, cert: CertOpt = None, key: KeyOpt = None,
    insecure: InsecureOpt = False,
) -> None:
    """Write what TARGET takes to run PLAN: configuration, commands or manifests."""
    connect(cacert, cert, key, insecure)
    live = flink_job if flink_job is not None and is_url(flink_job) else None
    check_outputs([output], [application, infrastructure, plan, None if live else flink_job,
                             flux], json_)
    _only_for(to, {"--flink-job": (flink_job, Target.FLINK), "--flux": (flux, Target.STORM),
                   "--flink-version": (flink_version, Target.FLINK)})
    opened = open_inputs(application, infrastructure, target_utilization=target_utilization_)
    app_, infra = opened.app, opened.infra
    plan_ = opts.read_plan(plan, app_, infra, not ignore_names)
    job: Any = None
    if flink_job:
        found = fetch_job(live) if live else saved_job(load_path(flink_job)[0])
        job, flink_version = found.job, flink_version or found.version
    options = ExportOptions(
        flink_job=job, flink_version=flink_version,
        flink_job_file=(without_credentials(live) if live else flink_job) or "--flink-job",
        flux=load_path(flux)[0] if flux else None, flux_file=flux or "--flux",
        topology=topology, cluster=cluster, image=image, namespace=namespace,
        node_label=node_label)
    result = export(to, app_, infra, plan_, options)
    chosen = result.artifact(artifact)
    violations = evaluate(app_, infra, plan_).violations
    refused = strict and bool(violations)
    broken = ", ".join(sorted({v.constraint for v in violations}))
    warnings = [] if not violations or refused else [
        f"the plan violates {len(violations)} constraint(s) ({broken}): streamplace validate "
        "says which; --strict refuses such a plan"]
    outputs = [] if refused or (json_ and output in (None, STDOUT)) else \
        [Output(output or STDOUT, chosen.text)]
    emit(Emission(
        document={"command": "export", "application": app_.name,
                  "infrastructure": infra.name, **result.to_json(), "warnings": warnings,
                  "refused": refused, "violations": [v.to_json() for v in violations]},
        outputs=outputs, show=lambda con: _show(con, result, chosen.name),
        notes=[f"{chosen.name} written to {output}"] if output not in (None, STDOUT)
        and not refused else [],
        warnings=warnings, code=EXIT_NO if refused else 0,
        verdict=[f"[bold red]refused:[/] the plan violates {len(violations)} constraint(s) "
                 f"({escape(broken)}); nothing written (streamplace validate says which)"]
        if refused else []), json_=json_, quiet=quiet)


def _only_for(target: Target, given: dict[str, tuple[str | None, Target]]) -> None:
    for flag, (value, wanted) in given.items():
        if value is not None and target != wanted:
            raise InputError.single(f"{flag} applies to --to {wanted.value} only",
                                    f"drop {flag}", path=flag)


def _show(con: Console, result: Export, chosen: str) -> None:
    t = table(con, f"Export to {result.target}", "operator", "component", "parallelism",
              "nodes", "cpu", "memory (MiB)")
    for row in result.rows:
        nodes = ", ".join(f"{u}×{n}" if n > 1 else u for u, n in row["nodes"].items())
        t.add_row(row["operator"], row["component"], str(row["parallelism"]), nodes,
                  "-" if row["cpu"] is None else f"{row['cpu']:g}",
                  "-" if row["memory_mib"] is None else f"{row['memory_mib']:g}")
    con.print(t)
    a = table(con, "Artifacts (--artifact NAME)", "artifact", "what")
    for item in result.artifacts:
        a.add_row(item.name + (" (written)" if item.name == chosen else ""), item.description)
    con.print(a)
    for note in result.notes:
        con.print(f"[dim]note: {escape(note)}[/]")
