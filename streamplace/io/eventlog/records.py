"""The records a :class:`~streamplace.io.eventlog.digest.Digest` keeps: per-stage task totals
by column, and the few small events, each as a named tuple (they travel pickled between
Spark's executors and the driver)."""

from __future__ import annotations

from typing import NamedTuple

# Per-stage task totals, by position in the list kept for each stage. USEFUL_NS is run time
# less shuffle fetch wait and shuffle write time, task by task (docs/models.md sec. 8), in
# whole nanoseconds: sums of whole numbers are exact, so a log read in pieces merged in any
# order gives the same totals as one read whole.
OK, FAILED, KILLED, RUN_MS, IN_REC, IN_BYTES, READ_REC, READ_BYTES, WRITE_REC, WRITE_BYTES, \
    OUT_REC, OUT_BYTES, WAIT_MS, WRITE_NS, USEFUL_NS, FIRST_LAUNCH, LAST_FINISH = range(17)
SUMMED = range(USEFUL_NS + 1)
USEFUL_FLOOR = 0.01  # a task's useful time is at least this share of its run time
NEVER = float("inf")



class RddInfo(NamedTuple):
    """An RDD a stage computes (its lineage: ``Parent IDs``)."""

    id: int
    name: str
    scope: str
    parents: list[int]


class JobStage(NamedTuple):
    """A stage a job lists, with the stages it depends on."""

    stage: int
    parents: list[int]


class PlanNode(NamedTuple):
    """A node of an SQL physical plan: its metrics (accumulator id, name; names are kept only
    where they are read) and its children."""

    name: str
    metrics: list[tuple[int, str]]
    children: list[PlanNode]


class ProgressReport(NamedTuple):
    """One micro-batch's progress event of a streaming query."""

    query: str
    name: str
    stamp_ms: float
    batch: int
    rows: int


class Executor(NamedTuple):
    host: str
    cores: int
