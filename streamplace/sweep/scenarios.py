"""A sweep's scenarios: every combination of its axes and methods, each with a stable id,
and the instance each one solves (docs/formats.md, "Sweep").

The base documents are read and checked once, on the driver; a scenario's instance is
built from their checked values (units already resolved) with the rates scaled and the
failed nodes or links removed, then checked again as a file would be, so a combination
that makes no sense (an operator left without a candidate) fails in its own row.
"""

from __future__ import annotations

import copy
import hashlib
import itertools
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from streamplace.errors import InfeasibleError
from streamplace.io.readers import (
    application_from,
    read_application,
    read_document,
    read_infrastructure,
)
from streamplace.model.application import Application
from streamplace.model.infrastructure import Infrastructure
from streamplace.model.metrics import term_named
from streamplace.model.objective import Objective, ObjectiveFile
from streamplace.model.sweep import SweepFile
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

    def axes(self) -> dict[str, Any]:
        return {"scenario_id": self.id, "method": self.method, "rate_scale": self.rate_scale,
                "failure": self.failure,
                "weights": json.dumps(self.weights, sort_keys=True) if self.weights else "",
                "seed": self.seed, "infrastructure": self.infrastructure}


@dataclass
class Inputs:
    """The base documents, checked; plain data that travels to Spark executors."""

    application: dict[str, Any]
    infrastructures: dict[str, dict[str, Any]]
    objective: dict[str, Any] | None
    digests: dict[str, str] = field(default_factory=dict)


def read_inputs(sweep: SweepFile, sweep_path: str) -> Inputs:
    """Every file the sweep names, checked once (exit 2 here, before any scenario runs)."""
    base = Path(sweep_path).parent

    def path(name: str) -> str:
        return str(base / name)

    app = read_application(path(sweep.application)).with_target_utilization(
        sweep.target_utilization)
    infras = {name: read_infrastructure(path(name)) for name in sweep.infrastructure_files}
    objective = None
    if sweep.objective is not None:
        objective = read_document(ObjectiveFile, path(sweep.objective)).objective
    names = [sweep.application, *sweep.infrastructure_files,
             *([sweep.objective] if sweep.objective else [])]
    digests = {name: hashlib.sha256(Path(path(name)).read_bytes()).hexdigest()
               for name in names}
    return Inputs(_plain(app), {n: _plain(i) for n, i in infras.items()},
                  objective.model_dump(exclude_none=True) if objective else None, digests)


def expand(sweep: SweepFile, inputs: Inputs) -> list[Scenario]:
    """Every scenario, in a stable order: infrastructure, failure, rate, weights, seed,
    method."""
    axes = sweep.axes
    weights = [full_names(w) for w in axes.weights] if axes.weights else [None]
    out = []
    for infra_name in sweep.infrastructure_files:
        failures = _failures(inputs.infrastructures[infra_name], axes.failures)
        for failure, scale, w, seed, method in itertools.product(
                failures, axes.rate_scale, weights, axes.seed, sweep.methods):
            label, nodes, links = failure
            settings = {"v": ID_VERSION, "method": method, "rate_scale": scale,
                        "failure": label, "weights": w, "seed": seed,
                        "infrastructure": [infra_name, inputs.digests.get(infra_name)],
                        "application": inputs.digests.get(sweep.application),
                        "objective": inputs.digests.get(sweep.objective or ""),
                        "time_limit": sweep.time_limit, "analysis": sweep.analysis,
                        "target_utilization": sweep.target_utilization,
                        "max_rate": sweep.max_rate.model_dump() if sweep.max_rate else None,
                        "pareto": sweep.pareto.model_dump() if sweep.pareto else None}
            digest = hashlib.sha256(json.dumps(settings, sort_keys=True).encode()).hexdigest()
            out.append(Scenario(digest[:16], method, scale, label, w, seed, infra_name,
                                nodes, links))
    return out


def failure_counts(sweep: SweepFile, inputs: Inputs) -> dict[str, int]:
    """How many failure variants each infrastructure file gives (before expanding them)."""
    return {name: len(_failures(inputs.infrastructures[name], sweep.axes.failures))
            for name in sweep.infrastructure_files}


def instance_of(inputs: Inputs, scenario: Scenario, rate_scale: float | None = None,
                weights: dict[str, float] | None = None) -> Instance:
    """The instance ``scenario`` solves (at ``rate_scale`` when an analysis probes another
    rate; with ``weights`` when it sets its own objective). InfeasibleError when a failure
    leaves an operator without a candidate; InputError when the combination leaves the
    documents inconsistent otherwise."""
    scale = scenario.rate_scale if rate_scale is None else rate_scale
    app_doc = scaled(inputs.application, scale)
    infra_doc = copy.deepcopy(inputs.infrastructures[scenario.infrastructure])
    _fail(app_doc, infra_doc, scenario)
    app = application_from(app_doc, f"<application at rate x{scale:g}>")
    infra = _infrastructure(infra_doc, scenario)
    objective_doc = copy.deepcopy(inputs.objective) if inputs.objective else {}
    chosen = weights if weights is not None else scenario.weights
    if chosen is not None:
        objective_doc["weights"] = chosen
    return Instance(app, infra, Objective.model_validate(objective_doc))


def scaled(app_doc: dict[str, Any], scale: float) -> dict[str, Any]:
    """The application with every rate times ``scale`` (streams, input rates, throughput)."""
    out = copy.deepcopy(app_doc)
    if scale == 1:
        return out
    for stream in out.get("streams", []):
        if stream.get("rate") is not None:
            stream["rate"] *= scale
    for op in out.get("operators", []):
        if op.get("input_rate") is not None:
            op["input_rate"] *= scale
    if out.get("throughput") is not None:
        out["throughput"] *= scale
    return out


def _plain(doc: Application | Infrastructure) -> dict[str, Any]:
    # python mode keeps infinite capacities as floats (JSON mode would turn them to null)
    return doc.model_dump(by_alias=True, exclude_none=True, exclude={"schema_"})


def full_names(weights: dict[str, float]) -> dict[str, float]:
    return {str(term_named(k) or k): float(v) for k, v in sorted(weights.items())}


Failure = tuple[str, tuple[str, ...], tuple[tuple[str, str], ...]]


def _failures(infra_doc: dict[str, Any], kinds: Sequence[str]) -> list[Failure]:
    processors = [n["id"] for n in infra_doc.get("nodes", [])
                  if n.get("role", "processor") == "processor"]
    out: list[Failure] = []
    for kind in kinds:
        if kind == "none":
            out.append(("none", (), ()))
        elif kind == "each-node":
            out += [(u, (u,), ()) for u in processors]
        elif kind == "pairs-of-nodes":
            out += [(f"{u}+{v}", (u, v), ()) for u, v in itertools.combinations(processors, 2)]
        else:
            out += [(f"{link['from']}--{link['to']}", (), ((link["from"], link["to"]),))
                    for link in infra_doc.get("links", [])]
    return out


def _fail(app_doc: dict[str, Any], infra_doc: dict[str, Any], scenario: Scenario) -> None:
    gone = set(scenario.failed_nodes)
    if gone:
        infra_doc["nodes"] = [n for n in infra_doc.get("nodes", []) if n["id"] not in gone]
        infra_doc["links"] = [link for link in infra_doc.get("links", [])
                              if link["from"] not in gone and link["to"] not in gone]
        for op in app_doc.get("operators", []):
            if op.get("candidates") is not None:
                left = [u for u in op["candidates"] if u not in gone]
                if not left:
                    raise InfeasibleError([f"operator {op['id']} has no candidate left when "
                                           f"{' and '.join(sorted(gone))} fail(s)"])
                op["candidates"] = left
    cut = set(scenario.failed_links)
    if cut:
        infra_doc["links"] = [link for link in infra_doc.get("links", [])
                              if (link["from"], link["to"]) not in cut]


def _infrastructure(infra_doc: dict[str, Any], scenario: Scenario) -> Infrastructure:
    from streamplace.io.readers import infrastructure_from

    return infrastructure_from(infra_doc, f"<{scenario.infrastructure} without "
                                          f"{scenario.failure}>" if scenario.failed_nodes or
                               scenario.failed_links else f"<{scenario.infrastructure}>")
