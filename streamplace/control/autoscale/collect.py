"""Collect: the job read over the metrics window, or the reason there is no reading."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from streamplace.control.flink.observation import Observation
from streamplace.control.flink.read import read_job
from streamplace.errors import EngineError


@dataclass(frozen=True)
class Reading:
    snapshot: Any           # what the REST API answered, with the cluster's load
    observation: Observation


@dataclass(frozen=True)
class NoReading:
    why: str


def collect(job: str, window: float, rates: dict[str, float]) -> Reading | NoReading:
    """The job over ``window`` seconds at the offered ``rates``; a job restarted or rescaled
    during the window gives no reading (read again after the stabilisation interval)."""
    try:
        snapshot, obs = read_job(job, window, rates, load=True)
    except EngineError as exc:
        return NoReading(f"no reading: {exc}")
    return Reading(snapshot, obs)
