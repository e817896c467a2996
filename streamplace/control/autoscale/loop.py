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

import itertools
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from streamplace.control.autoscale.collect import NoReading, collect
from streamplace.control.autoscale.decide import decide
from streamplace.control.autoscale.delay import DelayedScaleDown
from streamplace.control.autoscale.evaluate import observed_instance, seen, seen_record
from streamplace.control.autoscale.execute import execute
from streamplace.control.autoscale.options import AutoscaleOptions
from streamplace.control.autoscale.rule import predicted, spread, triggers
from streamplace.control.flink.rescale import WaitStopped
from streamplace.errors import EngineError
from streamplace.model.decision import Decision
from streamplace.model.objective import Objective
from streamplace.solve.budget import StopRequest

NAP = 0.2  # seconds between two looks at the stop request while waiting
MISSED = 5
"""Readings in a row the JobManager may fail to answer before the loop gives up on it."""


class Stopped(Exception):
    """A stop request came while the loop waited."""


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

    def __post_init__(self) -> None:
        self.delay = DelayedScaleDown(self.options.scale_down_interval)

    def run(self, say: Callable[[Decision], None]) -> None:
        """Step until ``max_steps``, ``until`` or a stop request; each decision to
        ``say``, and a last ``stopped`` one when a stop request ended the loop."""
        started = self.clock()
        pause = self.options.stabilization_interval
        planned: dict[str, float | None] | None = None  # the running plan's, when ours
        steps = itertools.count(1) if self.options.max_steps is None else \
            range(1, self.options.max_steps + 1)
        for number in steps:
            until = self.options.until
            if until is not None and self.clock() - started >= until:
                break
            try:
                self.wait(pause)
                decision = self.step(number, started)
            except Stopped:
                break
            decision.planned = planned
            if decision.decision == "rescale":
                planned = decision.predicted
            say(decision)
            if self.stop:
                break
            pause = self.options.stabilization_interval \
                if decision.decision == "rescale" or not decision.from_ else 0.0
        if self.stop:
            say(Decision(decision="stopped", why=[f"signal {self.stop.signum}"],
                         seconds=round(self.clock() - started, 1)))

    def step(self, number: int, started: float) -> Decision:
        o = self.options
        reading = collect(self.job, o.metrics_window, self.rates, self.wait)
        if isinstance(reading, NoReading):
            self._missed(reading)
            return Decision(step=number, method=o.method, decision="no change",
                            why=[reading.why], seconds=round(self.clock() - started, 1))
        self.missed, self.read_once = 0, True
        obs = reading.observation
        observed = observed_instance(obs, o.utilization_target, reading.snapshot.get("load"),
                                     o.busy_aggregator)
        running = observed.running
        triggered = triggers(seen(obs, o.busy_aggregator), o.low, o.high)
        proposal = decide(observed, triggered, o, self.objective, self.stop)
        plan = proposal.plan
        wanted = {op: sum(plan.replicas(op).values()) for op in observed.app.operator_ids} \
            if plan else running
        held, waiting = self.delay.hold(running, wanted, self.clock())
        if plan is not None and held != wanted:  # a scale-down waits: the rest goes ahead
            plan = None if held == running else spread(observed.app, observed.infra, held)
            wanted = held
        why = proposal.why or [f"every vertex is busy within [{o.low:g}, {o.high:g}], none "
                               "back-pressured"]
        decision = Decision(
            step=number, method=o.method, decision="no change", why=[*why, *waiting],
            window=obs.window, seen=seen_record(obs),
            offered="given" if self.rates else "observed (a lower bound under backpressure)",
            occupied=observed.occupied(), warnings=obs.warnings, to=wanted,
            predicted=predicted(observed.app, observed.infra, plan or observed.plan),
            F=proposal.replan, seconds=0.0, **{"from": running})
        if plan is None or wanted == running or self.stop:
            if proposal.why and wanted == running and not waiting:
                decision.why = [*proposal.why, "the plan it makes is what runs"]
        elif o.dry_run:
            decision.decision = "dry run"
        else:
            decision.decision = "rescale"
            try:
                decision.seconds_to_rescale = round(
                    execute(self.job, observed, plan, o.wait, self.stop), 1)
            except WaitStopped:
                decision.why.append("stopped while the rescale was waited for: the change "
                                    "was sent, and Flink carries it out")
        decision.seconds = round(self.clock() - started, 1)
        return decision

    def wait(self, seconds: float) -> None:
        """Wait, in short naps so that a stop request is seen at once (:class:`Stopped`)."""
        ends = self.clock() + seconds
        while not self.stop and self.clock() < ends:
            time.sleep(min(NAP, max(0.0, ends - self.clock())))
        if self.stop:
            raise Stopped

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
