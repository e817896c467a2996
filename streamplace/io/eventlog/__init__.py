"""Applications from Spark event logs (docs/models.md sec. 8), read on Spark through PySpark."""

from __future__ import annotations

from typing import TYPE_CHECKING

from streamplace.errors import InputError
from streamplace.io.eventlog.build import ExtractedOperator, ExtractedStream, Extraction
from streamplace.io.eventlog.layout import EventLog, find_event_log
from streamplace.io.eventlog.read import ReadProgress, read_locally, read_with_spark
from streamplace.io.readers import application_from, infrastructure_from

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

__all__ = ["EventLog", "ExtractedOperator", "ExtractedStream", "Extraction",
           "extract", "find_event_log"]


def extract(paths: list[str], *, app_id: str | None = None, master: str | None = None,
            engine: str = "spark", spark: SparkSession | None = None,
            progress: ReadProgress | None = None, quiet: bool = False,
            rate_statistic: str = "mean", nodes: int | None = None,
            cores: int | None = None) -> Extraction:
    """Extract the application whose event log ``paths`` hold.

    ``engine="spark"`` reads on ``spark``, else on a session from ``master`` (``local[*]``
    by default); ``engine="python"`` reads in this process, without a JVM. ``quiet`` keeps
    the JVM a session starts from writing to stderr. ``rate_statistic`` (mean, p95, max
    over epochs) picks the rates the application carries; ``nodes`` x ``cores`` sizes the
    infrastructure skeleton for a planned deployment instead of the executors that ran.
    """
    from streamplace.io.eventlog.build import extract_application
    from streamplace.io.eventlog.epochs import STATISTICS
    from streamplace.io.spark import Engine, spark_session

    engine = Engine.named(engine)
    if rate_statistic not in STATISTICS:
        raise InputError.single(f"unknown rate statistic {rate_statistic!r}",
                                f"use one of {', '.join(STATISTICS)}", path="--rate-statistic")
    if (nodes is None) != (cores is None) or any(v is not None and v < 1
                                                 for v in (nodes, cores)):
        raise InputError.single("--nodes and --cores size the skeleton together",
                                "give both, each at least 1, e.g. --nodes 4 --cores 8",
                                path="--nodes")
    log = find_event_log(paths, app_id)
    if engine == "python":
        digest = read_locally(log, progress)
    elif spark is not None:
        digest = read_with_spark(log, spark, progress)
    else:
        with spark_session(master, quiet=quiet, name="streamplace-extract",
                           needs=("zstandard", "cramjam", "lzf")) as session:
            digest = read_with_spark(log, session, progress)
    result = extract_application(digest, log, rate_statistic)
    # built once, and checked as a file would be: solvers get exactly what files give them
    app_doc = result.application_document()
    infra_doc = result.infrastructure_document(nodes, cores)
    result.documents = (app_doc, infra_doc)
    result.application = application_from(app_doc, f"<application extracted from {log.app_id}>")
    result.infrastructure = infrastructure_from(infra_doc,
                                                f"<infrastructure extracted from {log.app_id}>")
    if nodes is None:
        result.warnings += concurrency_warning(result)
    return result


def concurrency_warning(x: Extraction) -> list[str]:
    """When Spark ran the stages one after another on fewer slots than a deployment running
    them side by side needs, say so, with the flags that size a skeleton for it."""
    import math

    from streamplace.model.graph import build_graph
    from streamplace.model.replicas import fewest_stable

    assert x.application is not None
    rates = build_graph(x.application).input_rates
    needed = sum(fewest_stable(op, rates[op.id]) for op in x.application.operators)
    slots = sum(x.hosts.values())
    if needed <= slots:
        return []
    cores = max(x.hosts.values(), default=1)
    kind = "streaming query" if x.window_basis.startswith("streaming") else "batch application"
    return [f"Spark ran the {len(x.operators)} operators of this {kind} one after another on "
            f"{slots} slot(s); running them side by side, as a streaming deployment does, "
            f"needs at least {needed} (one per stable replica): the skeleton cannot hold the "
            f"application. Write one for the deployment you plan: --nodes "
            f"{math.ceil(needed / cores)} --cores {cores}"]
