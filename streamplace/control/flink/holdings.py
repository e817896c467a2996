"""What each job of a Flink session cluster holds, read from the REST API's answers
(``GET /jobs/overview`` and ``GET /taskmanagers/:id``, whose ``allocatedSlots`` name the
``jobId`` holding each slot), as :class:`~streamplace.control.running.observation.JobSlots`."""

from __future__ import annotations

from collections import Counter
from typing import Any

from streamplace.control.running.observation import JobSlots
from streamplace.errors import InputError

FIX = "observe a live job with --occupied-out, or save its snapshot with both options"


def holdings(load: Any, file: str) -> dict[str, JobSlots]:
    """Job id: its name, state and slots per TaskManager, from ``fetch_load``'s answers;
    bad input where a TaskManager does not say which job holds a slot."""
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
            if isinstance(holder, str):
                held.setdefault(holder, Counter())[tm] += 1
    return {jid: JobSlots(*jobs.get(jid, (jid, "not listed")), dict(on))
            for jid, on in held.items()}


def _jobs(overview: Any) -> dict[str, tuple[str, str]]:
    """Job id -> (name, state) from ``GET /jobs/overview``."""
    listed = overview.get("jobs") if isinstance(overview, dict) else None
    out = {}
    for job in listed if isinstance(listed, list) else []:
        if isinstance(job, dict) and isinstance(job.get("jid"), str):
            out[job["jid"]] = (str(job.get("name") or job["jid"]), str(job.get("state", "")))
    return out
