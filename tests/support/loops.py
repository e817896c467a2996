"""The autoscale loop run in-process against an in-memory job (tests/support/memory_engine.py):
a day of windows in milliseconds, no HTTP, no real seconds."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from streamplace.control.autoscale.cluster import ClusterAutoscaler
from streamplace.control.autoscale.loop import Autoscaler
from streamplace.control.autoscale.options import AUTOSCALE_WEIGHTS, AutoscaleOptions, default
from streamplace.control.autoscale.settings import SETTINGS
from streamplace.io.readers import read_document
from streamplace.model.decision import Decision
from streamplace.model.jobs import JobsFile
from streamplace.model.objective import Objective
from streamplace.model.state import StateFile
from streamplace.model.units import parse_quantity

from .memory_engine import FakeClock, MemoryCluster, MemoryJob, Op, Rate

QUICK = {"metrics_window": 60.0, "stabilization_interval": 30.0, "scale_down_interval": 0.0}
"""A window a minute, the loop waiting half a minute after a rescale, scale-downs at once."""


def pipeline(clock: FakeClock, rate: Rate = 150.0, service: float = 100.0,
             running: dict[str, int] | None = None, **job: Any) -> MemoryJob:
    """source -> work (keyed, ``service`` records per second a subtask) -> sink: the shape
    of the sample job, the work vertex the one that needs scaling; each on one subtask, or
    as ``running`` says."""
    k = running or {}
    return MemoryJob([Op("source", rate=rate, service=5000.0, parallelism=k.get("source", 1)),
                      Op("work", ["source"], service=service, keyed=True,
                         parallelism=k.get("work", 1)),
                      Op("sink", ["work"], service=5000.0, parallelism=k.get("sink", 1))],
                     clock, **job)


def options(**given: Any) -> AutoscaleOptions:
    return AutoscaleOptions(**{"method": "ds2", **QUICK, **given}).checked()


def autoscaler(job: MemoryJob, clock: FakeClock, state: StateFile | None = None,
               **given: Any) -> Autoscaler:
    return Autoscaler(job, options(**given), Objective(weights=AUTOSCALE_WEIGHTS), clock,
                      state=state)


def decisions(job: MemoryJob, clock: FakeClock, steps: int, state: StateFile | None = None,
              **given: Any) -> list[Decision]:
    """Each decision of ``steps`` steps of the loop on ``job``."""
    said: list[Decision] = []
    autoscaler(job, clock, state, max_steps=steps, **given).run(said.append)
    return said


def cluster_decisions(cluster: MemoryCluster, clock: FakeClock, steps: int,
                      terms: JobsFile | None = None, state: StateFile | None = None,
                      keep: Callable[[StateFile], None] | None = None,
                      **given: Any) -> list[Decision]:
    said: list[Decision] = []
    ClusterAutoscaler(cluster, options(max_steps=steps, **given),
                      Objective(weights=AUTOSCALE_WEIGHTS), terms or JobsFile(), clock,
                      state=state, keep=keep).run(said.append)
    return said


def said(decision: Decision, text: str) -> bool:
    return any(text in why for why in decision.why)


__all__ = ["FakeClock", "MemoryCluster", "MemoryJob", "Op", "autoscaler", "cluster_decisions",
           "decisions", "flink_decided", "flink_decisions", "options", "pipeline", "said"]


def _parsed(args: tuple[str, ...], steps: int) -> tuple[dict[str, Any], dict[str, float],
                                                      JobsFile]:
    """The options, offered rates and jobs file ``autoscale ARGS`` would take."""
    given: dict[str, Any] = {"stabilization_interval": 0.0, "metrics_window": 5.0,
                             "max_steps": steps}
    rates: dict[str, float] = {}
    terms = JobsFile()
    flags = {name: s for s in SETTINGS.values() for name in (s.flag, *s.aliases)}
    todo = list(args)
    while todo:
        flag = todo.pop(0)
        if flag in ("--yes", "-q"):
            continue
        if flag == "--dry-run":
            given["dry_run"] = True
        elif flag == "--source-rate":
            op, _, rate = todo.pop(0).partition("=")
            rates[op] = float(rate)
        elif flag == "--jobs":
            terms = read_document(JobsFile, todo.pop(0))
        elif flag in flags and isinstance(default(flags[flag].field), bool):
            given[flags[flag].field] = True
        elif flag in flags:
            field, value = flags[flag].field, todo.pop(0)
            kind = type(default(field))
            given[field] = (tuple(value.split(",")) if field == "vertex_exclude_ids" else
                            parse_quantity(value, "time") if field == "max_response_time"
                            else kind(value) if kind in (int, float, str) else float(value))
        else:
            raise AssertionError(f"{flag} is not an option this helper knows")
    return given, rates, terms


def flink_decisions(url: str, *args: str, steps: int = 1) -> list[dict[str, Any]]:
    """``autoscale URL ARGS`` run in-process against a scripted JobManager over HTTP (the
    Flink engine, its REST calls and answers), on a clock that moves only when slept: each
    decision line as the command prints it. ``ARGS`` are the command's own options; a
    JobManager's address (no ``/jobs/``) autoscales the whole cluster."""
    from streamplace.control.flink.cluster import cluster_address
    from streamplace.control.flink.engine import FlinkCluster, FlinkEngine

    given, rates, terms = _parsed(args, steps)
    clock = FakeClock()
    options_ = AutoscaleOptions(**given).checked()
    objective = Objective(weights=AUTOSCALE_WEIGHTS)
    said_: list[Decision] = []
    if cluster_address(url) is not None:
        ClusterAutoscaler(FlinkCluster(url, clock), options_, objective, terms, clock
                          ).run(said_.append)
    else:
        Autoscaler(FlinkEngine(url, clock), options_, objective, clock, rates=rates
                   ).run(said_.append)
    return [json.loads(d.line()) for d in said_]


def flink_decided(url: str, *args: str) -> dict[str, Any]:
    """One step of :func:`flink_decisions`, sending nothing (``--dry-run``)."""
    return flink_decisions(url, *args, "--dry-run")[0]
