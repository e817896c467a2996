"""The response time held to a real Flink 2.2.1 job: q1 (bids -> convert -> sink) at 80
events/s on one convert subtask, most of whose latency is convert's queue and the buffer
timeouts. observe --against predicts the latency markers' age within the stated tolerance
(the model's R alone misses the buffer timeouts); autoscale --max-response-time below what
the markers show re-plans in one step, and the markers then come under the limit.

Waits are on conditions the cluster reports (a hang guard bounds them), never on time."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ..support.flink_cluster import ClusterPool, FlinkCluster
from ..support.flink_jobs import runs_at, streamplace, until
from ..support.nexmark import nexmark

pytestmark = pytest.mark.e2e

RATE = 80  # a convert subtask takes about 100 events/s: busy 0.8, a long queue
TOLERANCE = 0.25  # the marker prediction against the measured mean (docs/models.md)


def _markers(cluster: FlinkCluster, job: str, count: float) -> float:
    """The mean age (ms) of the markers at the sink, once its histogram holds ``count``
    markers' worth of time since the job (re)started; 0 before."""
    vertices = cluster.get(f"/jobs/{job}")["vertices"]
    sink = next(v for v in vertices if v["name"].startswith("sink"))
    listed = cluster.get(f"/jobs/{job}/vertices/{sink['id']}/metrics")
    ids = [m["id"] for m in listed if m["id"].endswith("latency_mean")]
    if not ids or any(s["status"] != "RUNNING" for s in cluster.get(
            f"/jobs/{job}/vertices/{sink['id']}")["subtasks"]):
        return 0.0
    started = max(s["start-time"] for s in cluster.get(
        f"/jobs/{job}/vertices/{sink['id']}")["subtasks"])
    now = cluster.get(f"/jobs/{job}")["now"]
    if now - started < count * 1000:
        return 0.0
    got = cluster.get(f"/jobs/{job}/vertices/{sink['id']}/metrics?get={','.join(ids)}")
    return max(float(m["value"]) for m in got)


def test_the_markers_are_predicted_and_a_broken_limit_is_repaired_in_one_step(
        flink_pool: ClusterPool, tmp_path: Path):
    cluster = flink_pool.get("2.2.1")
    with nexmark(cluster, tmp_path, "q1", RATE) as job:
        before = until(lambda: _markers(cluster, job.job, 15), lambda ms: ms > 0)
        files = {k: str(tmp_path / f"{k}.yaml") for k in ("app", "infra", "plan")}
        made = streamplace("observe", job.url, "--window", "6", "--source-rate",
                           f"bids={RATE}", "-o", files["app"], "--infrastructure-out",
                           files["infra"], "--plan-out", files["plan"], "-q")
        assert made.returncode == 0, made.stderr
        held = streamplace("observe", job.url, "--window", "6", "--source-rate",
                           f"bids={RATE}", "--against", files["plan"], "--application",
                           files["app"], "--infrastructure", files["infra"], "--json", "-q")
        [path] = json.loads(held.stdout)["drift"]["latency"]
        assert (path["source"], path["operator"], path["hops"]) == ("bids", "sink", 2)
        mean, marker = path["measured_mean"], path["predicted_marker"]
        assert abs(marker - mean) <= TOLERANCE * mean, path
        assert path["response_time"] < 0.5 * mean  # R alone: no buffer timeout in it

        limit = before - 15  # ms: convert's queue is the part a subtask more shortens
        done = streamplace("autoscale", job.url, "--max-response-time", f"{limit:.0f}ms",
                           "--max-steps", "1", "--stabilization-interval", "0",
                           "--metrics-window", "6", "--source-rate", f"bids={RATE}",
                           "--yes", "-q")
        assert done.returncode == 0, done.stderr
        line = json.loads(done.stdout.splitlines()[0])
        assert line["decision"] == "rescale", line["why"]
        assert any("above --max-response-time" in why for why in line["why"]), line["why"]
        assert line["to"]["convert"] > 1, line["to"]
        runs_at(cluster, job.job, {"Source: bids": line["to"]["bids"],
                                   "convert": line["to"]["convert"],
                                   "sink: Writer": line["to"]["sink"]})
        after = until(lambda: _markers(cluster, job.job, 15), lambda ms: ms > 0)
        assert after < limit, (before, limit, after)
