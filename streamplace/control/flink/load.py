"""What the other jobs of a Flink session cluster hold (``observe --occupied-out``), as an
occupied-load document (docs/formats.md) in the observed application's own terms.

Each slot a TaskManager lists under ``allocatedSlots`` names the job holding it. Under slot
sharing one slot takes one subtask of every vertex of the observed job, so a slot another
job holds takes one unit of every ``slots.<operator>`` dimension of that TaskManager
(flink_observe's model): the observed job may use the rest.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from streamplace.control.flink.values import unique_id
from streamplace.errors import InputError
from streamplace.model.occupied import OCCUPIED_SCHEMA

FIX = "observe a live job with --occupied-out, or save its snapshot with both options"


def occupied(load: Any, job_id: str, app_name: str, nodes: dict[str, str],
             dims: list[str], file: str, shared: frozenset[str] = frozenset(),
             ) -> dict[str, Any]:
    """The occupied load of every job but ``job_id`` and those ``shared`` (planned with it):
    per TaskManager (``nodes`` maps its id to the node id), the slots it holds, in each of
    ``dims``."""
    if not isinstance(load, dict) or not isinstance(load.get("taskmanagers"), dict):
        raise InputError.single("the snapshot does not say what the other jobs hold", FIX,
                                path="load", file=file)
    jobs = _jobs(load.get("overview"))
    held: dict[str, Counter[str]] = {}
    for tm, details in sorted(load["taskmanagers"].items()):
        slots = details.get("allocatedSlots") if isinstance(details, dict) else None
        if not isinstance(slots, list):
            raise InputError.single(
                f"TaskManager {tm} does not list its allocatedSlots: this Flink does not "
                "say which job holds a slot (1.20 and 2.x do)", "give the occupied load by "
                "hand (--occupied FILE)", path=f"load.taskmanagers.{tm}", file=file)
        for slot in slots:
            holder = slot.get("jobId") if isinstance(slot, dict) else None
            if isinstance(holder, str) and holder != job_id and holder not in shared \
                    and tm in nodes:
                held.setdefault(holder, Counter())[nodes[tm]] += 1
    taken = {app_name}
    applications = []
    for jid, on in sorted(held.items(), key=lambda item: (jobs.get(item[0], ("", ""))[0],
                                                          item[0])):
        name, state = jobs.get(jid, (jid, "not listed"))
        applications.append({
            "name": unique_id(name, taken, "flink-job"),
            "description": f"Flink job {jid} ({state}): {sum(on.values())} slots",
            "nodes": {node: {dim: count for dim in dims} for node, count in sorted(on.items())}})
    return {"schema": OCCUPIED_SCHEMA, "applications": applications}


def _jobs(overview: Any) -> dict[str, tuple[str, str]]:
    """Job id -> (name, state) from ``GET /jobs/overview``."""
    listed = overview.get("jobs") if isinstance(overview, dict) else None
    out = {}
    for job in listed if isinstance(listed, list) else []:
        if isinstance(job, dict) and isinstance(job.get("jid"), str):
            out[job["jid"]] = (str(job.get("name") or job["jid"]), str(job.get("state", "")))
    return out
