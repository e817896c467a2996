"""Flink as an :class:`~streamplace.control.engine.Engine`: one job over the JobManager's
REST API (:class:`FlinkEngine`), and a session cluster of them (:class:`FlinkCluster`).
Every wait goes through the clock they are given."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from streamplace.control.clock import Clock, Stopped
from streamplace.control.engine import Listing, NoReading, Reading
from streamplace.control.flink.change import prepare
from streamplace.control.flink.cluster import cluster_path, list_jobs
from streamplace.control.flink.config import cluster_config
from streamplace.control.flink.holdings import holdings
from streamplace.control.flink.markers import job_markers
from streamplace.control.flink.memory import pressure
from streamplace.control.flink.read import metered_view, read_job
from streamplace.control.flink.replaced import gone
from streamplace.control.flink.rescale import JobAddress, free_slots
from streamplace.control.running.latency import Measured
from streamplace.control.running.offered import stalled_sources
from streamplace.errors import EngineError, InputError, Unreachable
from streamplace.io.http import Address, get_json, without_credentials
from streamplace.model.application import Application
from streamplace.model.infrastructure import Infrastructure
from streamplace.model.plan import Plan
from streamplace.solve.budget import StopRequest


@dataclass
class _Rest:
    """A JobManager's REST API at ``url`` (credentials allowed, never shown), waited on
    with ``clock``, a stop request seen wherever it waits."""

    url: str
    clock: Clock
    stop: StopRequest = field(default_factory=StopRequest)
    slices: int = 1  # readings of each window (more where latency is held: c_s^2)

    @property
    def address(self) -> str:
        return without_credentials(self.url).rstrip("/")


@dataclass
class FlinkEngine(_Rest):
    """One running job: ``url`` is ``http://JOBMANAGER:8081/jobs/JOBID`` (or its page in
    the web UI)."""

    _reached: bool = field(default=False, init=False)  # the JobManager answered once

    @property
    def address(self) -> str:
        """The job's REST address however it was written (a trailing slash, its web UI
        page): the one name its state file is kept under."""
        where = JobAddress.parse(self.url)
        return where.at(where.job).shown()

    def reach(self) -> None:
        """The JobManager's configuration and the job's details, asked once: a wrong
        address is said in the time a refused connection takes, not after a window."""
        where = JobAddress.parse(self.url)
        _answering(lambda: cluster_config(where.address, where.base))
        self._reached = True
        get_json(where.at(where.job), "JOB")

    def read(self, window: float) -> Reading | NoReading:
        """A job restarted or rescaled during the window, a counter Flink answered
        incomplete, a subtask not running, a job not RUNNING, or a JobManager that did not
        answer gives no reading; an answer that is not a job's is bad input. Until the
        JobManager has answered once, its configuration is asked first: a reset in the
        middle of the first window is then a blip, not a wrong address."""
        try:
            if not self._reached:
                where = JobAddress.parse(self.url)
                cluster_config(where.address, where.base)
                self._reached = True
            snapshot, obs = read_job(self.url, window, {}, load=True, clock=self.clock,
                                     stop=self.stop, slices=self.slices)
        except Unreachable as exc:
            return NoReading(f"no reading: {exc}", exc, self._reached)
        except EngineError as exc:  # its message may say "no reading" already
            said = str(exc)
            return NoReading(said if said.startswith("no reading") else f"no reading: {said}")
        state = snapshot.get("job", {}).get("state") if isinstance(snapshot, dict) else None
        if state != "RUNNING":  # its rates are those of its last moments: nothing to decide on
            return NoReading(f"no reading: the job is {state}, not RUNNING")
        try:
            held, unknown = holdings(snapshot.get("load"), obs.address), ""
        except InputError as exc:  # a cluster that does not say which job holds a slot
            held, unknown = None, str(exc)
        return Reading(obs, held, unknown, pressure(snapshot.get("memory")),
                       {v.op: v.slot_group or "default" for v in obs.vertices},
                       metered_view(snapshot, obs.address) if stalled_sources(obs) else None)

    def gone(self, name: str | None) -> str | None:
        return gone(self.url, name)

    def markers(self, vertex_of: dict[str, str],
                ) -> tuple[dict[tuple[str, str], Measured], float]:
        return job_markers(self.url, vertex_of)

    def free_slots(self, held: int) -> int | None:
        return free_slots(JobAddress.parse(self.url), held)

    def rescale(self, app: Application, infra: Infrastructure, plan: Plan,
                wait: float) -> float:
        change = prepare(self.url, app, infra, plan, "<re-plan>")
        return change.send(wait, self.clock, self.stop)

    def configuration(self) -> dict[str, str]:
        where = JobAddress.parse(self.url)
        return cluster_config(where.address, where.base)


@dataclass
class FlinkCluster(_Rest):
    """A session cluster: ``url`` is its JobManager's REST address."""

    def reach(self) -> None:
        """The jobs listed once: a wrong address said at once."""
        _answering(lambda: list_jobs(self.url))

    def listing(self) -> Listing:
        return list_jobs(self.url)

    def job(self, jid: str) -> FlinkEngine:
        return FlinkEngine(f"{self.url.rstrip('/')}/jobs/{jid}", self.clock, self.stop,
                           self.slices)

    def read(self, jids: list[str], window: float) -> dict[str, Reading | NoReading]:
        """Every job read over the same window, side by side; a job that went away since
        the listing gives no reading."""
        def one(jid: str) -> Reading | NoReading:
            try:
                return self.job(jid).read(window)
            except InputError as exc:
                return NoReading(f"no reading: {exc}")

        with ThreadPoolExecutor(max_workers=max(1, len(jids))) as pool:
            done = dict(zip(jids, pool.map(one, jids), strict=True))
        if self.stop:
            raise Stopped
        return done

    def configuration(self) -> dict[str, str]:
        return cluster_config(Address.parse(self.url, "JOBMANAGER"), cluster_path(self.url))


def _answering(ask: Callable[[], object]) -> None:
    """``ask()``, a JobManager that does not answer said with what a live loop can do
    about it (no saved file stands in for a running job)."""
    try:
        ask()
    except Unreachable as exc:
        raise Unreachable.single(exc.problems[0].message, "check the JobManager's REST "
                                 "address (rest.address, rest.port) and that it runs",
                                 path=exc.problems[0].path) from None
