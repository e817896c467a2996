"""The loop: wait the stabilisation interval (after the start, and after each rescale),
collect the job over the metrics window, evaluate, decide, execute, and again; one
:class:`~streamplace.model.decision.Decision` per step.

The job is rescaled only when a vertex is back-pressured or its busy share leaves
``[utilization.min, utilization.max]`` (the Flink autoscaler's rule), or when the re-plan
improves F by more than ``min_improvement``; a scale-down waits ``scale-down.interval``.
A stop request is seen within a fraction of a second wherever the loop waits (the
stabilisation interval, the metrics window, a rescale): it ends the loop with a last
decision saying why, and a rescale already sent is said to be.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from streamplace.control.autoscale.collect import NoReading, collect
from streamplace.control.autoscale.decide import Proposal, decide
from streamplace.control.autoscale.delay import DelayedScaleDown
from streamplace.control.autoscale.demand import offered_load
from streamplace.control.autoscale.effective import Effectiveness
from streamplace.control.autoscale.elasticity import Elasticity
from streamplace.control.autoscale.evaluate import (
    excluded,
    observed_instance,
    seen,
    seen_record,
)
from streamplace.control.autoscale.execute import execute
from streamplace.control.autoscale.held import hold_latency
from streamplace.control.autoscale.judged import Judged
from streamplace.control.autoscale.limits import limited
from streamplace.control.autoscale.options import AutoscaleOptions
from streamplace.control.autoscale.pace import nap, paced
from streamplace.control.autoscale.rule import Seen, predicted, spread, triggers
from streamplace.control.autoscale.state import State
from streamplace.control.flink.memory import pressure
from streamplace.control.flink.replaced import gone
from streamplace.control.flink.rescale import TooFewSlots, WaitStopped
from streamplace.control.running.memory import vetoed
from streamplace.control.running.observation import PRESSED, Observation
from streamplace.control.running.offered import Backlog
from streamplace.errors import EngineError, InputError
from streamplace.model.decision import Decision
from streamplace.model.objective import Objective
from streamplace.model.plan import Plan
from streamplace.solve.budget import StopRequest

RESTART_TIME = 300.0
"""Seconds a rescale is taken to stop the job until autoscale has measured one of its own
(the Flink autoscaler's restart.time default)."""
CLOSE = 0.1
"""How far above the target a vertex may run, once free, before a rescale sized from a lower
bound is re-sized (the drift check's tolerance)."""
MISSED = 5
"""Readings in a row the JobManager may fail to answer before the loop gives up on it."""


@dataclass
class Autoscaler:
    job: str
    options: AutoscaleOptions
    objective: Objective
    rates: dict[str, float]             # the offered load, where the user gave it
    stop: StopRequest = field(default_factory=StopRequest)
    clock: Callable[[], float] = time.monotonic
    missed: int = 0                     # readings in a row the JobManager did not answer
    read_once: bool = False             # whether any reading came through
    restarts: list[float] = field(default_factory=list)  # seconds each rescale took
    state: State | None = None          # kept between runs (--state)
    wall: Callable[[], float] = time.time  # the delayed scale-down's clock: it outlives us
    from_lower_bound: bool = False      # the last rescale was sized from a lower bound
    name: str | None = None             # the job's name, once read
    shared: frozenset[str] = frozenset()  # jobs whose slots are planned with this one's

    def __post_init__(self) -> None:
        self.delay = DelayedScaleDown(self.options.scale_down_interval)
        self.elasticity = Elasticity()
        self.effective = Effectiveness(self.options.scaling_effectiveness_threshold,
                                       self.options.scaling_effectiveness_detection_enabled)
        if self.state is not None:  # resumed: what the last run measured and remembered
            self.restarts = list(self.state.restarts)
            self.delay.pending = self.state.pending

    def run(self, say: Callable[[Decision], None]) -> None:
        """Step until ``max_steps``, ``until`` or a stop request (:func:`paced`); each
        decision to ``say``, with the prediction of the plan it runs when autoscale made it,
        and kept in the state."""
        planned: dict[str, float | None] | None = None  # the running plan's, when ours

        def kept(decision: Decision) -> None:
            nonlocal planned
            if decision.step is not None:
                decision.planned = planned
            if decision.decision == "rescale":
                planned = decision.predicted
            say(decision)
            if self.state is not None and decision.step is not None:
                self.state.record(json.loads(decision.line()), decision.seconds_to_rescale)

        paced(self.options, self.stop, self.clock, self.step, kept,
              lambda d: bool(d.from_))

    def step(self, number: int, started: float) -> Decision:
        judged = self.judge(number, started)
        if isinstance(judged, Decision):
            return judged
        held = judged.latency
        proposal = decide(judged.observed, judged.triggered, self.options, self.objective,
                          self.stop, held.model_limit if held else None)
        decision, plan = self.conclude(judged, proposal)
        if plan is not None:
            self.send(judged, decision, plan)
        decision.seconds = round(self.clock() - started, 1)
        return decision

    def judge(self, number: int, started: float) -> Judged | Decision:
        """Collect and evaluate: the job as this step sees it, with the triggers it breaks;
        or the decision already, where there is no reading."""
        o = self.options
        try:
            reading = collect(self.job, o.metrics_window, self.rates, self.wait)
        except InputError as exc:  # a job once read that answers so no more: see why below
            if not self.read_once:
                raise
            reading = NoReading(f"no reading: {exc}")
        if isinstance(reading, NoReading):
            self._gone()
            self._missed(reading)
            return Decision(step=number, method=o.method, decision="no change",
                            why=[reading.why], seconds=round(self.clock() - started, 1))
        self.missed = 0
        obs = reading.observation
        self.name = obs.job
        self.elasticity.record(obs)
        offered, backlog = self._offered(obs, reading.snapshot)
        # odrp plans within the counts the mode accepts; DS2's rule has no alignment, and
        # the Flink rule aligns its own count (decide.aligned)
        observed = observed_instance(
            obs, o.utilization_target, reading.snapshot.get("load"),
            o.metrics_busy_time_aggregator,
            o.scaling_parallelism_alignment_mode if o.method == "odrp" else "OFF",
            self.shared)
        # with the offered load known (given, or from the lag), judged at it
        at_offered = predicted(observed.app, observed.infra, observed.plan) \
            if not offered.startswith("observed") else None
        judged = seen(obs, o.metrics_busy_time_aggregator, at_offered)
        triggered = triggers(judged, o.low, o.high) or self._above_target(judged)
        held = hold_latency(self.job, obs, observed, o.max_response_time, not self.read_once)
        self.read_once = True
        return Judged(number, reading, offered, backlog, observed,
                      [*triggered, *(held.broken if held else [])], held)

    def conclude(self, j: Judged, proposal: Proposal, hurry: str | None = None,
                 ) -> tuple[Decision, Plan | None]:
        """The safeguards on what ``proposal`` asks (limits, effectiveness, the delayed
        scale-down, no scale-down mid-catch-up, the memory veto): the decision, and the
        plan to send (None: leave the job as it runs). ``hurry``: why a scale-down is not
        delayed this time (a job of higher priority waits for the slots)."""
        o, obs, observed = self.options, j.reading.observation, j.observed
        running = observed.running
        plan = proposal.plan
        wanted = {op: sum(plan.replicas(op).values()) for op in observed.app.operator_ids} \
            if plan else running
        capped, waiting = limited(running, wanted, o.scale_up_max_factor,
                                  o.scale_down_max_factor, o.vertex_min_parallelism,
                                  o.vertex_max_parallelism, excluded(obs, o.vertex_exclude_ids))
        capped, found = self.effective.hold(running, capped, j.capacity)
        held, delayed = self.delay.hold(running, capped, self.wall())
        if hurry is not None and delayed:
            held, delayed = capped, [f"a scale-down not delayed: {hurry}"]
            self.delay.pending.clear()
        waiting += found + delayed
        backlog = j.backlog
        if backlog is not None and backlog.seconds > o.backlog_processing_lag_threshold:
            kept = {op: max(k, running.get(op, k)) for op, k in held.items()}
            if kept != held:  # scaling down mid-catch-up is the "vicious cycle"
                waiting.append(f"no scale-down while a source lags {backlog.seconds:.0f} s "
                               f"of its offered rate (backlog-processing.lag-threshold "
                               f"{o.backlog_processing_lag_threshold:g} s)")
                held = kept
        veto = vetoed(pressure(j.reading.snapshot.get("memory")), o.memory_gc_pressure_threshold,
                      o.memory_heap_usage_threshold)
        if veto is not None and held != running:
            waiting.append(veto)
            held = running
        if plan is not None and held != wanted:  # a limit or a wait: the rest goes ahead
            plan = None if held == running else spread(observed.app, observed.infra, held)
            wanted = held
        why = proposal.why or [f"every vertex is busy within [{o.low:g}, {o.high:g}], none "
                               "back-pressured"]
        decision = Decision(
            step=j.number, method=o.method, decision="no change", why=[*why, *waiting],
            window=obs.window, seen=seen_record(obs),
            offered=j.offered, lag={op: round(n, 1) for op, n in
                                    (backlog.lag.items() if backlog else [])},
            occupied=observed.occupied(), warnings=obs.warnings, to=wanted,
            predicted=predicted(observed.app, observed.infra, plan or observed.plan),
            F=proposal.replan, seconds=0.0, **{"from": running},
            latency=j.latency.measured if j.latency else {})
        said = j.latency.said if j.latency else []
        decision.why += said
        if plan is None or wanted == running or self.stop:
            if proposal.why and wanted == running and not waiting:
                decision.why = [*proposal.why, *said, "the plan it makes is what runs"]
            return decision, None
        if o.dry_run:
            decision.decision = "dry run"
            return decision, None
        return decision, plan

    def send(self, j: Judged, decision: Decision, plan: Plan) -> None:
        """Execute: the plan sent and waited for; the decision says what came of it. Too
        few free slots leaves the job as it runs, said (another job may hold them)."""
        obs, running, wanted = j.reading.observation, j.observed.running, decision.to
        decision.decision = "rescale"
        try:
            took = execute(self.job, j.observed, plan, self.options.wait, self.stop)
        except TooFewSlots as exc:
            decision.decision = "no change"
            decision.why.append(f"not sent: {exc}")
            decision.to = running
            return
        except WaitStopped:
            decision.why.append("stopped while the rescale was waited for: the change "
                                "was sent, and Flink carries it out")
            return
        decision.seconds_to_rescale = round(took, 1)
        self.restarts.append(took)
        self.effective.scaled(running, wanted, j.capacity)
        # sized from what a back-pressured job let through: a lower bound, to be closed
        # from above once the job runs free
        self.from_lower_bound = j.offered.startswith("observed") and any(
            v.pressed >= PRESSED for v in obs.vertices)

    def _above_target(self, judged: list[Seen]) -> list[str]:
        """Closing the band from above: after a rescale sized from the throughput of a
        back-pressured job (a lower bound of the load), the first reading that runs free
        re-sizes every vertex busy above the target by more than CLOSE, though it lies
        within the bounds, where a rescale sized from the true load would have put it."""
        if not self.from_lower_bound or any(s.pressed >= PRESSED for s in judged):
            return []
        self.from_lower_bound = False
        target = self.options.utilization_target
        return [f"{s.op} {s.said}, above the target {target:g}: the last rescale "
                "was sized from what a back-pressured job let through, and the job now runs "
                "free" for s in judged if s.busy is not None and not s.source
                and s.busy > target + CLOSE]

    def _offered(self, obs: Observation, snapshot: Any) -> tuple[str, Backlog | None]:
        if self.rates:
            return "given", None
        restart = self.restarts[-1] if self.restarts else RESTART_TIME
        return offered_load(obs, snapshot, self.options, restart, self.elasticity)

    def wait(self, seconds: float) -> None:
        nap(seconds, self.stop, self.clock)

    def _gone(self) -> None:
        """A job once read that no longer runs ends the loop (exit 3), saying where a job of
        its name runs now; one that restarts is read again."""
        if not self.read_once:
            return
        try:
            said = gone(self.job, self.name)
        except (InputError, EngineError):  # the JobManager itself: counted as missed
            return
        if said is not None:
            raise EngineError(f"{said}; autoscale stops")

    def _missed(self, reading: NoReading) -> None:
        """A JobManager that never answered is a wrong address (exit 2, nothing sent); one
        that stops answering is given MISSED readings in a row, then exit 3."""
        if reading.unreachable is None:
            return
        if not self.read_once:
            raise reading.unreachable
        self.missed += 1
        if self.missed >= MISSED:
            raise EngineError(f"the JobManager did not answer {MISSED} readings in a row "
                              f"(the last: {reading.why})")
