"""A running job read as ``observe``, ``apply`` and ``autoscale`` read it: live or from a
saved snapshot, over a window or from Flink's meters, at the load its sources offer."""

from __future__ import annotations

import math
from typing import Any

from streamplace.control.clock import Clock, SystemClock
from streamplace.control.flink.job import fetch_load, fetch_snapshot
from streamplace.control.flink.memory import fetch_memory
from streamplace.control.flink.observe import observe
from streamplace.control.flink.window import MIN_WINDOW, fetch_window
from streamplace.control.running.observation import Observation
from streamplace.control.running.offered import offer
from streamplace.errors import InputError
from streamplace.io.http import is_url, without_credentials
from streamplace.io.loader import load_path
from streamplace.solve.budget import StopRequest


def check_window(window: float | None, label: str = "--window") -> None:
    if window is not None and not (math.isfinite(window) and window >= MIN_WINDOW):
        raise InputError.single(f"{label} {window:g} is too short", "give at least "
                                f"{MIN_WINDOW:g} seconds: Flink's counters move in steps",
                                path=label)


def read_job(job: str, window: float | None, rates: dict[str, float], load: bool = False,
             clock: Clock | None = None, stop: StopRequest | None = None, slices: int = 1,
             ) -> tuple[Any, Observation]:
    """The snapshot (live, or a file saved earlier) and its observation, at the offered
    load where ``rates`` give it; with ``load``, a live snapshot holds what every job of the
    cluster holds too (``fetch_load``), and its TaskManagers' memory pressure
    (``fetch_memory``); ``slices``: readings that slice the window (``fetch_window``)."""
    check_window(window)
    if window is not None and not is_url(job):
        raise InputError.single("--window reads a live job over time", "give the job's "
                                "address, or drop --window", path="--window")
    if not is_url(job):
        snapshot = load_path(job)[0]
    elif window is None:
        snapshot = fetch_snapshot(job)
    else:
        snapshot = fetch_window(job, window, clock or SystemClock(), stop, slices=slices)
    if load and is_url(job):
        snapshot["load"] = fetch_load(job, snapshot.get("taskmanagers"))
        snapshot["memory"] = fetch_memory(job)
    obs = observe(snapshot, without_credentials(job) if is_url(job) else job)
    if rates:
        offer(obs, rates)
    return snapshot, obs


def metered_view(snapshot: Any, address: str) -> Observation | None:
    """The job as its life-long meters show it, without the window (what a source that sent
    nothing over the window falls back to); None where they cannot be read."""
    if not isinstance(snapshot, dict) or "before" not in snapshot:
        return None
    try:
        return observe({k: v for k, v in snapshot.items() if k != "before"}, address)
    except InputError:
        return None
