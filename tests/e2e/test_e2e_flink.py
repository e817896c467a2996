"""End to end on real Flink session clusters (tests/support/flink_cluster.py): 1.20 and 2.2
from PyPI, the paced job of tests/support/flink_job (numbers -> pace chained, a keyed counter,
an unchained filter, a Sink V2 writer: four job vertices). The plan is exported from the
running job's
``GET /jobs/:jobid``, applied the way each version takes it, and the parallelism read back
from the REST API."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from streamplace.control.flink.observe import METER_SECONDS

from ..support.flink_cluster import ClusterPool, FlinkCluster, worker_of
from ..support.flink_jobs import RUN_TIMEOUT, runs_at, until
from ..support.snapshots import assert_what_the_job_was_made_to_do

pytestmark = pytest.mark.e2e  # the end-to-end tier (Makefile: make test)

PLAN = {"numbers": 2, "pace": 2, "counter": 3, "evens": 1, "sink": 2}
VERTEX = {"Source: numbers -> pace": 2, "counter": 3, "evens": 1, "sink: Writer": 2}


def write_instance(folder: Path) -> tuple[Path, Path, Path]:
    chain = ["numbers", "pace", "counter", "evens", "sink"]
    app = {"name": "paced", "operators": [{"id": o, "service_rate": 100, "max_replicas": 4}
                                          for o in chain],
           "streams": [{"from": a, "to": b, "rate": 50} for a, b in itertools.pairwise(chain)]}
    infra = {"name": "one-taskmanager", "nodes": [{"id": "tm", "resources": 16}]}
    plan = {"placement": {o: {"tm": n} for o, n in PLAN.items()}}
    paths = folder / "app.yaml", folder / "infra.yaml", folder / "plan.yaml"
    for path, doc in zip(paths, (app, infra, plan), strict=True):
        path.write_text(yaml.safe_dump(doc))
    return paths


def export(folder: Path, job: str) -> dict[str, str]:
    """The artifacts for the plan, the default (what the version applies) first."""
    app, infra, plan = write_instance(folder)
    done = subprocess.run([sys.executable, "-m", "streamplace", "export", str(app), str(infra),
                           str(plan), "--to", "flink", "--flink-job", job, "--json", "-q"],
                          capture_output=True, text=True, timeout=RUN_TIMEOUT)
    assert done.returncode == 0, done.stderr
    return {a["name"]: a["text"] for a in json.loads(done.stdout)["artifacts"]}






def ids(cluster: FlinkCluster, job: str) -> dict[str, str]:
    return {v["name"]: v["id"] for v in cluster.get(f"/jobs/{job}")["vertices"]}


ONES = dict.fromkeys(VERTEX, 1)


@pytest.fixture(scope="module")
def flink_1_20(flink_pool: ClusterPool) -> FlinkCluster:
    return flink_pool.get("1.20.3")


@pytest.fixture(scope="module")
def observed_1_20(flink_1_20: FlinkCluster) -> Iterator[str]:
    """A paced job at parallelism 2 for observe, started with the cluster so that Flink's
    rate meters fill while the other tests run."""
    job = flink_1_20.submit(parallelism=2)
    yield job
    flink_1_20.cancel(job)


@pytest.fixture(scope="module")
def flink_2_2(flink_pool: ClusterPool) -> FlinkCluster:
    return flink_pool.get("2.2.1")


@worker_of("1.20.3")
@pytest.mark.usefixtures("observed_1_20")
def test_on_flink_1_20_the_rest_body_and_the_overrides_run_the_plan(
        flink_1_20: FlinkCluster, tmp_path: Path):
    first = flink_1_20.run()
    assert runs_at(flink_1_20, first, ONES) == ONES
    artifacts = export(tmp_path, f"{flink_1_20.rest}/jobs/{first}")  # the version from it
    assert next(iter(artifacts)) == "config"
    assert flink_1_20.put(f"/jobs/{first}/resource-requirements", artifacts["rest"]) == 200
    assert runs_at(flink_1_20, first, VERTEX) == VERTEX
    overrides = yaml.safe_load(artifacts["config"])["pipeline.jobvertex-parallelism-overrides"]
    flink_1_20.cancel(first)
    second = flink_1_20.run("-D", f"pipeline.jobvertex-parallelism-overrides={overrides}")
    assert runs_at(flink_1_20, second, VERTEX) == VERTEX
    assert ids(flink_1_20, second) == ids(flink_1_20, first)  # stable across submissions
    flink_1_20.cancel(second)  # the slots go back to the tier


@worker_of("2.2.1")
def test_on_flink_2_2_the_rest_body_rescales_and_the_overrides_do_nothing(
        flink_2_2: FlinkCluster, tmp_path: Path):
    first = flink_2_2.run()
    assert runs_at(flink_2_2, first, ONES) == ONES
    artifacts = export(tmp_path, f"{flink_2_2.rest}/jobs/{first}")
    assert next(iter(artifacts)) == "rest"
    overrides = yaml.safe_load(artifacts["config"])["pipeline.jobvertex-parallelism-overrides"]
    flink_2_2.cancel(first)
    second = flink_2_2.run("-D", f"pipeline.jobvertex-parallelism-overrides={overrides}")
    # what docs/engines.md says: 2.x submits a StreamGraph, the overrides apply to JobGraphs
    assert runs_at(flink_2_2, second, ONES) == ONES
    assert ids(flink_2_2, second) == ids(flink_2_2, first)
    assert flink_2_2.put(f"/jobs/{second}/resource-requirements", artifacts["rest"]) == 200
    assert runs_at(flink_2_2, second, VERTEX) == VERTEX
    flink_2_2.cancel(second)  # the slots go back to the tier


def metered(cluster: FlinkCluster, job: str) -> float:
    """Seconds the job's youngest vertex has run, by the JobManager's clock, once that is
    long enough for full rate meters (observe's METER_SECONDS) and every vertex runs."""
    def youngest() -> tuple[float, bool]:
        vertices = cluster.get(f"/jobs/{job}")["vertices"]
        return (min(v["duration"] for v in vertices) / 1000,
                all(v["status"] == "RUNNING" for v in vertices))

    return until(youngest, lambda seen: seen[0] >= METER_SECONDS and seen[1])[0]


@worker_of("1.20.3")
def test_observe_reads_the_running_job_and_its_plan_exports_back(
        flink_1_20: FlinkCluster, observed_1_20: str, tmp_path: Path):
    job = f"{flink_1_20.rest}/jobs/{observed_1_20}"
    assert metered(flink_1_20, observed_1_20) >= METER_SECONDS
    files = {k: tmp_path / f"{k}.yaml" for k in ("app", "infra", "plan")}
    done = subprocess.run([sys.executable, "-m", "streamplace", "observe", job, "-o",
                           str(files["app"]), "--infrastructure-out", str(files["infra"]),
                           "--plan-out", str(files["plan"]), "--save",
                           str(tmp_path / "snapshot.json"), "--json", "-q"],
                          capture_output=True, text=True, timeout=RUN_TIMEOUT)
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    assert_what_the_job_was_made_to_do(doc, live=True)
    managers = {t["id"] for t in flink_1_20.get("/taskmanagers")["taskmanagers"]}
    assert len(doc["infrastructure"]["nodes"]) == len(managers) == 2
    placed = {o: sum(where.values()) for o, where in doc["plan"]["placement"].items()}
    assert placed == dict.fromkeys(placed, 2)
    exported = subprocess.run(
        [sys.executable, "-m", "streamplace", "export", *map(str, files.values()), "--to",
         "flink", "--flink-job", job, "--json", "-q"],
        capture_output=True, text=True, timeout=RUN_TIMEOUT)
    assert exported.returncode == 0, exported.stderr
    config = json.loads(exported.stdout)["artifacts"][0]
    assert config["name"] == "config"  # 1.20: the overrides take effect
    assert config["text"] == "pipeline.jobvertex-parallelism-overrides: " + ",".join(
        f"{vid}:2" for vid in ids(flink_1_20, observed_1_20).values()) + "\n"
