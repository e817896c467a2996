"""Spark: the executor settings a plan implies for an application extracted from a Spark
event log, where operators are stages and replicas concurrent tasks (docs/engines.md,
Spark). Spark decides task placement and per-stage parallelism itself; what it takes is the
size of the executor fleet and the shuffle partition count."""

from __future__ import annotations

import shlex

from streamplace.io.engines.common import (
    Artifact,
    Export,
    ExportOptions,
    components,
    summary_row,
)
from streamplace.model.application import Application
from streamplace.model.infrastructure import Infrastructure
from streamplace.model.plan import Plan


def export_spark(app: Application, infra: Infrastructure, plan: Plan,
                 options: ExportOptions) -> Export:
    items = components(app, plan)
    per_node: dict[str, int] = {}
    for c in items:  # stages of one job run one after another: a node needs the most
        for u, n in c.replicas.items():  # concurrent tasks any stage puts on it
            per_node[u] = max(per_node.get(u, 0), n)
    executors = len(per_node)
    cores = max(per_node.values())
    shuffled = {s.target for s in app.streams}
    partitions = max((c.parallelism for c in items if c.op.id in shuffled), default=None)
    memory = max((c.memory * per_node[u] for c in items if c.memory is not None
                  for u in c.replicas), default=None)
    conf = {"spark.executor.instances": str(executors), "spark.executor.cores": str(cores),
            "spark.cores.max": str(executors * cores),
            "spark.dynamicAllocation.minExecutors": str(executors),
            "spark.dynamicAllocation.maxExecutors": str(executors)}
    if memory is not None:
        conf["spark.executor.memory"] = f"{round(memory)}m"
    if partitions is not None:
        conf["spark.sql.shuffle.partitions"] = str(partitions)
    notes = [
        "Spark's task scheduler places tasks by data locality and free cores: the plan's "
        "nodes become the number of executors (one per node used) and their cores (the most "
        "tasks the plan runs at once on one node), not a pinning",
        "per-stage parallelism is not settable: stages reading a shuffle take "
        "spark.sql.shuffle.partitions (the most replicas of any such stage), others follow "
        "their input's partitions",
        "with adaptive query execution on (spark.sql.adaptive.enabled, default true) Spark "
        "coalesces shuffle partitions at run time; set "
        "spark.sql.adaptive.coalescePartitions.enabled=false to keep the planned count",
        "the dynamic allocation bounds equal the planned executor count, so the fleet stays "
        "as planned when dynamic allocation is on",
        "a standalone cluster ignores spark.executor.instances and gives an application every "
        "free core; spark.cores.max (executors x cores) caps it to the plan's fleet (YARN and "
        "Kubernetes ignore it and take the instances)",
    ]
    submit = " ".join(["spark-submit"] + [f"--conf {shlex.quote(f'{k}={v}')}"
                                           for k, v in conf.items()])
    artifacts = [Artifact("conf", "".join(f"{k} {v}\n" for k, v in conf.items()),
                          "spark-defaults.conf lines"),
                 Artifact("submit", submit + "\n", "spark-submit --conf flags")]
    return Export("spark", artifacts, notes,
                  [summary_row(c, stage=c.op.name or c.op.id) for c in items])
