"""An engine that runs a job in memory, on a clock that moves only when slept: the in-process
tier's double of a Flink job (as the Flink autoscaler's own tests use
``TestingMetricsCollector`` and ``TestingScalingRealizer``).

The job is a fluid model, integrated second by second of its clock: each source offers a
rate (a number, or a function of the time) and reads its lag as fast as the job lets it;
each vertex takes what its inputs send, up to its capacity at its parallelism (``service``
records per second of busy time per subtask, or a ``capacity(k)`` curve that need not be
linear), and sends ``selectivity`` records per record taken. Where a vertex saturates, the
sources are held back in proportion (backpressure): the vertices before it wait on it, and
the sources' lag grows. A rescale stops the job for ``restart`` seconds, its sources' lag
growing meanwhile. Readings are built from the window's counters as the Flink engine builds
them (busy and back-pressured shares, records in and out, service rates, pendingRecords).

Faults are queued: a read that finds the engine unreachable or a counter incomplete, a
change refused or left unsettled, a job that is gone.
"""

from __future__ import annotations

import hashlib
import math
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from graphlib import TopologicalSorter

from streamplace.control.engine import Listing, NoReading, Reading, TooFewSlots
from streamplace.control.running.latency import Measured
from streamplace.control.running.memory import MemoryPressure
from streamplace.control.running.observation import (
    JobSlots,
    Observation,
    ObservedStream,
    ObservedVertex,
    TaskManager,
    Window,
)
from streamplace.errors import ChangeSent, EngineError, Unreachable
from streamplace.model.application import Application
from streamplace.model.infrastructure import Infrastructure
from streamplace.model.plan import Plan

DT = 1.0            # seconds per integration step
TUPLE_SIZE = 100.0  # bytes a record takes on the wire


@dataclass
class FakeClock:
    """Time that moves only when slept: a window of a minute passes at once."""

    t: float = 0.0
    epoch: float = 1_800_000_000.0

    def now(self) -> float:
        return self.t

    def wall(self) -> float:
        return self.epoch + self.t

    def sleep(self, seconds: float) -> None:
        self.t += max(0.0, seconds)


Rate = float | Callable[[float], float]


@dataclass
class Op:
    """One vertex of the job."""

    name: str
    inputs: list[str] = field(default_factory=list)
    rate: Rate | None = None          # a source's offered rate, records per second
    service: float = 100.0            # records per busy second, per subtask
    capacity: Callable[[int], float] | None = None  # all subtasks' records per second at k
    selectivity: float = 1.0          # records sent per record taken
    parallelism: int = 1
    max_parallelism: int = 128
    keyed: bool = False
    lag: bool = True                  # a source reports pendingRecords
    queues: bool = True               # what a held-back source does not send waits (a
    # topic's lag); else it is never produced (a generator held back)
    partitions: int | None = None
    skew: list[float] | None = None   # per subtask, its share of the load over the mean

    def capacity_at(self, k: int) -> float:
        return self.capacity(k) if self.capacity is not None else self.service * k

    def offered(self, t: float) -> float:
        rate = self.rate(t) if callable(self.rate) else self.rate
        return max(0.0, float(rate or 0.0))


@dataclass
class _Counts:
    busy: list[float]          # per subtask, busy ms
    pressed: list[float]
    idle: list[float]
    read: float = 0.0
    written: float = 0.0


@dataclass
class MemoryJob:
    """One job, an :class:`~streamplace.control.engine.Engine`."""

    ops: list[Op]
    clock: FakeClock
    name: str = "job"
    restart: float = 10.0             # seconds a rescale stops the job
    taskmanagers: int = 2
    slots: int = 4                    # per TaskManager
    others: dict[str, tuple[str, dict[str, int]]] = field(default_factory=dict)
    """another job's id: its name and the slots it holds per TaskManager."""
    markers_seen: dict[tuple[str, str], Measured] = field(default_factory=dict)
    latency: Callable[[MemoryJob], dict[tuple[str, str], Measured]] | None = None
    """The markers as the job runs now, where they move with it (else ``markers_seen``)."""
    config: dict[str, str] = field(default_factory=dict)
    memory: MemoryPressure = field(default_factory=MemoryPressure)
    faults: list[str] = field(default_factory=list)   # unreachable | incomplete | moved | down
    change_faults: list[str] = field(default_factory=list)  # refused | unsettled
    ended: str | None = None          # why the job no longer runs
    ends: tuple[float, str] | None = None  # (when, its state then): the job ends then
    rescales: list[tuple[float, dict[str, int]]] = field(default_factory=list)
    widths: list[tuple[float, int]] = field(default_factory=list)  # (from when, slots held)
    pending: dict[str, float] = field(default_factory=dict)
    offered_total: float = 0.0        # records the sources offered, over the run
    pressed_windows: int = 0          # windows a source was back-pressured 10% or more
    relink: Callable[[], None] | None = None  # a cluster's: what the other jobs hold now
    _t: float = 0.0
    _down_until: float = 0.0
    _counts: dict[str, _Counts] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.jid = hashlib.md5(self.name.encode()).hexdigest()
        self._by = {op.name: op for op in self.ops}
        self._order = list(TopologicalSorter(
            {op.name: set(op.inputs) for op in self.ops}).static_order())
        for op in self.ops:
            if not op.inputs:
                self.pending.setdefault(op.name, 0.0)
        self._t = self.clock.now()
        self.widths = [(self._t, self.width())]
        self._reset()

    # -- the engine ----------------------------------------------------------------------

    @property
    def address(self) -> str:
        return f"memory://{self.name}"

    def reach(self) -> None:
        if self.faults[:1] == ["down"]:
            raise Unreachable.single(f"cannot reach {self.address}", "check the address")

    def read(self, window: float) -> Reading | NoReading:
        fault = self.faults.pop(0) if self.faults else None
        if fault == "unreachable":
            self.clock.sleep(window)
            return NoReading("no reading: the job could not be reached (reset)",
                             Unreachable([]))
        self._advance()
        before = {op: _copy(c) for op, c in self._counts.items()}
        lag_before = dict(self.pending)
        started = self.clock.now()
        self.clock.sleep(window)
        self._advance()
        if self.ends is not None and self.clock.now() >= self.ends[0]:
            self.ended = self.ends[1]
        if fault == "incomplete":
            return NoReading("no reading: a counter was answered incomplete")
        if self.ended is not None:
            return NoReading(f"no reading: the job is {self.ended}")
        obs = self._observation(before, lag_before, self.clock.now() - started)
        if fault == "moved":  # the TaskManagers replaced; the subtasks still name the old
            obs.taskmanagers = [TaskManager(f"{t.id}-new", t.slots) for t in obs.taskmanagers]
        if any(v.source and v.pressed >= 0.1 for v in obs.vertices):
            self.pressed_windows += 1
        return Reading(obs, self.holdings(), "", self.memory,
                       {op.name: "default" for op in self.ops})

    def gone(self, name: str | None) -> str | None:
        return f"the job {self.jid} is {self.ended}" if self.ended else None

    def markers(self, vertex_of: dict[str, str],
                ) -> tuple[dict[tuple[str, str], Measured], float]:
        return (self.latency(self) if self.latency else dict(self.markers_seen)), 0.1

    def free_slots(self, held: int) -> int | None:
        if self.relink is not None:  # what the cluster's other jobs hold now
            self.relink()
        return self.taskmanagers * self.slots - self._others_slots() - self.width() + held

    def rescale(self, app: Application, infra: Infrastructure, plan: Plan,
                wait: float) -> float:
        counts = {op: sum(plan.replicas(op).values()) for op in app.operator_ids}
        needed = max(counts.values())
        have = self.free_slots(self.width())
        if have is not None and needed > have:
            raise TooFewSlots(f"the plan needs {needed} slots and the cluster has {have}")
        fault = self.change_faults.pop(0) if self.change_faults else None
        if fault == "refused":
            raise EngineError("the change was answered 409 Conflict: nothing was changed")
        self._advance()
        self.rescales.append((self.clock.now(), counts))
        for name, k in counts.items():
            self._by[name].parallelism = k
        self.widths.append((self.clock.now(), self.width()))
        self._down_until = self.clock.now() + self.restart
        self._reset()
        self.clock.sleep(self.restart)
        if fault == "unsettled":
            raise ChangeSent("the job does not run the plan", self.address)
        return self.restart

    def configuration(self) -> dict[str, str]:
        return dict(self.config)

    # -- what it holds ---------------------------------------------------------------------

    def width(self) -> int:
        return max(op.parallelism for op in self.ops)

    def holdings(self) -> dict[str, JobSlots]:
        out = {jid: JobSlots(name, "RUNNING", dict(on)) for jid, (name, on) in
               self.others.items()}
        mine: dict[str, int] = {}
        for tm in self._own_slots()[:self.width()]:
            mine[tm] = mine.get(tm, 0) + 1
        out[self.jid] = JobSlots(self.name, "RUNNING", mine)
        return out

    def slot_seconds(self, since: float = 0.0, until: float | None = None) -> float:
        """Slots held from ``since`` until ``until`` (default: now)."""
        end = self.clock.now() if until is None else until
        marks = [*self.widths[1:], (math.inf, 0)]
        return sum(w * max(0.0, min(marks[i][0], end) - max(t, since))
                   for i, (t, w) in enumerate(self.widths))

    def _others_slots(self) -> int:
        return sum(sum(on.values()) for _name, on in self.others.values())

    def _own_slots(self) -> list[str]:
        taken = {f"tm-{i}": sum(on.get(f"tm-{i}", 0) for _n, on in self.others.values())
                 for i in range(self.taskmanagers)}
        return [f"tm-{i}" for i in range(self.taskmanagers)
                for _ in range(self.slots - taken[f"tm-{i}"])]

    # -- the fluid model -------------------------------------------------------------------

    def _reset(self) -> None:
        self._counts = {op.name: _Counts([0.0] * op.parallelism, [0.0] * op.parallelism,
                                         [0.0] * op.parallelism) for op in self.ops}

    def _advance(self) -> None:
        while self._t + 1e-9 < self.clock.now():
            dt = min(DT, self.clock.now() - self._t)
            self._flow(self._t, dt)
            self._t += dt

    def _flow(self, t: float, dt: float) -> None:
        sources = [op for op in self.ops if not op.inputs]
        offered = {s.name: s.offered(t) for s in sources}
        self.offered_total += sum(offered.values()) * dt
        if t < self._down_until:  # restarting: nothing is read, the lag grows
            for s in sources:
                self.pending[s.name] += offered[s.name] * dt if s.queues else 0.0
            return
        want = {s.name: offered[s.name] + self.pending[s.name] / dt for s in sources}
        load = self._loads(want)
        theta = min([1.0, *(op.capacity_at(op.parallelism) / load[op.name]
                            for op in self.ops if load[op.name] > 0)])
        sent = {s: theta * w for s, w in want.items()}
        for s in sources:
            self.pending[s.name] = max(0.0, self.pending[s.name]
                                       + (offered[s.name] - sent[s.name]) * dt) \
                if s.queues else 0.0
        taken = self._loads(sent)
        full = {op.name for op in self.ops
                if taken[op.name] >= 0.999 * op.capacity_at(op.parallelism)}
        for op in self.ops:
            c = self._counts[op.name]
            busy = min(1.0, taken[op.name] / op.capacity_at(op.parallelism))
            pressed = (1.0 - busy) if theta < 1.0 and op.name not in full and \
                self._feeds(op.name, full) else 0.0
            skew = op.skew or [1.0] * op.parallelism
            for i in range(op.parallelism):
                b = min(1.0, busy * skew[i % len(skew)])
                p = min(1.0 - b, pressed)
                c.busy[i] += 1000 * b * dt
                c.pressed[i] += 1000 * p * dt
                c.idle[i] += 1000 * (1.0 - b - p) * dt
            c.read += (taken[op.name] if op.inputs else 0.0) * dt
            c.written += taken[op.name] * (op.selectivity if op.inputs else 1.0) * dt

    def _loads(self, emitted: dict[str, float]) -> dict[str, float]:
        """Records per second each vertex takes (a source: sends) when the sources send
        ``emitted``."""
        out: dict[str, float] = {}
        for name in self._order:
            op = self._by[name]
            out[name] = emitted.get(name, 0.0) if not op.inputs else sum(
                out[i] * (self._by[i].selectivity if self._by[i].inputs else 1.0)
                for i in op.inputs)
        return out

    def _feeds(self, name: str, targets: set[str]) -> bool:
        after = {op.name for op in self.ops if name in op.inputs}
        return bool(after & targets) or any(self._feeds(a, targets) for a in after)

    def _observation(self, before: dict[str, _Counts], lag_before: dict[str, float],
                     seconds: float) -> Observation:
        ids = {op.name: hashlib.md5(f"{self.name}/{op.name}".encode()).hexdigest()
               for op in self.ops}
        slots = self._own_slots()
        vertices = []
        for op in self.ops:
            now, then = self._counts[op.name], before[op.name]
            busy_ms = [a - b for a, b in zip(now.busy, then.busy, strict=True)]
            pressed_ms = [a - b for a, b in zip(now.pressed, then.pressed, strict=True)]
            span = [seconds * 1000] * op.parallelism
            counts = {"read-records": now.read - then.read,
                      "write-records": now.written - then.written,
                      "read-bytes": (now.read - then.read) * TUPLE_SIZE,
                      "write-bytes": (now.written - then.written) * TUPLE_SIZE}
            window = Window(seconds, tuple(b / s for b, s in zip(busy_ms, span, strict=True)),
                            tuple(p / s for p, s in zip(pressed_ms, span, strict=True)),
                            counts, sum(busy_ms))
            records = counts["write-records" if not op.inputs else "read-records"]
            placed: dict[str, int] = {}
            for i in range(op.parallelism):
                tm = slots[i % len(slots)] if slots else "tm-0"
                placed[tm] = placed.get(tm, 0) + 1
            v = ObservedVertex(
                ids[op.name], op.name, op.name, op.parallelism, op.max_parallelism,
                [ids[i] for i in op.inputs], self.clock.now(), None, window.totals(),
                window.meters(), placed, keyed=op.keyed, partitions=op.partitions)
            v.window = window
            v.busy = sum(window.busy) / len(window.busy)
            v.service_rate = records / (sum(busy_ms) / 1000) if sum(busy_ms) > 0 else None
            if not op.inputs and op.lag:
                v.pending = self.pending[op.name]
                v.pending_growth = (self.pending[op.name] - lag_before[op.name]) / seconds
            vertices.append(v)
        by = {v.op: v for v in vertices}
        streams = [ObservedStream(i, op.name, by[i].meter("numRecordsOutPerSecond") or 0.0
                                  if len(op.inputs) > 1 else
                                  by[op.name].meter("numRecordsInPerSecond") or 0.0,
                                  TUPLE_SIZE, "records in")
                   for op in self.ops for i in op.inputs]
        return Observation(self.name, self.jid, "memory", self.address, None, vertices,
                           streams, [TaskManager(f"tm-{i}", self.slots)
                                     for i in range(self.taskmanagers)], [], seconds)


def _copy(c: _Counts) -> _Counts:
    return _Counts(list(c.busy), list(c.pressed), list(c.idle), c.read, c.written)


@dataclass
class MemoryCluster:
    """A session cluster of in-memory jobs on shared TaskManagers, a
    :class:`~streamplace.control.engine.Cluster`."""

    jobs: dict[str, MemoryJob]
    clock: FakeClock

    def __post_init__(self) -> None:
        for job in self.jobs.values():
            job.relink = self._link
        self._link()

    def _link(self) -> None:
        """Each job's slots taken in turn from the TaskManagers', and each job told what
        the others hold."""
        first = next(iter(self.jobs.values()))
        free = [f"tm-{i}" for i in range(first.taskmanagers) for _ in range(first.slots)]
        placed = {}
        for jid, job in self.jobs.items():
            width = 0 if job.ended else job.width()
            placed[jid], free = Counter(free[:width]), free[width:]
        for jid, job in self.jobs.items():
            job.others = {other: (self.jobs[other].name, dict(on))
                          for other, on in placed.items() if other != jid and on}

    @property
    def address(self) -> str:
        return "memory://cluster"

    def reach(self) -> None:
        return None

    def listing(self) -> Listing:
        self._link()
        first = next(iter(self.jobs.values()))
        return Listing({jid: job.name for jid, job in self.jobs.items() if not job.ended},
                       first.taskmanagers * first.slots,
                       Counter({jid: job.width() for jid, job in self.jobs.items()}))

    def job(self, jid: str) -> MemoryJob:
        return self.jobs[jid]

    def read(self, jids: list[str], window: float) -> dict[str, Reading | NoReading]:
        """Every job over one window: the clock moves once."""
        self._link()
        states = {}
        for jid in jids:
            job = self.jobs[jid]
            job._advance()
            states[jid] = ({op: _copy(c) for op, c in job._counts.items()},
                           dict(job.pending))
        started = self.clock.now()
        self.clock.sleep(window)
        out: dict[str, Reading | NoReading] = {}
        for jid in jids:
            job = self.jobs[jid]
            job._advance()
            obs = job._observation(*states[jid], self.clock.now() - started)
            out[jid] = Reading(obs, job.holdings(), "", job.memory,
                               {op.name: "default" for op in job.ops})
        return out


def sine(low: float, high: float, period: float, phase: float = 0.0) -> Callable[[float], float]:
    """A rate from ``low`` to ``high`` and back every ``period`` seconds."""
    return lambda t: low + (high - low) * (1 - math.cos(2 * math.pi * (t + phase) / period)) / 2


def steps(*levels: tuple[float, float]) -> Callable[[float], float]:
    """A rate of each (from time, rate) pair from its time on."""
    ordered = sorted(levels)
    return lambda t: next((r for at, r in reversed(ordered) if t >= at), ordered[0][1])
