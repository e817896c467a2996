"""Every option of ``autoscale``, defined once: its flag, its default, its bounds, what it
means, and the Flink autoscaler's key for the same thing (``job.autoscaler.*``, from the
operator's ``AutoScalerOptions``). The command's flags, their checks and the table in
docs/cli.md all come from :data:`SETTINGS`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields

from streamplace.control.autoscale.alignment import MODES
from streamplace.control.flink.rescale import WAIT
from streamplace.errors import InputError, Problem
from streamplace.model.objective import Weights

METHODS = ("odrp", "ds2", "flink")
AGGREGATORS = ("max", "avg")
FLINK_PREFIX = "job.autoscaler."
BOUNDARY = 0.3
"""How far below and above the target a busy share may go before a vertex is rescaled,
where ``--utilization-min`` or ``--utilization-max`` is not given: the Flink autoscaler's
``target.utilization.boundary`` default, from which its own min and max fall back."""
DAY = 86_400.0
AUTOSCALE_WEIGHTS = Weights(cost=0.9, response_time=0.05, availability=0.05)
"""Slots first: an observed replica costs its one slot, so that F lands at the target
utilisation with the fewest slots, as the Flink autoscaler does; response time and
availability choose among such plans (solve's balanced weights spend free slots on
response time instead)."""


@dataclass(frozen=True)
class Setting:
    """One option: its flag, default, bounds and meaning, and the Flink autoscaler's key
    (without ``job.autoscaler.``) where it has one."""

    flag: str
    default: float | int | str | None
    help: str
    flink: str | None = None
    low: float | None = None    # the least value allowed
    high: float | None = None   # the most value allowed
    low_open: bool = False      # the least value itself is not allowed
    example: str = ""

    @property
    def flink_key(self) -> str | None:
        return FLINK_PREFIX + self.flink if self.flink else None

    def check(self, value: float | None) -> Problem | None:
        """A problem when ``value`` is out of bounds (None: the option is not set)."""
        if value is None:
            return None
        low = -math.inf if self.low is None else self.low
        high = math.inf if self.high is None else self.high
        ok = math.isfinite(value) and (value > low if self.low_open else value >= low) \
            and value <= high
        if ok:
            return None
        above = f"more than {low:g}" if self.low_open else f"at least {low:g}"
        bounds = above if high == math.inf else f"{above} and at most {high:g}"
        return Problem(f"{self.flag} {value:g} is out of range: it must be {bounds}",
                       f"give e.g. {self.example or self.default}", path=self.flag)


SETTINGS: dict[str, Setting] = {s.flag.removeprefix("--").replace("-", "_"): s for s in (
    Setting("--method", "odrp", "odrp (the plan that runs re-planned, as solve re-plans from "
            "a current plan), ds2 (DS2's rule) or flink (the Flink autoscaler's rule: DS2's "
            "count, capped at the key groups or partitions and aligned to them; a baseline)."),
    Setting("--utilization-target", 0.7, "The busy share each vertex is planned at.",
            "utilization.target", 0.0, 1.0, low_open=True),
    Setting("--utilization-min", None, "Rescale a vertex busy less than this (default: "
            f"the target less {BOUNDARY:g}).", "utilization.min", 0.0, 1.0, example="0.4"),
    Setting("--utilization-max", None, "Rescale a vertex busy more than this (default: "
            f"the target plus {BOUNDARY:g}, at most 0.95).", "utilization.max", 0.0, 1.0,
            low_open=True, example="0.9"),
    Setting("--metrics-window", 60.0, "Seconds of counters each decision reads.",
            "metrics.window", 5.0, DAY),
    Setting("--stabilization-interval", 30.0, "Seconds to let the job settle after a "
            "start or a rescale before a window begins.", "stabilization.interval", 0.0,
            DAY),
    Setting("--scale-down-interval", 3600.0, "Seconds a scale-down must be recommended "
            "before it is made, then to the largest parallelism recommended meanwhile; "
            "scale-ups are made at once (0: scale down at once).", "scale-down.interval", 0.0,
            30 * DAY),
    Setting("--catch-up-duration", 1800.0, "Seconds in which a backlog (the sources' "
            "pendingRecords) is to be worked off after a rescale: its lag over this is added "
            "to the capacity, at full utilisation (0: no backlog sizing).",
            "catch-up.duration", 0.0, 30 * DAY),
    Setting("--restart-time", None, "Seconds a rescale stops the job, whose records queue "
            "meanwhile (default: as measured on autoscale's own rescales, 300 until "
            "then).", "restart.time", 0.0, DAY, example="60"),
    Setting("--backlog-processing-lag-threshold", 300.0, "No scale-down while a source's "
            "lag is more than this many seconds of its offered rate.",
            "backlog-processing.lag-threshold", 0.0, 30 * DAY),
    Setting("--scale-up-max-factor", 100000.0, "A rescale raises a vertex's parallelism "
            "to at most (1 + this) times what runs.", "scale-up.max-factor", 0.0, 1e9),
    Setting("--scale-down-max-factor", 0.6, "A rescale lowers a vertex's parallelism to "
            "no less than (1 - this) times what runs.", "scale-down.max-factor", 0.0, 1.0),
    Setting("--vertex-min-parallelism", 1, "The least parallelism a rescale gives a vertex "
            "(what runs below it is not raised for it).", "vertex.min-parallelism", 1.0,
            1e6, example="2"),
    Setting("--vertex-max-parallelism", 200, "The most parallelism a rescale gives a vertex "
            "(what runs above it is not lowered for it).", "vertex.max-parallelism", 1.0,
            1e6, example="64"),
    Setting("--vertex-exclude-ids", None, "An operator, vertex name or JobVertexID left as it "
            "runs (repeatable).", "vertex.exclude.ids", example="sink"),
    Setting("--memory-gc-pressure-threshold", 1.0, "No rescale while the busiest "
            "TaskManager spends more than this share of its time collecting garbage.",
            "memory.gc-pressure.threshold", 0.0, 1.0),
    Setting("--memory-heap-usage-threshold", 1.0, "No rescale while a TaskManager's heap "
            "is fuller than this share.", "memory.heap-usage.threshold", 0.0, 1.0),
    Setting("--scaling-parallelism-alignment-mode", "BALANCED", "How a source's or keyed "
            "vertex's parallelism is aligned to its partitions or key groups: BALANCED (a "
            "count that lowers the most any subtask holds), EVENLY_SPREAD (a divisor) or OFF; "
            "odrp runs only the counts the mode accepts, flink aligns as Flink does.",
            "scaling.parallelism-alignment.mode"),
    Setting("--scaling-effectiveness-threshold", 0.1, "A scale-up that raised a vertex's "
            "capacity by less than this share of what it was to is ineffective.",
            "scaling.effectiveness.threshold", 0.0, 1.0),
    Setting("--scaling-effectiveness-detection-enabled", False, "Hold the next scale-up of a "
            "vertex whose last one was ineffective (said either way).",
            "scaling.effectiveness.detection.enabled"),
    Setting("--min-improvement", 0.05, "odrp: rescale a job within its bounds when F "
            "improves by more than this share.", None, 0.0, 1e6),
    Setting("--max-steps", None, "Decisions to make, at most (default: every one until "
            "stopped, as a service runs).", None, 1.0, 1e9, example="5"),
    Setting("--metrics-busy-time-aggregator", "max", "How the busy shares of a vertex's "
            "subtasks make its own: max (the busiest subtask, which saturates first under "
            "skew) or avg.",
            "metrics.busy-time.aggregator"),
    Setting("--until", None, "Seconds after which no step begins.", None, 0.0, 1e9,
            example="3600"),
    Setting("--replan-time-limit", 20.0, "Seconds for each re-plan (odrp).", None, 0.0,
            DAY, low_open=True),
    Setting("--max-response-time", None, "Seconds: each source-to-sink path's mean latency, "
            "read from the job's latency markers (metrics.latency.interval), held below "
            "this; odrp re-plans with the model's response time held below it less what the "
            "model missed on the running job.", None, 0.0, DAY, low_open=True,
            example="0.5"),
    Setting("--max-moves", None, "The most a rescale may cost in replicas started where "
            "none runs now (0: start none), as solve --max-moves.", None, 0.0, 1e9,
            example="4"),
    Setting("--state", None, "A file that keeps every decision, every rescale's restart "
            "time and the delayed scale-downs, rewritten at each step: a restarted autoscale "
            "resumes from it."),
    Setting("--wait", WAIT, "Seconds to wait for every vertex to run the plan (exit 3 "
            "after).", None, 0.0, DAY, low_open=True),
)}


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
                problem = SETTINGS[f.name].check(float(value))
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
        default = "" if s.default is None else f"`{s.default}`"
        flink = f"`{s.flink_key}`" if s.flink_key else "-"
        rows.append(f"| `{s.flag}` | {default} | {flink} | {s.help} |")
    return "\n".join(rows) + "\n"
