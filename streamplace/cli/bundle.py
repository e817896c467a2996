"""``streamplace solve APP1 APP2 ... INFRA``: several applications placed on one
infrastructure, together (``--bundle joint``: one program over the weighted sum, odrp;
``--bundle lexicographic``: by priority level, odrp) or one after another in priority order
(``--bundle priority``: any method), written as one bundle plan
(docs/formats.md, ``streamplace/bundle/v1``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from streamplace.cli.console import console
from streamplace.cli.emit import EXIT_NO, EXIT_NO_ANSWER, Emission, emit
from streamplace.cli.options import check_max_moves, read_limits
from streamplace.cli.progress import live_progress
from streamplace.cli.runtime import remaining, signal_exit_code, stop_on_signals
from streamplace.cli.views.bundle import render_bundle
from streamplace.errors import InputError
from streamplace.io.bundles import bundle_document, read_bundle_current
from streamplace.io.outputs import STDOUT, Output
from streamplace.io.writers import dumps, format_for
from streamplace.model.application import Application
from streamplace.model.bundle import BundleMode
from streamplace.model.infrastructure import Infrastructure
from streamplace.model.metrics import Metric, MetricLimits, Term
from streamplace.model.objective import Objective
from streamplace.model.reconfiguration import Current
from streamplace.solve import SolveOptions
from streamplace.solve.budget import StopRequest
from streamplace.solve.bundle.instance import BundleInstance
from streamplace.solve.bundle.modes import place_bundle
from streamplace.solve.bundle.result import BundleResult
from streamplace.solve.method import Method
from streamplace.solve.result import SolveStatus


@dataclass(frozen=True)
class BundleSettings:
    time_limit: float | None
    gap: float | None
    seed: int
    threads: int | None
    output: str | None
    format_: str | None
    json_: bool
    quiet: bool


def refuse_for_bundles(given: Mapping[str, object], fix: str) -> None:
    """The flags given that do not apply to several applications: exit 2 at the first."""
    for flag, value in given.items():
        if value:
            raise InputError.single(f"{flag} does not apply to several applications yet",
                                    fix, path=flag)


def bundle_limits(given: Mapping[Metric, str | None], apps: Sequence[Application],
                  ) -> tuple[MetricLimits, dict[str, MetricLimits]]:
    """The limit flags of a bundle: a value bounds every application; ``APP=VALUE[,APP=
    VALUE...]`` bounds the applications named."""
    names = [app.name for app in apps]
    common: dict[Metric, str | None] = {}
    own: dict[str, dict[Metric, str | None]] = {}
    for metric, text in given.items():
        if text is None or "=" not in text:
            common[metric] = text
            continue
        for part in text.split(","):
            name, _eq, value = part.partition("=")
            if name.strip() not in names:
                raise InputError.single(
                    f"{metric.flag} names {name.strip()!r}, not an application of the "
                    f"bundle", f"write APP=VALUE with APP one of {', '.join(names)}, or a "
                    "value alone to bound every application", path=metric.flag)
            own.setdefault(name.strip(), {})[metric] = value.strip()
    return read_limits(common), {name: read_limits(flags) for name, flags in own.items()}


def read_current_plans(path: str | None, max_moves: float | None,
                       apps: Sequence[Application], infra: Infrastructure,
                       ) -> dict[str, Current]:
    """``--current`` of a bundle, once ``--max-moves`` is known to go with it."""
    if not check_max_moves(path, max_moves, several=True):
        return {}
    assert path is not None
    return read_bundle_current(path, apps, infra)


def solve_bundle(apps: list[Application], infra: Infrastructure, objective: Objective,
                 limits: tuple[MetricLimits, dict[str, MetricLimits]], method: Method,
                 mode: BundleMode, settings: BundleSettings,
                 current: tuple[dict[str, Current], float | None] = ({}, None)) -> None:
    joint = BundleInstance(tuple(apps), infra, objective, limits[0] or None, limits[1],
                          current[0], current[1])
    stop = StopRequest()
    with live_progress(console(), method.name, enabled=not settings.quiet) as progress, \
            stop_on_signals(stop):
        options = SolveOptions(time_limit=remaining(settings.time_limit), gap=settings.gap,
                               seed=settings.seed, threads=settings.threads,
                               progress=progress, stop=stop)
        result = place_bundle(joint, method, mode, options)
    emit(_emission(result, joint, settings, stop), json_=settings.json_, quiet=settings.quiet)


def _emission(result: BundleResult, joint: BundleInstance, settings: BundleSettings,
              stop: StopRequest) -> Emission:
    document = bundle_document(result, joint)
    held = joint.infra.holds.names
    heading = f"{', '.join(a.name for a in joint.apps)} on {joint.infra.name}" + (
        f" beside {', '.join(held)}" if held else "")
    moves = joint.moves(result.plans) if result.plans is not None and joint.current else None
    emission = Emission(
        document={"command": "solve", **result.to_json(), "bundle_plan": document,
                  **({"occupied": list(held)} if held else {}),
                  **({Term.RECONFIGURATION.value: moves} if moves is not None else {})},
        show=lambda con: render_bundle(con, result, list(joint.apps), heading),
        code=_exit_code(result, stop))
    output = settings.output
    if document is not None:
        text = dumps(document, format_for(output, settings.format_))
        if output or not settings.json_:
            emission.outputs.append(Output(output or STDOUT, text))
        if output and output != STDOUT:
            emission.notes.append(f"bundle plan written to {output}")
    if moves is not None:
        budget = f" (at most {joint.max_moves:g})" if joint.max_moves is not None else ""
        emission.notes.append(f"starting replicas costs {moves:g} against the plans that run "
                              f"now{budget}; arriving: "
                              + (", ".join(a.name for a in joint.apps
                                           if a.name not in joint.current) or "none"))
    if result.plans is None:
        verdict = "infeasible" if result.status == SolveStatus.INFEASIBLE else "no plan"
        emission.verdict = [f"[bold red]{verdict}:[/] {reason}"
                            for reason in result.reasons or (result.message,)]
    elif result.message:
        emission.notes.append(result.message)
    return emission


def _exit_code(result: BundleResult, stop: StopRequest) -> int:
    """As a single solve: 0 with plans, 1 proven infeasible (or an application left out in
    priority order), 3 without plans, 128 + signal when a signal stopped it."""
    if result.status == SolveStatus.INTERRUPTED and stop.signum is not None:
        return signal_exit_code(stop)
    if result.status == SolveStatus.INFEASIBLE:
        return EXIT_NO
    return 0 if result.plans is not None else EXIT_NO_ANSWER
