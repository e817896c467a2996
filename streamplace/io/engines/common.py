"""What every engine export starts from: the plan's components, their resources, and the
artifacts and notes an export hands back (docs/engines.md)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import yaml

from streamplace.errors import InputError, Problem
from streamplace.model.application import Application, Operator
from streamplace.model.plan import Plan

CPU_DIMENSIONS = ("cpu", "cpus", "cores", "vcpu")  # cores per replica
MEMORY_DIMENSIONS = ("memory", "mem", "ram")  # MiB per replica


@dataclass(frozen=True)
class Component:
    """One operator as an engine sees it: its name there, parallelism, nodes, resources."""

    op: Operator
    name: str  # the operator's engine_id, else its id
    replicas: dict[str, int]
    cpu: float | None  # cores per replica
    memory: float | None  # MiB per replica
    source: bool  # no incoming stream: a spout, a source

    @property
    def parallelism(self) -> int:
        return sum(self.replicas.values())


@dataclass(frozen=True)
class Artifact:
    name: str
    text: str
    description: str


@dataclass
class Export:
    """Everything an export produced: artifacts by name (the first is the default), what
    the target cannot express, and one summary row per component."""

    target: str
    artifacts: list[Artifact]
    notes: list[str] = field(default_factory=list)
    rows: list[dict[str, Any]] = field(default_factory=list)
    withheld: dict[str, str] = field(default_factory=dict)  # artifact -> why not this plan

    def artifact(self, name: str | None) -> Artifact:
        if name is None:
            return self.artifacts[0]
        for artifact in self.artifacts:
            if artifact.name == name:
                return artifact
        names = ", ".join(a.name for a in self.artifacts)
        if name in self.withheld:
            raise InputError.single(f"no {name!r} artifact for this plan: "
                                    f"{self.withheld[name]}", f"use one of {names}",
                                    path="--artifact")
        raise InputError.single(f"{self.target} has no artifact {name!r}",
                                f"use one of {names}", path="--artifact")

    def to_json(self) -> dict[str, Any]:
        return {"target": self.target,
                "artifacts": [{"name": a.name, "description": a.description, "text": a.text}
                              for a in self.artifacts],
                "notes": self.notes, "components": self.rows}


@dataclass(frozen=True)
class ExportOptions:
    """Target-specific inputs, each named by the flag that gives it."""

    flink_job: Any = None  # the JSON of GET /jobs/:jobid
    flink_version: str | None = None  # the cluster's Flink version (what takes effect)
    flink_job_file: str = "--flink-job"
    flux: Any = None  # a Flux topology definition
    flux_file: str = "--flux"
    topology: str | None = None  # Storm / Heron topology name (default: the application's)
    cluster: str = "local"  # Heron cluster[/role[/env]]
    image: str = "registry.example/{application}/{operator}:latest"
    namespace: str = "default"
    node_label: str = "kubernetes.io/hostname"


def components(app: Application, plan: Plan) -> list[Component]:
    """Every operator of the plan; an operator without replicas is an error, as no engine
    can run a plan that leaves one out."""
    targets = {s.target for s in app.streams}
    missing = [op.id for op in app.operators if not plan.replicas(op.id)]
    if missing:
        raise InputError([Problem(f"the plan places no replica of {op}",
                                  "export a complete plan (streamplace validate shows what "
                                  "is missing)", path=f"placement.{op}") for op in missing])
    return [Component(op, op.engine_id or op.id, plan.replicas(op.id),
                      _amount(op, CPU_DIMENSIONS), _amount(op, MEMORY_DIMENSIONS),
                      op.id not in targets) for op in app.operators]


def other_dimensions(app: Application) -> list[str]:
    """Resource dimensions no engine request expresses (all but cpu and memory)."""
    known = set(CPU_DIMENSIONS) | set(MEMORY_DIMENSIONS)
    return sorted({d for op in app.operators for d in op.resources if d not in known})


def resource_note(app: Application, engine: str) -> list[str]:
    dims = other_dimensions(app)
    if not dims:
        return []
    return [f"resource dimension(s) {', '.join(dims)} have no {engine} request: only cpu "
            "(cores) and memory (MiB) are exported; name them so in the application to "
            "export requests"]


def check_names(items: list[Component], pattern: str, engine: str, fix: str) -> None:
    """Every component name must be one the engine accepts."""
    bad = [c for c in items if not re.fullmatch(pattern, c.name)]
    if bad:
        raise InputError([Problem(f"{c.name!r} is not a valid {engine} component name "
                                  f"(must match {pattern})", fix,
                                  path=f"operators.{c.op.id}.engine_id") for c in bad])


def summary_row(c: Component, **extra: Any) -> dict[str, Any]:
    return {"operator": c.op.id, "component": c.name, "parallelism": c.parallelism,
            "nodes": dict(c.replicas), "cpu": c.cpu, "memory_mib": c.memory, **extra}


def _amount(op: Operator, names: tuple[str, ...]) -> float | None:
    for name in names:
        if name in op.resources:
            return float(op.resources[name])
    return None


class _PlainDumper(yaml.SafeDumper):
    """Block-style YAML without anchors: engines' files are read by people and by parsers
    that need not resolve aliases."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


def yaml_text(data: Any) -> str:
    return str(yaml.dump(data, Dumper=_PlainDumper, sort_keys=False, width=10**6,
                         allow_unicode=True))
