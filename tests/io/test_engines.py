"""Plans to engines (streamplace export) and plan diffs (streamplace diff), through the CLI.

The Flink job is samples/debs2015/flink-job.json, a response of ``GET /jobs/:jobid`` in the
shape of Flink's REST reference (JobDetailsInfo: jid, name, state, maxParallelism, vertices
with id, name, parallelism, maxParallelism, ...; see
https://nightlies.apache.org/flink/flink-docs-stable/docs/ops/rest_api/#jobs-jobid).
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import kubernetes_validate
import pytest
import yaml

from streamplace.io.readers import read_instance, read_plan_for
from streamplace.model.evaluate import evaluate

from ..conftest import run, sample

DEBS = [sample("debs2015", "application.yaml"), sample("debs2015", "infrastructure.yaml")]
PLAN = sample("debs2015", "plan.yaml")
JOB = sample("debs2015", "flink-job.json")
# the Flink autoscaler's own parser of its scaling report entries (AutoscalerEventUtils)
ENTRY = re.compile(r"\{(.+?)\}")
FLINK_REPORT = re.compile(r"Vertex ID (.*?) \| Parallelism (.*?) -> (.*?) \| Processing "
                          r"capacity (.*?) -> (.*?) \| Target data rate (.*)")


def export(*args: str, plan: str = PLAN, app: list[str] = DEBS):
    result = run("export", *app, plan, *args, "--json", "-q")
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    return {a["name"]: a["text"] for a in document["artifacts"]}, document


def parse_overrides(value: str) -> dict[str, int]:
    """Flink's map syntax for pipeline.jobvertex-parallelism-overrides: id:p,id:p."""
    pairs = (item.split(":") for item in value.split(","))
    return {vertex: int(p) for vertex, p in pairs}


def planned_by_vertex(plan_file: str) -> dict[str, int]:
    """What the overrides must say, worked out from the job's vertex names independently:
    each vertex runs its chain's largest replica count."""
    job = json.loads(Path(JOB).read_text())
    placement = yaml.safe_load(Path(plan_file).read_text())["placement"]
    out = {}
    for vertex in job["vertices"]:
        names = [re.sub(r"^(Source|Sink): ", "", n) for n in vertex["name"].split(" -> ")]
        out[vertex["id"]] = max(sum(placement[n].values()) for n in names)
    return out


def test_flink_overrides_round_trip_on_a_recorded_job(tmp_path):
    plan = tmp_path / "plan.yaml"
    data = yaml.safe_load(Path(PLAN).read_text())
    data["placement"]["partialRank"] = {"n1": 2, "n2": 1}
    plan.write_text(yaml.safe_dump(data))
    artifacts, document = export("--to", "flink", "--flink-job", JOB, plan=str(plan))
    config = yaml.safe_load(artifacts["config"])
    overrides = parse_overrides(config["pipeline.jobvertex-parallelism-overrides"])
    assert overrides == planned_by_vertex(str(plan))
    assert "pipeline.max-parallelism" not in config  # 3 fits the vertices' 128
    deployment = yaml.safe_load(artifacts["deployment"])
    assert deployment["spec"]["flinkConfiguration"] == config
    body = json.loads(artifacts["rest"])
    assert {v: b["parallelism"]["upperBound"] for v, b in body.items()} == overrides
    # the lower bound left at 1, as the Flink autoscaler's standalone realizer sends it
    assert all(b["parallelism"]["lowerBound"] == 1 for b in body.values())
    rows = {r["operator"]: r for r in document["components"]}
    assert rows["parser"]["vertex_name"] == "Source: source -> parser"


def test_flink_names_both_sides_when_an_operator_matches_no_vertex(tmp_path):
    app = yaml.safe_load(Path(DEBS[0]).read_text())
    app["operators"][6]["id"] = "topK"  # partialRank, renamed
    for stream in app["streams"]:
        for end in ("from", "to"):
            if stream[end] == "partialRank":
                stream[end] = "topK"
    (tmp_path / "app.yaml").write_text(yaml.safe_dump(app))
    plan = yaml.safe_load(Path(PLAN).read_text())
    plan["placement"]["topK"] = plan["placement"].pop("partialRank")
    (tmp_path / "plan.yaml").write_text(yaml.safe_dump(plan))
    result = run("export", str(tmp_path / "app.yaml"), DEBS[1], str(tmp_path / "plan.yaml"),
                 "--to", "flink", "--flink-job", JOB)
    assert result.exit_code == 2
    assert "operator topK matches no vertex" in result.output
    assert "'partialRank' (76ea241d29565a37022fdf7dd1bcbe3b)" in result.output
    assert "Traceback" not in result.output


def test_flink_refuses_an_operator_matching_several_vertices(tmp_path):
    job = json.loads(Path(JOB).read_text())
    twin = dict(job["vertices"][4], id="0" * 32, name="partialRank -> partialRank-2")
    job["vertices"].append(twin)
    (tmp_path / "job.json").write_text(json.dumps(job))
    result = run("export", *DEBS, PLAN, "--to", "flink", "--flink-job",
                 str(tmp_path / "job.json"))
    assert result.exit_code == 2
    assert "operator partialRank matches several vertices" in result.output


def test_flink_raises_max_parallelism_only_where_it_must(tmp_path):
    job = json.loads(Path(JOB).read_text())
    for vertex in job["vertices"]:
        vertex["maxParallelism"] = 1
    (tmp_path / "job.json").write_text(json.dumps(job))
    artifacts, document = export("--to", "flink", "--flink-job", str(tmp_path / "job.json"))
    assert yaml.safe_load(artifacts["config"])["pipeline.max-parallelism"] == 128
    assert "rest" not in artifacts  # the in-place change would be refused
    assert any("max parallelism" in note for note in document["notes"])


def test_flink_says_why_a_rest_body_is_withheld(tmp_path):
    job = json.loads(Path(JOB).read_text())
    for vertex in job["vertices"]:
        vertex["maxParallelism"] = 1
    (tmp_path / "job.json").write_text(json.dumps(job))
    asked = run("export", *DEBS, PLAN, "--to", "flink", "--flink-job",
                str(tmp_path / "job.json"), "--artifact", "rest")
    assert asked.exit_code == 2
    assert "no 'rest' artifact for this plan" in asked.stderr
    assert "max parallelism" in asked.stderr and "has no artifact" not in asked.stderr


def test_flink_withholds_a_rest_body_with_unknown_bounds(tmp_path):
    """A vertex no operator matches keeps its parallelism in the REST body: without that
    parallelism in the job JSON there is no body, not one with null bounds."""
    job = json.loads(Path(JOB).read_text())
    extra = {"id": "f" * 32, "name": "auditLog", "maxParallelism": 128}  # no parallelism
    job["vertices"].append(extra)
    (tmp_path / "job.json").write_text(json.dumps(job))
    artifacts, document = export("--to", "flink", "--flink-job", str(tmp_path / "job.json"))
    assert "rest" not in artifacts and "null" not in json.dumps(artifacts)
    assert any("auditLog" in note and "no in-place REST body" in note
               for note in document["notes"])
    note = next(n for n in document["notes"] if "matches no operator" in n)
    assert "parallelism.default" in note  # config and deployment do not keep it


def test_flink_matches_a_sink_v2_writer_vertex(tmp_path):
    """Sink V2 (the only sink API of Flink 2.x) names the writer vertex '<name>: Writer'."""
    job = json.loads(Path(JOB).read_text())
    sink = next(v for v in job["vertices"] if v["name"] == "Sink: globalRank")
    sink["name"] = "globalRank: Writer"
    job["vertices"].append({"id": "e" * 32, "name": "globalRank: Committer",
                            "parallelism": 1, "maxParallelism": 128})
    (tmp_path / "job.json").write_text(json.dumps(job))
    artifacts, document = export("--to", "flink", "--flink-job", str(tmp_path / "job.json"))
    overrides = parse_overrides(yaml.safe_load(artifacts["config"])[
        "pipeline.jobvertex-parallelism-overrides"])
    assert overrides[sink["id"]] == 1 and "e" * 32 not in overrides
    rows = {r["operator"]: r for r in document["components"]}
    assert rows["globalRank"]["vertex"] == sink["id"]


def test_flink_version_picks_the_artifact_that_takes_effect(tmp_path):
    """Flink 2.x applies no overrides to jobs submitted in application mode or by flink run
    (FLINK-38770): there the rest body is the default; on 1.20 the config is."""
    def written(*version: str) -> tuple[str, list[str]]:
        result = run("export", *DEBS, PLAN, "--to", "flink", "--flink-job", JOB, *version,
                     "-o", str(tmp_path / "out"), "--json")
        assert result.exit_code == 0, result.stderr
        return (tmp_path / "out").read_text(), json.loads(result.stdout)["notes"]

    text, notes = written("--flink-version", "2.2.1")
    assert json.loads(text)  # the rest body
    assert any("Flink 2.2.1 applies" in n and "FLINK-38770" in n for n in notes)
    text, notes = written("--flink-version", "1.20.3")
    assert text.startswith("pipeline.jobvertex-parallelism-overrides: ")
    assert not any("FLINK-38770" in n for n in notes)
    text, notes = written()  # not known: the config, and the caveat
    assert text.startswith("pipeline.jobvertex-parallelism-overrides: ")
    assert any("Flink 2.x applies" in n for n in notes)
    bad = run("export", *DEBS, PLAN, "--to", "flink", "--flink-job", JOB,
              "--flink-version", "two")
    assert bad.exit_code == 2 and "--flink-version" in bad.stderr
    other = run("export", *DEBS, PLAN, "--to", "kubernetes", "--flink-version", "2.2")
    assert other.exit_code == 2 and "--flink-version applies to --to flink only" in other.stderr


def test_flink_without_a_job_needs_vertex_ids():
    result = run("export", *DEBS, PLAN, "--to", "flink")
    assert result.exit_code == 2 and "--flink-job" in result.output


def resource_app(tmp_path: Path) -> tuple[list[str], str]:
    """Operators with cpu and memory requests and names Kubernetes must rewrite."""
    app = {"name": "Shop_Events", "operators": [
        {"id": "Ingest", "service_rate": 500, "resources": {"cpu": 0.5, "memory": 256},
         "candidates": ["edge-1"]},
        {"id": "enrich_orders", "service_rate": 120, "max_replicas": 4,
         "resources": {"cpu": 2, "memory": 1024}},
        {"id": "sink", "latency": 0.001, "resources": {"cpu": 0.25, "memory": 128}}],
        "streams": [{"from": "Ingest", "to": "enrich_orders", "rate": 300},
                    {"from": "enrich_orders", "to": "sink", "rate": 300}]}
    infra = {"name": "k8s", "nodes": [
        {"id": n, "resources": {"cpu": 8, "memory": 16384}} for n in ("edge-1", "cloud.a")],
        "links": [{"from": "edge-1", "to": "cloud.a", "delay": 0.02}]}
    plan = {"placement": {"Ingest": {"edge-1": 1},
                          "enrich_orders": {"edge-1": 1, "cloud.a": 2},
                          "sink": {"cloud.a": 1}}}
    files = []
    for name, data in (("app.yaml", app), ("infra.yaml", infra), ("plan.yaml", plan)):
        (tmp_path / name).write_text(yaml.safe_dump(data))
        files.append(str(tmp_path / name))
    return files[:2], files[2]


@pytest.mark.parametrize("which", ["debs", "resources"])
def test_kubernetes_manifests_pass_the_kubernetes_schemas(tmp_path, which):
    app, plan = (DEBS, PLAN) if which == "debs" else resource_app(tmp_path)
    artifacts, _document = export("--to", "kubernetes", "--namespace", "streams",
                                 plan=plan, app=app)
    manifests = list(yaml.safe_load_all(artifacts["manifests"]))
    placement = yaml.safe_load(Path(plan).read_text())["placement"]
    assert len(manifests) == sum(len(reps) for reps in placement.values())
    names = set()
    for manifest in manifests:
        kubernetes_validate.validate(manifest, "1.34.0", strict=True)
        names.add(manifest["metadata"]["name"])
        spec = manifest["spec"]
        op = manifest["metadata"]["annotations"]["streamplace/operator"]
        term = spec["template"]["spec"]["affinity"]["nodeAffinity"][
            "requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"][0]
        node = term["matchExpressions"][0]["values"][0]
        assert spec["replicas"] == placement[op][node]
        assert spec["selector"]["matchLabels"].items() <= \
            spec["template"]["metadata"]["labels"].items()
    assert len(names) == len(manifests)
    if which == "resources":
        enrich = [m for m in manifests
                  if m["metadata"]["annotations"]["streamplace/operator"] == "enrich_orders"]
        requests = enrich[0]["spec"]["template"]["spec"]["containers"][0]["resources"]
        assert requests == {"requests": {"cpu": "2", "memory": "1024Mi"}}


def test_flux_fragment_loads_with_every_component_and_merges_into_a_topology(tmp_path):
    artifacts, _ = export("--to", "storm")
    flux = yaml.safe_load(artifacts["flux"])
    placement = yaml.safe_load(Path(PLAN).read_text())["placement"]
    got = {c["id"]: c["parallelism"] for c in flux["spouts"] + flux["bolts"]}
    assert got == {op: sum(reps.values()) for op, reps in placement.items()}
    assert [c["id"] for c in flux["spouts"]] == ["source"]
    assert flux["config"]["topology.ras.constraints"]["partialRank"] == \
        {"maxNodeCoLocationCnt": 2}

    topology = {"name": "debs", "config": {"topology.workers": 2},
                "spouts": [{"id": "source", "className": "org.example.Source",
                            "parallelism": 4}],
                "bolts": [{"id": op, "className": f"org.example.{op}", "parallelism": 1}
                          for op in placement if op != "source"],
                "streams": [{"from": "source", "to": "parser", "grouping": {"type": "SHUFFLE"}}]}
    (tmp_path / "topology.yaml").write_text(yaml.safe_dump(topology))
    merged = yaml.safe_load(export("--to", "storm", "--flux",
                                   str(tmp_path / "topology.yaml"))[0]["flux"])
    assert merged["spouts"][0] == {"id": "source", "className": "org.example.Source",
                                   "parallelism": 1}
    assert merged["streams"] == topology["streams"]
    assert merged["config"]["topology.workers"] == 2
    del topology["bolts"][0]
    (tmp_path / "topology.yaml").write_text(yaml.safe_dump(topology))
    missing = run("export", *DEBS, PLAN, "--to", "storm", "--flux",
                  str(tmp_path / "topology.yaml"))
    assert missing.exit_code == 2 and "bolt 'parser' is not defined" in missing.output


def test_storm_rebalance_and_requests(tmp_path):
    app, plan = resource_app(tmp_path)
    artifacts, _ = export("--to", "storm", "--artifact", "rebalance", plan=plan, app=app)
    words = shlex.split(artifacts["rebalance"])
    assert words[:3] == ["storm", "rebalance", "Shop_Events"]
    executors = dict(words[i + 1].split("=") for i, w in enumerate(words) if w == "-e")
    assert executors == {"Ingest": "1", "enrich_orders": "3", "sink": "1"}
    resources = json.loads(words[words.index("-r") + 1])
    assert resources["enrich_orders"] == {"onheap.memory.mb": 1024, "cpu.pcore.percent": 200}
    bolts = yaml.safe_load(artifacts["flux"])["bolts"]
    assert bolts[0] == {"id": "enrich_orders", "parallelism": 3, "onHeapMemoryLoad": 1024.0,
                        "cpuLoad": 200.0}


def test_heron_update_and_resource_maps(tmp_path):
    app, plan = resource_app(tmp_path)
    artifacts, _ = export("--to", "heron", "--cluster", "aurora/streams/prod", plan=plan,
                          app=app)
    words = shlex.split(artifacts["update"])
    assert words[:4] == ["heron", "update", "aurora/streams/prod", "Shop_Events"]
    assert "--component-parallelism=enrich_orders:3" in words
    config = yaml.safe_load(artifacts["config"])
    assert config["topology.component.rammap"].split(",")[1] == \
        f"enrich_orders:{1024 * 1024 * 1024}"
    assert config["topology.component.cpumap"] == "Ingest:0.5,enrich_orders:2,sink:0.25"


def test_spark_settings_follow_the_plan(tmp_path):
    app, plan = resource_app(tmp_path)
    artifacts, document = export("--to", "spark", plan=plan, app=app)
    conf = dict(line.split(" ", 1) for line in artifacts["conf"].splitlines())
    assert conf["spark.executor.instances"] == "2"  # edge-1 and cloud.a
    assert conf["spark.executor.cores"] == "2"  # enrich_orders runs 2 tasks on cloud.a
    assert conf["spark.sql.shuffle.partitions"] == "3"
    assert conf["spark.dynamicAllocation.maxExecutors"] == "2"
    assert any("adaptive" in note for note in document["notes"])


def test_export_of_an_incomplete_plan_is_bad_input(tmp_path):
    plan = yaml.safe_load(Path(PLAN).read_text())
    del plan["placement"]["metronome"]
    (tmp_path / "plan.yaml").write_text(yaml.safe_dump(plan))
    result = run("export", *DEBS, str(tmp_path / "plan.yaml"), "--to", "kubernetes")
    assert result.exit_code == 2 and "metronome" in result.output


def test_diff_of_a_plan_with_itself_is_empty():
    result = run("diff", *DEBS, PLAN, PLAN, "--fail-on-change", "--json", "-q")
    assert result.exit_code == 0
    document = json.loads(result.stdout)
    assert document["changed"] is False and document["operators"] == []
    assert document["reconfiguration"] == 0 and document["flink"] == []
    assert all(m["delta"] == 0 for m in document["metrics"].values())


def test_diff_lists_changes_deltas_and_flink_report_lines(tmp_path):
    new = yaml.safe_load(Path(PLAN).read_text())
    new["placement"]["partialRank"] = {"n1": 2, "n2": 1}
    new["placement"]["metronome"] = {"n1": 1}
    (tmp_path / "new.yaml").write_text(yaml.safe_dump(new))
    result = run("diff", *DEBS, PLAN, str(tmp_path / "new.yaml"), "--fail-on-change",
                 "--json", "-q")
    assert result.exit_code == 1
    document = json.loads(result.stdout)
    rows = {r["operator"]: r for r in document["operators"]}
    assert rows["partialRank"]["parallelism"] == [2, 3]
    assert rows["partialRank"]["added"] == {"n2": 1} and rows["partialRank"]["removed"] == {}
    assert rows["metronome"]["moved"] == 1
    assert document["started"] == 2 and document["stopped"] == 1
    assert document["reconfiguration"] == 2
    # every number against the evaluator, run on each plan by itself
    app, infra = read_instance(*DEBS)
    before, after = (evaluate(app, infra, read_plan_for(str(p), app, infra))
                     for p in (PLAN, tmp_path / "new.yaml"))
    for name, moved in document["metrics"].items():
        if name == "utility":
            continue
        assert moved["current"] == pytest.approx(before.odrp.metric(name), rel=1e-9), name
        assert moved["new"] == pytest.approx(after.odrp.metric(name), rel=1e-9), name
    rank = app.operator("partialRank")
    added_cost = rank.cost * rank.billing_units  # one replica more, nothing else priced
    assert document["metrics"]["cost"]["delta"] == pytest.approx(
        added_cost + after.odrp.network_cost - before.odrp.network_cost)
    by_vertex = {}
    for line in document["flink"]:  # as Flink reads them: each {...}, then the entry
        entries = ENTRY.findall(line)
        assert len(entries) == 1, line
        match = FLINK_REPORT.search(entries[0])
        assert match is not None, line
        by_vertex[match.group(1)] = match.groups()
    assert by_vertex["partialRank"][1:3] == ("2", "3")
    rate = next(m.input_rate for m in after.odrp.operators if m.id == "partialRank")
    assert float(by_vertex["partialRank"][5]) == pytest.approx(rate, abs=0.005)
    speed = {n.id: n.speedup for n in infra.nodes}
    assert float(by_vertex["partialRank"][4]) == pytest.approx(
        sum(c * rank.service_rate * speed[u] for u, c in {"n1": 2, "n2": 1}.items()), abs=0.005)


def test_export_strict_refuses_a_plan_that_breaks_a_constraint(tmp_path):
    doubled = [sample("debs2015", "application-2x.yaml"), DEBS[1]]
    out = tmp_path / "k8s.yaml"
    warned = run("export", *doubled, PLAN, "--to", "kubernetes", "-o", str(out))
    assert warned.exit_code == 0 and out.exists()
    assert "violates" in warned.stderr and "stability" in warned.stderr
    out.unlink()
    refused = run("export", *doubled, PLAN, "--to", "kubernetes", "-o", str(out), "--strict",
                  "--json")
    assert refused.exit_code == 1 and not out.exists()
    document = json.loads(refused.stdout)
    assert document["refused"] is True
    assert {v["constraint"] for v in document["violations"]} == {"stability"}
    kept = run("export", *DEBS, PLAN, "--to", "kubernetes", "-o", str(out), "--strict")
    assert kept.exit_code == 0 and out.exists()


def test_the_rest_body_is_what_its_description_says():
    """The in-place body: every vertex's upper bound the plan's parallelism and its lower
    bound 1, as the artifact's description says."""
    artifacts, document = export("--to", "flink", "--flink-job", JOB)
    body = json.loads(artifacts["rest"])
    said = next(a["description"] for a in document["artifacts"] if a["name"] == "rest")
    assert "lower bound 1" in said and "upper bound the planned parallelism" in said
    assert all(b["parallelism"]["lowerBound"] == 1 for b in body.values())
