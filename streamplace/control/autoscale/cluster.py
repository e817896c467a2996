"""Autoscale a whole session cluster (``autoscale http://JOBMANAGER:8081``): every running
job read over the same metrics window, the jobs planned together as one bundle on the
cluster's slots (each job's weight and priority from ``--jobs``), and the changes sent so
that Flink is never asked for slots that are not free: scale-downs first, then scale-ups,
higher priority first, each waited for before the next.

Each job keeps the per-job loop's safeguards through its own
:class:`~streamplace.control.autoscale.loop.Autoscaler` (the complete-reading rule, limits,
effectiveness, the delayed scale-down, no scale-down mid-catch-up, the memory veto); what
they hold back is arbitrated here, so that the slots still add up.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from streamplace.control.autoscale.decide import Proposal, decide
from streamplace.control.autoscale.jobs import Listing, list_jobs
from streamplace.control.autoscale.judged import Judged
from streamplace.control.autoscale.loop import Autoscaler
from streamplace.control.autoscale.options import AutoscaleOptions
from streamplace.control.autoscale.pace import Stopped, paced
from streamplace.control.autoscale.pool import joint_proposals, share_out, slots_of, waits_for
from streamplace.control.flink.rescale import JobAddress, await_free
from streamplace.errors import ChangeSent, EngineError, InputError
from streamplace.model.bundle import BundleMode
from streamplace.model.decision import Decision
from streamplace.model.jobs import JobsFile
from streamplace.model.objective import Objective
from streamplace.model.plan import Plan
from streamplace.solve.budget import StopRequest


@dataclass
class ClusterAutoscaler:
    address: str                 # the JobManager's REST address
    options: AutoscaleOptions
    objective: Objective
    terms: JobsFile
    mode: BundleMode = BundleMode.JOINT
    stop: StopRequest = field(default_factory=StopRequest)
    clock: Callable[[], float] = time.monotonic
    loops: dict[str, Autoscaler] = field(default_factory=dict)  # by job id
    names: dict[str, str] = field(default_factory=dict)          # job id: name
    defaulted: set[str] = field(default_factory=set)  # names said to take the default terms

    def run(self, say: Callable[[Decision], None]) -> None:
        """Step until ``max_steps``, ``until`` or a stop request, one line per step."""
        paced(self.options, self.stop, self.clock, self.step, say, lambda d: bool(d.jobs))

    def step(self, number: int, started: float) -> Decision:
        o = self.options
        listing = list_jobs(self.address)
        why = self._follow(listing)
        if not self.loops:
            return Decision(step=number, method=o.method, decision="no change",
                            why=[*why, "no job runs on the cluster"], slots=listing.slots,
                            seconds=round(self.clock() - started, 1))
        judged, parts = self._judge(number, started)
        pool = listing.slots - sum(k for jid, k in listing.held.items() if jid not in judged)
        proposals = self._propose(judged, pool, why)
        concluded = {jid: self.loops[jid].conclude(j, proposals[jid])
                     for jid, j in judged.items()}
        priority = {jid: self.terms.terms(self.names[jid]).priority for jid in judged}
        waiting = waits_for(judged, concluded, pool, priority)
        if waiting is not None:  # slots a lower priority holds back go to the one waiting
            for jid, j in judged.items():
                if priority[jid] < priority[waiting]:
                    concluded[jid] = self.loops[jid].conclude(
                        j, proposals[jid], f"{self.names[waiting]} (priority "
                        f"{priority[waiting]}) waits for the slots")
        why += share_out(judged, concluded, pool, priority, self.names)
        self._send(judged, concluded, priority)
        parts.update({jid: decision for jid, (decision, _plan) in concluded.items()})
        said = [d.decision for d in parts.values()]
        verdict = "rescale" if "rescale" in said else "dry run" if "dry run" in said \
            else "no change"
        return Decision(step=number, method=o.method, decision=verdict, why=why,
                        slots=pool, jobs={self.names[jid]: d for jid, d in parts.items()},
                        seconds=round(self.clock() - started, 1))

    def _follow(self, listing: Listing) -> list[str]:
        """Jobs that appeared are taken in, jobs that ended let go; said."""
        why = []
        for jid in [j for j in self.loops if j not in listing.running]:
            why.append(f"{self.names.pop(jid)} ({jid}) no longer runs: let go")
            del self.loops[jid]
        shared = frozenset(listing.running)
        for jid, name in listing.running.items():
            if jid not in self.loops:
                self.loops[jid] = Autoscaler(f"{self.address}/jobs/{jid}", self.options,
                                             self.objective, {}, self.stop, self.clock)
                self.names[jid] = name
                why.append(f"{name} ({jid}) runs: taken in")
                if name not in self.terms.jobs and name not in self.defaulted:
                    self.defaulted.add(name)
                    d = self.terms.default
                    why.append(f"{name} is not in --jobs: weight {d.weight:g}, priority "
                               f"{d.priority} (the file's default)")
            self.loops[jid].shared = shared
        return why

    def _judge(self, number: int, started: float,
               ) -> tuple[dict[str, Judged], dict[str, Decision]]:
        """Every job read over the same window, side by side."""
        def one(jid: str) -> Judged | Decision:
            loop = self.loops[jid]
            try:
                return loop.judge(number, started)
            except (InputError, EngineError) as exc:  # gone between the listing and now
                return Decision(step=number, method=self.options.method,
                                decision="no change", why=[f"no reading: {exc}"],
                                seconds=round(self.clock() - started, 1))

        with ThreadPoolExecutor(max_workers=len(self.loops)) as pool:
            done = dict(zip(self.loops, pool.map(one, list(self.loops)), strict=True))
        if self.stop:
            raise Stopped
        judged = {jid: j for jid, j in done.items() if isinstance(j, Judged)}
        parts = {jid: d for jid, d in done.items() if isinstance(d, Decision)}
        return judged, parts

    def _propose(self, judged: dict[str, Judged], pool: int, why: list[str],
                 ) -> dict[str, Proposal]:
        """odrp: one bundle over every job read; ds2 and flink: each job's own rule (the
        slots are then shared out by priority)."""
        o = self.options
        if o.method != "odrp":
            return {jid: decide(j.observed, j.triggered, o, self.objective, self.stop)
                    for jid, j in judged.items()}
        terms = {jid: self.terms.terms(self.names[jid]) for jid in judged}
        proposals, said = joint_proposals(judged, terms, self.names, pool, self.mode, o,
                                          self.objective, self.stop)
        why += said
        return proposals

    def _send(self, judged: dict[str, Judged], concluded: dict[str, tuple[Decision, Plan | None]],
              priority: dict[str, int]) -> None:
        """Scale-downs first (their slots freed before they are asked for), then scale-ups,
        higher priority first; each waited for. A job that ended meanwhile is said."""
        def order(jid: str) -> tuple[int, int, int]:
            j, (decision, _plan) = judged[jid], concluded[jid]
            grows = slots_of(j, decision.to) - slots_of(j, j.observed.running)
            return (grows > 0, -priority[jid], grows)

        for jid in sorted(concluded, key=order):
            decision, plan = concluded[jid]
            if plan is None or self.stop or not self._slots_for(judged[jid], decision):
                continue
            try:
                self.loops[jid].send(judged[jid], decision, plan)
            except ChangeSent as exc:  # sent, and the job did not come to run it
                decision.why.append(f"sent, but {exc}")
            except (InputError, EngineError) as exc:  # cancelled, or failed, since it was read
                decision.decision = "no change"
                decision.to = judged[jid].observed.running
                decision.why.append(f"not sent: {exc}")

    def _slots_for(self, j: Judged, decision: Decision) -> bool:
        """Whether the slots a scale-up needs are free, waited for up to ``wait``: a job
        scaled down just before holds its idle slots for Flink's slot.idle.timeout. Not
        free by then: the job is left as it runs, said (a PUT now would over-ask)."""
        held, needed = slots_of(j, j.observed.running), slots_of(j, decision.to)
        if needed <= held:
            return True
        started = self.clock()
        try:
            short = await_free(JobAddress.parse(self.loops[j.reading.observation.job_id]
                                                .job), held, needed, self.options.wait,
                               self.stop)
        except InputError as exc:
            short, said = held, f"the cluster's free slots could not be read ({exc})"
        else:
            said = ""
        if short is None:
            return True
        decision.decision = "no change"
        decision.to = j.observed.running
        decision.why.append(said or (
            f"waits for slots: it needs {needed}, the cluster had {short} for it after "
            f"{self.clock() - started:.0f} s (a job scaled down keeps its idle slots for "
            "slot.idle.timeout, 50 s by default)"))
        return False
