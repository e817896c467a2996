"""A sweep's scenarios: every combination of its axes and methods, each with a stable id,
and the instance each one solves (docs/formats.md, "Sweep").

The base documents are read and checked once, on the driver; a scenario's instance is
built from them with the rates scaled (Application.scaled) and the failed nodes or links
removed (Infrastructure.without, Application.without_nodes), then checked again as a file
would be, so a combination that makes no sense fails in its own row.
"""

from __future__ import annotations

import hashlib
import itertools
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from streamplace.errors import InputError
from streamplace.io.readers import (
    application_from,
    infrastructure_from,
    read_application,
    read_document,
    read_infrastructure,
)
from streamplace.model.application import Application
from streamplace.model.infrastructure import Infrastructure
from streamplace.model.metrics import term_named
from streamplace.model.objective import Objective, ObjectiveFile
from streamplace.model.sweep import SweepFile
from streamplace.solve.budget import StopRequest
from streamplace.solve.bundle.instance import BundleInstance
from streamplace.solve.result import Instance

ID_VERSION = 1  # part of every id: a change of meaning gives new ids


@dataclass(frozen=True)
class Scenario:
    id: str
    method: str
    rate_scale: float
    failure: str  # none, a node id, a link "a--b", or "a+b"
    weights: dict[str, float] | None
    seed: int
    infrastructure: str  # the file as the sweep names it
    failed_nodes: tuple[str, ...] = ()
    failed_links: tuple[tuple[str, str], ...] = ()
    arrivals: tuple[str, ...] = ()  # the applications placed together (bundle sweeps)

    def axes(self) -> dict[str, Any]:
        return {"scenario_id": self.id, "method": self.method, "rate_scale": self.rate_scale,
                "failure": self.failure,
                "weights": json.dumps(self.weights, sort_keys=True) if self.weights else "",
                "seed": self.seed, "infrastructure": self.infrastructure,
                **({"applications": ",".join(self.arrivals)} if self.arrivals else {})}


@dataclass
class Inputs:
    """The base documents, checked; what travels to Spark executors (pickled)."""

    application: Application  # with applications: the first of them
    infrastructures: dict[str, Infrastructure]
    objective: Objective | None
    digests: dict[str, str] = field(default_factory=dict)
    bundle: dict[str, Application] | None = None  # by name, when placed together


def read_inputs(sweep: SweepFile, sweep_path: str) -> Inputs:
    """Every file the sweep names, checked once (exit 2 here, before any scenario runs)."""
    base = Path(sweep_path).parent

    def path(name: str) -> str:
        return str(base / name)

    apps = [read_application(path(name)).with_target_utilization(sweep.target_utilization)
            for name in sweep.application_files]
    infras = {name: read_infrastructure(path(name)) for name in sweep.infrastructure_files}
    objective = None
    if sweep.objective is not None:
        objective = read_document(ObjectiveFile, path(sweep.objective)).objective
    names = [*sweep.application_files, *sweep.infrastructure_files,
             *([sweep.objective] if sweep.objective else [])]
    digests = {name: hashlib.sha256(Path(path(name)).read_bytes()).hexdigest()
               for name in names}
    bundle = None
    if sweep.applications is not None:
        bundle = {app.name: app for app in apps}
        check_arrivals(sweep, apps)
    return Inputs(apps[0], infras, objective, digests, bundle)


def check_arrivals(sweep: SweepFile, apps: Sequence[Application]) -> None:
    """Distinct application names, and arrivals that name them, each set once."""
    problems = []
    names = [app.name for app in apps]
    for index, name in enumerate(names):
        if names.index(name) != index:
            problems.append(sweep.problem(f"applications[{index}]", f"application {name!r} "
                                          f"is also applications[{names.index(name)}]",
                                          "give each application its own name"))
    seen: dict[tuple[str, ...], int] = {}
    for index, chosen in enumerate(sweep.axes.arrivals or []):
        where = f"axes.arrivals[{index}]"
        unknown = [n for n in chosen if n not in names]
        if unknown:
            problems.append(sweep.problem(where, f"{unknown[0]!r} is not an application of "
                                          "the sweep", f"name one of {', '.join(names)}"))
        key = tuple(sorted(set(chosen)))
        if len(key) != len(chosen):
            problems.append(sweep.problem(where, "an application is named twice",
                                          "name each application once"))
        elif key in seen:
            problems.append(sweep.problem(where, f"repeats axes.arrivals[{seen[key]}]: the "
                                          "two would be one scenario under one id",
                                          "give each set once"))
        seen.setdefault(key, index)
    if problems:
        raise InputError(problems)


class ExpansionStopped(Exception):
    """A signal came while the scenarios were listed: nothing has run or been written."""

    def __init__(self, signum: int) -> None:
        super().__init__(f"signal {signum}")
        self.signum = signum


def expand(sweep: SweepFile, inputs: Inputs,
           stop: StopRequest | None = None) -> list[Scenario]:
    """Every scenario, in a stable order: infrastructure, failure, rate, weights, seed,
    method. A stop request is looked at every thousand scenarios (a million take seconds to
    list): :class:`ExpansionStopped` at the first thousand after it."""
    axes = sweep.axes
    weights = [full_names(w) for w in axes.weights] if axes.weights else [None]
    arrivals = arrivals_of(sweep, inputs)
    out: list[Scenario] = []
    for infra_name in sweep.infrastructure_files:
        failures = _failures(inputs.infrastructures[infra_name], axes.failures)
        for failure, scale, w, seed, arriving, method in itertools.product(
                failures, axes.rate_scale, weights, axes.seed, arrivals, sweep.methods):
            label, nodes, links = failure
            if stop and out and len(out) % 1000 == 0:  # a small sweep is listed whole: a
                raise ExpansionStopped(stop.signum or 15)  # stopped one still reports
            settings = {"v": ID_VERSION, "method": method, "rate_scale": scale,
                        "failure": label, "weights": w, "seed": seed,
                        "infrastructure": [infra_name, inputs.digests.get(infra_name)],
                        "application": inputs.digests.get(sweep.application or ""),
                        "objective": inputs.digests.get(sweep.objective or ""),
                        "time_limit": sweep.time_limit, "analysis": sweep.analysis,
                        "target_utilization": sweep.target_utilization,
                        "max_rate": sweep.max_rate.model_dump() if sweep.max_rate else None,
                        "pareto": sweep.pareto.model_dump() if sweep.pareto else None}
            if arriving:  # only bundle sweeps: one application's ids stay as they were
                settings.update(arrivals=list(arriving), bundle=sweep.bundle, applications=[
                    inputs.digests.get(name) for name in sweep.application_files])
            digest = hashlib.sha256(json.dumps(settings, sort_keys=True).encode()).hexdigest()
            out.append(Scenario(digest[:16], method, scale, label, w, seed, infra_name,
                                nodes, links, arriving))
    return out


def arrivals_of(sweep: SweepFile, inputs: Inputs) -> list[tuple[str, ...]]:
    """The sets of applications placed together, in the order the sweep lists them (every
    application at once by default); [()] for a sweep of one application."""
    if inputs.bundle is None:
        return [()]
    if sweep.axes.arrivals is None:
        return [tuple(inputs.bundle)]
    return [tuple(chosen) for chosen in sweep.axes.arrivals]


def failure_counts(sweep: SweepFile, inputs: Inputs) -> dict[str, int]:
    """How many failure variants each infrastructure file gives (before expanding them)."""
    return {name: len(_failures(inputs.infrastructures[name], sweep.axes.failures))
            for name in sweep.infrastructure_files}


def instance_of(inputs: Inputs, scenario: Scenario, rate_scale: float | None = None,
                weights: dict[str, float] | None = None) -> Instance:
    """The instance ``scenario`` solves (at ``rate_scale`` when an analysis probes another
    rate; with ``weights`` when it sets its own objective). InfeasibleError when a failure
    leaves an operator without a candidate; InputError when the combination leaves the
    documents inconsistent otherwise (each is checked again as a file would be)."""
    scale = scenario.rate_scale if rate_scale is None else rate_scale
    gone = scenario.failed_nodes
    app = inputs.application.scaled(scale).without_nodes(gone)
    infra = inputs.infrastructures[scenario.infrastructure].without(
        gone, scenario.failed_links)
    failed = f" without {scenario.failure}" if gone or scenario.failed_links else ""
    objective = inputs.objective or Objective()
    chosen = weights if weights is not None else scenario.weights
    if chosen is not None:
        objective = Objective.model_validate({**objective.model_dump(), "weights": chosen})
    return Instance(application_from(_plain(app), f"<application at rate x{scale:g}>"),
                    infrastructure_from(_plain(infra), f"<{scenario.infrastructure}{failed}>"),
                    objective)


def bundle_of(inputs: Inputs, scenario: Scenario) -> BundleInstance:
    """The bundle ``scenario`` places: its arriving applications, each scaled and without
    the failed nodes as :func:`instance_of` makes one, on its infrastructure."""
    assert inputs.bundle is not None
    apps = []
    for name in scenario.arrivals:
        one = Inputs(inputs.bundle[name], inputs.infrastructures, inputs.objective)
        apps.append(instance_of(one, scenario))
    return BundleInstance(tuple(i.app for i in apps), apps[0].infra, apps[0].objective)


def _plain(doc: Application | Infrastructure) -> dict[str, Any]:
    # python mode keeps infinite capacities as floats (JSON mode would turn them to null)
    return doc.model_dump(by_alias=True, exclude_none=True, exclude={"schema_"})


def full_names(weights: dict[str, float]) -> dict[str, float]:
    return {str(term_named(k) or k): float(v) for k, v in sorted(weights.items())}


Failure = tuple[str, tuple[str, ...], tuple[tuple[str, str], ...]]


def _failures(infra: Infrastructure, kinds: Sequence[str]) -> list[Failure]:
    processors = [n.id for n in infra.processors]
    out: list[Failure] = []
    for kind in kinds:
        if kind == "none":
            out.append(("none", (), ()))
        elif kind == "each-node":
            out += [(u, (u,), ()) for u in processors]
        elif kind == "pairs-of-nodes":
            out += [(f"{u}+{v}", (u, v), ()) for u, v in itertools.combinations(processors, 2)]
        else:
            out += [(f"{link.source}--{link.target}", (), ((link.source, link.target),))
                    for link in infra.links]
    return out
