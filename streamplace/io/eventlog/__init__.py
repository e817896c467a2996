"""Applications from Spark event logs (docs/models.md sec. 8), read on Spark through PySpark.

>>> from streamplace.io.eventlog import ENGINES
>>> ENGINES
('spark', 'python')
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from streamplace.errors import InputError
from streamplace.io.eventlog.build import ExtractedOperator, ExtractedStream, Extraction
from streamplace.io.eventlog.layout import EventLog, find_event_log
from streamplace.io.eventlog.read import ReadProgress, read_locally, read_with_spark
from streamplace.io.readers import application_from, infrastructure_from

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

ENGINES = ("spark", "python")

__all__ = ["ENGINES", "EventLog", "ExtractedOperator", "ExtractedStream", "Extraction",
           "extract", "find_event_log"]


def extract(paths: list[str], *, app_id: str | None = None, master: str | None = None,
            engine: str = "spark", spark: SparkSession | None = None,
            progress: ReadProgress | None = None, quiet: bool = False) -> Extraction:
    """Extract the application whose event log ``paths`` hold.

    ``engine="spark"`` reads on ``spark``, else on a session from ``master`` (``local[*]``
    by default); ``engine="python"`` reads in this process, without a JVM. ``quiet`` keeps
    the JVM a session starts from writing to stderr.
    """
    from streamplace.io.eventlog.build import extract_application
    from streamplace.io.spark import spark_session

    if engine not in ENGINES:
        raise InputError.single(f"unknown engine {engine!r}", f"use one of {', '.join(ENGINES)}",
                                path="--engine")
    log = find_event_log(paths, app_id)
    if engine == "python":
        digest = read_locally(log, progress)
    elif spark is not None:
        digest = read_with_spark(log, spark, progress)
    else:
        with spark_session(master, quiet=quiet, name="streamplace-extract") as session:
            digest = read_with_spark(log, session, progress)
    result = extract_application(digest, log)
    # built once, and checked as a file would be: solvers get exactly what files give them
    app_doc, infra_doc = result.application_document(), result.infrastructure_document()
    result.documents = (app_doc, infra_doc)
    result.application = application_from(app_doc, f"<application extracted from {log.app_id}>")
    result.infrastructure = infrastructure_from(infra_doc,
                                                f"<infrastructure extracted from {log.app_id}>")
    return result
