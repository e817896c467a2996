"""The events of a Spark event log that a :class:`~streamplace.io.eventlog.digest.Digest`
keeps, one handler each: what each event adds to the digest."""

from __future__ import annotations

import json
from collections import Counter
from datetime import datetime
from typing import Any, Protocol

from streamplace.io.eventlog.records import (
    FAILED,
    FIRST_LAUNCH,
    IN_BYTES,
    IN_REC,
    KILLED,
    LAST_FINISH,
    NEVER,
    OK,
    OUT_BYTES,
    OUT_REC,
    READ_BYTES,
    READ_REC,
    RUN_MS,
    USEFUL_FLOOR,
    USEFUL_NS,
    WAIT_MS,
    WRITE_BYTES,
    WRITE_NS,
    WRITE_REC,
    Executor,
    JobStage,
    PlanNode,
    ProgressReport,
    RddInfo,
)


class Digest(Protocol):
    """What the handlers fill in: the fields of a
    :class:`~streamplace.io.eventlog.digest.Digest` (which imports this module, so it is
    described here rather than imported)."""

    counts: Counter[str]
    app: dict[str, Any]
    executors: dict[str, Executor]
    jobs: dict[int, dict[str, Any]]
    stages: dict[int, dict[str, Any]]
    attempts: dict[int, dict[int, bool]]
    accums: dict[int, dict[int, float]]
    tasks: dict[int, list[float]]
    plans: dict[int, list[PlanNode]]
    driver_accums: dict[int, float]
    progress: list[ProgressReport]

_SQL = "org.apache.spark.sql.execution.ui."
_STREAMING = "org.apache.spark.sql.streaming.StreamingQueryListener$"


def merge_stage(stages: dict[int, dict[str, Any]], sid: int, stage: dict[str, Any]) -> None:
    mine = stages.get(sid)
    if mine is None:
        stages[sid] = dict(stage)
        return
    # a retried attempt lists only the partitions still missing: attempt 0 has them all
    mine["tasks"] = max(mine["tasks"], stage["tasks"])
    mine["submitted"] = min(mine["submitted"], stage["submitted"])
    mine["ran"] = mine["ran"] or stage["ran"]


def _number(value: Any) -> float | None:
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


# event handlers ---------------------------------------------------------------------------

def _stage_info(d: Digest, info: dict[str, Any], ran: bool) -> int:
    sid = int(info["Stage ID"])
    rdds = [RddInfo(int(r["RDD ID"]), str(r.get("Name", "")), _scope(r.get("Scope")),
                    [int(p) for p in r.get("Parent IDs", [])]) for r in info.get("RDD Info", [])]
    submitted = info.get("Submission Time")
    merge_stage(d.stages, sid, {
        "name": str(info.get("Stage Name", "")), "tasks": int(info.get("Number of Tasks", 0)),
        "rdds": rdds, "parents": [int(p) for p in info.get("Parent IDs", [])],
        "submitted": float(submitted) if submitted is not None else NEVER, "ran": ran})
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
        totals = d.tasks[sid] = [0.0] * (USEFUL_NS + 1) + [NEVER, -NEVER]
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
    run = float(m.get("Executor Run Time", 0))
    wait = float(read.get("Fetch Wait Time", 0))
    write_ns = float(write.get("Shuffle Write Time", 0))
    totals[RUN_MS] += run
    totals[WAIT_MS] += wait
    totals[WRITE_NS] += write_ns
    if run > 0:  # DS2's useful time: what the task spent neither fetching nor writing
        totals[USEFUL_NS] += round(max(run * 1e6 - wait * 1e6 - write_ns,
                                       USEFUL_FLOOR * run * 1e6))
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
        "stages": [JobStage(int(s["Stage ID"]), [int(p) for p in s.get("Parent IDs", [])])
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


def _plan(node: dict[str, Any]) -> PlanNode:
    """Metric names are kept only where they are read (a broadcast's row count and size): a
    streaming query logs one plan per micro-batch, and the driver holds them all."""
    name = str(node["nodeName"])
    named = name == "BroadcastExchange"
    return PlanNode(name, [(int(m["accumulatorId"]), str(m.get("name", "")) if named else "")
                           for m in node.get("metrics", [])],
                    [_plan(child) for child in node.get("children", [])])


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
    d.progress.append(ProgressReport(str(p["id"]), str(p.get("name") or ""), stamp * 1000.0,
                                     int(p["batchId"]), rows))


def _executor_added(d: Digest, e: dict[str, Any]) -> None:
    info = e["Executor Info"]
    d.executors[str(e["Executor ID"])] = Executor(str(info["Host"]),
                                                  int(info.get("Total Cores", 1)))


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


HANDLERS = {
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
