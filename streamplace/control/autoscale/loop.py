"""The loop: wait the stabilisation interval (after the start, and after each rescale),
collect the job over the metrics window, evaluate, decide, execute, and again; one
:class:`~streamplace.model.decision.Decision` per step.

The job is rescaled only when a vertex is back-pressured or its busy share leaves
``[utilization.min, utilization.max]`` (the Flink autoscaler's rule), or when the re-plan
improves F by more than ``min_improvement``. A stop request is seen between phases: a
rescale under way is waited for, then the loop ends with a last decision saying why.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from streamplace.control.autoscale.collect import NoReading, collect
from streamplace.control.autoscale.decide import decide
from streamplace.control.autoscale.evaluate import observed_instance, seen, seen_record
from streamplace.control.autoscale.execute import execute
from streamplace.control.autoscale.options import AutoscaleOptions
from streamplace.control.autoscale.rule import predicted, triggers
from streamplace.model.decision import Decision
from streamplace.model.objective import Objective
from streamplace.solve.budget import StopRequest

NAP = 0.2  # seconds between two looks at the stop request while waiting


@dataclass
class Autoscaler:
    job: str
    options: AutoscaleOptions
    objective: Objective
    rates: dict[str, float]             # the offered load, where the user gave it
    stop: StopRequest = field(default_factory=StopRequest)
    clock: Callable[[], float] = time.monotonic

    def run(self, say: Callable[[Decision], None]) -> None:
        """Step until ``max_steps``, ``until`` or a stop request; each decision to
        ``say``, and a last ``stopped`` one when a stop request ended the loop."""
        started = self.clock()
        pause = self.options.stabilization_interval
        planned: dict[str, float | None] | None = None  # the running plan's, when ours
        for number in range(1, self.options.max_steps + 1):
            until = self.options.until
            if until is not None and self.clock() - started >= until:
                break
            if self._sleep(pause):
                break
            decision = self.step(number, started)
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
        reading = collect(self.job, o.metrics_window, self.rates)
        if isinstance(reading, NoReading):
            return Decision(step=number, method=o.method, decision="no change",
                            why=[reading.why], seconds=round(self.clock() - started, 1))
        obs = reading.observation
        observed = observed_instance(obs, o.utilization_target, reading.snapshot.get("load"))
        running = observed.running
        triggered = triggers(seen(obs), o.low, o.high)
        proposal = decide(observed, triggered, o, self.objective, self.stop)
        plan = proposal.plan
        wanted = {op: sum(plan.replicas(op).values()) for op in observed.app.operator_ids} \
            if plan else running
        why = proposal.why or [f"every vertex is busy within [{o.low:g}, {o.high:g}], none "
                               "back-pressured"]
        decision = Decision(
            step=number, method=o.method, decision="no change", why=why,
            window=obs.window, seen=seen_record(obs),
            offered="given" if self.rates else "observed (a lower bound under backpressure)",
            occupied=observed.occupied(), warnings=obs.warnings, to=wanted,
            predicted=predicted(observed.app, observed.infra, plan or observed.plan),
            F=proposal.replan, seconds=0.0, **{"from": running})
        if plan is None or wanted == running or self.stop:
            if proposal.why and wanted == running:
                decision.why = [*proposal.why, "the plan it makes is what runs"]
        elif o.dry_run:
            decision.decision = "dry run"
        else:
            decision.seconds_to_rescale = round(execute(self.job, observed, plan, o.wait), 1)
            decision.decision = "rescale"
        decision.seconds = round(self.clock() - started, 1)
        return decision

    def _sleep(self, seconds: float) -> bool:
        """Sleep, in short naps so that a stop request is seen at once; True when one
        came."""
        ends = self.clock() + seconds
        while not self.stop and self.clock() < ends:
            time.sleep(min(NAP, max(0.0, ends - self.clock())))
        return bool(self.stop)
