"""``streamplace solve``: choose replicas and nodes for every operator, write the plan."""

from __future__ import annotations

from typing import Annotated

import typer

from streamplace.cli import options as opts
from streamplace.cli.args import (
    CurrentOpt,
    FormatOpt,
    IgnoreNamesOpt,
    JsonOpt,
    MaxCostOpt,
    MaxElasticEnergyOpt,
    MaxMovesOpt,
    MaxNetworkUsageOpt,
    MaxResponseTimeOpt,
    MaxTrafficOpt,
    MetricOpt,
    MinAvailabilityOpt,
    ObjectiveOpt,
    OccupiedOpt,
    OutputOpt,
    QuietOpt,
    TargetUtilizationOpt,
    TimeLimitOpt,
    WeightsOpt,
)
from streamplace.cli.console import console, handle_errors
from streamplace.cli.emit import Emission, check_outputs, emit, solve_exit_code
from streamplace.cli.opening import open_inputs
from streamplace.cli.progress import live_progress
from streamplace.cli.runtime import remaining, stop_on_signals
from streamplace.cli.views.solve import render_solve
from streamplace.errors import InputError
from streamplace.io.occupied import occupied_files
from streamplace.io.outputs import STDOUT, Output
from streamplace.io.writers import dumps, format_for, plan_document
from streamplace.model.bundle import MODES_HELP, BundleMode
from streamplace.model.checks import application_warnings
from streamplace.model.network import Network
from streamplace.solve import (
    FormulationName,
    Instance,
    Method,
    MipSolver,
    Setting,
    SolveOptions,
    get_method,
)
from streamplace.solve.budget import StopRequest
from streamplace.solve.registry import applicable
from streamplace.solve.result import SolveResult, SolveStatus


@handle_errors
def solve_command(
    files: Annotated[list[str], typer.Argument(
        metavar="APP... INFRA", show_default=False,
        help="The application file, or several to place together, then the infrastructure "
             "file (YAML/JSON, - = stdin).")],
    method: Annotated[str, typer.Option("--method", "-m", help="A method of `streamplace "
                                        "methods`.")] = "odrp",
    objective: ObjectiveOpt = None, weights: WeightsOpt = None, network_metric: MetricOpt = None,
    formulation: Annotated[FormulationName | None, typer.Option(
        help="ILP form for odrp/odp: compact (default) or multiset (the paper's eqs. 21-32).",
    )] = None,
    solver: Annotated[MipSolver | None, typer.Option(
        help="MIP solver for odrp, odp and benoit: highs (default, in-process), cbc, or scip "
             "(pip install 'streamplace[scip]').")] = None,
    time_limit: TimeLimitOpt = None,
    gap: Annotated[float | None, typer.Option(
        help="Relative gap in [0, 1) at which a MIP counts as optimal (default 1e-6).")] = None,
    seed: Annotated[int | None, typer.Option(
        help="Random seed (same seed, same plan; default 0).")] = None,
    threads: Annotated[int | None, typer.Option(help="Solver threads.")] = None,
    start: Annotated[str | None, typer.Option(help="A plan to start from (MIP start).")] = None,
    solver_option: Annotated[list[str] | None, typer.Option(
        "--solver-option", help="name=value (repeatable): a parameter of the method (see "
                                "`streamplace methods`) or a HiGHS option.")] = None,
    current: CurrentOpt = None, ignore_names: IgnoreNamesOpt = False,
    max_moves: MaxMovesOpt = None,
    max_response_time: MaxResponseTimeOpt = None, min_availability: MinAvailabilityOpt = None,
    max_cost: MaxCostOpt = None, max_traffic: MaxTrafficOpt = None,
    max_network_usage: MaxNetworkUsageOpt = None, max_elastic_energy: MaxElasticEnergyOpt = None,
    dump_model: Annotated[str | None, typer.Option(
        "--dump-model", help="Also write the integer program (odrp, odp, benoit) as it was "
                             "built, for any MIP solver: FILE.mps or FILE.lp.")] = None,
    output: OutputOpt = None, format_: FormatOpt = None,
    target_utilization_: TargetUtilizationOpt = None,
    occupied: OccupiedOpt = None,
    bundle: Annotated[BundleMode | None, typer.Option(
        help="With several applications, how the bundle is placed (default joint): "
             f"{MODES_HELP}. joint and lexicographic are odrp's.")] = None,
    json_: JsonOpt = False, quiet: QuietOpt = False,
) -> None:
    """Solve: choose replicas and nodes for every operator, write the plan. Several
    applications before the infrastructure are placed together, into one bundle plan."""
    application, infrastructure = _split_files(files, bundle)
    if application is None:  # a bundle: its module loads only when one is solved
        from streamplace.cli.bundle import (
            BundleSettings,
            bundle_limits,
            read_current_plans,
            refuse_for_bundles,
            solve_bundle,
        )
        from streamplace.io.bundles import read_bundle

        given = {"--formulation": formulation, "--start": start,
                 "--solver-option": solver_option, "--dump-model": dump_model,
                 "--solver": solver, "--ignore-names": ignore_names}
        refuse_for_bundles(given, "drop it, or solve one application at a time")
        check_outputs([output], [*files, objective, current, *occupied_files(occupied)],
                      json_)
        opts.check_settings(time_limit, gap, threads, seed)
        goal = opts.build_objective(objective, weights, network_metric)
        opts.check_target_utilization(target_utilization_)
        apps, infra = read_bundle(files[:-1], files[-1], target_utilization_, occupied)
        bounds = bundle_limits(opts.limit_values(
            max_response_time, min_availability, max_cost, max_traffic, max_network_usage,
            max_elastic_energy), apps)
        solve_bundle(apps, infra, goal, bounds, _named(method),
                     bundle or BundleMode.JOINT, BundleSettings(
                         time_limit, gap, seed or 0, threads, output,
                         format_.value if format_ else None, json_, quiet),
                     (read_current_plans(current, max_moves, apps, infra), max_moves))
        return
    check_outputs([output, dump_model], [application, infrastructure, objective, start, current,
                   *occupied_files(occupied)],
                  json_)
    dump_format = opts.model_format(dump_model)
    opts.check_settings(time_limit, gap, threads, seed)
    limits = opts.limit_flags(max_response_time, min_availability, max_cost, max_traffic,
                              max_network_usage, max_elastic_energy) or None
    opened = open_inputs(application, infrastructure, objective=objective, weights=weights,
                         network_metric=network_metric, target_utilization=target_utilization_,
                         current=current, max_moves=max_moves, ignore_names=ignore_names,
                         occupied=occupied)
    app_, infra = opened.app, opened.infra
    instance = Instance(app_, infra, opened.objective, opened.current, limits)
    try:
        chosen = applicable(method, instance)
        opts.check_applies(chosen, {
            Setting.TIME_LIMIT: None, Setting.GAP: gap, Setting.SEED: seed,
            Setting.THREADS: threads, Setting.FORMULATION: formulation,
            Setting.SOLVER: solver, Setting.START: start, Setting.CURRENT: current,
            Setting.LIMITS: limits})
        params, highs = opts.method_options(chosen, solver_option or [],
                                            solver or MipSolver.HIGHS)
        if dump_model and not chosen.mip:
            raise InputError.single(f"--dump-model does not apply to {chosen.name}: it builds "
                                    "no integer program", "drop it, or use odrp, odp or benoit",
                                    path="--dump-model")
    except InputError as exc:
        raise opts.as_flags(exc) from None
    start_plan = opts.read_plan(start, app_, infra, not ignore_names) if start else None
    stop = StopRequest()
    con = console()
    with live_progress(con, method, enabled=not quiet) as progress, stop_on_signals(stop):
        try:
            result = chosen.solve(instance, SolveOptions(
                time_limit=remaining(time_limit), gap=gap, seed=seed or 0, threads=threads,
                formulation=formulation or FormulationName.COMPACT,
                solver=solver or MipSolver.HIGHS, start=start_plan, params=params,
                highs=highs, progress=progress, stop=stop))
        except InputError as exc:
            raise opts.as_flags(exc) from None
    emission = _emission(result, instance, chosen.model == "benoit", output, format_, json_,
                         stop)
    if dump_model and dump_format and result.program is not None:
        from streamplace.solve.mip.solve import write_model

        emission.outputs.append(Output(dump_model, write_model(result.program, dump_format)))
        emission.notes.append(f"model written to {dump_model}")
    emit(emission, json_=json_, quiet=quiet)


def _named(method: str) -> Method:
    try:
        return get_method(method)
    except InputError as exc:
        raise opts.as_flags(exc) from None


def _split_files(files: list[str], bundle: BundleMode | None) -> tuple[str | None, str]:
    """(application, infrastructure) for one application, (None, infrastructure) for
    several."""
    if len(files) < 2:
        raise InputError.single("solve needs an application file and an infrastructure file",
                                "streamplace solve APP [APP ...] INFRA", path="APP")
    if len(files) == 2:
        if bundle is not None:
            raise InputError.single("--bundle applies to several applications",
                                    "drop it, or give more applications before INFRA",
                                    path="--bundle")
        return files[0], files[1]
    return None, files[-1]


def _emission(result: SolveResult, instance: Instance, tree: bool, output: str | None,
              format_: FormatOpt, json_: bool, stop: StopRequest) -> Emission:
    ev = result.evaluation
    document = plan_document(result.plan, ev) if result.plan is not None else None
    held = instance.infra.holds.names
    emission = Emission(
        document={"command": "solve", **result.to_json(), "plan": document,
                  "warnings": application_warnings(instance.app),
                  **({"occupied": list(held)} if held else {})},
        show=lambda con: render_solve(con, result, ev, Network(instance.infra).processors,
                                      tree=tree),
        warnings=application_warnings(instance.app),
        code=solve_exit_code(result, stop))
    if document is not None:
        text = dumps(document, format_for(output, format_.value if format_ else None))
        if output or not json_:
            emission.outputs.append(Output(output or STDOUT, text))
        if output and output != STDOUT:
            emission.notes.append(f"plan written to {output}")
    if held:
        emission.notes.append(f"placed beside the occupied load of {', '.join(held)}: "
                              "every capacity above is what they leave")
    emission.verdict = _closing(result, output)
    return emission


def _closing(result: SolveResult, output: str | None) -> list[str]:
    """What the user must know about how the solve ended."""
    if result.status == SolveStatus.INFEASIBLE:
        return [f"[bold red]infeasible:[/] {reason}"
                for reason in result.reasons or (result.message,)]
    if result.status == SolveStatus.INTERRUPTED:
        if result.plan is None:
            return ["[bold red]interrupted:[/] no plan was found before the stop; nothing "
                    "written"]
        gap = f" (gap {result.gap * 100:.3g}%)" if result.gap is not None else ""
        where = f" to {output}" if output and output != STDOUT else ""
        return [f"[yellow]interrupted:[/] the best plan so far{gap} was written{where}"]
    if result.plan is None:
        return [f"[bold red]no plan:[/] {result.message or result.status.value}"]
    return []
