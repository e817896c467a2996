"""The loop on one job: wait the stabilisation interval (after the start, and after each
rescale), read the job over the metrics window through its engine, evaluate, decide,
safeguard, send, and again; one :class:`~streamplace.model.decision.Decision` per step,
built once from what the roles returned, and the loop's memory saved whole after each.

The job is rescaled only when a vertex is back-pressured or its busy share leaves
``[utilization.min, utilization.max]`` (the Flink autoscaler's rule), or when the re-plan
improves F by more than ``min_improvement``; a scale-down waits ``scale-down.interval``.

One error policy, the cluster's too: a change that did not settle, a refused change, or a
job that stopped running before the change went out is said in the decision, and the next
step goes on. What ends the loop: an engine that never answered (a wrong address: exit 2,
nothing sent), one that stops answering for MISSED readings in a row (exit 3), a job that
no longer runs under its id (exit 3), bad input at the first reading (exit 2), and a stop
request (a last decision saying why).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field

from streamplace.control.autoscale.ahead import Ahead
from streamplace.control.autoscale.decide import propose
from streamplace.control.autoscale.evaluate import assess, seen_record
from streamplace.control.autoscale.options import AutoscaleOptions
from streamplace.control.autoscale.pace import paced
from streamplace.control.autoscale.rule import predicted
from streamplace.control.autoscale.safeguards import safeguard, scaled
from streamplace.control.autoscale.stages import Assessment, Outcome, Proposal, Verdict
from streamplace.control.clock import Clock
from streamplace.control.engine import Engine, NoReading, Reading, TooFewSlots, WaitStopped
from streamplace.control.running.observation import PRESSED
from streamplace.errors import ChangeSent, EngineError, InputError
from streamplace.model.decision import Decision, PlanAhead
from streamplace.model.forecast import ForecastFile
from streamplace.model.objective import Objective
from streamplace.model.state import Memory, StateFile
from streamplace.solve.budget import StopRequest

MISSED = 5
"""Readings in a row the engine may fail to answer before the loop gives up on it."""


@dataclass
class Autoscaler:
    engine: Engine
    options: AutoscaleOptions
    objective: Objective
    clock: Clock
    stop: StopRequest = field(default_factory=StopRequest)
    rates: dict[str, float] = field(default_factory=dict)  # the offered load, where given
    state: StateFile | None = None      # the memory and the record; a new one by default
    keep: Callable[[StateFile], None] | None = None  # saves the state after each step
    shared: frozenset[str] = frozenset()  # jobs whose slots are planned with this one's
    known: ForecastFile | None = None   # what the team knows is coming (--forecast)
    markers_required: bool = True       # no latency markers at the first step ends it

    def __post_init__(self) -> None:
        if self.state is None:
            self.state = StateFile(job=self.engine.address)
        self.state.options = asdict(self.options)  # what report --optimum plans with
        self._ahead: Ahead | None = None

    @property
    def memory(self) -> Memory:
        assert self.state is not None
        return self.state.memory

    def run(self, say: Callable[[Decision], None]) -> None:
        """Step until ``max_steps``, ``until`` or a stop request (:func:`paced`), each
        decision to ``say``, recorded, and the state kept."""
        if not self.memory.read_once:  # a wrong address said now, not after the first wait
            self.engine.reach()
        paced(self.options, self.stop, self.clock, self.step, lambda d: self.record(d, say),
              lambda d: bool(d.from_), first=self.memory.steps + 1)

    def record(self, decision: Decision, say: Callable[[Decision], None]) -> None:
        assert self.state is not None
        self.named(decision)
        say(decision)
        if decision.step is not None:
            self.memory.steps = decision.step
            self.state.decisions.append(decision)
        if self.keep is not None:
            self.keep(self.state)

    def named(self, decision: Decision) -> None:
        """The job the line speaks of, by name and id, once it was read."""
        decision.job, decision.job_id = self.memory.name, self.memory.job_id

    def step(self, number: int, started: float) -> Decision:
        a = self.assess(number, started)
        if isinstance(a, Decision):
            return a
        planned = self.memory.planned  # the prediction of the plan read over the window
        proposal, ahead = self.propose(a)
        verdict = safeguard(a, proposal, self.options, self.memory, self.clock.wall(),
                            ahead=ahead is not None and ahead.trusted and bool(ahead.counts))
        return self.decision(a, proposal, verdict, self.send(a, verdict), started, planned,
                             ahead)

    def propose(self, a: Assessment) -> tuple[Proposal, PlanAhead | None]:
        """What the method asks: with ``--horizon``, planned ahead over the forecast (the
        reactive rule where the forecast is not trusted, and under it where the job is in
        trouble now); else the reactive rule."""
        o = self.options

        def reactive() -> Proposal:
            return propose(a, o, self.objective, self.stop)

        if not o.horizon:
            return reactive(), None
        if self._ahead is None:
            self._ahead = Ahead(o, self.known)
        return self._ahead.propose(a, self.memory, self.clock.wall(), self.stop, reactive)

    def assess(self, number: int, started: float) -> Assessment | Decision:
        """The job as this step sees it, with the triggers it breaks; or the decision
        already, where there is no reading."""
        try:
            reading = self.engine.read(self.options.metrics_window)
        except InputError as exc:  # a job once read that answers so no more: see why below
            if not self.memory.read_once:
                raise
            reading = NoReading(f"no reading: {exc}")
        return self.judge(number, started, reading)

    def judge(self, number: int, started: float, reading: Reading | NoReading,
              ) -> Assessment | Decision:
        """``reading`` assessed; the decision already where there is none."""
        memory = self.memory
        if isinstance(reading, NoReading):
            self._gone()
            self._missed(reading)
            return Decision(step=number, method=self.options.method, decision="no change",
                            why=[reading.why], seconds=self._since(started))
        memory.missed = 0
        memory.name, memory.job_id = reading.observation.job, reading.observation.job_id
        try:
            a = assess(number, reading, self.options, memory, self.rates,
                       self.engine.markers, self.clock.wall(), self.shared,
                       self.markers_required)
        except InputError as exc:  # the first reading's is bad input; later, a moment
            if not memory.read_once:  # (TaskManagers replaced while the job's details
                raise                 # still name the old ones) that the next step outlives
            return Decision(step=number, method=self.options.method, decision="no change",
                            why=[f"no reading: {exc}"], seconds=self._since(started))
        memory.read_once = True
        return a

    def send(self, a: Assessment, verdict: Verdict) -> Outcome:
        """The verdict carried out: sent and waited for, or why not. A change that did
        not settle, was refused or found the job stopped is said; the loop goes on."""
        running = a.observed.running
        if verdict.plan is None or self.stop:
            return Outcome("no change", verdict.to if verdict.plan is None else running)
        if verdict.dry_run:
            return Outcome("dry run", verdict.to)
        try:
            took = self.engine.rescale(a.observed.app, a.observed.infra, verdict.plan,
                                       self.options.wait)
        except WaitStopped:
            return Outcome("rescale", verdict.to, [
                "stopped while the rescale was waited for: the change was sent, and the "
                "engine carries it out"])
        except ChangeSent as exc:  # sent, and the job did not come to run it in time
            return Outcome("rescale", verdict.to, [f"sent, but {exc}"])
        except (TooFewSlots, InputError, EngineError) as exc:  # nothing was sent
            return Outcome("no change", running, [f"not sent: {exc}"])
        memory = self.memory
        memory.restarted(round(took, 1), self.clock.wall())  # as the decision says it
        scaled(memory, running, verdict.to, a.capacity)
        memory.planned = predicted(a.observed.app, a.observed.infra, verdict.plan)
        # sized from what a back-pressured job let through: a lower bound, to be closed
        # from above once the job runs free
        memory.lower_bound = a.offered.startswith("observed") and any(
            v.pressed >= PRESSED for v in a.reading.observation.vertices)
        return Outcome("rescale", verdict.to, seconds_to_rescale=round(took, 1))

    def decision(self, a: Assessment, proposal: Proposal, verdict: Verdict,
                 outcome: Outcome, started: float,
                 planned: dict[str, float | None] | None,
                 ahead: PlanAhead | None = None) -> Decision:
        """The step's one Decision, from what each role returned; ``planned``: the
        prediction of the plan that ran over the window, where autoscale made it."""
        o, obs, observed = self.options, a.reading.observation, a.observed
        said = a.latency.said if a.latency else []
        why = proposal.why or [f"every vertex is busy within [{o.low:g}, {o.high:g}], none "
                               "back-pressured"]
        why = [*why, *verdict.why, *said]
        if proposal.why and verdict.to == observed.running and not verdict.why:
            why.append("the plan it makes is what runs")
        plan = verdict.plan if outcome.decision in ("rescale", "dry run") else None
        backlog = a.backlog
        return Decision(
            step=a.number, method=o.method, decision=outcome.decision,
            why=[*why, *outcome.said], window=obs.window, seen=seen_record(obs),
            offered=a.offered, lag={op: round(n, 1) for op, n in
                                    (backlog.lag.items() if backlog else [])},
            occupied=observed.occupied(), warnings=obs.warnings, to=outcome.to,
            predicted=predicted(observed.app, observed.infra, plan or observed.plan),
            planned=planned,
            F=proposal.replan, seconds=self._since(started),
            seconds_to_rescale=outcome.seconds_to_rescale, **{"from": observed.running},
            latency=a.latency.measured if a.latency else {}, ahead=ahead)

    def _since(self, started: float) -> float:
        return round(self.clock.now() - started, 1)

    def _gone(self) -> None:
        """A job once read that no longer runs ends the loop (exit 3), saying where a job of
        its name runs now; one that restarts is read again."""
        if not self.memory.read_once:
            return
        try:
            said = self.engine.gone(self.memory.name)
        except (InputError, EngineError):  # the engine itself: counted as missed
            return
        if said is not None:
            raise EngineError(f"{said}; autoscale stops")

    def _missed(self, reading: NoReading) -> None:
        """An engine that never answered is a wrong address (exit 2, nothing sent); one
        that stops answering is given MISSED readings in a row, then exit 3."""
        if reading.unreachable is None:
            return
        if not self.memory.read_once and not reading.reached:
            raise reading.unreachable
        self.memory.missed += 1
        if self.memory.missed >= MISSED:
            raise EngineError(f"{self.engine.address} did not answer {MISSED} readings in "
                              f"a row (the last: {reading.why})")
