"""What a running job was seen to do, whatever engine ran it: its vertices, the streams
between them, its TaskManagers and the thresholds a reading is judged by (the Flink engine
fills them from the REST API, docs/engines.md; a test's engine from its own model)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

PRESSED = 0.10    # a back-pressured share at which a vertex's rates are held back
SATURATED = 0.95  # a busy share at which a vertex runs at its capacity: its queue may grow


@dataclass(frozen=True)
class Window:
    """One vertex over a window: shares of time per subtask, records over all of them."""

    seconds: float                # the time its subtasks counted, averaged over them
    busy: tuple[float, ...]       # per subtask, share of time busy
    pressed: tuple[float, ...]    # per subtask, share of time back-pressured
    counts: dict[str, float]      # read-records, write-records, read-bytes, write-bytes
    busy_ms: float                # over all subtasks
    variability: float | None = None  # the service's c_s^2, where its subtasks measure it
    record_service: float | None = None  # busy seconds a record typically takes, where read
    firings: tuple[float, ...] | None = None  # seconds of each firing (L3), where records were
    times_fired: int = 0  # the most firings one subtask read, whole or cut by the window's ends
    firing_period: float | None = None  # seconds from one firing to the next, where read

    def rate(self, count: str) -> float:
        return self.counts.get(count, 0.0) / self.seconds

    def meters(self) -> dict[str, tuple[float, float]]:
        """Flink's four meters as the window gives them: metric to (sum, avg) over the
        subtasks, as ``GET .../subtasks/metrics`` answers them."""
        p = len(self.busy)
        rates = {"numRecordsInPerSecond": self.rate("read-records"),
                 "numRecordsOutPerSecond": self.rate("write-records"),
                 "busyTimeMsPerSecond": 1000 * sum(self.busy) / p,
                 "backPressuredTimeMsPerSecond": 1000 * sum(self.pressed) / p}
        return {k: (r if k.startswith("num") else r * p, r / p if k.startswith("num") else r)
                for k, r in rates.items()}

    def totals(self) -> dict[str, float]:
        """The counters over the window, as the life-long ones are named."""
        return {**self.counts, "accumulated-busy-time": self.busy_ms}


@dataclass(frozen=True)
class TaskManager:
    """A worker the job's subtasks run on."""

    id: str
    slots: int
    cores: float | None = None      # CPU cores of its host, where known
    memory: float | None = None     # bytes of process memory, where known


@dataclass(frozen=True)
class JobSlots:
    """What one job of the cluster holds."""

    name: str
    state: str
    slots: dict[str, int]    # TaskManager id: the slots it holds there


@dataclass
class ObservedVertex:
    id: str
    name: str
    op: str                      # the operator id it becomes
    parallelism: int
    max_parallelism: int | None
    inputs: list[str]            # producer vertex ids
    seconds: float | None        # how long it has run
    slot_group: str | None
    totals: dict[str, float]     # accumulated counters (read-records, accumulated-busy-time..)
    meters: dict[str, tuple[float, float]]  # metric: (sum, avg) over subtasks
    placed: dict[str, int]       # TaskManager id: subtasks there
    service_rate: float | None = None
    busy: float | None = None    # share of time busy, averaged over subtasks
    window: Window | None = None  # over a window (observe --window), else None
    pending: float | None = None  # a source's pendingRecords at the end, where it has one
    pending_growth: float | None = None  # records per second it grew over the window
    keyed: bool = False          # an input is hash-partitioned (keyBy): key groups split it
    forward: list[str] = field(default_factory=list)  # inputs sent subtask to subtask
    partitions: int | None = None  # the partitions a source reads, where its metrics say

    @property
    def pressed(self) -> float:
        """Share of time back-pressured, averaged over subtasks."""
        return self.meters.get("backPressuredTimeMsPerSecond", (0.0, 0.0))[1] / 1000

    @property
    def source(self) -> bool:
        return not self.inputs

    @property
    def shares(self) -> int | None:
        """What its parallelism is aligned to, as the Flink autoscaler aligns it: a source's
        partitions, else a keyed vertex's (or a source's) key groups, its max parallelism;
        None for a vertex neither keyed nor a source."""
        if self.source and self.partitions:
            return self.partitions
        return self.max_parallelism if self.keyed or self.source else None

    def meter(self, name: str) -> float | None:
        return self.meters[name][0] if name in self.meters else None


@dataclass
class ObservedStream:
    source: str
    target: str
    rate: float
    tuple_size: float | None
    basis: str


@dataclass
class Observation:
    job: str
    job_id: str
    version: str | None
    address: str
    taken: str | None
    vertices: list[ObservedVertex]
    streams: list[ObservedStream]
    taskmanagers: list[TaskManager]
    warnings: list[str] = field(default_factory=list)
    window: float | None = None  # seconds, when read over a window (observe --window)

    def variability(self) -> dict[str, float]:
        """Each operator's service c_s^2, where the window measured it ((L3)'s queues)."""
        return self._read("variability")

    def record_service(self) -> dict[str, float]:
        """Each operator's busy seconds per record read, typically over the window's
        readings, where it measured them ((L3)'s queues: what a record brings, without the
        work no record brings)."""
        return self._read("record_service")

    def firings(self) -> dict[str, tuple[float, ...]]:
        """Each operator's firings over the window's readings, in seconds (none where none
        read), where it read its records' service ((L3)'s wait behind a firing)."""
        return self._read("firings")

    def firing_periods(self) -> dict[str, float]:
        """Each operator's seconds from one firing to the next, where the window read a
        whole firing (how many firings a span of latency markers holds)."""
        return self._read("firing_period")

    def _read(self, measure: str) -> dict[str, Any]:
        """Each operator's ``measure`` of its window, where the window measured it."""
        out = {}
        for v in self.vertices:
            value = getattr(v.window, measure) if v.window is not None else None
            if value is not None:
                out[v.op] = value
        return out

    def forward(self) -> frozenset[tuple[str, str]]:
        """The streams (operator, operator) the job ships subtask to subtask."""
        op_of = {v.id: v.op for v in self.vertices}
        return frozenset((op_of[i], v.op) for v in self.vertices for i in v.forward
                         if i in op_of)

    def report(self) -> dict[str, Any]:
        """The ``report`` of ``observe --json`` (docs/cli.md)."""
        return {"job": self.job, "job_id": self.job_id, "flink_version": self.version,
                "address": self.address, "taken": self.taken, "window": self.window,
                "vertices": [{"operator": v.op, "vertex": v.id, "name": v.name,
                              "parallelism": v.parallelism, "seconds": v.seconds,
                              "busy": v.busy, "busy_max": max(v.window.busy) if v.window
                              else None, "backpressured": v.pressed,
                              "service_rate": v.service_rate,
                              "records_in_per_second": v.meter("numRecordsInPerSecond"),
                              "records_out_per_second": v.meter("numRecordsOutPerSecond")}
                             for v in self.vertices],
                "streams": [{"from": s.source, "to": s.target, "rate": s.rate,
                             "tuple_size": s.tuple_size, "basis": s.basis}
                            for s in self.streams],
                "warnings": list(self.warnings)}


def slots_taken(groups: dict[str, str], counts: Mapping[str, int]) -> int:
    """Slots a job takes at ``counts`` (operator: parallelism): a slot holds one subtask of
    every vertex of its slot-sharing group (``groups``: operator to group; one group where
    it says none), so each group takes as many slots as its widest vertex, and the groups
    add up.

    >>> slots_taken({"a": "g1", "b": "g1", "c": "g2"}, {"a": 2, "b": 3, "c": 4})
    7
    """
    widest: dict[str, int] = {}
    for op, k in counts.items():
        group = groups.get(op, "default")
        widest[group] = max(widest.get(group, 0), k)
    return sum(widest.values())
