"""The jobs of a session cluster, as autoscale over the whole cluster follows them: the
running ones by id and name (``GET /jobs/overview``), the cluster's slots (``GET
/overview``'s ``slots-total``) and who holds each (``GET /taskmanagers/:id``'s
``allocatedSlots``, each with its ``jobId``)."""

from __future__ import annotations

import re

from streamplace.control.engine import Listing
from streamplace.control.flink.job import cluster_load, held_slots
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
    """The cluster now. Two running jobs of one name are bad input (exit 2): ``--jobs``
    matches jobs by name."""
    base, root = Address.parse(url, LABEL), cluster_path(url)
    load = cluster_load(base, root, get_json(base.at(f"{root}/taskmanagers"), LABEL), LABEL)
    overview = load["overview"]
    listed = overview.get("jobs") if isinstance(overview, dict) else None
    if not isinstance(listed, list):
        raise InputError.single("the address does not answer as a JobManager (GET "
                                "/jobs/overview lists no jobs)", "give http://JOBMANAGER:8081",
                                path=LABEL)
    running: dict[str, str] = {}
    for job in listed:
        if isinstance(job, dict) and job.get("state") == "RUNNING" and \
                isinstance(job.get("jid"), str):
            running[job["jid"]] = str(job.get("name") or job["jid"])
    _one_name_each(running)
    cluster = get_json(base.at(f"{root}/overview"), LABEL)
    slots = cluster.get("slots-total") if isinstance(cluster, dict) else None
    if not isinstance(slots, int) or isinstance(slots, bool) or slots < 0:
        raise InputError.single("the cluster does not say its slots (GET /overview's "
                                "slots-total)", "give the JobManager's REST address",
                                path=LABEL)
    return Listing(running, slots, held_slots(load))


def _one_name_each(running: dict[str, str]) -> None:
    seen: dict[str, list[str]] = {}
    for jid, name in running.items():
        seen.setdefault(name, []).append(jid)
    twice = {name: ids for name, ids in seen.items() if len(ids) > 1}
    if twice:
        said = "; ".join(f"{name!r}: {', '.join(ids)}" for name, ids in sorted(twice.items()))
        raise InputError.single(f"several running jobs share a name ({said}): --jobs and "
                                "the decision name jobs by their names",
                                "give each job a name of its own (the name "
                                "env.execute(NAME) gives it), or cancel the duplicate",
                                path=LABEL)
