"""The jobs of a session cluster, as autoscale over the whole cluster follows them: the
running ones by id and name (``GET /jobs/overview``), the cluster's slots (``GET
/overview``'s ``slots-total``) and who holds each (``GET /taskmanagers/:id``'s
``allocatedSlots``, each with its ``jobId``)."""

from __future__ import annotations

import re
from collections import Counter

from streamplace.control.engine import Listing
from streamplace.control.flink.job import cluster_load, held_slots
from streamplace.control.flink.rescale import ENDED
from streamplace.errors import InputError
from streamplace.io.http import Address, get_json, without_credentials

LABEL = "JOBMANAGER"
CLUSTER = re.compile(r"^(https?://[^/#?]+)(/[^#?]*?)?/?$")


def cluster_address(url: str) -> str | None:
    """The JobManager's address where ``url`` names a cluster (``http://JM:8081``), not a
    job (``.../jobs/JOBID``); None for a job. Judged without the credentials, whatever the
    password holds.

    >>> cluster_address("http://ops:p#w?d@jm:8081/"), cluster_address("http://jm:8081/jobs/x")
    ('http://ops:p#w?d@jm:8081', None)
    """
    given = url.strip().rstrip("/")
    bare = without_credentials(given).rstrip("/")
    return None if "/jobs/" in bare or "#/job/" in bare or not CLUSTER.match(bare) else given


def cluster_path(url: str) -> str:
    """The REST API's base path in a cluster's address ('' at the root)."""
    return Address.parse(url, LABEL).path.rstrip("/")


def list_jobs(url: str) -> Listing:
    """The cluster now. A job restarting (a failover) is not let go, and two running jobs
    of one name (a blue/green deploy overlapping) are left as they run while they share it:
    both are said, not autoscaled this step. A listing whose slots do not add up (the
    cluster's count against its TaskManagers', or less than the jobs hold) is said to be
    unsound."""
    base, root = Address.parse(url, LABEL), cluster_path(url)
    taskmanagers = get_json(base.at(f"{root}/taskmanagers"), LABEL)
    load = cluster_load(base, root, taskmanagers, LABEL)
    overview = load["overview"]
    listed = overview.get("jobs") if isinstance(overview, dict) else None
    if not isinstance(listed, list):
        raise InputError.single("the address does not answer as a JobManager (GET "
                                "/jobs/overview lists no jobs)", "give http://JOBMANAGER:8081",
                                path=LABEL)
    running: dict[str, str] = {}
    waiting: dict[str, str] = {}
    for job in listed:
        if not (isinstance(job, dict) and isinstance(job.get("jid"), str)):
            continue
        name, state = str(job.get("name") or job["jid"]), job.get("state")
        if state == "RUNNING":
            running[job["jid"]] = name
        elif state not in ENDED:
            waiting[job["jid"]] = f"{name} ({job['jid']}) is {state}: kept, not read"
    for name, ids in _shared_names(running).items():
        for jid in ids:
            del running[jid]
            waiting[jid] = (f"{name} ({jid}) shares its name with {len(ids) - 1} other "
                            "running job(s) (a deploy overlapping?): left as it runs while "
                            "they do")
    cluster = get_json(base.at(f"{root}/overview"), LABEL)
    slots = cluster.get("slots-total") if isinstance(cluster, dict) else None
    if not isinstance(slots, int) or isinstance(slots, bool) or slots < 0:
        raise InputError.single("the cluster does not say its slots (GET /overview's "
                                "slots-total)", "give the JobManager's REST address",
                                path=LABEL)
    held = held_slots(load)
    return Listing(running, slots, held, waiting, _unsound(slots, taskmanagers, held))


def _unsound(slots: int, taskmanagers: object, held: Counter[str]) -> str:
    listed = taskmanagers.get("taskmanagers") if isinstance(taskmanagers, dict) else None
    counted = sum(t.get("slotsNumber", 0) for t in listed if isinstance(t, dict)
                  and isinstance(t.get("slotsNumber"), int)) if isinstance(listed, list) \
        else None
    if counted is not None and counted != slots:
        return (f"the cluster says {slots} slots and its TaskManagers {counted}: a reading "
                "that does not add up is no reading")
    if sum(held.values()) > slots:
        return (f"the jobs hold {sum(held.values())} slots of the cluster's {slots}: a "
                "reading that does not add up is no reading")
    return ""


def _shared_names(running: dict[str, str]) -> dict[str, list[str]]:
    seen: dict[str, list[str]] = {}
    for jid, name in running.items():
        seen.setdefault(name, []).append(jid)
    return {name: ids for name, ids in seen.items() if len(ids) > 1}
