"""The options of one ``autoscale`` run, each default written once (here), checked against
the bounds :data:`~streamplace.control.autoscale.settings.SETTINGS` gives it."""

from __future__ import annotations

import math
from dataclasses import dataclass, fields

from streamplace.control.autoscale.alignment import MODES
from streamplace.control.autoscale.settings import BOUNDARY, SETTINGS
from streamplace.control.engine import WAIT
from streamplace.errors import InputError, Problem
from streamplace.model.objective import Weights

METHODS = ("odrp", "ds2", "flink")
AGGREGATORS = ("max", "avg")
STATISTICS = ("mean", "p99")
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
    response_time_statistic: str = "mean"
    max_moves: float | None = None
    wait: float = WAIT
    dry_run: bool = False
    state: str | None = None
    horizon: int = 0
    season: float | None = None
    forecast: str | None = None
    max_rescales: str | None = None
    forecast_max_error: float = 0.3

    def __post_init__(self) -> None:
        # a named value in either case, as Flink spells it (MAX, EVENLY_SPREAD) or as here
        object.__setattr__(self, "metrics_busy_time_aggregator",
                           self.metrics_busy_time_aggregator.lower())
        object.__setattr__(self, "scaling_parallelism_alignment_mode",
                           self.scaling_parallelism_alignment_mode.upper())
        object.__setattr__(self, "response_time_statistic",
                           self.response_time_statistic.lower())

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
        if self.response_time_statistic not in STATISTICS:
            problems.append(Problem(f"{self.response_time_statistic!r} is not a statistic of "
                                    "the markers", "give mean (the default) or p99",
                                    path="--response-time-statistic"))
        elif self.response_time_statistic != "mean" and self.max_response_time is None:
            problems.append(Problem("--response-time-statistic says what --max-response-time "
                                    "holds, which is not given", "add --max-response-time, "
                                    "e.g. '200 ms'", path="--response-time-statistic"))
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
        if self.horizon and self.method != "odrp":
            problems.append(Problem(f"--horizon plans ahead with odrp's program, which "
                                    f"{self.method} does not run", "use --method odrp, or "
                                    "drop --horizon", path="--horizon"))
        for flag, value in (("--season", self.season), ("--forecast", self.forecast),
                            ("--max-rescales", self.max_rescales)):
            if value is not None and not self.horizon:
                problems.append(Problem(f"{flag} is for planning ahead", "add --horizon N "
                                        "(windows), e.g. --horizon 12", path=flag))
        if self.max_rescales is not None:
            try:
                self.rescale_budget  # noqa: B018 (read: it checks the text)
            except ValueError as exc:
                problems.append(Problem(f"--max-rescales {self.max_rescales!r} {exc}",
                                        "give e.g. 4/h, 20/day or 6 (an hour)",
                                        path="--max-rescales"))
        if self.season is not None and self.season < 2 * self.metrics_window:
            problems.append(Problem(f"--season {self.season:g} s is shorter than two windows "
                                    f"of {self.metrics_window:g} s: no pattern repeats in it",
                                    "give the period the load repeats over, in seconds",
                                    path="--season"))
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
    def rescale_budget(self) -> tuple[int, float]:
        """``--max-rescales`` as (rescales, seconds of the period they are counted over).

        >>> AutoscaleOptions(max_rescales="20/day").rescale_budget
        (20, 86400.0)
        """
        text = (self.max_rescales or "").strip().lower()
        count, _, period = text.partition("/")
        if not count.strip().isdigit():
            raise ValueError("is not a count of rescales")
        most = int(count)
        if most < 1:
            raise ValueError("allows no rescale: a loop that may not act only watches; "
                             "use --dry-run for that")
        units = {"": 3600.0, "h": 3600.0, "hour": 3600.0, "d": 86400.0, "day": 86400.0}
        period = period.strip()
        if period in units:
            return most, units[period]
        try:
            seconds = float(period)
        except ValueError:
            raise ValueError(f"has a period {period!r} that is not h, day or seconds") \
                from None
        if not (math.isfinite(seconds) and seconds > 0):
            raise ValueError("has a period that is not a positive number of seconds")
        return most, seconds

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
