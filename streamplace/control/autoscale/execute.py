"""Execute: the decided plan sent to the job as ``apply`` sends it, and waited for."""

from __future__ import annotations

from streamplace.control.autoscale.evaluate import Observed
from streamplace.control.flink.change import prepare
from streamplace.model.plan import Plan
from streamplace.solve.budget import StopRequest


def execute(job: str, observed: Observed, plan: Plan, wait: float, stop: StopRequest) -> float:
    """The seconds from the PUT until every vertex runs ``plan``; a stop request ends the
    wait (WaitStopped: the change was sent)."""
    change = prepare(job, observed.app, observed.infra, plan, "<re-plan>")
    return change.send(wait, stop)
