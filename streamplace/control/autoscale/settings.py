"""Every option of ``autoscale`` but its default (:class:`~streamplace.control.autoscale.
options.AutoscaleOptions` holds those): its flag, its bounds, what it means, and the Flink
autoscaler's key for the same thing (``job.autoscaler.*``, from the operator's
``AutoScalerOptions``). The command's flags, their checks and the table in docs/cli.md all
come from :data:`SETTINGS`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from streamplace.errors import Problem

FLINK_PREFIX = "job.autoscaler."
BOUNDARY = 0.3
"""How far below and above the target a busy share may go before a vertex is rescaled,
where ``--utilization-min`` or ``--utilization-max`` is not given: the Flink autoscaler's
``target.utilization.boundary`` default, from which its own min and max fall back."""
DAY = 86_400.0
HORIZON = 1440  # windows: a day of minute windows, the longest horizon planned


@dataclass(frozen=True)
class Setting:
    """One option: its flag, default, bounds and meaning, and the Flink autoscaler's key
    (without ``job.autoscaler.``) where it has one."""

    flag: str
    help: str
    flink: str | None = None
    low: float | None = None    # the least value allowed
    high: float | None = None   # the most value allowed
    low_open: bool = False      # the least value itself is not allowed
    example: str = ""
    aliases: tuple[str, ...] = ()  # older spellings still read

    @property
    def field(self) -> str:
        """The option's name in :class:`~streamplace.control.autoscale.options.AutoscaleOptions`."""
        return self.flag.removeprefix("--").replace("-", "_")

    @property
    def flink_key(self) -> str | None:
        return FLINK_PREFIX + self.flink if self.flink else None

    def check(self, value: float | None, default: object = None) -> Problem | None:
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
                       f"give e.g. {self.example or default}", path=self.flag)


SETTINGS: dict[str, Setting] = {s.field: s for s in (
    Setting("--method", "odrp (the plan that runs re-planned, as solve re-plans from "
            "a current plan), ds2 (DS2's rule) or flink (the Flink autoscaler's rule: DS2's "
            "count, capped at the key groups or partitions and aligned to them; a baseline)."),
    Setting("--utilization-target", "The busy share each vertex is planned at.",
            "utilization.target", 0.0, 1.0, low_open=True, aliases=("--target-utilization",)),
    Setting("--utilization-min", "Rescale a vertex busy less than this (default: "
            f"the target less {BOUNDARY:g}).", "utilization.min", 0.0, 1.0, example="0.4"),
    Setting("--utilization-max", "Rescale a vertex busy more than this (default: "
            f"the target plus {BOUNDARY:g}, at most 0.95).", "utilization.max", 0.0, 1.0,
            low_open=True, example="0.9"),
    Setting("--metrics-window", "Seconds of counters each decision reads.",
            "metrics.window", 5.0, DAY),
    Setting("--stabilization-interval", "Seconds to let the job settle after a "
            "start or a rescale before a window begins.", "stabilization.interval", 0.0,
            DAY),
    Setting("--scale-down-interval", "Seconds a scale-down must be recommended "
            "before it is made, then to the largest parallelism recommended meanwhile; "
            "scale-ups are made at once (0: scale down at once).", "scale-down.interval", 0.0,
            30 * DAY),
    Setting("--catch-up-duration", "Seconds in which a backlog (the sources' "
            "pendingRecords) is to be worked off after a rescale: its lag over this is added "
            "to the capacity, at full utilisation (0: no backlog sizing).",
            "catch-up.duration", 0.0, 30 * DAY),
    Setting("--restart-time", "Seconds a rescale stops the job, whose records queue "
            "meanwhile (default: as measured on autoscale's own rescales, 300 until "
            "then).", "restart.time", 0.0, DAY, example="60"),
    Setting("--backlog-processing-lag-threshold", "No scale-down while a source's "
            "lag is more than this many seconds of its offered rate.",
            "backlog-processing.lag-threshold", 0.0, 30 * DAY),
    Setting("--scale-up-max-factor", "A rescale raises a vertex's parallelism "
            "to at most (1 + this) times what runs.", "scale-up.max-factor", 0.0, 1e9),
    Setting("--scale-down-max-factor", "A rescale lowers a vertex's parallelism to "
            "no less than (1 - this) times what runs.", "scale-down.max-factor", 0.0, 1.0),
    Setting("--vertex-min-parallelism", "The least parallelism a rescale gives a vertex "
            "(what runs below it is not raised for it).", "vertex.min-parallelism", 1.0,
            1e6, example="2"),
    Setting("--vertex-max-parallelism", "The most parallelism a rescale gives a vertex "
            "(what runs above it is not lowered for it).", "vertex.max-parallelism", 1.0,
            1e6, example="64"),
    Setting("--vertex-exclude-ids", "An operator, vertex name or JobVertexID left as it "
            "runs (repeatable).", "vertex.exclude.ids", example="sink"),
    Setting("--memory-gc-pressure-threshold", "No rescale while the busiest "
            "TaskManager spends more than this share of its time collecting garbage.",
            "memory.gc-pressure.threshold", 0.0, 1.0),
    Setting("--memory-heap-usage-threshold", "No rescale while a TaskManager's heap "
            "is fuller than this share.", "memory.heap-usage.threshold", 0.0, 1.0),
    Setting("--scaling-parallelism-alignment-mode", "How a source's or keyed "
            "vertex's parallelism is aligned to its partitions or key groups: BALANCED (a "
            "count that lowers the most any subtask holds), EVENLY_SPREAD (a divisor) or OFF; "
            "odrp runs only the counts the mode accepts, flink aligns as Flink does.",
            "scaling.parallelism-alignment.mode"),
    Setting("--scaling-effectiveness-threshold", "A scale-up that raised a vertex's "
            "capacity by less than this share of what it was to is ineffective.",
            "scaling.effectiveness.threshold", 0.0, 1.0),
    Setting("--scaling-effectiveness-detection-enabled", "Hold the next scale-up of a "
            "vertex whose last one was ineffective (said either way).",
            "scaling.effectiveness.detection.enabled"),
    Setting("--min-improvement", "odrp: rescale a job within its bounds when F "
            "improves by more than this share.", None, 0.0, 1e6),
    Setting("--max-steps", "Decisions to make, at most (default: every one until "
            "stopped, as a service runs).", None, 1.0, 1e9, example="5"),
    Setting("--metrics-busy-time-aggregator", "How the busy shares of a vertex's "
            "subtasks make its own: max (the busiest subtask, which saturates first under "
            "skew) or avg.",
            "metrics.busy-time.aggregator"),
    Setting("--until", "Seconds after which no step begins.", None, 0.0, 1e9,
            example="3600"),
    Setting("--replan-time-limit", "Seconds for each re-plan (odrp).", None, 0.0,
            DAY, low_open=True),
    Setting("--max-response-time", "Seconds: each source-to-sink path's latency (its mean, "
            "or the statistic --response-time-statistic names), "
            "read from the job's latency markers (metrics.latency.interval), held below "
            "this; odrp re-plans with the model's response time held below it less what the "
            "model missed on the running job.", None, 0.0, DAY, low_open=True,
            example="0.5"),
    Setting("--response-time-statistic", "What --max-response-time holds on each path's "
            "markers: mean, or p99 (the largest of its subtasks' 99th percentiles; the "
            "re-plan then holds the mean below the limit less the spread read between the "
            "two)."),
    Setting("--max-moves", "The most a rescale may cost in replicas started where "
            "none runs now (0: start none), as solve --max-moves.", None, 0.0, 1e9,
            example="4"),
    Setting("--state", "A file that keeps every decision, every rescale's restart "
            "time and the delayed scale-downs, rewritten at each step: a restarted autoscale "
            "resumes from it."),
    Setting("--wait", "Seconds to wait for every vertex to run the plan (exit 3 "
            "after).", None, 0.0, DAY, low_open=True),
    Setting("--horizon", "odrp: plan this many windows ahead at once, from a forecast of "
            "the load, and run the first (0: react to each window).", None, 0.0, HORIZON,
            example="12"),
    Setting("--season", "Seconds the load repeats over (a day: 86400), where the history is "
            "not to be searched for it.", None, 0.0, 14 * DAY, low_open=True,
            example="86400"),
    Setting("--forecast", "A streamplace/forecast/v1 file: rates and events the sources "
            "will offer (the 09:00 sale, x4 for 30 min), planned for beside the forecast."),
    Setting("--max-rescales", "At most this many rescales an hour, or N/h, N/day, N/SECONDS: "
            "the horizon plan keeps within it where the load can be carried.",
            example="4/h"),
    Setting("--forecast-max-error", "Plan ahead only while no more than one in six of the "
            "last twelve windows' forecasts were off by more than this share of what was read "
            "(the reactive rule decides otherwise).", None, 0.0, 10.0, low_open=True),
)}


