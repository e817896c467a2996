"""Collect: the job read over the metrics window, or the reason there is no reading."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from streamplace.control.flink.read import read_job
from streamplace.control.running.observation import Observation
from streamplace.errors import EngineError, Unreachable


@dataclass(frozen=True)
class Reading:
    snapshot: Any           # what the REST API answered, with the cluster's load
    observation: Observation


@dataclass(frozen=True)
class NoReading:
    why: str
    unreachable: Unreachable | None = None  # the JobManager did not answer in whole


def collect(job: str, window: float, rates: dict[str, float],
            wait: Callable[[float], None]) -> Reading | NoReading:
    """The job over ``window`` seconds at the offered ``rates``, waiting with ``wait``. A
    job restarted or rescaled during the window, a counter Flink answered incomplete, a
    subtask not running, a job not RUNNING, or a JobManager that did not answer gives no
    reading."""
    try:
        snapshot, obs = read_job(job, window, rates, load=True, wait=wait)
    except Unreachable as exc:
        return NoReading(f"no reading: {exc}", exc)
    except EngineError as exc:  # its message may say "no reading" already
        said = str(exc)
        return NoReading(said if said.startswith("no reading") else f"no reading: {said}")
    state = snapshot.get("job", {}).get("state") if isinstance(snapshot, dict) else None
    if state != "RUNNING":  # its rates are those of its last moments: nothing to decide on
        return NoReading(f"no reading: the job is {state}, not RUNNING")
    return Reading(snapshot, obs)
