"""Scenario sweeps (docs/cli.md, ``sweep``): a base instance, axes whose every combination
is one scenario, each solved as ``streamplace solve`` would, on Spark (``local[*]`` by
default) or in this process; rows, plans, tables and plots in one folder."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from streamplace.io.readers import read_document
from streamplace.io.spark import Engine
from streamplace.model.sweep import SweepFile
from streamplace.solve.budget import StopRequest
from streamplace.sweep.checks import check_size, check_sweep
from streamplace.sweep.rows import Outcome, Settings
from streamplace.sweep.scenarios import Scenario, expand, failure_counts, read_inputs
from streamplace.sweep.store import Store

Progress = Callable[[int, int], None]  # (scenarios done, total)
EXECUTOR_NEEDS = ("highspy", "pydantic", "numpy", "yaml", "networkx")
"""What a scenario imports on an executor: a cluster whose Python lacks one is refused."""


@dataclass
class SweepReport:
    folder: Path
    analysis: str
    total: int
    skipped: int  # already in the folder (--resume)
    ran: int = 0
    seconds: float = 0.0
    rows: list[dict[str, Any]] = field(default_factory=list)
    columns: tuple[str, ...] = ()
    files: list[Path] = field(default_factory=list)
    interrupted: bool = False
    warnings: list[str] = field(default_factory=list)  # damaged rows files, re-run


def run_sweep(sweep_path: str, folder: str, *, master: str | None = None,
              engine: str = "spark", resume: bool = False, quiet: bool = False,
              progress: Progress | None = None, stop: StopRequest | None = None,
              plots: bool = True, target_utilization: float | None = None,
              yes: bool = False) -> SweepReport:
    """Run every scenario the folder does not hold yet, then write the tables and plots.
    A sweep of more than checks.LARGE_SWEEP scenarios runs only with ``yes``."""
    stop = stop if stop is not None else StopRequest()
    engine = Engine.named(engine)
    sweep = read_document(SweepFile, sweep_path)
    if target_utilization is not None:  # the command line's, over the file's
        sweep = sweep.model_copy(update={"target_utilization": target_utilization})
    check_sweep(sweep)
    inputs = read_inputs(sweep, sweep_path)
    check_size(sweep, failure_counts(sweep, inputs), yes)
    scenarios = expand(sweep, inputs, stop)
    settings = Settings.of(sweep)
    store = Store(folder)
    store.open(sweep_path, scenarios, resume)
    finished, damaged = store.done(settings.columns)
    todo = [s for s in scenarios if s.id not in finished]
    report = SweepReport(store.root, sweep.analysis, len(scenarios),
                         len(scenarios) - len(todo), columns=settings.columns)
    ids = {s.id for s in scenarios}
    report.warnings += [f"{why}: the scenario runs again" for sid, why in
                        sorted(damaged.items()) if sid in ids]
    started = time.perf_counter()

    def done(scenario: Scenario, outcomes: list[Outcome]) -> None:
        store.save(scenario, outcomes)
        report.ran += 1
        if progress is not None:
            progress(report.skipped + report.ran, report.total)

    if progress is not None:
        progress(report.skipped, report.total)
    if engine == Engine.PYTHON:
        from streamplace.sweep.runner import run_locally

        run_locally(inputs, settings, todo, done, stop)
        report.rows = store.rows(scenarios, settings.columns)
        store.write_csv(report.rows, settings.columns)
        report.files.append(store.root / "results.csv")
        if store.drop_parquet():  # an earlier Spark run's, which no longer matches the CSV
            report.warnings.append("results.parquet of an earlier run on Spark removed: the "
                                   "python engine writes results.csv only")
    elif not todo and store.parquet_current(rows := store.rows(scenarios, settings.columns),
                                            settings.columns):
        # a resumed sweep with nothing left to run: its tables are current, Spark idles
        report.rows = rows
        report.files += [store.write_csv(rows, settings.columns),
                         store.root / "results.parquet"]
    else:
        from streamplace.io.spark import spark_session
        from streamplace.sweep.runner import run_on_spark

        with spark_session(master, quiet=quiet, name="streamplace-sweep",
                           needs=EXECUTOR_NEEDS, shared=store.root) as spark:
            if todo:
                run_on_spark(spark, inputs, settings, todo, done, stop)
            report.rows = store.rows(scenarios, settings.columns)
            report.files += [store.write_csv(report.rows, settings.columns),
                             store.write_parquet(spark, report.rows, settings.columns)]
    report.seconds = time.perf_counter() - started
    report.interrupted = bool(stop)
    if plots and report.rows:
        from streamplace.draw.charts import draw

        report.files += draw(report.rows, store.root / "plots", sweep.analysis)
    return report
