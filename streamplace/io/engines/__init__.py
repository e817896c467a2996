"""Plans to engines: what Flink, Storm, Heron, Kubernetes and Spark take, each target in a
module of its own (docs/engines.md says what each can and cannot express)."""

from __future__ import annotations

import enum
from collections.abc import Callable

from streamplace.io.engines.common import Artifact, Export, ExportOptions
from streamplace.io.engines.flink import export_flink
from streamplace.io.engines.heron import export_heron
from streamplace.io.engines.kubernetes import export_kubernetes
from streamplace.io.engines.spark import export_spark
from streamplace.io.engines.storm import export_storm
from streamplace.model.application import Application
from streamplace.model.infrastructure import Infrastructure
from streamplace.model.plan import Plan

__all__ = ["Artifact", "Export", "ExportOptions", "Target", "export"]


class Target(enum.StrEnum):
    FLINK = "flink"
    STORM = "storm"
    HERON = "heron"
    KUBERNETES = "kubernetes"
    SPARK = "spark"


_EXPORTERS: dict[Target, Callable[[Application, Infrastructure, Plan, ExportOptions],
                                  Export]] = {
    Target.FLINK: export_flink, Target.STORM: export_storm, Target.HERON: export_heron,
    Target.KUBERNETES: export_kubernetes, Target.SPARK: export_spark,
}


def export(target: Target, app: Application, infra: Infrastructure, plan: Plan,
           options: ExportOptions | None = None) -> Export:
    """What ``target`` takes to run ``plan``; InputError when the plan or the engine's own
    description (``--flink-job``, ``--flux``) cannot be matched."""
    return _EXPORTERS[Target(target)](app, infra, plan, options or ExportOptions())
