"""A job that no longer runs under the id a loop follows: cancelled, finished, failed, or
gone from the cluster, as a redeployment replaces a job with a new one of the same name."""

from __future__ import annotations

from streamplace.control.flink.job import split_job_url
from streamplace.io.http import get_json

TERMINAL = ("FINISHED", "CANCELED", "FAILED")


def gone(url: str, name: str | None) -> str | None:
    """Why the job at ``url`` no longer runs, naming a running job of the same ``name``
    where there is one (a loop follows a job id, not a name: another job may share it);
    None while it runs, or is only restarting."""
    address, base, jid = split_job_url(url, "JOB")
    answer = get_json(address.at(f"{base}/jobs/overview"), "JOB")
    jobs = [j for j in answer.get("jobs", []) if isinstance(j, dict)] \
        if isinstance(answer, dict) else []
    mine = next((j for j in jobs if j.get("jid") == jid), None)
    if mine is not None and mine.get("state") not in TERMINAL:
        return None
    said = f"the job {jid} is {mine.get('state')}" if mine is not None else \
        f"the job {jid} is no longer on the cluster"
    heirs = [j for j in jobs if name and j.get("name") == name and j.get("jid") != jid
             and j.get("state") == "RUNNING"]
    if heirs:
        heir = address.at(f"{base}/jobs/{heirs[0]['jid']}").shown()
        said += (f"; a job of the same name, {name!r}, runs as {heirs[0]['jid']}: "
                 f"autoscale {heir} follows it (with a --state file of its own)")
    return said
