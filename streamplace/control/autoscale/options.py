"""The options of one ``autoscale`` run, each default written once (here), checked against
the bounds :data:`~streamplace.control.autoscale.settings.SETTINGS` gives it."""

from __future__ import annotations

from dataclasses import dataclass, fields

from streamplace.control.autoscale.alignment import MODES
from streamplace.control.autoscale.settings import BOUNDARY, SETTINGS
from streamplace.control.engine import WAIT
from streamplace.errors import InputError, Problem
from streamplace.model.objective import Weights

METHODS = ("odrp", "ds2", "flink")
AGGREGATORS = ("max", "avg")
AUTOSCALE_WEIGHTS = Weights(cost=0.9, response_time=0.05, availability=0.05)
"""Slots first: an observed replica costs its one slot, so that F lands at the target
utilisation with the fewest slots, as the Flink autoscaler does; response time and
availability choose among such plans (solve's balanced weights spend free slots on
response time instead)."""


@dataclass(frozen=True)
class AutoscaleOptions:
    """The options of one ``autoscale`` run, checked (:meth:`checked`)."""

    method: str = "odrp"
    utilization_target: float = 0.7
    utilization_min: float | None = None
    utilization_max: float | None = None
    metrics_window: float = 60.0
    stabilization_interval: float = 30.0
    scale_down_interval: float = 3600.0
    catch_up_duration: float = 1800.0
    restart_time: float | None = None
    backlog_processing_lag_threshold: float = 300.0
    scale_up_max_factor: float = 100000.0
    scale_down_max_factor: float = 0.6
    vertex_min_parallelism: int = 1
    vertex_max_parallelism: int = 200
    vertex_exclude_ids: tuple[str, ...] = ()
    scaling_effectiveness_threshold: float = 0.1
    scaling_effectiveness_detection_enabled: bool = False
    scaling_parallelism_alignment_mode: str = "BALANCED"
    memory_gc_pressure_threshold: float = 1.0
    memory_heap_usage_threshold: float = 1.0
    min_improvement: float = 0.05
    max_steps: int | None = None
    metrics_busy_time_aggregator: str = "max"
    until: float | None = None
    replan_time_limit: float = 20.0
    max_response_time: float | None = None
    max_moves: float | None = None
    wait: float = WAIT
    dry_run: bool = False
    state: str | None = None

    def __post_init__(self) -> None:
        # a named value in either case, as Flink spells it (MAX, EVENLY_SPREAD) or as here
        object.__setattr__(self, "metrics_busy_time_aggregator",
                           self.metrics_busy_time_aggregator.lower())
        object.__setattr__(self, "scaling_parallelism_alignment_mode",
                           self.scaling_parallelism_alignment_mode.upper())

    def checked(self) -> AutoscaleOptions:
        """These options, once every one is within its bounds; else every problem at
        once."""
        problems = []
        if self.method not in METHODS:
            problems.append(Problem(f"{self.method!r} is not an autoscaling method",
                                    f"give one of {', '.join(METHODS)}", path="--method"))
        if self.metrics_busy_time_aggregator not in AGGREGATORS:
            problems.append(Problem(f"{self.metrics_busy_time_aggregator!r} is not a busy "
                                    "aggregator",
                                    "give max (the default) or avg",
                                    path="--metrics-busy-time-aggregator"))
        if self.scaling_parallelism_alignment_mode not in MODES:
            problems.append(Problem(f"{self.scaling_parallelism_alignment_mode!r} is not an "
                                    "alignment mode", f"give one of {', '.join(MODES)}",
                                    path="--scaling-parallelism-alignment-mode"))
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name in SETTINGS and isinstance(value, int | float) and \
                    not isinstance(value, bool):
                problem = SETTINGS[f.name].check(float(value), f.default)
                if problem is not None:
                    problems.append(problem)
        if self.max_response_time is not None and self.method != "odrp":
            problems.append(Problem(f"--max-response-time is held by re-planning, which "
                                    f"{self.method} does not do", "use --method odrp",
                                    path="--max-response-time"))
        if not problems and not self.low < self.utilization_target < self.high:
            problems.append(Problem(
                f"--utilization-min {self.low:g} and --utilization-max {self.high:g} do not "
                f"hold the target {self.utilization_target:g} between them",
                "give a min below the target and a max above it", path="--utilization-min"))
        if problems:
            raise InputError(problems)
        return self

    @property
    def low(self) -> float:
        """The busy share under which a vertex on more than one subtask is scaled down."""
        return self.utilization_min if self.utilization_min is not None else \
            max(0.0, self.utilization_target - BOUNDARY)

    @property
    def high(self) -> float:
        """The busy share over which a vertex is scaled up."""
        return self.utilization_max if self.utilization_max is not None else \
            min(1.0, self.utilization_target + BOUNDARY)


def settings_markdown() -> str:
    """The options table of docs/cli.md's ``autoscale`` section."""
    rows = ["| option | default | Flink autoscaler key | meaning |", "|---|---|---|---|"]
    for s in SETTINGS.values():
        value = default(s.field)
        default_ = "" if value is None or value == () else f"`{value}`"
        flink = f"`{s.flink_key}`" if s.flink_key else "-"
        rows.append(f"| `{s.flag}` | {default_} | {flink} | {s.help} |")
    return "\n".join(rows) + "\n"


def default(name: str) -> object:
    """The default of the option ``name`` (a field of :class:`AutoscaleOptions`)."""
    return next(f.default for f in fields(AutoscaleOptions) if f.name == name)
