"""A running Flink job read over the JobManager's REST API: ``GET /jobs/:jobid`` for its
vertices and ``GET /config`` for the cluster's version (``export --flink-job http://...``),
and a snapshot of everything ``streamplace observe`` builds an application from.

Shapes from Flink's REST reference (rest_v1_dispatcher.yml), checked against 1.20.3 and
2.2.1: ``/config`` answers a DashboardConfiguration whose ``flink-version`` is the cluster's
version; ``/jobs/:jobid/vertices/:vertexid/subtasks/metrics?get=...`` answers, per metric,
its ``min``, ``max``, ``avg`` and ``sum`` over the vertex's subtasks; ``/jobs/overview``
lists every job of the cluster (``jid``, ``name``, ``state``), and ``/taskmanagers/:id`` a
TaskManager's ``allocatedSlots``, each with the ``jobId`` that holds it (TaskManagerDetailsInfo
and SlotInfo in both versions).
"""

from __future__ import annotations

import datetime
import re
import urllib.parse
from collections import Counter
from dataclasses import dataclass
from typing import Any

from streamplace.errors import InputError, Unreachable
from streamplace.io.engines.flink import VERTEX_ID
from streamplace.io.http import Address, get_json

JOB_PATH = re.compile(rf"((?:/[^\s]*?)?)/jobs/({VERTEX_ID.pattern})/?")
TASKMANAGER_ID = re.compile(r"[A-Za-z0-9_.:-]{1,200}")  # host:port-suffix, a container name
SNAPSHOT_SCHEMA = "streamplace/flink-snapshot/v1"
METERS = ("numRecordsInPerSecond", "numRecordsOutPerSecond", "busyTimeMsPerSecond",
          "backPressuredTimeMsPerSecond")
"""The vertex metrics a snapshot holds: Flink's record meters (a 60 s average), and the
busy and back-pressured milliseconds per second of its subtasks."""


@dataclass(frozen=True)
class FlinkJob:
    job: Any               # the JSON of GET /jobs/:jobid
    version: str | None    # GET /config's flink-version, when known


def fetch_job(url: str, label: str = "--flink-job") -> FlinkJob:
    """The job at ``url`` (``http://HOST:PORT/jobs/JOBID``) and its cluster's version."""
    address, base, jid = split_job_url(url, label)
    job = get_json(address.at(f"{base}/jobs/{jid}"), label)
    config = get_json(address.at(f"{base}/config"), label)
    return FlinkJob(job, version_of(config))


def saved_job(document: Any) -> FlinkJob:
    """A job read from a file: the JSON of ``GET /jobs/:jobid``, or a snapshot of
    :func:`fetch_snapshot` (``observe --save``), which holds its cluster's version too."""
    if isinstance(document, dict) and document.get("schema") == SNAPSHOT_SCHEMA:
        return FlinkJob(document.get("job"), version_of(document.get("config")))
    return FlinkJob(document, None)


def version_of(config: Any) -> str | None:
    version = config.get("flink-version") if isinstance(config, dict) else None
    return version if isinstance(version, str) and version else None


def fetch_snapshot(url: str, label: str = "JOB") -> dict[str, Any]:
    """Every answer ``observe`` reads, verbatim, under the name of the call that gave it:
    ``config``, ``job``, ``vertices`` and ``metrics`` (per vertex id), ``taskmanagers``."""
    address, base, jid = split_job_url(url, label)
    job = get_json(address.at(f"{base}/jobs/{jid}"), label)
    ids = [v["id"] for v in job.get("vertices", []) if isinstance(v, dict)
           and isinstance(v.get("id"), str)] if isinstance(job, dict) else []
    for vid in ids:  # checked before any is put into an address
        if not VERTEX_ID.fullmatch(vid):
            raise InputError.single(f"the job names a vertex {vid[:80]!r}, which is not a "
                                    "Flink vertex id (32 hex digits)", "check the address: "
                                    "it does not answer as a JobManager does", path=label)
    prefix = f"{base}/jobs/{jid}/vertices"
    return {
        "schema": SNAPSHOT_SCHEMA, "address": address.at(f"{base}/jobs/{jid}").shown(),
        "taken": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "config": get_json(address.at(f"{base}/config"), label), "job": job,
        "vertices": {vid: get_json(address.at(f"{prefix}/{vid}"), label) for vid in ids},
        "metrics": {vid: get_json(address.at(
            f"{prefix}/{vid}/subtasks/metrics?get={','.join(METERS)}"), label) for vid in ids},
        "taskmanagers": get_json(address.at(f"{base}/taskmanagers"), label),
        **_source_metrics(address, prefix, _sources(job, ids), label)}


def _source_metrics(address: Address, prefix: str, sources: list[str], label: str,
                    ) -> dict[str, Any]:
    """``pending``: each source's pendingRecords answer; ``partitions``: how many partitions
    it reads, where its metrics say (:func:`partitions_read`)."""
    listed = {vid: _listed(address, f"{prefix}/{vid}", label) for vid in sources}
    return {"pending": {vid: _pending(address, f"{prefix}/{vid}", ids, label)
                        for vid, ids in listed.items()},
            "partitions": {vid: partitions_read(ids) for vid, ids in listed.items()}}


PARTITION = re.compile(
    r"^.*?(\.kafkaCluster\.(?P<kafkaCluster>.+))?\.KafkaSourceReader\.topic\."
    r"(?P<kafkaTopic>.+)\.partition\.(?P<kafkaId>\d+)\.currentOffset$"
    r"|^.*\.PulsarConsumer\.(?P<pulsarTopic>.+)-partition-(?P<pulsarId>\d+)\..*"
    r"\.numMsgsReceived$")
"""A metric that names one partition a source reads: the Flink autoscaler's pattern
(``ScalingMetricCollector``) for Flink's Kafka and Pulsar sources."""


def partitions_read(ids: list[str]) -> int | None:
    """The distinct partitions the metric ids name, or None where they name none.

    >>> partitions_read(["Source__bids.KafkaSourceReader.topic.bids.partition.0.currentOffset",
    ...                  "Source__bids.KafkaSourceReader.topic.bids.partition.7.currentOffset",
    ...                  "Source__bids.numRecordsOut"])
    2
    """
    seen = {tuple(match.groupdict().values()) for match in map(PARTITION.match, ids) if match}
    return len(seen) or None


PENDING = "pendingRecords"
"""A FLIP-33 source's records not yet read from its source system (a Kafka consumer's lag):
what the Flink autoscaler reads the offered load and the backlog from."""


def _sources(job: Any, ids: list[str]) -> list[str]:
    """The vertices no stream enters, in the job's plan."""
    plan = job.get("plan") if isinstance(job, dict) else None
    nodes = plan.get("nodes") if isinstance(plan, dict) else None
    fed = {n.get("id") for n in nodes if isinstance(n, dict) and n.get("inputs")} \
        if isinstance(nodes, list) else set()
    return [vid for vid in ids if vid not in fed]


def _listed(address: Address, vertex: str, label: str) -> list[str]:
    """The metric ids ``GET .../subtasks/metrics`` lists for a vertex, scoped by operator
    (``Source__events.pendingRecords``); none from a proxy that passes only the calls it
    knows."""
    try:
        listed = get_json(address.at(f"{vertex}/subtasks/metrics"), label)
    except Unreachable:
        raise
    except InputError:
        return []
    return [m["id"] for m in listed if isinstance(m, dict) and isinstance(m.get("id"), str)] \
        if isinstance(listed, list) else []


def _pending(address: Address, vertex: str, listed: list[str], label: str) -> Any:
    """The ``pendingRecords`` of a source vertex's operators, summed over its subtasks; an
    empty list where its source reports none."""
    ids = [i for i in listed if i.rsplit(".", 1)[-1] == PENDING]
    if not ids:
        return []
    asked = ",".join(urllib.parse.quote(i, safe="._-") for i in ids[:20])
    return get_json(address.at(f"{vertex}/subtasks/metrics?get={asked}"), label)


def fetch_load(url: str, taskmanagers: Any, label: str = "JOB") -> dict[str, Any]:
    """What every job of the cluster holds, for ``observe --occupied-out``: the answers of
    ``GET /jobs/overview`` and of ``GET /taskmanagers/:id`` for each TaskManager listed in
    ``taskmanagers`` (the answer of ``GET /taskmanagers``)."""
    address, base, _ = split_job_url(url, label)
    return cluster_load(address, base, taskmanagers, label)


def cluster_load(address: Address, base: str, taskmanagers: Any, label: str,
                 ) -> dict[str, Any]:
    """:func:`fetch_load` from the cluster's address and the REST API's base path."""
    listed = taskmanagers.get("taskmanagers") if isinstance(taskmanagers, dict) else None
    ids = [t["id"] for t in listed if isinstance(t, dict) and isinstance(t.get("id"), str)] \
        if isinstance(listed, list) else []
    for tm in ids:  # checked before any is put into an address
        if not TASKMANAGER_ID.fullmatch(tm):
            raise InputError.single(f"the cluster names a TaskManager {tm[:80]!r}, which is "
                                    "not a TaskManager id", "check the address: it does not "
                                    "answer as a JobManager does", path=label)
    return {"overview": get_json(address.at(f"{base}/jobs/overview"), label),
            "taskmanagers": {tm: get_json(address.at(f"{base}/taskmanagers/{tm}"), label)
                             for tm in ids}}


def held_slots(load: dict[str, Any]) -> Counter[str]:
    """Job id: the slots it holds, from :func:`fetch_load`'s answers."""
    held: Counter[str] = Counter()
    for details in load.get("taskmanagers", {}).values():
        for slot in details.get("allocatedSlots", []) if isinstance(details, dict) else []:
            if isinstance(slot, dict) and isinstance(slot.get("jobId"), str):
                held[slot["jobId"]] += 1
    return held


WEB_UI_JOB = re.compile(rf"#/job/(?:running/|completed/)?({VERTEX_ID.pattern})(?:/.*)?$")
"""A job's page in Flink's web UI (``http://JM:8081/#/job/running/JOBID/overview``): the UI
is served from the REST API's own address, so the job's REST address follows from it."""


def split_job_url(url: str, label: str) -> tuple[Address, str, str]:
    """The address (credentials kept apart), the REST API's base path and the job id; a
    job's page in the web UI is read as its REST address.

    >>> split_job_url("http://jm:8081/#/job/running/" + "ab" * 16 + "/overview", "JOB")[1:]
    ('', 'abababababababababababababababab')
    """
    page = WEB_UI_JOB.search(url)
    if page is not None:
        base = url[:page.start()].rstrip("/")
        url = f"{base}/jobs/{page.group(1)}"
    address = Address.parse(url, label)
    found = JOB_PATH.fullmatch(address.path)
    if found is None:
        raise InputError.single(f"cannot read {address.shown()!r} as a Flink job address",
                                "give http://JOBMANAGER:8081/jobs/JOBID (32 hex digits): GET "
                                "/jobs lists the running ones", path=label)
    return address, found.group(1), found.group(2)
