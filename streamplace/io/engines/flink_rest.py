"""A running Flink job read over the JobManager's REST API (``--flink-job http://...``):
``GET /jobs/:jobid`` for its vertices and ``GET /config`` for the cluster's version, so that
the export writes what that version applies without ``--flink-version``.

Shapes from Flink's REST reference (rest_v1_dispatcher.yml): ``/config`` answers a
DashboardConfiguration whose ``flink-version`` is the cluster's version.
"""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any

from streamplace.errors import InputError

TIMEOUT = 10  # seconds a JobManager may take to answer before the export gives up
JOB_URL = re.compile(r"(https?://[^/\s]+)((?:/[^\s]*?)?)/jobs/([0-9a-fA-F]{32})/?")


def is_url(value: str) -> bool:
    return value.startswith(("http://", "https://"))


@dataclass(frozen=True)
class LiveJob:
    job: Any               # the JSON of GET /jobs/:jobid
    version: str | None    # GET /config's flink-version


def fetch_job(url: str) -> LiveJob:
    """The job at ``url`` (``http://HOST:PORT/jobs/JOBID``) and its cluster's version."""
    found = JOB_URL.fullmatch(url)
    if found is None:
        raise InputError.single(f"cannot read {url!r} as a Flink job address",
                                "give http://JOBMANAGER:8081/jobs/JOBID (32 hex digits), or "
                                "a saved JSON file", path="--flink-job")
    base = found.group(1) + found.group(2)
    job = _get(f"{base}/jobs/{found.group(3)}", url)
    config = _get(f"{base}/config", url)
    version = config.get("flink-version") if isinstance(config, dict) else None
    return LiveJob(job, version if isinstance(version, str) and version else None)


def _get(address: str, given: str) -> Any:
    try:
        with urllib.request.urlopen(address, timeout=TIMEOUT) as response:
            return json.loads(response.read())
    except urllib.error.HTTPError as exc:
        fix = ("check the job id: GET /jobs lists the running ones" if exc.code == 404
               else "check the JobManager's REST address and its log")
        raise InputError.single(f"GET {address} answered {exc.code} {exc.reason}", fix,
                                path="--flink-job") from None
    except (urllib.error.URLError, TimeoutError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise InputError.single(f"cannot reach {given}: {reason}",
                                "check the JobManager's REST address (rest.address, "
                                "rest.port), or save the job JSON and give the file",
                                path="--flink-job") from None
    except json.JSONDecodeError:
        raise InputError.single(f"GET {address} did not answer JSON",
                                "give the JobManager's REST address (not its web UI proxy)",
                                path="--flink-job") from None
