"""Shared by several test modules (no test module imports another)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from .flink_cluster import FlinkCluster

RUN_TIMEOUT = 300  # a hang guard only


T = TypeVar("T")


def until(read: Callable[[], T], done: Callable[[T], bool]) -> T:
    """What ``read`` gives once ``done`` holds for it, or when the hang guard ends the wait
    (a submission, a rescale or a meter window takes the cluster a while; the answer never
    depends on how long)."""
    deadline = time.monotonic() + RUN_TIMEOUT
    while True:
        value = read()
        if done(value) or time.monotonic() > deadline:
            return value
        time.sleep(0.5)  # the polling interval


def runs_at(cluster: FlinkCluster, job: str, expected: dict[str, int]) -> dict[str, int]:
    """Each vertex's parallelism once every subtask runs at ``expected``."""
    def state() -> tuple[dict[str, int], bool]:
        got = cluster.get(f"/jobs/{job}")
        return ({v["name"]: v["parallelism"] for v in got["vertices"]},
                got["state"] == "RUNNING" and all(v["status"] == "RUNNING"
                                                  for v in got["vertices"]))

    return until(state, lambda seen: seen == (expected, True))[0]


RATE, WORK_MICROS, PAYLOAD = 200, 10_000, 1000
WINDOW = "6"


WEIGHTS = "cost=0.9,response_time=0.05,availability=0.05"  # autoscale's: slots first


def streamplace(*args: str, env: dict[str, str] | None = None,
                ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "streamplace", *args], capture_output=True,
                          text=True, timeout=RUN_TIMEOUT, env={**os.environ, **(env or {})})


def loaded_job(cluster: FlinkCluster, flag: Path | None = None) -> str:
    """The loaded job at parallelism 1, once its work vertex holds the source back."""
    job = cluster.submit("LoadedJob", (str(RATE), str(WORK_MICROS), str(PAYLOAD),
                                       str(flag or "")))

    def pressed() -> float:
        source = cluster.get(f"/jobs/{job}")["vertices"][0]["metrics"]
        return float(source.get("accumulated-backpressured-time", 0))

    assert until(pressed, lambda ms: ms > 0) > 0
    return job
