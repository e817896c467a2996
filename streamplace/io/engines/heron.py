"""Heron: ``heron update --component-parallelism`` for a running topology, and the
per-component resource maps (``topology.component.rammap`` in bytes,
``topology.component.cpumap`` in cores) for its submission (docs/engines.md, Heron)."""

from __future__ import annotations

import shlex

from streamplace.io.engines.common import (
    Artifact,
    Export,
    ExportOptions,
    check_names,
    components,
    resource_note,
    summary_row,
    yaml_text,
)
from streamplace.model.application import Application
from streamplace.model.infrastructure import Infrastructure
from streamplace.model.plan import Plan

NAME = r"[\w.-]+"  # the heron CLI's pattern for --component-parallelism names
MIB = 1024 * 1024


def export_heron(app: Application, infra: Infrastructure, plan: Plan,
                 options: ExportOptions) -> Export:
    items = components(app, plan)
    check_names(items, NAME, "Heron", "set engine_id to the component's name in the topology")
    topology = options.topology or app.name
    parts = ["heron", "update", options.cluster, topology]
    parts += [f"--component-parallelism={c.name}:{c.parallelism}" for c in items]
    config: dict[str, str] = {}
    ram = [f"{c.name}:{round(c.memory * MIB)}" for c in items if c.memory is not None]
    cpu = [f"{c.name}:{c.cpu:g}" for c in items if c.cpu is not None]
    if ram:
        config["topology.component.rammap"] = ",".join(ram)
    if cpu:
        config["topology.component.cpumap"] = ",".join(cpu)
    notes = [
        "Heron's packing algorithm assigns instances to containers and its scheduler places "
        "containers: the plan's nodes are not exported, only parallelism and per-instance "
        "resources",
        f"cluster {options.cluster!r} is a placeholder unless given with --cluster "
        "(cluster/role/env)",
        *resource_note(app, "Heron"),
    ]
    artifacts = [Artifact("update", " ".join(shlex.quote(p) for p in parts) + "\n",
                          "heron update for the running topology")]
    artifacts.append(Artifact(
        "config", yaml_text(config) if config else
        "# no component declares cpu or memory: Heron's defaults apply\n",
        "topology configuration: per-component RAM (bytes) and CPU (cores)"))
    return Export("heron", artifacts, notes, [summary_row(c) for c in items])
