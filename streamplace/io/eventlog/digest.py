"""What one slice of an event log says, boiled down where the log is read (in an executor).

A log is mostly ``SparkListenerTaskEnd`` lines; a :class:`Digest` folds them into totals per
stage as it reads, and keeps the few small events (stages, jobs, SQL plans, streaming
progress, executors) whole. Digests of any slices merge into the digest of the whole log in
any order, so Spark can read segments and splits in parallel and reduce them in a tree: the
driver only ever holds one digest, whose size grows with the number of stages, not of tasks
or bytes.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from streamplace.io.eventlog.events import HANDLERS, merge_stage
from streamplace.io.eventlog.records import (
    FIRST_LAUNCH,
    LAST_FINISH,
    SUMMED,
    Executor,
    PlanNode,
    ProgressReport,
)

_PREFIX = b'{"Event":"'


@dataclass
class Digest:
    """Mergeable summary of event-log lines (see the module docstring)."""

    counts: Counter[str] = field(default_factory=Counter)
    ignored: Counter[str] = field(default_factory=Counter)
    damage: list[str] = field(default_factory=list)
    app: dict[str, Any] = field(default_factory=dict)
    executors: dict[str, Executor] = field(default_factory=dict)
    jobs: dict[int, dict[str, Any]] = field(default_factory=dict)
    stages: dict[int, dict[str, Any]] = field(default_factory=dict)
    attempts: dict[int, dict[int, bool]] = field(default_factory=dict)
    accums: dict[int, dict[int, float]] = field(default_factory=dict)
    tasks: dict[int, list[float]] = field(default_factory=dict)
    plans: dict[int, list[PlanNode]] = field(default_factory=dict)
    driver_accums: dict[int, float] = field(default_factory=dict)
    progress: list[ProgressReport] = field(default_factory=list)

    # reading ----------------------------------------------------------------------------

    def add_line(self, line: bytes) -> None:
        """Fold one line in; a line that is not a whole event is counted, never raised."""
        line = line.strip()
        if not line:
            return
        self.counts["lines"] += 1
        name = _event_name(line)
        if name is not None and name not in HANDLERS:
            self.ignored[name] += 1
            return
        try:
            event = json.loads(line)
        except (ValueError, RecursionError):  # RecursionError: nested too deep to be an event
            self.counts["corrupt lines"] += 1
            return
        if not isinstance(event, dict) or not isinstance(event.get("Event"), str):
            self.counts["corrupt lines"] += 1
            return
        handler = HANDLERS.get(event["Event"])
        if handler is None:
            self.ignored[event["Event"]] += 1
            return
        try:
            handler(self, event)
        except (KeyError, TypeError, ValueError, AttributeError):
            self.counts["malformed events"] += 1
            return
        self.counts["events used"] += 1

    # merging ----------------------------------------------------------------------------

    def merge(self, other: Digest) -> Digest:
        """Fold ``other`` into this digest and return it (associative and commutative)."""
        self.counts.update(other.counts)
        self.ignored.update(other.ignored)
        self.damage.extend(other.damage)
        for key, value in other.app.items():
            if key == "start":
                self.app[key] = min(self.app.get(key, value), value)
            elif key == "end":
                self.app[key] = max(self.app.get(key, value), value)
            else:
                self.app.setdefault(key, value)
        for exec_id, info in other.executors.items():
            self.executors.setdefault(exec_id, info)
        for job_id, job in other.jobs.items():
            self.jobs.setdefault(job_id, {}).update(job)
        for sid, stage in other.stages.items():
            merge_stage(self.stages, sid, stage)
        for sid, tries in other.attempts.items():
            mine = self.attempts.setdefault(sid, {})
            for attempt, failed in tries.items():
                mine[attempt] = mine.get(attempt, False) or failed
        for sid, values in other.accums.items():
            _merge_max(self.accums.setdefault(sid, {}), values)
        for sid, totals in other.tasks.items():
            _merge_totals(self.tasks, sid, totals)
        for execution, trees in other.plans.items():
            self.plans.setdefault(execution, []).extend(trees)
        _merge_max(self.driver_accums, other.driver_accums)
        self.progress.extend(other.progress)
        return self


def merge_all(digests: list[Digest]) -> Digest:
    total = Digest()
    for digest in digests:
        total.merge(digest)
    return total


def _event_name(line: bytes) -> str | None:
    """The event name, read without parsing the line: Spark always writes it first."""
    if not line.startswith(_PREFIX):
        return None
    end = line.find(b'"', len(_PREFIX))
    return line[len(_PREFIX):end].decode("utf-8", "replace") if end > 0 else None


def _merge_max(mine: dict[int, float], theirs: dict[int, float]) -> None:
    for key, value in theirs.items():
        mine[key] = max(mine.get(key, value), value)


def _merge_totals(tasks: dict[int, list[float]], sid: int, totals: list[float]) -> None:
    mine = tasks.get(sid)
    if mine is None:
        tasks[sid] = list(totals)
        return
    for i in SUMMED:
        mine[i] += totals[i]
    mine[FIRST_LAUNCH] = min(mine[FIRST_LAUNCH], totals[FIRST_LAUNCH])
    mine[LAST_FINISH] = max(mine[LAST_FINISH], totals[LAST_FINISH])
