"""autoscale over a whole session cluster on real Flink 2.2.1: two Nexmark-shaped jobs on
the tier's cluster of 8 slots, one short of slots, the other holding more than it needs.
One step plans both together; the job that gives slots back is rescaled first, and every
PUT is carried out (no over-ask).

Waits are on conditions the cluster reports (a hang guard bounds them), never on time."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ..support.flink_cluster import ClusterPool, worker_of
from ..support.flink_jobs import runs_at, streamplace, until
from ..support.nexmark import nexmark

pytestmark = [pytest.mark.e2e, worker_of("2.2.1", "nexmark")]

NAMES = {"bids": "Source: bids", "sink": "sink: Writer"}


def test_one_autoscale_shares_the_cluster_slots_between_two_jobs(flink_pool: ClusterPool,
                                                                  tmp_path: Path):
    """q1 (priority 1) runs 1 subtask for 250 events/s, about three subtasks' work; q2
    (priority 0) runs 6 for 20 events/s, one subtask's. One slot is free. The cluster's
    plan takes q2 down and q1 up, within the 8 slots; both run their plan at the end."""
    cluster = flink_pool.get("2.2.1")
    jobs = tmp_path / "jobs.yaml"
    jobs.write_text("schema: streamplace/jobs/v1\njobs:\n"
                    "  nexmark q1: {weight: 3, priority: 1}\n  nexmark q2: {weight: 1}\n")
    with nexmark(cluster, tmp_path / "q1", "q1", 250) as short, \
            nexmark(cluster, tmp_path / "q2", "q2", 20, parallelism=6) as spare:
        until(short.lag, lambda pending: pending > 0)
        done = streamplace("autoscale", cluster.rest, "--jobs", str(jobs), "--max-steps", "1",
                           "--stabilization-interval", "0", "--metrics-window", "6",
                           "--scale-down-interval", "0", "--restart-time", "5", "--yes", "-q")
        assert done.returncode == 0, done.stderr
        line = json.loads(done.stdout.splitlines()[0])
        assert line["slots"] == 8 and set(line["jobs"]) == {"nexmark q1", "nexmark q2"}, line
        q1, q2 = line["jobs"]["nexmark q1"], line["jobs"]["nexmark q2"]
        assert q1["decision"] == "rescale" and q2["decision"] == "rescale", (
            json.dumps(line, indent=1))
        assert q1["to"]["convert"] > 1 and max(q2["to"].values()) < 6, (q1["to"], q2["to"])
        assert max(q1["to"].values()) + max(q2["to"].values()) <= 8
        for part in (q1, q2):  # each PUT carried out, waited for: none asked for too much
            assert part["seconds_to_rescale"] is not None, part["why"]
        runs_at(cluster, short.job, {NAMES.get(op, op): k for op, k in q1["to"].items()})
        runs_at(cluster, spare.job, {NAMES.get(op, op): k for op, k in q2["to"].items()})
