"""``autoscale --events FILE``: each rescale (and each dry run's recommendation) as one JSON
line in the shape of the Flink operator autoscaler's ``ScalingReport`` event
(AutoScalerEventHandler.scalingReport), so that what parses the operator's events parses
these: its message, word for word in the operator's format, and the same as fields
(VertexScalingReport).

Per vertex, as the operator computes them: the processing capacity is the vertex's true
processing rate (records per second of busy time, over its subtasks) at its parallelism
now, and, expected, at the new one (linear, as the operator's EXPECTED_PROCESSING_RATE);
the target data rate is what the vertex took in over the window (a source: what it sent).
The vertex is named as the decision lines name it (its operator).
"""

from __future__ import annotations

import json
from typing import IO, Any

from streamplace.model.decision import Decision

ENTRY = ("{{ Vertex ID {} | Parallelism {} -> {} | Processing capacity {:.2f} -> {:.2f} | "
         "Target data rate {:.2f}}}")
ENABLED = "Scaling execution enabled, begin scaling vertices:"
DISABLED = ("Scaling execution disabled by config job.autoscaler.scaling.enabled:false, "
            "recommended parallelism change:")


def scaling_reports(decision: Decision) -> list[dict[str, Any]]:
    """The events of one line: one per job rescaled (or recommended, in a dry run)."""
    parts = list(decision.jobs.values()) if decision.jobs else [decision]
    return [_report(p) for p in parts if p.decision in ("rescale", "dry run")
            and p.to != p.from_]


def _report(d: Decision) -> dict[str, Any]:
    vertices = []
    for op, new in d.to.items():
        now = d.from_.get(op, new)
        if now == new:
            continue
        seen = d.seen.get(op)
        rate = seen.service_rate if seen and seen.service_rate else 0.0
        taken = (seen.records_in if seen and seen.records_in is not None
                 else seen.records_out if seen and seen.records_out is not None else 0.0)
        vertices.append({"vertexId": op, "currentParallelism": now, "newParallelism": new,
                         "currentProcessCapacity": rate * now,
                         "expectedProcessCapacity": rate * new, "targetDataRate": taken})
    header = ENABLED if d.decision == "rescale" else DISABLED
    message = header + "".join(
        ENTRY.format(v["vertexId"], v["currentParallelism"], v["newParallelism"],
                     v["currentProcessCapacity"], v["expectedProcessCapacity"],
                     v["targetDataRate"]) for v in vertices)
    return {"type": "Normal", "reason": "ScalingReport", "messageKey": "ScalingExecutor",
            "message": message, "time": d.time, "job": d.job, "job_id": d.job_id,
            "step": d.step, "vertices": vertices}


def append_reports(handle: IO[str], decision: Decision) -> None:
    """The line's events appended to the open events file, each flushed as written (a
    reader tailing the file sees it at once)."""
    for event in scaling_reports(decision):
        handle.write(json.dumps(event, allow_nan=False) + "\n")
        handle.flush()
