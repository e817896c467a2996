"""A session cluster on 127.0.0.1 that a test scripts: several jobs of the fake JobManager
(tests/support/fake_jobmanager.py), each with a job id and name of its own, on the same
two TaskManagers, answering from one REST address as a JobManager does."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from .fake_jobmanager import JobManager, sample_snapshot, serving


@dataclass
class Cluster:
    jobs: list[JobManager]
    slots_total: int = 8
    cancelled: set[str] = field(default_factory=set)  # job ids cancelled once a PUT comes
    cancel_on_put: str | None = None                   # this job is cancelled by any PUT
    hold_freed: bool = False  # slots a scale-down frees stay idle (Flink's slot.idle.timeout)
    held_back: int = 0        # slots freed and not yet given back to the cluster
    requests: list[tuple[str, str]] = field(default_factory=list)
    faults: dict[str, list[str]] = field(default_factory=dict)
    put_fault: str | None = None
    released: threading.Event = field(default_factory=threading.Event)
    url: str = ""
    authorization: str | None = None  # the Authorization header it asks for, if any

    def job(self, name: str) -> JobManager:
        return next(jm for jm in self.jobs if jm.snapshot["job"]["name"] == name)

    def puts_of(self, name: str) -> list[Any]:
        return self.job(name).puts

    def answer(self, path: str) -> Any:
        first = self.jobs[0]
        if path == "/jobs/overview":
            return {"jobs": [{"jid": jm.jid, "name": jm.snapshot["job"]["name"],
                              "state": jm.snapshot["job"]["state"]} for jm in self.jobs]}
        if path == "/overview":
            return {"slots-total": self.slots_total,
                    "slots-available": self.slots_total - self.held_back - sum(
                        jm._held() for jm in self.jobs if jm.jid not in self.cancelled)}
        if path.startswith("/taskmanagers/") and "metrics" not in path:
            merged = None
            for jm in self.jobs:
                if jm.jid in self.cancelled:
                    continue
                mine = jm.answer(path)
                if merged is None:
                    merged = mine
                elif mine is not None:
                    merged["allocatedSlots"] += [
                        {**slot, "jobId": jm.jid} for slot in mine["allocatedSlots"]]
            return merged
        for jm in self.jobs:
            if path.startswith(f"/jobs/{jm.jid}"):
                return jm.answer(path)
        return first.answer(path)

    def take_put(self, body: Any, path: str) -> None:
        for jm in self.jobs:
            if path.startswith(f"/jobs/{jm.jid}/"):
                if jm.jid in self.cancelled:
                    return
                before = jm._held()
                jm.take_put(body)
                if self.hold_freed:
                    self.held_back += max(0, before - jm._held())
        if self.cancel_on_put is not None:
            gone = self.job(self.cancel_on_put)
            gone.snapshot["job"]["state"] = "CANCELED"
            self.cancelled.add(gone.jid)


@contextmanager
def fake_cluster(*names: str, busy: dict[str, dict[str, float]] | None = None,
                 pressed: dict[str, dict[str, float]] | None = None,
                 slots: int = 8) -> Iterator[Cluster]:
    """One fake job per name (job ids 00..01, 00..02, ...), each ``busy`` and ``pressed``
    per vertex name by job name, on ``slots`` slots."""
    jobs = []
    for k, name in enumerate(names, start=1):
        snapshot = sample_snapshot()
        snapshot["job"]["jid"] = f"{k:032x}"
        snapshot["job"]["name"] = name
        managers = snapshot["taskmanagers"]["taskmanagers"]
        for tm in managers:  # the TaskManagers hold the cluster's slots between them
            tm["slotsNumber"] = slots // len(managers)
        jobs.append(JobManager(snapshot, dict((busy or {}).get(name, {})),
                               dict((pressed or {}).get(name, {})),
                               slots_total=slots))
    cluster = Cluster(jobs, slots)
    with serving(cluster) as url:
        cluster.url = url
        for jm in jobs:
            jm.url = url
        yield cluster
