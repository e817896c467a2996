"""Autoscale a whole session cluster (``autoscale http://JOBMANAGER:8081``): every running
job read over the same metrics window, the jobs planned together as one bundle on the
cluster's slots (each job's weight and priority from ``--jobs``), and the changes sent so
that the cluster is never asked for slots that are not free: scale-downs first, then
scale-ups, higher priority first, each waited for before the next.

Each job keeps the per-job loop's memory and safeguards through its own
:class:`~streamplace.control.autoscale.loop.Autoscaler`; what they hold back is arbitrated
here, so that the slots still add up. The error policy is the per-job loop's.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field

from streamplace.control.autoscale.decide import propose
from streamplace.control.autoscale.loop import MISSED, Autoscaler
from streamplace.control.autoscale.options import AutoscaleOptions
from streamplace.control.autoscale.pace import paced
from streamplace.control.autoscale.pool import joint_proposals, share_out, waits_for
from streamplace.control.autoscale.safeguards import safeguard
from streamplace.control.autoscale.stages import Assessment, Outcome, Proposal, Verdict
from streamplace.control.clock import Clock, poll_until
from streamplace.control.engine import Cluster, Listing
from streamplace.errors import EngineError, InputError
from streamplace.model.bundle import BundleMode
from streamplace.model.decision import Decision
from streamplace.model.jobs import JobsFile
from streamplace.model.objective import Objective
from streamplace.model.state import JOBS_KEPT, KEPT, StateFile
from streamplace.solve.budget import StopRequest


@dataclass
class ClusterAutoscaler:
    cluster: Cluster
    options: AutoscaleOptions
    objective: Objective
    terms: JobsFile
    clock: Clock
    mode: BundleMode = BundleMode.JOINT
    stop: StopRequest = field(default_factory=StopRequest)
    loops: dict[str, Autoscaler] = field(default_factory=dict)  # by job id
    names: dict[str, str] = field(default_factory=dict)          # job id: name
    defaulted: set[str] = field(default_factory=set)  # names said to take the default terms
    listed: bool = False      # whether the cluster's jobs were ever listed
    missed: int = 0           # listings in a row the cluster did not answer
    state: StateFile | None = None  # every job's memory, by id; a new one by default
    keep: Callable[[StateFile], None] | None = None  # saves the state after each step
    _parts: dict[str, Decision] = field(default_factory=dict)  # the step's, by job id

    def __post_init__(self) -> None:
        if self.state is None:
            self.state = StateFile(job=self.cluster.address)
        self.state.options = asdict(self.options)

    def run(self, say: Callable[[Decision], None]) -> None:
        """Step until ``max_steps``, ``until`` or a stop request, one line per step, each
        job's part recorded in its own state and the whole kept."""
        self.cluster.reach()  # a wrong address said now, not after the first wait
        assert self.state is not None
        paced(self.options, self.stop, self.clock, self.step,
              lambda d: self.record(d, say), lambda d: bool(d.jobs),
              first=self.state.memory.steps + 1)

    def record(self, decision: Decision, say: Callable[[Decision], None]) -> None:
        """The line said; each job's part (stamped as the step) into that job's state, the
        step without the parts into the cluster's, and the whole kept."""
        assert self.state is not None
        say(decision)
        for jid, part in self._parts.items():
            part.at, part.time = decision.at, decision.time
            if jid in self.loops:
                kept = self.loops[jid].state
                assert kept is not None
                kept.decisions = [*kept.decisions, part][-KEPT:]
        self._parts = {}
        if decision.step is not None:
            self.state.memory.steps = decision.step
            self.state.decisions = [*self.state.decisions,
                                    decision.model_copy(update={"jobs": {}})][-KEPT:]
        for jid, loop in self.loops.items():
            assert loop.state is not None
            self.state.jobs[jid] = loop.state
        if self.keep is not None:
            self.keep(self.state)

    def step(self, number: int, started: float) -> Decision:
        o = self.options
        listing = self._listing()
        if isinstance(listing, str):
            return Decision(step=number, method=o.method, decision="no change",
                            why=[listing], seconds=self._since(started))
        why = self._follow(listing)
        if listing.unsound:
            return Decision(step=number, method=o.method, decision="no change",
                            why=[*why, f"no reading: {listing.unsound}"], slots=listing.slots,
                            seconds=self._since(started))
        if not listing.running:
            return Decision(step=number, method=o.method, decision="no change",
                            why=[*why, "no job runs on the cluster"], slots=listing.slots,
                            seconds=self._since(started))
        judged, parts = self._judge(number, started, list(listing.running))
        pool = listing.slots - sum(k for jid, k in listing.held.items() if jid not in judged)
        planned = {jid: self.loops[jid].memory.planned for jid in judged}
        proposals = self._propose(judged, pool, why)
        wall = self.clock.wall()
        verdicts = {jid: safeguard(a, proposals[jid], o, self.loops[jid].memory, wall)
                    for jid, a in judged.items()}
        priority = {jid: self.terms.terms(self.names[jid]).priority for jid in judged}
        waiting = waits_for(judged, verdicts, pool, priority)
        if waiting is not None:  # slots a lower priority holds back go to the one waiting
            for jid, a in judged.items():
                if priority[jid] < priority[waiting]:
                    verdicts[jid] = safeguard(
                        a, proposals[jid], o, self.loops[jid].memory, wall,
                        f"{self.names[waiting]} (priority {priority[waiting]}) waits for "
                        "the slots")
        why += share_out(judged, verdicts, pool, priority, self.names)
        outcomes = self._send(judged, verdicts, priority)
        for jid, a in judged.items():
            loop = self.loops[jid]
            parts[jid] = loop.decision(a, proposals[jid], verdicts[jid], outcomes[jid],
                                       started, planned[jid])
            loop.memory.steps = number
        for jid, part in parts.items():  # a job not read yet: its id from the listing
            self.loops[jid].named(part)
            part.job_id = part.job_id or jid
        self._parts = parts
        said = [d.decision for d in parts.values()]
        verdict = "rescale" if "rescale" in said else "dry run" if "dry run" in said \
            else "no change"
        return Decision(step=number, method=o.method, decision=verdict, why=why,
                        slots=pool, jobs={self.names[jid]: d for jid, d in parts.items()},
                        seconds=self._since(started))

    def _listing(self) -> Listing | str:
        """The cluster now; or, once it was listed, why not this step (a reset, an answer
        cut short): MISSED in a row end the loop, as one job's readings do."""
        try:
            listing = self.cluster.listing()
        except InputError as exc:
            if not self.listed:
                raise
            self.missed += 1
            if self.missed >= MISSED:
                raise EngineError(f"{self.cluster.address} did not list its jobs {MISSED} "
                                  f"times in a row (the last: {exc})") from None
            return f"no reading: the cluster's jobs could not be listed ({exc})"
        self.listed, self.missed = True, 0
        return listing

    def _follow(self, listing: Listing) -> list[str]:
        """Jobs that appeared are taken in, jobs that ended let go; said. A job restarting
        or sharing its name for a moment is neither: its loop, and its memory, are kept."""
        why = list(listing.waiting.values())
        for jid in [j for j in self.loops if j not in listing.running
                    and j not in listing.waiting]:
            why.append(f"{self.names.pop(jid)} ({jid}) no longer runs: let go, its memory "
                       "kept")
            del self.loops[jid]
        self._forget_oldest()
        shared = frozenset(listing.running)
        for jid, name in listing.running.items():
            if jid not in self.loops:
                # a job without latency markers is scaled on the other triggers, said:
                # one job's missing setting does not leave it drowning, nor end the loop
                kept, said = self._kept(jid, name, listing)
                self.loops[jid] = Autoscaler(self.cluster.job(jid), self.options,
                                             self.objective, self.clock, self.stop,
                                             state=kept, markers_required=False)
                self.names[jid] = name
                why.append(f"{name} ({jid}) runs: taken in{said}")
                if name not in self.terms.jobs and name not in self.defaulted:
                    self.defaulted.add(name)
                    d = self.terms.default
                    why.append(f"{name} is not in --jobs: weight {d.weight:g}, priority "
                               f"{d.priority} (the file's default)")
            self.loops[jid].shared = shared
        return why

    def _forget_oldest(self) -> None:
        """Of the jobs that ended, the latest JOBS_KEPT are kept: a cluster that runs
        short jobs for months keeps a file of bounded size."""
        assert self.state is not None
        jobs = self.state.jobs

        def last_seen(jid: str) -> float:
            said = jobs[jid].decisions
            return (said[-1].at or 0.0) if said else 0.0

        ended = sorted((jid for jid in jobs if jid not in self.loops), key=last_seen)
        for jid in ended[:max(0, len(ended) - JOBS_KEPT)]:
            del jobs[jid]

    def _kept(self, jid: str, name: str, listing: Listing) -> tuple[StateFile, str]:
        """The state a job taken in resumes: its own, kept under its id (the loop restarted,
        the JobManager failed over); else that of the last job of its name that no longer
        runs (submitted again, from a savepoint: a new id, the same load); else a new one."""
        assert self.state is not None
        address = self.cluster.job(jid).address
        own = self.state.jobs.get(jid)
        if own is not None:
            return own, f", its memory resumed ({own.memory.steps} steps)"
        gone = [(k, s) for k, s in self.state.jobs.items() if s.memory.name == name
                and k not in listing.running and k not in listing.waiting]
        if not gone:
            return StateFile(job=address), ""
        old, found = max(gone, key=lambda item: item[1].memory.steps)
        del self.state.jobs[old]
        adopted = found.model_copy(update={"job": address})
        adopted.memory.job_id = jid
        return adopted, f", the memory of its run as {old} taken over"

    def _judge(self, number: int, started: float, jobs: list[str],
               ) -> tuple[dict[str, Assessment], dict[str, Decision]]:
        """Every job running read over the same window, side by side, and assessed."""
        readings = self.cluster.read(jobs, self.options.metrics_window)
        judged: dict[str, Assessment] = {}
        parts: dict[str, Decision] = {}
        for jid, reading in readings.items():
            try:
                found = self.loops[jid].judge(number, started, reading)
            except (InputError, EngineError) as exc:  # gone between the listing and now
                found = Decision(step=number, method=self.options.method,
                                 decision="no change", why=[f"no reading: {exc}"],
                                 seconds=self._since(started))
            if isinstance(found, Decision):
                parts[jid] = found
            else:
                judged[jid] = found
        return judged, parts

    def _propose(self, judged: dict[str, Assessment], pool: int, why: list[str],
                 ) -> dict[str, Proposal]:
        """odrp: one bundle over every job read; ds2 and flink: each job's own rule (the
        slots are then shared out by priority)."""
        o = self.options
        if o.method != "odrp":
            return {jid: propose(a, o, self.objective, self.stop) for jid, a in judged.items()}
        terms = {jid: self.terms.terms(self.names[jid]) for jid in judged}
        proposals, said = joint_proposals(judged, terms, self.names, pool, self.mode, o,
                                          self.objective, self.stop)
        why += said
        return proposals

    def _send(self, judged: dict[str, Assessment], verdicts: dict[str, Verdict],
              priority: dict[str, int]) -> dict[str, Outcome]:
        """Scale-downs first (their slots freed before they are asked for), then scale-ups,
        higher priority first; each waited for."""
        def order(jid: str) -> tuple[int, int, int]:
            a = judged[jid]
            grows = a.slots(verdicts[jid].to) - a.slots(a.observed.running)
            return (grows > 0, -priority[jid], grows)

        out = {}
        for jid in sorted(verdicts, key=order):
            a, verdict = judged[jid], verdicts[jid]
            short = self._slots_for(jid, a, verdict) if verdict.plan is not None and \
                not verdict.dry_run and not self.stop else None
            out[jid] = Outcome("no change", a.observed.running, [short]) if short else \
                self.loops[jid].send(a, verdict)
        return out

    def _slots_for(self, jid: str, a: Assessment, verdict: Verdict) -> str | None:
        """Why the slots a scale-up needs are not free after waiting up to ``wait`` (a job
        scaled down just before holds its idle slots for Flink's slot.idle.timeout); None
        once they are. A PUT without them would over-ask."""
        held, needed = a.slots(a.observed.running), a.slots(verdict.to)
        if needed <= held:
            return None
        engine = self.loops[jid].engine
        started = self.clock.now()
        last: list[int | None] = [held]

        def free() -> bool | None:
            last[0] = engine.free_slots(held)
            return True if last[0] is None or last[0] >= needed else None

        try:
            if poll_until(free, self.options.wait, self.clock, self.stop):
                return None
        except InputError as exc:
            return f"the cluster's free slots could not be read ({exc})"
        return (f"waits for slots: it needs {needed}, the cluster had {last[0]} for it after "
                f"{self.clock.now() - started:.0f} s (a job scaled down keeps its idle slots "
                "for slot.idle.timeout, 50 s by default)")

    def _since(self, started: float) -> float:
        return round(self.clock.now() - started, 1)
