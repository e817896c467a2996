"""End to end on a real Spark standalone cluster (a Master and two Workers, each a JVM of
its own, tests/support/standalone.py): the exported settings applied by ``spark-submit`` and read
back from the Master, and a sweep on the cluster giving the rows of one process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from ..support.standalone import Cluster, spark_home, standalone_cluster
from ..support.sweeps import assert_rows_of_one_process, write_sweep

pytestmark = [pytest.mark.e2e,  # the end-to-end tier (Makefile: make test)
              pytest.mark.xdist_group("spark-cluster")]  # one worker starts the cluster

SUBMIT_TIMEOUT = 600  # a hang guard only: a run ends by itself well before


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory):
    with standalone_cluster(tmp_path_factory.mktemp("standalone"),
                            hidden=tmp_path_factory.mktemp("hidden-from-workers")) as running:
        yield running


def spark_env() -> dict[str, str]:
    return {**os.environ, "SPARK_HOME": str(spark_home()), "SPARK_LOCAL_IP": "127.0.0.1",
            "PYSPARK_PYTHON": sys.executable, "PYSPARK_DRIVER_PYTHON": sys.executable}


def write_instance(folder: Path) -> tuple[Path, Path, Path]:
    """Two stages of a Spark job on two 2-core nodes, the plan running each stage's two
    tasks one per node: one executor per node, one core each."""
    nodes = [{"id": f"w{k}", "resources": {"cpu": 2, "memory": 1024}} for k in (1, 2)]
    each = {"cpu": 1, "memory": 512}
    app = {"name": "two-stages", "operators": [
        {"id": "scan", "service_rate": 100, "max_replicas": 2, "resources": each},
        {"id": "aggregate", "service_rate": 100, "max_replicas": 2, "resources": each}],
        "streams": [{"from": "scan", "to": "aggregate", "rate": 50, "tuple_size": 100}]}
    plan = {"placement": {"scan": {"w1": 1, "w2": 1}, "aggregate": {"w1": 1, "w2": 1}}}
    paths = folder / "app.yaml", folder / "infra.yaml", folder / "plan.yaml"
    for path, doc in zip(paths, (app, {"name": "two-workers", "nodes": nodes}, plan),
                         strict=True):
        path.write_text(yaml.safe_dump(doc))
    return paths


def test_the_exported_settings_take_effect_on_a_standalone_cluster(cluster: Cluster,
                                                                   tmp_path: Path):
    app, infra, plan = write_instance(tmp_path)
    conf = tmp_path / "spark-defaults.conf"
    done = subprocess.run([sys.executable, "-m", "streamplace", "export", str(app),
                           str(infra), str(plan), "--to", "spark", "-o", str(conf)],
                          capture_output=True, text=True, timeout=SUBMIT_TIMEOUT)
    assert done.returncode == 0, done.stderr
    settings = dict(line.split(" ", 1) for line in conf.read_text().splitlines())
    executors = int(settings["spark.executor.instances"])
    cores = int(settings["spark.executor.cores"])
    assert (executors, cores) == (2, 1)
    submitted = subprocess.run(
        [str(spark_home() / "bin" / "spark-submit"), "--master", cluster.master,
         "--properties-file", str(conf),
         str(Path(__file__).parent.parent / "support" / "standalone_app.py"),
         cluster.web], capture_output=True, text=True, timeout=SUBMIT_TIMEOUT,
        env=spark_env())
    assert submitted.returncode == 0, submitted.stderr[-3000:]
    seen = json.loads(submitted.stdout.strip().splitlines()[-1])
    [granted] = seen["app"]
    # the cluster has 4 cores: without the settings the application takes them all
    assert granted["cores"] == executors * cores
    assert sorted(w["coresused"] for w in seen["workers"]) == [cores] * executors
    assert granted["memoryperexecutor"] == int(settings["spark.executor.memory"][:-1])
    for key, value in settings.items():
        assert seen["conf"][key] == value


def test_a_sweep_on_the_cluster_gives_the_rows_of_one_process(cluster: Cluster,
                                                              tmp_path: Path):
    path = write_sweep(tmp_path, {"methods": ["odrp", "resource-aware"], "time_limit": 60,
                                  "axes": {"rate_scale": [1, 2], "failures": ["none"]}})
    done = subprocess.run([sys.executable, "-m", "streamplace", "sweep", str(path), "--master",
                           cluster.master, "-o", str(tmp_path / "cluster"), "--quiet"],
                          capture_output=True, text=True, timeout=SUBMIT_TIMEOUT,
                          env=spark_env())
    assert done.returncode == 0, done.stderr[-3000:]
    assert_rows_of_one_process(path, tmp_path / "cluster", tmp_path / "local")


def test_a_results_folder_the_executors_cannot_see_is_refused_before_any_scenario(
        cluster: Cluster, tmp_path: Path):
    if cluster.hidden is None:
        pytest.skip("this machine cannot give the workers a mount namespace (unshare)")
    path = write_sweep(tmp_path, {"methods": ["resource-aware"], "time_limit": 60})
    results = cluster.hidden / "results"  # what the executors see is an empty tmpfs
    done = subprocess.run([sys.executable, "-m", "streamplace", "sweep", str(path), "--master",
                           cluster.master, "-o", str(results), "--quiet"],
                          capture_output=True, text=True, timeout=SUBMIT_TIMEOUT,
                          env=spark_env())
    assert done.returncode == 2, done.stderr[-3000:]
    assert "but they cannot see it" in done.stderr and "--engine python" in done.stderr
    assert "Traceback" not in done.stderr
    assert not list(results.glob("rows/*.json")) and not (results / "results.csv").exists()
    assert not list(results.glob(".streamplace-probe-*"))
