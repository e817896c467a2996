"""The response time held to a real Flink 2.2.1 job: q1 (bids -> convert -> sink) on one
convert subtask. At 30 events/s, observe --against predicts the latency markers' age nearer
than the model's R alone, which misses the buffer timeouts (docs/benchmarks.md: how near,
on a quiet machine). At 80 events/s, convert's queue is much of the markers' age:
autoscale --max-response-time below what they show names the path and re-plans in one step,
the job running the plan; where a loaded machine has lengthened what no parallelism
shortens past the limit, it says so and sends nothing (whether the markers come under the
limit after a rescale depends on the load: docs/benchmarks.md measures it on a quiet one).

Waits are on conditions the cluster reports (a hang guard bounds them), never on time."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from ..support.flink_cluster import ClusterPool, FlinkCluster
from ..support.flink_jobs import runs_at, streamplace, until
from ..support.nexmark import Running, nexmark

pytestmark = pytest.mark.e2e

LIGHT, RATE = 30, 80  # a convert subtask takes about 100 events/s: busy 0.3, then 0.8
HISTORY = 11      # seconds of markers: metrics.latency.history-size 10, one a second


def _markers(cluster: FlinkCluster, job: str, since: int) -> float:
    """The mean age (ms) of the markers at the sink, once every marker its histogram holds
    (the last 10, one a second) left the source after ``since`` (the cluster's clock, ms)
    and after the sink last started; 0 before."""
    sink = next(v for v in cluster.get(f"/jobs/{job}")["vertices"]
                if v["name"].startswith("sink"))
    details = cluster.get(f"/jobs/{job}/vertices/{sink['id']}")
    if any(s["status"] != "RUNNING" for s in details["subtasks"]):
        return 0.0
    began = max([since, *(s["start-time"] for s in details["subtasks"])])
    if details["now"] - began < HISTORY * 1000:
        return 0.0
    listed = cluster.get(f"/jobs/{job}/vertices/{sink['id']}/metrics")
    ids = [m["id"] for m in listed if ".latency.source_id." in m["id"]
           and m["id"].endswith(".latency_mean")]
    if not ids:
        return 0.0
    got = cluster.get(f"/jobs/{job}/vertices/{sink['id']}/metrics?get={','.join(ids)}")
    return sum(float(m["value"]) for m in got) / len(got)


def _settled(cluster: FlinkCluster, job: Running) -> float:
    """The markers' mean age (ms) once it holds: two readings a whole history apart (by the
    cluster's clock) within 15% of each other. A start or a rescale leaves records in the
    network buffers that drain at the headroom's pace; the first histograms read them."""
    first = _steady(cluster, job)
    last = until(lambda: _markers(cluster, job.job, first), lambda ms: ms > 0)
    while True:
        since = int(cluster.get(f"/jobs/{job.job}")["now"])
        now = until(lambda at=since: _markers(cluster, job.job, at), lambda ms: ms > 0)
        if abs(now - last) <= 0.15 * last:
            return now
        last = now


def _steady(cluster: FlinkCluster, job: Running) -> int:
    """The cluster's clock (ms) once the source's lag is under a second of events: the
    backlog a start or a restart leaves is worked off."""
    until(job.lag, lambda pending: pending < RATE)
    return int(cluster.get(f"/jobs/{job.job}")["now"])


def _against(job: Running, files: dict[str, str], rate: float) -> dict:  # type: ignore[type-arg]
    """The one source-to-sink path of observe --against at ``rate``, the files written
    from the job as it runs."""
    made = streamplace("observe", job.url, "--window", "6", "--source-rate", f"bids={rate}",
                       "-o", files["app"], "--infrastructure-out", files["infra"],
                       "--plan-out", files["plan"], "-q")
    assert made.returncode == 0, made.stderr
    held = streamplace("observe", job.url, "--window", "6", "--source-rate", f"bids={rate}",
                       "--against", files["plan"], "--application", files["app"],
                       "--infrastructure", files["infra"], "--json", "-q")
    [path] = json.loads(held.stdout)["drift"]["latency"]
    return path  # type: ignore[no-any-return]


def _rate(job: Running, rate: float) -> None:
    with (job.topic / "schedule").open("a") as schedule:
        schedule.write(f"{int(time.time() * 1000)} {rate}\n")


def test_the_markers_are_predicted_and_a_broken_limit_is_repaired_in_one_step(
        flink_pool: ClusterPool, tmp_path: Path):
    cluster = flink_pool.get("2.2.1")
    files = {k: str(tmp_path / f"{k}.yaml") for k in ("app", "infra", "plan")}
    # the rate once it runs (no backlog); a latency marker a second, this job's own setting
    with nexmark(cluster, tmp_path, "q1", 1, flags=("-Dmetrics.latency.interval=1000",)) as job:
        _rate(job, LIGHT)
        _settled(cluster, job)
        path = _against(job, files, LIGHT)
        assert (path["source"], path["operator"], path["hops"]) == ("bids", "sink", 2)
        mean, marker, r = path["measured_mean"], path["predicted_marker"], path["predicted_r"]
        assert path["buffers"] == pytest.approx(0.1)  # two hops of the default 100 ms
        # R alone misses the buffer timeouts; the markers' predicted age is nearer
        assert r < 0.5 * mean and abs(marker - mean) < abs(r - mean), (mean, marker, r)

        _rate(job, RATE)
        _settled(cluster, job)
        path = _against(job, files, RATE)
        # halfway between the markers now and what no parallelism shortens (the mean less
        # the model's queueing): a subtask more takes convert's queue away
        limit = (path["measured_mean"] - path["waiting"] / 2) * 1000
        done = streamplace("autoscale", job.url, "--max-response-time", f"{limit:.0f}ms",
                           "--max-steps", "1", "--stabilization-interval", "0",
                           "--metrics-window", "6", "--source-rate", f"bids={RATE}",
                           "--yes", "-q")
        assert done.returncode == 0, done.stderr
        line = json.loads(done.stdout.splitlines()[0])
        assert any("above --max-response-time" in why for why in line["why"]), line["why"]
        if line["decision"] == "no change":
            # a loaded machine lengthened what no parallelism shortens past the limit: said,
            # and nothing sent (on a quiet machine the step rescales: docs/benchmarks.md)
            assert any("already exceeds the limit: no plan can hold it" in why
                       for why in line["why"]), line["why"]
            assert line["to"] == line["from"]
            return
        assert line["decision"] == "rescale", line["why"]
        assert line["to"]["convert"] > 1, line["to"]
        assert any("the re-plan holds the model's response time below" in why
                   for why in line["why"]), line["why"]
        runs_at(cluster, job.job, {"Source: bids": line["to"]["bids"],
                                   "convert": line["to"]["convert"],
                                   "sink: Writer": line["to"]["sink"]})
