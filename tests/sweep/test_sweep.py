"""``streamplace sweep`` on a real Spark session (the one the Spark tests share), on a
``local-cluster`` master with executor JVMs of their own, and in one process; rows checked
against direct solves, analyses against a linear scan and brute force."""

from __future__ import annotations

import itertools
import json
import math
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from streamplace.model.evaluate import evaluate
from streamplace.solve import Instance, SolveOptions, get_method
from streamplace.sweep import run_sweep
from streamplace.sweep.store import FINGERPRINT

from ..conftest import make_app, make_infra, placements, run, sample
from ..support.sweeps import (
    assert_rows_of_one_process,
    read_rows,
    write_sweep,
)

NUMBERS = ("objective", "response_time", "cost", "availability", "traffic")




def tiny(seed: int = 3) -> tuple[dict[str, Any], dict[str, Any]]:
    """Three nodes, a pinned source and sink, two replicable operators."""
    nodes = [{"id": f"n{u}", "resources": 4, "speedup": [1.0, 1.5, 2.0][u],
              "availability": [0.99, 0.98, 1.0][u]} for u in range(3)]
    links = [{"from": f"n{u}", "to": f"n{v}", "delay": 0.004 * (u + v + 1), "cost": 0.001}
             for u, v in itertools.combinations(range(3), 2)]
    ops = [{"id": "src", "service_rate": 200, "candidates": ["n0"]},
           {"id": "a", "service_rate": 45, "max_replicas": 3, "cost": 1},
           {"id": "b", "service_rate": 60, "max_replicas": 2, "cost": 2},
           {"id": "sink", "latency": 0.002, "candidates": ["n2"]}]
    streams = [{"from": x, "to": y, "rate": 40, "tuple_size": 100}
               for x, y in itertools.pairwise(["src", "a", "b", "sink"])]
    return ({"name": f"tiny{seed}", "operators": ops, "streams": streams},
            {"name": "three", "nodes": nodes, "links": links})


def direct(app_doc: dict[str, Any], infra_doc: dict[str, Any], method: str, scale: float,
           failed: str) -> Any:
    """The scenario built by hand from the documents, solved as `streamplace solve` does."""
    app_doc, infra_doc = json.loads(json.dumps(app_doc)), json.loads(json.dumps(infra_doc))
    for stream in app_doc["streams"]:
        stream["rate"] = float(stream["rate"]) * scale
    if failed != "none":
        infra_doc["nodes"] = [n for n in infra_doc["nodes"] if n["id"] != failed]
        infra_doc["links"] = [lk for lk in infra_doc.get("links", [])
                              if failed not in (lk["from"], lk["to"])]
        for op in app_doc["operators"]:
            if op.get("candidates"):
                op["candidates"] = [u for u in op["candidates"] if u != failed]
                if not op["candidates"]:
                    return None
    instance = Instance(make_app(app_doc), make_infra(infra_doc))
    return get_method(method).solve(instance, SolveOptions(time_limit=60, seed=0))






def test_sweep_on_spark_rows_equal_direct_solves(spark: Any, tmp_path: Path) -> None:
    """On the three-node instance (``tiny``), small so that the time goes to Spark rather
    than to the solver: losing n0 or n2, which hold the pinned source and sink, leaves no
    plan; no failure and losing n1 leave one."""
    app_doc, infra_doc = tiny()
    path = write_sweep(tmp_path, {"methods": ["odrp", "hill-climbing"], "time_limit": 60,
                                  "axes": {"rate_scale": [1, 2],
                                           "failures": ["none", "each-node"]}},
                       app_doc, infra_doc)
    report = run_sweep(str(path), str(tmp_path / "out"), quiet=True)
    assert report.total == 2 * 4 * 2 and report.ran == report.total
    rows = read_rows(tmp_path / "out")
    assert len(rows) == report.total
    assert {r["failure"] for r in rows if r["status"] == "infeasible"} == {"n0", "n2"}
    assert {r["failure"] for r in rows if r["status"] != "infeasible"} == {"none", "n1"}
    for row in rows:
        result = direct(app_doc, infra_doc, row["method"], float(row["rate_scale"]),
                        row["failure"])
        if result is None:  # n0 and n2 hold the pinned ends: no plan survives their failure
            assert row["status"] == "infeasible" and "no candidate left" in row["error"]
            continue
        assert row["status"] == result.status.value, row
        metrics = result.evaluation.metrics()
        assert float(row["objective"]) == pytest.approx(result.objective, rel=1e-9)
        for name in NUMBERS[1:]:
            assert float(row[name]) == pytest.approx(metrics[name], rel=1e-9), (row, name)
        plan = yaml.safe_load((tmp_path / "out" / row["plan"]).read_text())
        assert plan["placement"] == {op: dict(r) for op, r in result.plan.placement.items()
                                     if r}
    parquet = spark.read.parquet(str(tmp_path / "out" / "results.parquet"))
    assert parquet.count() == len(rows)
    # resumed with nothing left to run, its tables are current: no Spark is started (the
    # command's own process, whose unreachable master would be refused), results.csv alike
    before = (tmp_path / "out" / "results.csv").read_text()
    resume = [sys.executable, "-m", "streamplace", "sweep", str(path), "-o",
              str(tmp_path / "out"), "--resume", "--master", "spark://127.0.0.1:9", "-q"]
    again = subprocess.run(resume, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    assert (tmp_path / "out" / "results.csv").read_text() == before
    # a results.parquet that does not say which rows it holds is written again, on Spark
    (tmp_path / "out" / "results.parquet" / FINGERPRINT).unlink()
    refused = subprocess.run(resume, capture_output=True, text=True, timeout=300)
    assert refused.returncode == 2 and "--master" in refused.stderr, refused.stderr
    assert dict(parquet.dtypes)["response_time"] == "double"
    assert {r["scenario_id"] for r in parquet.collect()} == {r["scenario_id"] for r in rows}
    assert (tmp_path / "out" / "plots" / "failure-impact.svg").exists()


def test_local_cluster_gives_the_rows_of_one_process(spark_logs: Any, tmp_path: Path) -> None:
    """Executors in JVMs of their own, their Python workers importing the shipped package."""
    from ..support.spark_jobs import CLUSTER

    path = write_sweep(tmp_path, {"methods": ["odrp", "hill-climbing"], "time_limit": 60,
                                  "axes": {"rate_scale": [1, 1.5, 2],
                                           "failures": ["none", "each-node"]}}, *tiny())
    temp = tmp_path / "temp"  # where the package shipped to the executors is zipped
    temp.mkdir()
    done = subprocess.run([sys.executable, "-m", "streamplace", "sweep", str(path), "--master",
                           CLUSTER, "-o", str(tmp_path / "cluster"), "--quiet"],
                          capture_output=True, text=True, timeout=600,
                          env={**os.environ, "TMPDIR": str(temp)})
    assert done.returncode == 0, done.stderr
    assert not list(temp.glob("streamplace-*")), "the shipped package was left behind"
    assert_rows_of_one_process(path, tmp_path / "cluster", tmp_path / "local")
    assert (tmp_path / "cluster" / "results.parquet").is_dir()
    # the folder resumed without Spark: no Parquet of the earlier run is left to be misread
    resumed = run_sweep(str(path), str(tmp_path / "cluster"), engine="python", resume=True,
                        plots=False)
    assert not (tmp_path / "cluster" / "results.parquet").exists()
    assert any("results.parquet" in w for w in resumed.warnings)


def test_failures_are_rows_and_resume_runs_only_what_is_missing(tmp_path: Path) -> None:
    path = write_sweep(tmp_path, {"methods": ["odrp", "benoit"], "time_limit": 30,
                                  "axes": {"failures": ["none", "each-node"]}})
    out = tmp_path / "out"
    first = run_sweep(str(path), str(out), engine="python", plots=False)
    assert first.ran == first.total == 14
    by = {(r["method"], r["failure"]): r for r in first.rows}
    assert by["benoit", "none"]["status"] == "error"  # not an operator tree
    assert "does not apply" in by["benoit", "none"]["error"]
    assert by["odrp", "n1"]["status"] == "infeasible"
    assert by["odrp", "n2"]["status"] == "optimal"

    again = run_sweep(str(path), str(out), engine="python", resume=True, plots=False)
    assert again.ran == 0 and again.skipped == 14 and again.rows == first.rows

    rows_dir = out / "rows"
    removed = sorted(rows_dir.glob("*.json"))[:3]
    kept = {p: p.stat().st_mtime_ns for p in rows_dir.glob("*.json") if p not in removed}
    for p in removed:
        p.unlink()
    partial = run_sweep(str(path), str(out), engine="python", resume=True, plots=False)
    assert partial.ran == 3 and partial.skipped == 11
    assert all(p.stat().st_mtime_ns == t for p, t in kept.items())
    assert [r["scenario_id"] for r in partial.rows] == [r["scenario_id"] for r in first.rows]

    refused = run("sweep", str(path), "-o", str(out), "--engine", "python")
    assert refused.exit_code == 2 and "--resume" in refused.output


def test_max_rate_agrees_with_a_linear_scan(tmp_path: Path) -> None:
    app_doc, infra_doc = tiny()
    limit = 0.08
    path = write_sweep(tmp_path, {"methods": ["odrp"], "analysis": "max-rate", "max_rate": {
        "low": 0.25, "high": 8, "tolerance": 0.005, "max_response_time": limit}},
        app_doc, infra_doc)
    (row,) = run_sweep(str(path), str(tmp_path / "out"), engine="python", plots=False).rows
    assert row["max_rate_proven"] is True and row["status"] == "optimal"
    scale, upper = row["max_rate_scale"], row["max_rate_upper"]
    assert upper - scale <= 0.005 * scale + 1e-12

    def feasible(s: float) -> bool:
        doc = json.loads(json.dumps(app_doc))
        for stream in doc["streams"]:
            stream["rate"] *= s
        instance = Instance(make_app(doc), make_infra(infra_doc))
        best = None
        for plan in placements(instance.app, instance.infra,
                               lambda op: range(op.min_replicas, op.replica_cap + 1)):
            ev = evaluate(instance.app, instance.infra, plan)
            if not ev.violations and ev.odrp.response_time <= limit:
                best = plan
                break
        return best is not None

    steps = [0.25 + 0.0025 * k for k in range(int((8 - 0.25) / 0.0025) + 1)]
    scanned = max(s for s in steps[::32] if feasible(s))  # every 0.08, then refined
    scanned = max(s for s in steps if scanned <= s < scanned + 0.08 and feasible(s))
    # the scan brackets the largest feasible scale in [scanned, scanned + step), the
    # bisection in [scale, upper): the two brackets overlap, and each end is what it says
    assert scale < scanned + 0.0025 and upper > scanned
    assert feasible(scale) and not feasible(upper)


def test_pareto_front_equals_brute_force(tmp_path: Path) -> None:
    app_doc, infra_doc = tiny()
    path = write_sweep(tmp_path, {"methods": ["odrp"], "analysis": "pareto",
                                  "pareto": {"metrics": ["response_time", "cost"]}},
                       app_doc, infra_doc)
    rows = run_sweep(str(path), str(tmp_path / "out"), engine="python").rows
    assert all(r["status"] == "optimal" for r in rows)
    front = sorted((r["response_time"], r["cost"]) for r in rows)

    instance = Instance(make_app(app_doc), make_infra(infra_doc))
    points = []
    for plan in placements(instance.app, instance.infra,
                           lambda op: range(op.min_replicas, op.replica_cap + 1)):
        ev = evaluate(instance.app, instance.infra, plan)
        if not ev.violations and math.isfinite(ev.odrp.response_time):
            points.append((ev.odrp.response_time, ev.odrp.cost))
    best: list[tuple[float, float]] = []
    for r, c in sorted(points):  # by R, then C: keep each point cheaper than all before it
        if not best or c < best[-1][1] - 1e-9:
            best.append((r, c))
    assert len(front) == len(best) > 1
    for (r1, c1), (r2, c2) in zip(front, best, strict=True):
        assert r1 == pytest.approx(r2, rel=1e-6) and c1 == pytest.approx(c2, rel=1e-9)
    assert (tmp_path / "out" / "plots" / "pareto.png").exists()


def test_bad_sweep_files_exit_2_with_the_field(tmp_path: Path) -> None:
    path = write_sweep(tmp_path, {"methods": ["odrp"], "analysis": "max-rate",
                                  "axes": {"rate_scale": [1, 2], "failures": ["each-rack"]}})
    result = run("sweep", str(path), "-o", str(tmp_path / "out"))
    assert result.exit_code == 2
    assert "failures" in result.output and "Traceback" not in result.output
    assert not (tmp_path / "out").exists()


def test_an_interrupted_sweep_keeps_what_finished_and_resumes(tmp_path: Path) -> None:
    import signal
    import time

    path = write_sweep(tmp_path, {"methods": ["odrp"], "time_limit": 30,
                                  "axes": {"rate_scale": [1, 2],
                                           "failures": ["none", "each-node"]}})
    out = tmp_path / "out"
    # stderr to a file: a pipe nobody reads while polling could fill and stall the sweep
    log = tmp_path / "stderr.txt"
    with log.open("w") as stderr:
        proc = subprocess.Popen([sys.executable, "-m", "streamplace", "sweep", str(path),
                                 "-o", str(out), "--engine", "python", "--quiet"],
                                stdout=subprocess.DEVNULL, stderr=stderr, text=True)
    # polled, not timed: the sweep ends by itself if it ever finishes first (then the
    # assertions below say so), however slow the machine
    while len(list((out / "rows").glob("*.json"))) < 3 and proc.poll() is None:
        time.sleep(0.1)
    proc.send_signal(signal.SIGINT)
    proc.wait(timeout=60)
    assert proc.returncode == 130, log.read_text()
    finished = len(list((out / "rows").glob("*.json")))
    assert 3 <= finished < 14
    assert len(read_rows(out)) == finished
    rest = run_sweep(str(path), str(out), engine="python", resume=True, plots=False)
    assert rest.ran == 14 - finished and len(rest.rows) == 14


def test_a_scaled_application_carries_k_times_every_rate():
    """Every rate the evaluator derives grows by k: streams, input rates, throughput."""
    from streamplace.io.readers import read_application
    from streamplace.model.graph import build_graph

    from ..conftest import sample

    for name in ("debs2015", "benoit-tree", "edge-cloud"):
        app = read_application(sample(name, "application.yaml"))
        before, after = (build_graph(a).input_rates for a in (app, app.scaled(2.5)))
        assert after == pytest.approx({op: 2.5 * rate for op, rate in before.items()}), name
        if app.throughput is not None:
            assert app.scaled(2.5).throughput == pytest.approx(2.5 * app.throughput)


def test_an_infrastructure_without_a_node_shares_nothing_derived_with_the_whole():
    from streamplace.io.readers import read_application, read_infrastructure
    from streamplace.model.network import Network

    from ..conftest import sample

    infra = read_infrastructure(sample("debs2015", "infrastructure.yaml"))
    whole = Network.of(infra)
    gone = infra.processors[0].id
    failed = infra.without([gone])
    assert gone not in Network.of(failed).nodes and gone in Network.of(infra).nodes
    assert Network.of(infra) is whole
    assert all(gone not in (link.source, link.target) for link in failed.links)
    app = read_application(sample("debs2015", "application.yaml"))
    assert app.operator("source").candidates == [gone]  # the source is pinned to it
    from streamplace.errors import InfeasibleError

    with pytest.raises(InfeasibleError, match="operator source has no candidate left"):
        app.without_nodes([gone])
    spared = app.without_nodes([infra.processors[1].id])
    assert spared.operator("source").candidates == [gone]


def test_an_unreachable_master_is_refused_before_spark_starts(tmp_path: Path) -> None:
    """Nothing listens on the port: exit 2 naming --master, no JVM started (Spark would
    retry its registration for about 90 s)."""
    import socket

    with socket.socket() as probe:  # a port that was free a moment ago
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    path = write_sweep(tmp_path, {"methods": ["odrp"]})
    done = subprocess.run([sys.executable, "-m", "streamplace", "sweep", str(path), "--master",
                           f"spark://127.0.0.1:{port}", "-o", str(tmp_path / "out")],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 2, done.stderr
    assert "--master" in done.stderr and f"127.0.0.1:{port}" in done.stderr
    assert "Spark did not start" not in done.stderr


def test_executors_without_the_dependencies_are_refused_with_the_fix(tmp_path: Path) -> None:
    """Executors whose Python lacks highspy would turn every row into an error (exit 0):
    one task checks first, and the sweep exits 2 saying what to set."""
    from ..support.spark_jobs import CLUSTER

    bare = tmp_path / "bare"  # this interpreter with none of the packages
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(bare)], check=True)
    path = write_sweep(tmp_path, {"methods": ["odrp"]})
    done = subprocess.run([sys.executable, "-m", "streamplace", "sweep", str(path), "--master",
                           CLUSTER, "-o", str(tmp_path / "out"), "--quiet"],
                          capture_output=True, text=True, timeout=600,
                          env={**os.environ, "PYSPARK_PYTHON": str(bare / "bin" / "python")})
    assert done.returncode == 2, done.stderr
    assert "cannot import highspy" in done.stderr and "PYSPARK_PYTHON" in done.stderr
    assert not (tmp_path / "out" / "results.csv").exists()


OTHER_MINOR = '''import sys


class _Version(tuple):
    major = property(lambda self: self[0])
    minor = property(lambda self: self[1])
    micro = property(lambda self: self[2])


sys.version_info = _Version((3, sys.version_info[1] - 1, 0, "final", 0))
'''


def test_executors_on_another_python_version_are_a_user_error_with_the_fix(
        tmp_path: Path) -> None:
    """PySpark refuses a worker of another minor version (its own check, in the worker):
    exit 2 quoting it, with the fix, not an internal error. The worker is this interpreter
    told by a sitecustomize that it is one minor version older."""
    from ..support.spark_jobs import CLUSTER

    (tmp_path / "older").mkdir()
    (tmp_path / "older" / "sitecustomize.py").write_text(OTHER_MINOR)
    older = tmp_path / "older" / "python"
    older.write_text(f'#!/bin/sh\nPYTHONPATH={tmp_path / "older"} exec {sys.executable} "$@"\n')
    older.chmod(0o755)
    path = write_sweep(tmp_path, {"methods": ["resource-aware"]})
    done = subprocess.run([sys.executable, "-m", "streamplace", "sweep", str(path), "--master",
                           CLUSTER, "-o", str(tmp_path / "out"), "--quiet"],
                          capture_output=True, text=True, timeout=600,
                          env={**os.environ, "PYSPARK_PYTHON": str(older)})
    assert done.returncode == 2, done.stderr
    assert "[PYTHON_VERSION_MISMATCH]" in done.stderr and "PYSPARK_PYTHON=" in done.stderr
    assert "internal error" not in done.stderr and "Traceback" not in done.stderr


def test_a_stop_while_scenarios_are_listed_ends_the_listing(tmp_path: Path):
    """Listing a million scenarios takes seconds: a signal then ends it at the next
    thousand, before anything is written (it was acted on only once all were listed)."""
    from streamplace.io.readers import read_document
    from streamplace.model.sweep import SweepFile
    from streamplace.solve.budget import StopRequest
    from streamplace.sweep.scenarios import ExpansionStopped, expand, read_inputs

    path = write_sweep(tmp_path, {"methods": ["odrp"], "axes": {"seed": list(range(5000))}})
    sweep = read_document(SweepFile, str(path))
    inputs = read_inputs(sweep, str(path))
    assert len(expand(sweep, inputs, StopRequest())) == 5000
    stop = StopRequest()
    stop.set(15)
    with pytest.raises(ExpansionStopped) as stopped:
        expand(sweep, inputs, stop)
    assert stopped.value.signum == 15


def test_two_resumes_of_one_folder_at_once_both_end_well(tmp_path: Path):
    """Both rewrite the tables and plots: each through temporary files of its own (fixed
    names failed 4 runs in 5)."""
    import subprocess
    import sys

    app, infra = tiny()
    path = write_sweep(tmp_path, {"methods": ["odrp", "round-robin"], "axes": {"seed": [1, 2]}},
                       app, infra)
    out = tmp_path / "out"
    first = run_sweep(str(path), str(out), engine="python", quiet=True)
    assert first.ran == 4
    command = [sys.executable, "-m", "streamplace", "sweep", str(path), "-o", str(out),
               "--resume", "--engine", "python", "-q"]
    resumes = [subprocess.Popen(command, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    for resume in resumes:
        _, err = resume.communicate(timeout=600)
        assert resume.returncode == 0, err
    assert not [p for p in out.rglob("*") if p.name.startswith(".")]  # no temporary left
    assert (out / "results.csv").read_text().count("\n") == 1 + 4


def write_bundle_sweep(folder: Path, body: dict[str, Any]) -> Path:
    """The two edge-cloud applications sharing one infrastructure."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in ("application.yaml", "fraud-alerts.yaml", "infrastructure.yaml"):
        (folder / name).write_text(Path(sample("edge-cloud", name)).read_text())
    path = folder / "sweep.yaml"
    path.write_text(yaml.safe_dump({
        "schema": "streamplace/sweep/v1",
        "applications": ["application.yaml", "fraud-alerts.yaml"],
        "infrastructure": "infrastructure.yaml", **body}))
    return path


def test_a_sweep_over_which_applications_arrive_equals_the_bundle_solves(
        spark: Any, tmp_path: Path) -> None:
    from streamplace.io.readers import read_application, read_document, read_infrastructure
    from streamplace.model.bundle import BundlePlan
    from streamplace.solve.bundle.instance import BundleInstance
    from streamplace.solve.bundle.solve import solve_joint

    arrivals = [["edge-analytics"], ["fraud-alerts"], ["edge-analytics", "fraud-alerts"]]
    path = write_bundle_sweep(tmp_path, {"time_limit": 60, "axes": {
        "rate_scale": [1, 1.5], "arrivals": arrivals}})
    report = run_sweep(str(path), str(tmp_path / "out"), quiet=True, plots=False)
    assert report.total == report.ran == 6
    rows = read_rows(tmp_path / "out")
    apps = {a.name: a for a in (read_application(str(tmp_path / "application.yaml")),
                                read_application(str(tmp_path / "fraud-alerts.yaml")))}
    infra = read_infrastructure(str(tmp_path / "infrastructure.yaml"))
    for row in rows:
        names = row["applications"].split(",")
        scale = float(row["rate_scale"])
        joint = BundleInstance(tuple(apps[n].scaled(scale) for n in names), infra)
        direct_ = solve_joint(joint, get_method("odrp"), SolveOptions(time_limit=60))
        assert row["status"] == direct_.status.value == "optimal", row
        assert float(row["objective"]) == pytest.approx(direct_.objective, rel=1e-6)
        per_app = json.loads(row["per_application"])
        assert sorted(per_app) == sorted(names)
        bundle = read_document(BundlePlan, str(tmp_path / "out" / row["plan"]))
        assert [p.application for p in bundle.plans] == names
    alone = {r["applications"]: float(r["objective"]) for r in rows if r["rate_scale"] == "1.0"}
    both = alone["edge-analytics,fraud-alerts"]
    # together, each application's F is at most what it gets alone
    per_app = json.loads(next(r for r in rows if r["rate_scale"] == "1.0" and "," in
                              r["applications"])["per_application"])
    assert per_app["edge-analytics"]["utility"] <= alone["edge-analytics"] + 1e-9
    assert per_app["fraud-alerts"]["utility"] <= alone["fraud-alerts"] + 1e-9
    assert both == pytest.approx(sum(a["weight"] * a["utility"] for a in per_app.values()))
    parquet = spark.read.parquet(str(tmp_path / "out" / "results.parquet"))
    assert dict(parquet.dtypes)["applications"] == "string" and parquet.count() == 6


@pytest.mark.parametrize("body, said", [
    ({"axes": {"arrivals": [["edge-analytics", "nobody"]]}},
     ["sweep.yaml:", "axes.arrivals[0]", "'nobody' is not an application of the sweep"]),
    ({"axes": {"arrivals": [["fraud-alerts"], ["fraud-alerts"]]}},
     ["axes.arrivals[1]", "repeats axes.arrivals[0]"]),
    ({"methods": ["resource-aware"]}, ["methods[0]", "resource-aware has no program over a bundle",
                                       "bundle: priority"]),
    ({"analysis": "max-rate"}, ["run as a grid"]),
    ({"application": "application.yaml"}, ["not both"]),
])
def test_bad_bundle_sweeps_exit_2_with_the_field(tmp_path: Path, body, said) -> None:
    path = write_bundle_sweep(tmp_path, body)
    r = run("sweep", str(path), "-o", str(tmp_path / "out"), "--engine", "python")
    assert r.exit_code == 2, r.output
    for text in said:
        assert text in r.output, r.output
