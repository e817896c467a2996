"""A Nexmark-shaped job (tests/support/flink_job/NexmarkJob.java) started on a cluster of
the end-to-end tier, with its topic, the flag that pauses it, and its lag."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from .flink_cluster import FlinkCluster
from .flink_jobs import until

PARTITIONS, WORK = 4, 10_000  # a subtask of the work vertex takes about 100 events/s


@dataclass(frozen=True)
class Running:
    job: str
    url: str
    topic: Path               # its schedule, and the hold flag that pauses the source
    lag: Callable[[], float]  # the source's pendingRecords, summed over its subtasks


@contextmanager
def nexmark(cluster: FlinkCluster, folder: Path, query: str, rate: float,
            parallelism: int = 1, settings: Mapping[str, str] | None = None,
            ) -> Iterator[Running]:
    """``query`` on a topic of PARTITIONS partitions offering ``rate`` events/s (each
    vertex at ``parallelism``, the source at most PARTITIONS; ``settings``: the job's Flink
    configuration), once the REST API shows every subtask RUNNING, as autoscale reads them
    (a vertex's details lag the job's state by the JobManager's cache); cancelled at the
    end."""
    topic = folder / "bids"
    topic.mkdir(parents=True)
    (topic / "schedule").write_text(f"{int(time.time() * 1000)} {rate}\n")
    job = cluster.submit("NexmarkJob", (query, str(rate), str(PARTITIONS), str(WORK),
                                        str(folder)), parallelism, settings)
    try:
        def statuses() -> set[str]:
            vertices = cluster.get(f"/jobs/{job}")["vertices"]
            return {s["status"] for v in vertices
                    for s in cluster.get(f"/jobs/{job}/vertices/{v['id']}")["subtasks"]}

        until(statuses, lambda seen: seen == {"RUNNING"})
        source = cluster.get(f"/jobs/{job}")["vertices"][0]["id"]

        def lag() -> float:
            got = cluster.get(f"/jobs/{job}/vertices/{source}/subtasks/metrics"
                              "?get=Source__bids.pendingRecords")
            return float(got[0]["sum"]) if got else 0.0

        yield Running(job, f"{cluster.rest}/jobs/{job}", topic, lag)
    finally:
        (topic / "hold").unlink(missing_ok=True)
        cluster.cancel(job)
