"""Two jobs on one real Flink session cluster (1.20 and 2.2 from PyPI, two TaskManagers of
4 slots): a paced job holds OTHER slots; observe reads the loaded job and what the paced job
holds; a plan solved beside that load fits the slots left, and applying it rescales the
loaded job at once, where a plan made for the empty cluster would ask for slots no one has.

Every wait is on a condition the cluster reports; nothing depends on this machine's speed."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
import yaml

from ..support.flink_cluster import VERSIONS, ClusterPool, FlinkCluster
from ..support.flink_jobs import RATE, WEIGHTS, WINDOW, loaded_job, runs_at, streamplace, until

pytestmark = pytest.mark.e2e

OTHER = 3  # slots the paced job holds (parallelism 3, one slot-sharing group)
SLOTS = 8
FITS = 3  # work's replicas the first plan needs: fewer than the slots left


@pytest.fixture(scope="module", params=VERSIONS)
def cluster(request: pytest.FixtureRequest, flink_pool: ClusterPool) -> FlinkCluster:
    return flink_pool.get(request.param)


def _free(cluster: FlinkCluster) -> int:
    return int(cluster.get("/overview")["slots-available"])


def _slots_held(cluster: FlinkCluster, job: str) -> dict[str, int]:
    """TaskManager id -> the slots ``job`` holds there, as the cluster reports them."""
    out = {}
    for tm in cluster.get("/taskmanagers")["taskmanagers"]:
        slots = cluster.get(f"/taskmanagers/{tm['id']}")["allocatedSlots"]
        out[tm["id"]] = sum(1 for s in slots if s["jobId"] == job)
    return out


def _target_for(app: dict, replicas: int) -> str:
    """The target utilisation at which work needs ``replicas`` replicas, from what observe
    measured (its service rate is this machine's speed, so the test does not fix it)."""
    work = next(o for o in app["operators"] if o["id"] == "work")
    offered = sum(s["rate"] for s in app["streams"] if s["to"] == "work")
    target = offered / (work["service_rate"] * (replicas - 0.5))
    assert 0 < target <= 1, (offered, work["service_rate"])
    return f"{target:.4f}"


def test_a_second_job_is_planned_into_the_slots_the_first_leaves(cluster: FlinkCluster,
                                                                  tmp_path: Path):
    # the slots of earlier tests' jobs are given back after their cancellation
    assert until(lambda: _free(cluster), lambda free: free == SLOTS) == SLOTS
    other = cluster.submit(parallelism=OTHER)
    loaded = None
    try:
        names = {v["name"] for v in cluster.get(f"/jobs/{other}")["vertices"]}
        runs_at(cluster, other, dict.fromkeys(names, OTHER))
        loaded = loaded_job(cluster)
        url = f"{cluster.rest}/jobs/{loaded}"
        files = {k: tmp_path / f"{k}.yaml" for k in
                 ("app", "infra", "current", "held", "plan", "crowded")}
        seen = streamplace("observe", url, "--window", WINDOW, "--source-rate",
                           f"events={RATE}", "-o", str(files["app"]), "--infrastructure-out",
                           str(files["infra"]), "--plan-out", str(files["current"]),
                           "--occupied-out", str(files["held"]), "-q")
        assert seen.returncode == 0, seen.stderr

        # observe read both jobs: the paced one holds its slots where the cluster says
        held = yaml.safe_load(files["held"].read_text())["applications"]
        assert len(held) == 1 and str(other) in held[0]["description"], held
        infra = yaml.safe_load(files["infra"].read_text())
        node_of = {n["description"].split()[1].rstrip(":"): n["id"] for n in infra["nodes"]}
        expected = {node_of[tm]: n for tm, n in _slots_held(cluster, other).items() if n}
        assert sum(expected.values()) == OTHER
        assert {u: min(dims.values()) for u, dims in held[0]["nodes"].items()} == expected

        # the plan beside it uses at most the slots left on each TaskManager
        app = yaml.safe_load(files["app"].read_text())
        solved = streamplace("solve", str(files["app"]), str(files["infra"]), "--current",
                             str(files["current"]), "--occupied", str(files["held"]),
                             "--target-utilization", _target_for(app, FITS),
                             "--weights", WEIGHTS,
                             "--time-limit", "20", "-o", str(files["plan"]), "-q")
        assert solved.returncode == 0, solved.stderr
        placement = yaml.safe_load(files["plan"].read_text())["placement"]
        whole = {n["id"]: min(n["resources"].values()) for n in infra["nodes"]}
        for op, nodes in placement.items():
            for u, count in nodes.items():
                assert count <= whole[u] - expected.get(u, 0), (op, u, count)
        parallelism = {op: sum(nodes.values()) for op, nodes in placement.items()}
        assert max(parallelism.values()) <= SLOTS - OTHER

        # and the cluster runs it at once: every subtask running at the planned parallelism
        applied = streamplace("apply", str(files["app"]), str(files["infra"]),
                              str(files["plan"]), url, "--yes", "--json", "-q")
        assert applied.returncode == 0, applied.stderr
        planned = json.loads(applied.stdout)["parallelism"]  # by vertex name
        assert planned["work"] == FITS
        assert runs_at(cluster, loaded, planned) == planned
        assert Counter(s["jobId"] for tm in cluster.get("/taskmanagers")["taskmanagers"]
                       for s in cluster.get(f"/taskmanagers/{tm['id']}")["allocatedSlots"]
                       )[str(other)] == OTHER  # the paced job kept its slots

        # autoscale reads the other job's slots at every step, and plans within the rest
        decided = streamplace("autoscale", url, "--dry-run", "--max-steps", "1",
                              "--stabilization-interval", "0", "--metrics-window", WINDOW,
                              "--source-rate", f"events={RATE}", "--utilization-target",
                              _target_for(app, SLOTS - OTHER + 1), "-q")
        assert decided.returncode == 0, decided.stderr
        line = json.loads(decided.stdout.splitlines()[0])
        assert line["occupied"] == {held[0]["name"]: OTHER}, line
        assert all(k <= SLOTS - OTHER for k in line["to"].values()), line

        # a load the slots left cannot carry is refused beside the other job, where the
        # empty cluster's plan would ask for slots that the paced job holds
        tight = ("--target-utilization", _target_for(app, SLOTS - OTHER + 1),
                 "--weights", WEIGHTS, "--time-limit", "20")
        crowded = streamplace("solve", str(files["app"]), str(files["infra"]), *tight,
                              "-o", str(files["crowded"]), "-q")
        assert crowded.returncode == 0, crowded.stderr
        asked = yaml.safe_load(files["crowded"].read_text())["placement"]
        assert max(sum(n.values()) for n in asked.values()) > SLOTS - OTHER
        refused = streamplace("solve", str(files["app"]), str(files["infra"]), *tight,
                              "--occupied", str(files["held"]), "-q")
        assert refused.returncode == 1, refused.stderr
    finally:
        for job in (loaded, other):
            if job is not None:
                cluster.cancel(job)
