"""What ``observe``, ``apply`` and ``autoscale`` share: reading a running job, over a window
and at the load its sources offer."""

from __future__ import annotations

import math
from typing import Annotated, Any

import typer

from streamplace.errors import InputError, Problem
from streamplace.io.engines.flink_observe import Observation, observe
from streamplace.io.engines.flink_offered import offer
from streamplace.io.engines.flink_rest import fetch_load, fetch_snapshot
from streamplace.io.engines.flink_window import fetch_window
from streamplace.io.http import is_url, without_credentials
from streamplace.io.loader import load_path

WindowOpt = Annotated[float | None, typer.Option(
    "--window", help="Read the job's exact counters over this many seconds (at least 5) "
                     "instead of Flink's 60 s rate meters.")]
SourceRateOpt = Annotated[list[str] | None, typer.Option(
    "--source-rate", help="OP=RATE (repeatable): the records per second a source offers, "
                          "where backpressure hides it; the streams downstream are scaled "
                          "to it.")]
MIN_WINDOW = 5.0


def parse_rates(pairs: list[str] | None, label: str = "--source-rate") -> dict[str, float]:
    """``OP=RATE`` pairs; every bad one at once."""
    out, problems = {}, []
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        try:
            rate = float(value)
        except ValueError:
            rate = math.nan
        if not sep or not key.strip() or not math.isfinite(rate) or rate <= 0:
            problems.append(Problem(f"cannot read {pair!r} as OP=RATE", "give a source and "
                                    "its records per second, e.g. --source-rate events=200",
                                    path=label))
            continue
        out[key.strip()] = rate
    if problems:
        raise InputError(problems)
    return out


def check_window(window: float | None) -> None:
    if window is not None and not (math.isfinite(window) and window >= MIN_WINDOW):
        raise InputError.single(f"--window {window:g} is too short", "give at least "
                                f"{MIN_WINDOW:g} seconds: Flink's counters move in steps",
                                path="--window")


def read_job(job: str, window: float | None, rates: dict[str, float], load: bool = False,
             ) -> tuple[Any, Observation]:
    """The snapshot (live, or a file saved earlier) and its observation, at the offered
    load where ``rates`` give it; with ``load``, a live snapshot holds what every job of the
    cluster holds too (``fetch_load``)."""
    check_window(window)
    if window is not None and not is_url(job):
        raise InputError.single("--window reads a live job over time", "give the job's "
                                "address, or drop --window", path="--window")
    if not is_url(job):
        snapshot = load_path(job)[0]
    elif window is None:
        snapshot = fetch_snapshot(job)
    else:
        snapshot = fetch_window(job, window)
    if load and is_url(job):
        snapshot["load"] = fetch_load(job, snapshot.get("taskmanagers"))
    obs = observe(snapshot, without_credentials(job) if is_url(job) else job)
    if rates:
        offer(obs, rates)
    return snapshot, obs
