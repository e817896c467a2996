"""Storm: a Flux fragment with each component's parallelism and Resource Aware Scheduler
requests, the scheduler settings that bind the plan's spread, and the ``storm rebalance``
command for a running topology (docs/engines.md, Storm).

Flux (FluxBuilder) reads ``parallelism``, ``onHeapMemoryLoad`` / ``offHeapMemoryLoad`` (MB)
and ``cpuLoad`` (100 = one core) from each spout and bolt; ``storm rebalance`` takes
``-e component=parallelism`` and ``-r '{"component": {"onheap.memory.mb": .., "cpu.pcore.percent":
..}}'`` (org.apache.storm.command.Rebalance). The ConstraintSolverStrategy reads
``topology.ras.constraints`` in its map form: ``maxNodeCoLocationCnt`` per component.
"""

from __future__ import annotations

import json
import shlex
from typing import Any

from streamplace.errors import InputError, Problem
from streamplace.io.engines.common import (
    Artifact,
    Component,
    Export,
    ExportOptions,
    components,
    resource_note,
    summary_row,
    yaml_text,
)
from streamplace.model.application import Application
from streamplace.model.infrastructure import Infrastructure
from streamplace.model.plan import Plan

CONSTRAINT_SOLVER = ("org.apache.storm.scheduler.resource.strategies.scheduling."
                     "ConstraintSolverStrategy")
REBALANCE_WAIT_SECONDS = 30


def export_storm(app: Application, infra: Infrastructure, plan: Plan,
                 options: ExportOptions) -> Export:
    items = components(app, plan)
    topology = options.topology or app.name
    notes = [
        "Storm's scheduler places executors on workers itself: the exported settings favour the "
        "plan's nodes and cap each component's executors per node as the plan does; they do not "
        "pin an executor to a node",
        "topology.workers is left to the Resource Aware Scheduler, which sizes workers from the "
        "requests",
        *resource_note(app, "Storm"),
    ]
    config = scheduler_config(items)
    fragment = {"name": topology, "config": config,
                "spouts": [_component(c) for c in items if c.source],
                "bolts": [_component(c) for c in items if not c.source]}
    artifacts = []
    if options.flux is not None:
        artifacts.append(Artifact("flux", _dump(merge_flux(options.flux, fragment,
                                                           options.flux_file)),
                                  f"{options.flux_file} with the plan's parallelism, "
                                  "requests and scheduler settings"))
    else:
        notes.append("the Flux fragment names no className: merge its fields into your "
                     "topology's definitions (a Flux include replaces whole components), "
                     "or give --flux FILE to have them merged")
        artifacts.append(Artifact("flux", _dump(fragment),
                                  "Flux fields: parallelism, requests, scheduler settings"))
    artifacts.append(Artifact("rebalance", rebalance_command(topology, items) + "\n",
                              "storm rebalance for the running topology"))
    return Export("storm", artifacts, notes,
                  [summary_row(c, kind="spout" if c.source else "bolt") for c in items])


def scheduler_config(items: list[Component]) -> dict[str, Any]:
    nodes = sorted({u for c in items for u in c.replicas})
    return {
        "topology.scheduler.strategy": CONSTRAINT_SOLVER,
        "topology.scheduler.favored.nodes": nodes,
        "topology.ras.constraints": {
            c.name: {"maxNodeCoLocationCnt": max(c.replicas.values())} for c in items},
    }


def rebalance_command(topology: str, items: list[Component]) -> str:
    parts = ["storm", "rebalance", topology, "-w", str(REBALANCE_WAIT_SECONDS)]
    for c in items:
        parts += ["-e", f"{c.name}={c.parallelism}"]
    resources = {c.name: _requests(c, rebalance=True) for c in items if _requests(c, True)}
    if resources:
        parts += ["-r", json.dumps(resources, separators=(",", ":"))]
    return " ".join(shlex.quote(p) for p in parts)


def merge_flux(flux: Any, fragment: dict[str, Any], file: str) -> dict[str, Any]:
    """The user's Flux definition with the fragment's fields set on the components of the
    same id; an operator with no component, or a component of the wrong kind, is an error."""
    if not isinstance(flux, dict):
        raise InputError.single("not a Flux topology definition (a YAML mapping)",
                                "give the Flux YAML you submit with org.apache.storm.flux.Flux",
                                file=file)
    out = dict(flux)
    out["config"] = {**(flux.get("config") or {}), **fragment["config"]}
    problems = []
    for kind in ("spouts", "bolts"):
        defined = {d.get("id"): d for d in (flux.get(kind) or []) if isinstance(d, dict)}
        for part in fragment[kind]:
            target = defined.get(part["id"])
            if target is None:
                problems.append(Problem(
                    f"{kind[:-1]} {part['id']!r} is not defined (its {kind}: "
                    f"{', '.join(map(str, defined)) or 'none'})",
                    "set the operator's engine_id to the component id", path=kind, file=file))
                continue
            target.update({k: v for k, v in part.items() if k != "id"})
        out[kind] = list(flux.get(kind) or [])
    if problems:
        raise InputError(problems)
    return out


def _component(c: Component) -> dict[str, Any]:
    return {"id": c.name, "parallelism": c.parallelism, **_requests(c, rebalance=False)}


def _requests(c: Component, rebalance: bool) -> dict[str, float]:
    out: dict[str, float] = {}
    if c.memory is not None:
        out["onheap.memory.mb" if rebalance else "onHeapMemoryLoad"] = c.memory
    if c.cpu is not None:
        out["cpu.pcore.percent" if rebalance else "cpuLoad"] = c.cpu * 100
    return out


def _dump(data: dict[str, Any]) -> str:
    return yaml_text(data)
