"""A running Flink job read over the JobManager's REST API: ``GET /jobs/:jobid`` for its
vertices and ``GET /config`` for the cluster's version (``export --flink-job http://...``),
and a snapshot of everything ``streamplace observe`` builds an application from.

Shapes from Flink's REST reference (rest_v1_dispatcher.yml), checked against 1.20.3 and
2.2.1: ``/config`` answers a DashboardConfiguration whose ``flink-version`` is the cluster's
version; ``/jobs/:jobid/vertices/:vertexid/subtasks/metrics?get=...`` answers, per metric,
its ``min``, ``max``, ``avg`` and ``sum`` over the vertex's subtasks.
"""

from __future__ import annotations

import datetime
import json
import re
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any

from streamplace.errors import InputError

TIMEOUT = 10  # seconds a JobManager may take to answer before the read gives up
JOB_URL = re.compile(r"(https?://[^/\s]+)((?:/[^\s]*?)?)/jobs/([0-9a-fA-F]{32})/?")
SNAPSHOT_SCHEMA = "streamplace/flink-snapshot/v1"
METERS = ("numRecordsInPerSecond", "numRecordsOutPerSecond", "busyTimeMsPerSecond",
          "backPressuredTimeMsPerSecond")
"""The vertex metrics a snapshot holds: Flink's record meters (a 60 s average), and the
busy and back-pressured milliseconds per second of its subtasks."""


def is_url(value: str) -> bool:
    return value.startswith(("http://", "https://"))


@dataclass(frozen=True)
class FlinkJob:
    job: Any               # the JSON of GET /jobs/:jobid
    version: str | None    # GET /config's flink-version, when known


def fetch_job(url: str, label: str = "--flink-job") -> FlinkJob:
    """The job at ``url`` (``http://HOST:PORT/jobs/JOBID``) and its cluster's version."""
    base, jid = _split(url, label)
    job = _get(f"{base}/jobs/{jid}", url, label)
    config = _get(f"{base}/config", url, label)
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
    base, jid = _split(url, label)
    job = _get(f"{base}/jobs/{jid}", url, label)
    ids = [v["id"] for v in job.get("vertices", []) if isinstance(v, dict)
           and isinstance(v.get("id"), str)] if isinstance(job, dict) else []
    prefix = f"{base}/jobs/{jid}/vertices"
    return {
        "schema": SNAPSHOT_SCHEMA, "address": url,
        "taken": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "config": _get(f"{base}/config", url, label), "job": job,
        "vertices": {vid: _get(f"{prefix}/{vid}", url, label) for vid in ids},
        "metrics": {vid: _get(f"{prefix}/{vid}/subtasks/metrics?get={','.join(METERS)}",
                              url, label) for vid in ids},
        "taskmanagers": _get(f"{base}/taskmanagers", url, label)}


def _split(url: str, label: str) -> tuple[str, str]:
    found = JOB_URL.fullmatch(url)
    if found is None:
        raise InputError.single(f"cannot read {url!r} as a Flink job address",
                                "give http://JOBMANAGER:8081/jobs/JOBID (32 hex digits), or "
                                "a saved JSON file", path=label)
    return found.group(1) + found.group(2), found.group(3)


def _get(address: str, given: str, label: str) -> Any:
    try:
        with urllib.request.urlopen(address, timeout=TIMEOUT) as response:
            return json.loads(response.read())
    except urllib.error.HTTPError as exc:
        fix = ("check the job id: GET /jobs lists the running ones" if exc.code == 404
               else "check the JobManager's REST address and its log")
        raise InputError.single(f"GET {address} answered {exc.code} {exc.reason}", fix,
                                path=label) from None
    except (urllib.error.URLError, TimeoutError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise InputError.single(f"cannot reach {given}: {reason}",
                                "check the JobManager's REST address (rest.address, "
                                "rest.port), or save the job JSON and give the file",
                                path=label) from None
    except json.JSONDecodeError:
        raise InputError.single(f"GET {address} did not answer JSON",
                                "give the JobManager's REST address (not its web UI proxy)",
                                path=label) from None
