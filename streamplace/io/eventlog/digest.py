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
from datetime import datetime
from typing import Any

# Per-stage task totals, by position in the list kept for each stage.
OK, FAILED, KILLED, RUN_MS, IN_REC, IN_BYTES, READ_REC, READ_BYTES, WRITE_REC, WRITE_BYTES, \
    OUT_REC, OUT_BYTES, FIRST_LAUNCH, LAST_FINISH = range(14)
_SUMMED = range(OUT_BYTES + 1)
_NEVER = float("inf")

_SQL = "org.apache.spark.sql.execution.ui."
_STREAMING = "org.apache.spark.sql.streaming.StreamingQueryListener$"
_PREFIX = b'{"Event":"'


@dataclass
class Digest:
    """Mergeable summary of event-log lines (see the module docstring)."""

    counts: Counter[str] = field(default_factory=Counter)
    ignored: Counter[str] = field(default_factory=Counter)
    damage: list[str] = field(default_factory=list)
    app: dict[str, Any] = field(default_factory=dict)
    executors: dict[str, list[Any]] = field(default_factory=dict)
    jobs: dict[int, dict[str, Any]] = field(default_factory=dict)
    stages: dict[int, dict[str, Any]] = field(default_factory=dict)
    attempts: dict[int, dict[int, bool]] = field(default_factory=dict)
    accums: dict[int, dict[int, float]] = field(default_factory=dict)
    tasks: dict[int, list[float]] = field(default_factory=dict)
    plans: dict[int, list[Any]] = field(default_factory=dict)
    driver_accums: dict[int, float] = field(default_factory=dict)
    progress: list[tuple[str, str, float, int, int]] = field(default_factory=list)

    # reading ----------------------------------------------------------------------------

    def add_line(self, line: bytes) -> None:
        """Fold one line in; a line that is not a whole event is counted, never raised."""
        line = line.strip()
        if not line:
            return
        self.counts["lines"] += 1
        name = _event_name(line)
        if name is not None and name not in _HANDLERS:
            self.ignored[name] += 1
            return
        try:
            event = json.loads(line)
        except ValueError:
            self.counts["corrupt lines"] += 1
            return
        if not isinstance(event, dict) or not isinstance(event.get("Event"), str):
            self.counts["corrupt lines"] += 1
            return
        handler = _HANDLERS.get(event["Event"])
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
            _merge_stage(self.stages, sid, stage)
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


def _merge_stage(stages: dict[int, dict[str, Any]], sid: int, stage: dict[str, Any]) -> None:
    mine = stages.get(sid)
    if mine is None:
        stages[sid] = dict(stage)
        return
    # a retried attempt lists only the partitions still missing: attempt 0 has them all
    mine["tasks"] = max(mine["tasks"], stage["tasks"])
    mine["submitted"] = min(mine["submitted"], stage["submitted"])
    mine["ran"] = mine["ran"] or stage["ran"]


def _merge_totals(tasks: dict[int, list[float]], sid: int, totals: list[float]) -> None:
    mine = tasks.get(sid)
    if mine is None:
        tasks[sid] = list(totals)
        return
    for i in _SUMMED:
        mine[i] += totals[i]
    mine[FIRST_LAUNCH] = min(mine[FIRST_LAUNCH], totals[FIRST_LAUNCH])
    mine[LAST_FINISH] = max(mine[LAST_FINISH], totals[LAST_FINISH])


def _number(value: Any) -> float | None:
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


# event handlers ---------------------------------------------------------------------------

def _stage_info(d: Digest, info: dict[str, Any], ran: bool) -> int:
    sid = int(info["Stage ID"])
    rdds = [[int(r["RDD ID"]), str(r.get("Name", "")), _scope(r.get("Scope")),
             [int(p) for p in r.get("Parent IDs", [])]] for r in info.get("RDD Info", [])]
    submitted = info.get("Submission Time")
    _merge_stage(d.stages, sid, {
        "name": str(info.get("Stage Name", "")), "tasks": int(info.get("Number of Tasks", 0)),
        "rdds": rdds, "parents": [int(p) for p in info.get("Parent IDs", [])],
        "submitted": float(submitted) if submitted is not None else _NEVER, "ran": ran})
    return sid


def _scope(text: Any) -> str:
    if not isinstance(text, str):
        return ""
    try:
        return str(json.loads(text).get("name", ""))
    except (ValueError, AttributeError):
        return ""


def _stage_submitted(d: Digest, e: dict[str, Any]) -> None:
    _stage_info(d, e["Stage Info"], ran=True)


def _stage_completed(d: Digest, e: dict[str, Any]) -> None:
    info = e["Stage Info"]
    sid = _stage_info(d, info, ran=True)
    failed = bool(info.get("Failure Reason"))
    d.attempts.setdefault(sid, {})[int(info.get("Stage Attempt ID", 0))] = failed
    if failed:
        d.counts["failed stage attempts"] += 1
    values = d.accums.setdefault(sid, {})
    for acc in info.get("Accumulables", []):
        name = str(acc.get("Name", ""))
        value = _number(acc.get("Value"))
        if value is not None and not name.startswith("internal."):
            values[int(acc["ID"])] = max(values.get(int(acc["ID"]), value), value)


def _task_end(d: Digest, e: dict[str, Any]) -> None:
    sid = int(e["Stage ID"])
    info = e.get("Task Info", {})
    totals = d.tasks.get(sid)
    if totals is None:
        totals = d.tasks[sid] = [0.0] * (OUT_BYTES + 1) + [_NEVER, -_NEVER]
    reason = e.get("Task End Reason", {}).get("Reason")
    if reason != "Success":
        killed = reason == "TaskKilled" or bool(info.get("Killed"))
        totals[KILLED if killed else FAILED] += 1
        d.counts["killed tasks" if killed else "failed tasks"] += 1
        return
    m = e.get("Task Metrics") or {}
    read = m.get("Shuffle Read Metrics") or {}
    write = m.get("Shuffle Write Metrics") or {}
    inp = m.get("Input Metrics") or {}
    out = m.get("Output Metrics") or {}
    totals[OK] += 1
    totals[RUN_MS] += m.get("Executor Run Time", 0)
    totals[IN_REC] += inp.get("Records Read", 0)
    totals[IN_BYTES] += inp.get("Bytes Read", 0)
    totals[READ_REC] += read.get("Total Records Read", 0)
    totals[READ_BYTES] += read.get("Remote Bytes Read", 0) + read.get("Local Bytes Read", 0)
    totals[WRITE_REC] += write.get("Shuffle Records Written", 0)
    totals[WRITE_BYTES] += write.get("Shuffle Bytes Written", 0)
    totals[OUT_REC] += out.get("Records Written", 0)
    totals[OUT_BYTES] += out.get("Bytes Written", 0)
    if "Launch Time" in info:
        totals[FIRST_LAUNCH] = min(totals[FIRST_LAUNCH], float(info["Launch Time"]))
    if info.get("Finish Time"):
        totals[LAST_FINISH] = max(totals[LAST_FINISH], float(info["Finish Time"]))


def _job_start(d: Digest, e: dict[str, Any]) -> None:
    props = e.get("Properties") or {}
    execution = props.get("spark.sql.execution.id")
    d.jobs.setdefault(int(e["Job ID"]), {}).update({
        "submit": float(e["Submission Time"]),
        "stages": [[int(s["Stage ID"]), [int(p) for p in s.get("Parent IDs", [])]]
                   for s in e.get("Stage Infos", [])],
        "sql": int(execution) if execution is not None else None,
        "query": props.get("sql.streaming.queryId"),
        "batch": int(props["streaming.sql.batchId"]) if "streaming.sql.batchId" in props
        else None})
    for info in e.get("Stage Infos", []):
        # a stage listed but never submitted stays "not ran" unless its own events say so
        _stage_info(d, info, ran=False)


def _job_end(d: Digest, e: dict[str, Any]) -> None:
    result = (e.get("Job Result") or {}).get("Result")
    d.jobs.setdefault(int(e["Job ID"]), {}).update({
        "end": float(e["Completion Time"]), "ok": result == "JobSucceeded"})


def _plan(node: dict[str, Any]) -> list[Any]:
    """``[name, [[metric id, metric name]], children]``; metric names are kept only where
    they are read (a broadcast's row count and size): a streaming query logs one plan per
    micro-batch, and the driver holds them all."""
    name = str(node["nodeName"])
    named = name == "BroadcastExchange"
    return [name,
            [[int(m["accumulatorId"]), str(m.get("name", "")) if named else ""]
             for m in node.get("metrics", [])],
            [_plan(child) for child in node.get("children", [])]]


def _sql_plan(d: Digest, e: dict[str, Any]) -> None:
    if e.get("sparkPlanInfo"):
        d.plans.setdefault(int(e["executionId"]), []).append(_plan(e["sparkPlanInfo"]))


def _driver_accums(d: Digest, e: dict[str, Any]) -> None:
    for acc_id, value in e.get("accumUpdates", []):
        d.driver_accums[int(acc_id)] = max(d.driver_accums.get(int(acc_id), value), value)


def _progress(d: Digest, e: dict[str, Any]) -> None:
    p = e["progress"]
    stamp = datetime.fromisoformat(str(p["timestamp"]).replace("Z", "+00:00")).timestamp()
    rows = sum(int(s.get("numInputRows", 0)) for s in p.get("sources", []))
    d.progress.append((str(p["id"]), str(p.get("name") or ""), stamp * 1000.0,
                       int(p["batchId"]), rows))


def _executor_added(d: Digest, e: dict[str, Any]) -> None:
    info = e["Executor Info"]
    d.executors[str(e["Executor ID"])] = [str(info["Host"]), int(info.get("Total Cores", 1))]


def _app_start(d: Digest, e: dict[str, Any]) -> None:
    d.app.update({"id": e.get("App ID"), "name": e.get("App Name"),
                  "start": float(e["Timestamp"])})


def _app_end(d: Digest, e: dict[str, Any]) -> None:
    d.app["end"] = float(e["Timestamp"])


def _log_start(d: Digest, e: dict[str, Any]) -> None:
    d.app["version"] = e.get("Spark Version")


def _environment(d: Digest, e: dict[str, Any]) -> None:
    master = (e.get("Spark Properties") or {}).get("spark.master")
    if isinstance(master, str):
        d.app["master"] = master


_HANDLERS = {
    "SparkListenerStageSubmitted": _stage_submitted,
    "SparkListenerStageCompleted": _stage_completed,
    "SparkListenerTaskEnd": _task_end,
    "SparkListenerJobStart": _job_start,
    "SparkListenerJobEnd": _job_end,
    "SparkListenerExecutorAdded": _executor_added,
    "SparkListenerApplicationStart": _app_start,
    "SparkListenerApplicationEnd": _app_end,
    "SparkListenerLogStart": _log_start,
    "SparkListenerEnvironmentUpdate": _environment,
    _SQL + "SparkListenerSQLExecutionStart": _sql_plan,
    _SQL + "SparkListenerSQLAdaptiveExecutionUpdate": _sql_plan,
    _SQL + "SparkListenerDriverAccumUpdates": _driver_accums,
    _STREAMING + "QueryProgressEvent": _progress,
}
