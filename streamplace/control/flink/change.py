"""What a plan changes in a running Flink job: the job, its cluster and the plan checked
to fit together before anything is sent, then the one PUT and the wait (``apply``, and
each rescale of ``autoscale``)."""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from typing import Any

from streamplace.control.clock import Clock
from streamplace.control.engine import TooFewSlots, WaitStopped
from streamplace.control.flink.rescale import (
    JobAddress,
    check_cluster,
    free_slots,
    lower_bounds,
    parallelism_of,
    put_parallelism,
    slots_needed,
    state_of,
    wait_for,
)
from streamplace.errors import InputError
from streamplace.io.engines.common import ExportOptions
from streamplace.io.engines.flink import export_flink
from streamplace.io.http import get_json
from streamplace.model.application import Application
from streamplace.model.infrastructure import Infrastructure
from streamplace.model.plan import Plan
from streamplace.solve.budget import StopRequest

LOWER_BOUNDS = ("keep", "upper")
"""keep: a vertex's lower bound of parallelism is left as it is (lowered only to the new
upper bound), as the Flink operator's autoscaler does since FLINK-34311: a job that loses a
TaskManager runs on below its plan instead of failing. upper: the lower bound is the plan's
parallelism too, so the job runs the plan or not at all."""


@dataclass
class Change:
    """A plan's parallelism for a running job, checked and ready to send."""

    where: JobAddress
    version: str
    job: Any                       # the JSON of GET /jobs/:jobid when it was checked
    body: dict[str, Any]           # the PUT's resource requirements, per vertex id
    names: dict[str, str]          # vertex id: name

    @property
    def before(self) -> dict[str, int]:
        return parallelism_of(self.job)

    @property
    def wanted(self) -> dict[str, int]:
        return {vid: b["parallelism"]["upperBound"] for vid, b in self.body.items()}

    @property
    def moves(self) -> dict[str, tuple[int | None, int]]:
        before = self.before
        return {vid: (before.get(vid), k) for vid, k in self.wanted.items()
                if before.get(vid) != k}

    def send(self, wait: float, clock: Clock, stop: StopRequest | None = None) -> float:
        """PUT the requirements and wait for them; the seconds it took. From the moment
        the PUT goes out until the job runs them, the job is in the ledger of sent changes
        (:data:`~streamplace.control.flink.rescale.SENT`)."""
        started = clock.now()
        if stop is None:
            put_parallelism(self.where, self.body)
        else:
            self._put_seeing(stop)
        wait_for(self.where, self.wanted, wait, clock, stop)
        return clock.now() - started

    def _put_seeing(self, stop: StopRequest) -> None:
        """The PUT, with a stop request seen while the JobManager holds its answer: the
        change is then said to be sent (it may be taken), at once, not when the answer's
        deadline passes."""
        outcome: list[BaseException | None] = []

        def put() -> None:
            try:
                put_parallelism(self.where, self.body)
                outcome.append(None)
            except BaseException as exc:  # handed to the waiting thread, raised there
                outcome.append(exc)

        sending = threading.Thread(target=put, daemon=True)
        sending.start()
        # the PUT is real I/O, bounded by its own deadline: waited for in real time, not on
        # the loop's clock (a clock that moves when slept would give up on it at once)
        while sending.is_alive() and not stop:
            sending.join(0.1)
        if outcome and outcome[0] is not None:
            raise outcome[0]
        if not outcome:  # in the ledger of sent changes since the PUT went out
            raise WaitStopped(self.where.at(self.where.job).shown())

    def to_json(self, applied: bool, seconds: float | None = None) -> dict[str, Any]:
        return {"command": "apply", "applied": applied, "job": self.where.jid,
                "flink_version": self.version, "seconds": seconds,
                "changes": [{"vertex": vid, "name": self.names[vid], "from": old, "to": new}
                            for vid, (old, new) in self.moves.items()],
                "parallelism": {self.names[vid]: k for vid, k in self.wanted.items()}}


def prepare(job: str, app: Application, infra: Infrastructure, plan: Plan,
            plan_file: str, lower_bound: str = "keep") -> Change:
    """The change, once the job, its cluster and the plan are known to fit together; else
    an InputError (exit 2: another job, not running, no adaptive scheduler) or an
    EngineError (exit 3: too few slots), with nothing sent."""
    where = JobAddress.parse(job)
    found = get_json(where.at(where.job), "JOB")
    if not isinstance(found, dict) or not isinstance(found.get("vertices"), list):
        raise InputError.single("the address does not answer as a Flink job",
                                "give http://JOBMANAGER:8081/jobs/JOBID", path="JOB")
    if found.get("state") != "RUNNING":
        raise InputError.single(f"the job is {found.get('state')}, not RUNNING",
                                "apply a plan to a running job", path="JOB")
    version = check_cluster(where)
    exported = export_flink(app, infra, plan, ExportOptions(flink_job=found,
                                                            flink_version=version,
                                                            flink_job_file=plan_file))
    if "rest" in exported.withheld:
        raise InputError.single(f"the plan cannot be sent: {exported.withheld['rest']}",
                                "re-plan within the job's max parallelism", file=plan_file)
    body = json.loads(next(a.text for a in exported.artifacts if a.name == "rest"))
    kept = lower_bounds(where) if lower_bound == "keep" else {}
    for vid, requirement in body.items():
        bounds = requirement["parallelism"]
        upper = bounds["upperBound"]
        bounds["lowerBound"] = upper if lower_bound == "upper" else min(upper, kept.get(vid, 1))
    names = {v["id"]: v["name"] for v in found["vertices"] if isinstance(v, dict)}
    change = Change(where, version, found, body, names)
    needed = slots_needed(found, change.wanted)
    have = free_slots(where, slots_needed(found, change.before))
    if have is not None and needed > have and change.moves:
        groups = {v.get("slotSharingGroupId") for v in found["vertices"]
                  if isinstance(v, dict)} - {None}
        split = f" ({len(groups)} slot-sharing groups add up)" if len(groups) > 1 else ""
        raise TooFewSlots(f"the plan needs {needed} slots{split} and the cluster has {have} "
                          f"for this job: nothing was sent; {state_of(found)}")
    return change
