"""The safeguards between what a method asks and what is sent, each the Flink autoscaler's
(``JobVertexScaler``, ``ScalingExecutor``), each saying what it held back:

- the limits on one rescale: a scale-up by at most ``scale-up.max-factor``, a scale-down to
  no less than 1 - ``scale-down.max-factor`` of what runs, every parallelism within
  ``[vertex.min-parallelism, vertex.max-parallelism]`` (widened to what runs), the vertices
  of ``vertex.exclude.ids`` left as they run;
- effectiveness (``scaling.effectiveness.*``, ``detectIneffectiveScaleUp``): a vertex whose
  bottleneck lies elsewhere (a hot key, an external system) gains nothing from subtasks, so
  a scale-up that did not raise its capacity holds the next;
- the delayed scale-down (``scale-down.interval``, FLINK-36535): a vertex is scaled up at
  once, and down only once a scale-down has been recommended for the whole interval, then
  to the largest parallelism recommended in it (FLINK-36018: a load that comes and goes
  restarted jobs "more than 20 times a day");
- no scale-down while a source lags more than ``backlog-processing.lag-threshold`` (scaling
  down mid-catch-up is the "vicious cycle");
- the memory veto (``memory.gc-pressure.threshold``, ``memory.heap-usage.threshold``).
"""

from __future__ import annotations

import math
from collections.abc import Collection

from streamplace.control.autoscale.evaluate import excluded
from streamplace.control.autoscale.options import AutoscaleOptions
from streamplace.control.autoscale.rule import spread
from streamplace.control.autoscale.stages import Assessment, Proposal, Verdict
from streamplace.control.running.memory import vetoed
from streamplace.model.state import Memory, PendingScaleDown, ScaleUp


def safeguard(a: Assessment, proposal: Proposal, o: AutoscaleOptions, memory: Memory,
              now: float, hurry: str | None = None, ahead: bool = False) -> Verdict:
    """What ``proposal`` may run once every safeguard had its say; ``now`` is wall-clock
    time (the delayed scale-down outlives the process). ``hurry``: why a scale-down is not
    delayed this time (a job of higher priority waits for the slots); ``ahead``: the
    proposal was planned over a horizon, which weighs each restart against the slots it
    frees, and its scale-downs are made when it plans them."""
    observed = a.observed
    running = observed.running
    plan = proposal.plan
    wanted = {op: sum(plan.replicas(op).values()) for op in observed.app.operator_ids} \
        if plan else running
    capped, why = limited(running, wanted, o.scale_up_max_factor, o.scale_down_max_factor,
                           o.vertex_min_parallelism, o.vertex_max_parallelism,
                           excluded(a.reading.observation, o.vertex_exclude_ids))
    capped, found = effective(memory, running, capped, a.capacity, o)
    counts, delayed = delay(memory, running, capped, now, o.scale_down_interval)
    if hurry is not None and delayed:
        counts, delayed = capped, [f"a scale-down not delayed: {hurry}"]
        memory.pending.clear()
    elif ahead and delayed:
        counts, delayed = capped, ["a scale-down planned ahead is made when planned (the "
                                   "horizon weighs its restart against the slots it frees), "
                                   "not delayed by scale-down.interval"]
        memory.pending.clear()
    why += found + delayed
    backlog = a.backlog
    if backlog is not None and backlog.seconds > o.backlog_processing_lag_threshold:
        kept = {op: max(k, running.get(op, k)) for op, k in counts.items()}
        if kept != counts:
            why.append(f"no scale-down while a source lags {backlog.seconds:.0f} s of its "
                        f"offered rate (backlog-processing.lag-threshold "
                        f"{o.backlog_processing_lag_threshold:g} s)")
            counts = kept
    veto = vetoed(a.reading.memory, o.memory_gc_pressure_threshold,
                  o.memory_heap_usage_threshold)
    if veto is not None and counts != running:
        why.append(veto)
        counts = running
    if plan is not None and counts != wanted:  # a limit or a wait: the rest goes ahead
        plan = None if counts == running else spread(observed.app, observed.infra, counts)
    if counts == running:
        plan = None
    return Verdict(counts, plan, why, dry_run=o.dry_run and plan is not None)


def limited(running: dict[str, int], wanted: dict[str, int], up: float, down: float,
            least: int, most: int, excluded: Collection[str],
            ) -> tuple[dict[str, int], list[str]]:
    """The parallelism within the limits, and what each limit changed.

    >>> limited({"w": 10}, {"w": 2}, 100000.0, 0.6, 1, 200, ())
    ({'w': 4}, ['w: scaled down to 4, not 2 (scale-down.max-factor 0.6)'])
    >>> limited({"w": 2}, {"w": 9}, 1.0, 0.6, 1, 200, ())[0]
    {'w': 4}
    >>> limited({"w": 2}, {"w": 9}, 100000.0, 0.6, 1, 200, ("w",))[0]
    {'w': 2}
    """
    out, why = {}, []
    for op, k in wanted.items():
        now = running.get(op, k)
        if op in excluded:
            if k != now:
                why.append(f"{op}: left at {now}, not {k} (vertex.exclude.ids)")
            out[op] = now
            continue
        got, said = k, ""
        if k < now and k < math.ceil(now * (1 - down)):
            got, said = math.ceil(now * (1 - down)), f"scale-down.max-factor {down:g}"
        elif k > now and k > math.ceil(now * (1 + up)):
            got, said = math.ceil(now * (1 + up)), f"scale-up.max-factor {up:g}"
        low, high = min(now, least), max(now, most)
        if got < low or got > high:
            got = min(max(got, low), high)
            said = f"vertex.min-parallelism {least}, vertex.max-parallelism {most}"
        if got != k:
            verb = "up" if got > now else "down" if got < now else "kept"
            why.append(f"{op}: scaled {verb} to {got}, not {k} ({said})" if verb != "kept"
                       else f"{op}: kept at {got}, not {k} ({said})")
        out[op] = got
    return out, why


def effective(memory: Memory, running: dict[str, int], wanted: dict[str, int],
              capacity: dict[str, float], o: AutoscaleOptions,
              ) -> tuple[dict[str, int], list[str]]:
    """The parallelism with a vertex's next scale-up held where its last one fell short
    of ``scaling.effectiveness.threshold`` of what it was to raise (when detection is on),
    and what was found either way.

    >>> from streamplace.model.state import Memory, ScaleUp
    >>> m = Memory(scale_ups={"w": ScaleUp(to=4, before=100.0, expected=200.0)})
    >>> o = AutoscaleOptions(scaling_effectiveness_detection_enabled=True)
    >>> held, why = effective(m, {"w": 4}, {"w": 8}, {"w": 105.0}, o)
    >>> held, why[0].endswith("by 5/s of the 100/s expected "
    ...                       "(scaling.effectiveness.threshold 0.1): held")
    ({'w': 4}, True)
    """
    blocking = o.scaling_effectiveness_detection_enabled
    out, why = dict(wanted), []
    for op, last in memory.scale_ups.items():
        now = capacity.get(op)
        if now is None or running.get(op) != last.to or last.expected <= last.before:
            continue
        gained = now - last.before if abs(now - last.before) > 1e-9 * max(1.0, last.before) \
            else 0.0
        if gained / (last.expected - last.before) >= o.scaling_effectiveness_threshold:
            continue
        held = blocking and wanted.get(op, last.to) > last.to
        if held:
            out[op] = last.to
        why.append(f"{op}: the scale-up to {last.to} raised its capacity by {gained:.3g}/s "
                   f"of the {last.expected - last.before:.3g}/s expected (scaling."
                   f"effectiveness.threshold {o.scaling_effectiveness_threshold:g})"
                   + (": held" if held else "" if blocking else "; blocking is off"))
    return out, why


def scaled(memory: Memory, running: dict[str, int], wanted: dict[str, int],
           capacity: dict[str, float]) -> None:
    """Remember each vertex a rescale scales up, with its capacity (records per second at
    full busy time) before and as expected after, in proportion to its subtasks."""
    memory.scale_ups = {op: ScaleUp(to=k, before=capacity[op],
                                    expected=capacity[op] * k / running[op])
                        for op, k in wanted.items()
                        if k > running.get(op, k) and capacity.get(op) and running.get(op)}


def delay(memory: Memory, running: dict[str, int], wanted: dict[str, int], now: float,
          interval: float) -> tuple[dict[str, int], list[str]]:
    """The parallelism to run now, and why any scale-down waits.

    >>> from streamplace.model.state import Memory
    >>> m = Memory()
    >>> delay(m, {"w": 4}, {"w": 2}, 0.0, 60)
    ({'w': 4}, ['w: a scale-down to 2 waits 60 s more (scale-down.interval 60 s)'])
    >>> delay(m, {"w": 4}, {"w": 3}, 30.0, 60)[0], delay(m, {"w": 4}, {"w": 2}, 60.0, 60)[0]
    ({'w': 4}, {'w': 3})
    """
    out, why = {}, []
    for op, k in wanted.items():
        now_runs = running.get(op, k)
        if k >= now_runs:  # up, or no change: nothing waits any more
            memory.pending.pop(op, None)
            out[op] = k
            continue
        pending = memory.pending.get(op) or PendingScaleDown(first=now, most=k)
        if pending.first > now:  # a clock put back, or a state file from the future: the
            pending = PendingScaleDown(first=now, most=pending.most)  # interval at most
        most = max(pending.most, k)
        if now - pending.first >= interval:
            memory.pending.pop(op, None)
            out[op] = most
            continue
        memory.pending[op] = PendingScaleDown(first=pending.first, most=most)
        out[op] = now_runs
        why.append(f"{op}: a scale-down to {most} waits {interval - (now - pending.first):.0f} "
                   f"s more (scale-down.interval {interval:g} s)")
    return out, why
