"""A sweep's rows: their columns, the row of one result, and the solve every scenario and
probe runs, the way ``streamplace solve`` runs it (the same method lookup, options and
evaluation)."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any, Literal

from streamplace.io.bundles import bundle_document
from streamplace.io.writers import dumps, plan_document
from streamplace.model.bundle import BundleMode
from streamplace.model.metrics import METRIC_NAMES, MetricLimits
from streamplace.model.sweep import MaxRate, Pareto, SweepFile
from streamplace.solve.bundle.instance import BundleInstance
from streamplace.solve.bundle.result import BundleResult
from streamplace.solve.registry import applicable, get_method
from streamplace.solve.result import Instance, SolveOptions, SolveResult, SolveStatus
from streamplace.sweep.scenarios import Scenario

METRICS = METRIC_NAMES
Kind = Literal["string", "double", "long", "boolean"]
_COLUMNS: tuple[tuple[str, Kind], ...] = (
    ("scenario_id", "string"), ("method", "string"), ("rate_scale", "double"),
    ("failure", "string"), ("weights", "string"), ("seed", "long"),
    ("infrastructure", "string"), ("status", "string"), ("objective", "double"),
    ("bound", "double"), ("gap", "double"), *((m, "double") for m in METRICS),
    ("seconds", "double"), ("plan", "string"), ("error", "string"))
_ANALYSIS_COLUMNS: dict[str, tuple[tuple[str, Kind], ...]] = {
    "grid": (),
    "max-rate": (("max_rate_scale", "double"), ("max_rate_upper", "double"),
                 ("max_rate_proven", "boolean"), ("probes", "long")),
    "pareto": (("point", "long"), ("pareto_first", "string"), ("pareto_second", "string"),
               ("pareto_first_limit", "double"), ("pareto_second_limit", "double")),
}
_BUNDLE_COLUMNS: tuple[tuple[str, Kind], ...] = (
    ("applications", "string"), ("per_application", "string"))
COLUMN_KINDS: dict[str, Kind] = dict(_COLUMNS) | dict(_BUNDLE_COLUMNS) | {
    name: kind for columns in _ANALYSIS_COLUMNS.values() for name, kind in columns}
"""The one column spec: each column's kind, which results.parquet's typed columns follow
(results.csv holds the same columns as text)."""
COLUMNS = tuple(name for name, _ in _COLUMNS)
ANALYSIS_COLUMNS = {analysis: tuple(name for name, _ in columns)
                    for analysis, columns in _ANALYSIS_COLUMNS.items()}
BUNDLE_COLUMNS = tuple(name for name, _ in _BUNDLE_COLUMNS)


@dataclass
class Outcome:
    """A row of results.csv, and the plan it names (YAML text, or None)."""

    row: dict[str, Any]
    plan_text: str | None = None
    plan_name: str | None = None


@dataclass(frozen=True)
class Settings:
    """What every scenario of a sweep shares (plain data for the executors)."""

    analysis: str
    time_limit: float | None
    max_rate: MaxRate | None = None
    pareto: Pareto | None = None
    columns: tuple[str, ...] = field(default=COLUMNS)
    bundle: BundleMode | None = None  # how applications are placed together, when they are

    @classmethod
    def of(cls, sweep: SweepFile) -> Settings:
        together = sweep.applications is not None
        return cls(sweep.analysis, sweep.time_limit, sweep.max_rate, sweep.pareto,
                   COLUMNS + ANALYSIS_COLUMNS[sweep.analysis]
                   + (BUNDLE_COLUMNS if together else ()),
                   sweep.bundle if together else None)


def solve(instance: Instance, scenario: Scenario, time_limit: float | None,
          limits: MetricLimits | None = None, gap: float | None = None) -> SolveResult:
    """What ``streamplace solve -m METHOD --seed SEED --time-limit T`` runs."""
    if limits:
        instance = Instance(instance.app, instance.infra, instance.objective,
                            instance.current, limits)
    method = applicable(scenario.method, instance)
    return method.solve(instance, SolveOptions(time_limit=time_limit, seed=scenario.seed,
                                               gap=gap))


def place_scenario_bundle(joint: BundleInstance, scenario: Scenario,
                          settings: Settings) -> BundleResult:
    """What ``streamplace solve APP1 APP2 ... INFRA --bundle MODE`` runs."""
    from streamplace.solve.bundle.modes import place_bundle

    return place_bundle(joint, get_method(scenario.method),
                        settings.bundle or BundleMode.JOINT,
                        SolveOptions(time_limit=settings.time_limit, seed=scenario.seed))


def outcome(scenario: Scenario, result: SolveResult, settings: Settings,
            extra: dict[str, Any] | None = None, suffix: str = "") -> Outcome:
    """The row of one result; the plan as ``solve`` writes it."""
    row = base_row(scenario, settings)
    ev = result.evaluation
    metrics = ev.metrics() if ev is not None else {}
    row.update(status=result.status.value, objective=result.objective, bound=result.bound,
               gap=result.gap, seconds=round(result.seconds, 4),
               **{m: metrics.get(m) for m in METRICS})
    if result.plan is None or result.status in (SolveStatus.INFEASIBLE, SolveStatus.ERROR):
        row["error"] = result.message or result.status.value
    row.update(extra or {})
    if result.plan is None:
        return Outcome(row)
    name = f"plans/{scenario.id}{suffix}.yaml"
    row["plan"] = name
    return Outcome(row, dumps(plan_document(result.plan, ev), "yaml"), name)


def bundle_outcome(scenario: Scenario, result: BundleResult, joint: BundleInstance,
                   settings: Settings) -> Outcome:
    """The row of a bundle's result: F = sum_a omega_a F_a as the objective, each
    application's F and metrics as JSON text (the metric columns stay empty: they are one
    application's); the bundle plan as ``solve APP1 APP2 ... INFRA`` writes it."""
    row = base_row(scenario, settings)
    row.update(status=result.status.value, objective=result.objective, bound=result.bound,
               gap=result.gap, seconds=round(result.seconds, 4),
               per_application=json.dumps(result.to_json()["applications"], sort_keys=True))
    if result.plans is None:
        row["error"] = result.message or result.status.value
        return Outcome(row)
    name = f"plans/{scenario.id}.yaml"
    row["plan"] = name
    return Outcome(row, dumps(bundle_document(result, joint), "yaml"), name)


def base_row(scenario: Scenario, settings: Settings) -> dict[str, Any]:
    row: dict[str, Any] = dict.fromkeys(settings.columns)
    row.update(scenario.axes())
    row["plan"] = row["error"] = ""
    return row


def failed(scenario: Scenario, settings: Settings, status: SolveStatus, message: str,
           started: float) -> Outcome:
    row = base_row(scenario, settings)
    row.update(status=status.value, error=message,
               seconds=round(time.perf_counter() - started, 4))
    return Outcome(row)
