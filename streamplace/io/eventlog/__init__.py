"""Applications from Spark event logs (models.md sec. 8), read on Spark through PySpark.

>>> from streamplace.io.eventlog import ENGINES
>>> ENGINES
('spark', 'python')
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from streamplace.errors import InputError
from streamplace.io.eventlog.build import ExtractedOperator, ExtractedStream, Extraction
from streamplace.io.eventlog.layout import EventLog, find_event_log
from streamplace.io.eventlog.read import Progress, read_locally, read_with_spark

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

ENGINES = ("spark", "python")

__all__ = ["ENGINES", "EventLog", "ExtractedOperator", "ExtractedStream", "Extraction",
           "extract", "find_event_log"]


def extract(paths: list[str], *, app_id: str | None = None, master: str | None = None,
            engine: str = "spark", spark: SparkSession | None = None,
            progress: Progress | None = None) -> Extraction:
    """Extract the application whose event log ``paths`` hold.

    ``engine="spark"`` reads on ``spark``, else on a session from ``master`` (``local[*]``
    by default); ``engine="python"`` reads in this process, without a JVM.
    """
    from streamplace.io.eventlog.build import extract_application
    from streamplace.io.eventlog.session import spark_session

    if engine not in ENGINES:
        raise InputError.single(f"unknown engine {engine!r}", f"use one of {', '.join(ENGINES)}",
                                path="--engine")
    log = find_event_log(paths, app_id)
    if engine == "python":
        digest = read_locally(log, progress)
    elif spark is not None:
        digest = read_with_spark(log, spark, progress)
    else:
        with spark_session(master) as session:
            digest = read_with_spark(log, session, progress)
    result = extract_application(digest, log.app_id)
    result.files = len(log.files)
    result.log_bytes = log.size
    if log.in_progress:
        result.warnings.append("the log is still being written (.inprogress): events after "
                               "its last complete line are missing")
    return result
