"""A running Flink job changed in place (``streamplace apply``): its cluster checked, the
parallelism of each vertex sent with ``PUT /jobs/:jobid/resource-requirements``, and the
job watched until every vertex runs it.

Shapes from Flink's REST reference, checked against 1.20.3 and 2.2.1:

- ``GET /config`` answers the cluster's ``flink-version``; ``GET /jobmanager/config`` a list
  of ``{"key", "value"}``, where ``jobmanager.scheduler`` is ``adaptive`` when the cluster
  runs the adaptive scheduler (the only one that takes resource requirements; its reactive
  mode, ``scheduler-mode: reactive``, sizes every vertex to the whole cluster instead);
- ``GET /overview`` answers ``slots-total`` and ``slots-available``;
- the PUT answers ``200 {}``, or an error status with ``{"errors": [...]}``. Asked for more
  slots than the cluster has, the adaptive scheduler keeps the job as it runs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from streamplace.control.clock import Clock, poll_until
from streamplace.control.engine import WAIT, TooFewSlots, WaitStopped
from streamplace.control.flink.config import cluster_config
from streamplace.control.flink.job import split_job_url
from streamplace.errors import ChangeSent, EngineError, InputError, Unreachable
from streamplace.io.http import Address, get_json, put_json
from streamplace.solve.budget import StopRequest

__all__ = ["ENDED", "SENT", "WAIT", "JobAddress", "TooFewSlots", "WaitStopped",
           "check_cluster", "free_slots", "lower_bounds", "parallelism_of", "put_parallelism",
           "settled", "slots_needed", "state_of", "wait_for"]

ADAPTIVE_SINCE = (1, 18)  # lower bounds in resource requirements (FLIP-291 in 1.18)
ENDED = ("FAILED", "CANCELED", "CANCELLING", "FINISHED", "SUSPENDED")

SENT: list[str] = []
"""The jobs this process has sent a change to that has not settled, from the moment the PUT
goes out: what an interrupt or a later error must say (never "nothing was sent" once a
change may be under way)."""


@dataclass(frozen=True)
class JobAddress:
    address: Address
    base: str
    jid: str

    @classmethod
    def parse(cls, url: str, label: str = "JOB") -> JobAddress:
        return cls(*split_job_url(url, label))

    def at(self, path: str) -> Address:
        return self.address.at(f"{self.base}{path}")

    @property
    def job(self) -> str:
        return f"/jobs/{self.jid}"


def check_cluster(where: JobAddress, label: str = "JOB") -> str:
    """The cluster's version, once it is known to take resource requirements: else an
    InputError (exit 2) with the setting that fixes it."""
    config = get_json(where.at("/config"), label)
    version = config.get("flink-version") if isinstance(config, dict) else None
    if not isinstance(version, str) or not re.match(r"\d+\.\d+", version):
        raise InputError.single("the cluster does not say its Flink version (GET /config)",
                                "give the JobManager's REST address", path=label)
    major, minor = (int(x) for x in version.split(".")[:2])
    if (major, minor) < ADAPTIVE_SINCE:
        raise InputError.single(f"Flink {version} cannot change a running job's parallelism "
                                "with lower bounds", "upgrade to 1.18 or later, or apply the "
                                "plan by export --to flink and a restart", path=label)
    settings = cluster_config(where.address, where.base, label)
    scheduler = str(settings.get("jobmanager.scheduler", "default")).strip().lower()
    if str(settings.get("scheduler-mode", "")).strip().lower() == "reactive":
        raise InputError.single("the cluster runs the adaptive scheduler in reactive mode, "
                                "which gives every vertex the whole cluster", "drop "
                                "scheduler-mode: reactive from the cluster's configuration",
                                path=label)
    if scheduler != "adaptive":
        raise InputError.single(f"the cluster runs the {scheduler} scheduler: only the "
                                "adaptive one changes a running job's parallelism",
                                "set jobmanager.scheduler: adaptive in the cluster's "
                                "config.yaml and restart it", path=label)
    return version


def free_slots(where: JobAddress, held: int, label: str = "JOB") -> int | None:
    """Slots the job could hold: those free, and the ``held`` it holds now."""
    overview = get_json(where.at("/overview"), label)
    free = overview.get("slots-available") if isinstance(overview, dict) else None
    return free + held if isinstance(free, int) and free >= 0 else None


def slots_needed(job: Any, parallelism: dict[str, int]) -> int:
    """Slots a job takes at ``parallelism`` (vertex id: subtasks): a slot holds one subtask
    of every vertex of its slot-sharing group, so each group takes as many slots as its
    widest vertex, and the groups add up (``slotSharingGroupId`` in the job's JSON; one
    group where the job does not say).

    >>> job = {"vertices": [{"id": "a", "slotSharingGroupId": "g1"},
    ...                     {"id": "b", "slotSharingGroupId": "g1"},
    ...                     {"id": "c", "slotSharingGroupId": "g2"}]}
    >>> slots_needed(job, {"a": 2, "b": 3, "c": 4})
    7
    """
    widest: dict[str, int] = {}
    for v in job.get("vertices", []) if isinstance(job, dict) else []:
        if isinstance(v, dict) and v.get("id") in parallelism:
            group = v.get("slotSharingGroupId")
            key = group if isinstance(group, str) else "default"
            widest[key] = max(widest.get(key, 0), parallelism[v["id"]])
    return sum(widest.values())


def lower_bounds(where: JobAddress, label: str = "JOB") -> dict[str, int]:
    """Each vertex's lower bound of parallelism as the job's resource requirements hold it
    (``GET /jobs/:jobid/resource-requirements``); none where the cluster does not say."""
    try:
        found = get_json(where.at(f"{where.job}/resource-requirements"), label)
    except Unreachable:
        raise
    except InputError:  # an older cluster, or a proxy that does not pass the call
        return {}
    out = {}
    for vid, req in (found.items() if isinstance(found, dict) else []):
        bound = req.get("parallelism", {}).get("lowerBound") if isinstance(req, dict) \
            and isinstance(req.get("parallelism"), dict) else None
        if isinstance(bound, int) and not isinstance(bound, bool) and bound >= 1:
            out[vid] = bound
    return out


def put_parallelism(where: JobAddress, body: dict[str, Any], label: str = "JOB") -> None:
    """Send the resource requirements once. An error answer is an EngineError (exit 3);
    no answer at all is ChangeSent (exit 3: the change may have been taken)."""
    shown = where.at(where.job).shown()
    SENT.append(shown)
    try:
        status, reason, answer = put_json(where.at(f"{where.job}/resource-requirements"),
                                          body, label)
    except InputError as exc:
        raise ChangeSent(f"PUT {where.job}/resource-requirements got no whole answer "
                         f"({_said(exc)})", shown) from None
    if status not in (200, 202):
        SENT.remove(shown)  # refused: the job runs as it did
        raise EngineError(f"PUT {where.job}/resource-requirements answered {status} "
                          f"{reason}: {_first_error(answer)}: nothing was changed")


def parallelism_of(job: Any) -> dict[str, int]:
    """Each vertex id's parallelism in the JSON of ``GET /jobs/:jobid``."""
    return {v["id"]: v["parallelism"] for v in job.get("vertices", [])
            if isinstance(v, dict) and isinstance(v.get("id"), str)
            and isinstance(v.get("parallelism"), int)} if isinstance(job, dict) else {}


def settled(job: Any, wanted: dict[str, int]) -> bool:
    return isinstance(job, dict) and job.get("state") == "RUNNING" and \
        parallelism_of(job) == wanted and all(isinstance(v, dict) and v.get("status") == "RUNNING"
                                       for v in job.get("vertices", []))


def wait_for(where: JobAddress, wanted: dict[str, int], seconds: float, clock: Clock,
             stop: StopRequest | None = None, label: str = "JOB") -> Any:
    """The job's JSON once every vertex runs ``wanted``, after the change was sent (its
    entry in :data:`SENT` then taken out); else ChangeSent (exit 3) saying what runs, when
    the job ends, ``seconds`` pass or the job can no longer be read. A network blip is read
    again until then; a stop request ends the wait with :class:`WaitStopped`."""
    shown = where.at(where.job).shown()
    last: list[Any] = [None]
    failed: list[Unreachable] = []

    def look() -> Any:
        try:
            job = get_json(where.at(where.job), label)
        except Unreachable as exc:  # a blip: the deadline decides, not one failed read
            failed[:] = [exc]
            return None
        except InputError as exc:  # the job id gone (404), an answer that is not a job
            raise ChangeSent(f"the job could not be read after the change was sent "
                             f"({_said(exc)})", shown) from None
        failed.clear()
        last[0] = job
        state = job.get("state") if isinstance(job, dict) else None
        if state in ENDED:
            raise ChangeSent(f"the job is {state} while it was rescaled: " + state_of(job),
                             shown)
        return job if settled(job, wanted) else None

    job = poll_until(look, seconds, clock, stop)
    if job is not None:
        if shown in SENT:
            SENT.remove(shown)
        return job
    if stop:
        raise WaitStopped(shown)
    if failed:
        raise ChangeSent(f"the job could not be read for {seconds:g} s after the change "
                         f"was sent ({_said(failed[0])})", shown)
    raise ChangeSent(f"the job does not run the plan {seconds:g} s after the change was "
                     f"sent: {state_of(last[0])}", shown)


def _said(exc: InputError) -> str:
    return "; ".join(p.message for p in exc.problems) or str(exc)


def state_of(job: Any) -> str:
    """What the job runs, as errors say it."""
    if not isinstance(job, dict):
        return "the job's state is unknown"
    parts = [f"{v.get('name')} {v.get('parallelism')} ({str(v.get('status')).lower()})"
             for v in job.get("vertices", []) if isinstance(v, dict)]
    return f"it is {job.get('state')}, running " + ", ".join(parts)


def _first_error(answer: Any) -> str:
    errors = answer.get("errors") if isinstance(answer, dict) else None
    lines = [str(e) for e in errors] if isinstance(errors, list) else []
    for line in lines:  # the server's exception, its first line
        found = re.search(r"Exception on server side:\s*\n?([^\n]+)", line)
        if found:
            return found.group(1).strip()[:300]
    return lines[0][:300] if lines else "no reason given"
