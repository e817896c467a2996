"""``streamplace observe`` on what a real Flink 2.2.1 cluster answered: the snapshot in
samples/flink was saved by ``observe --save`` from the paced job of tests/support/flink_job (RATE
records per second per source subtask, 2 subtasks per vertex, on two TaskManagers), after
it had run 81 s. Read from the file and from a real HTTP server answering the same calls;
tests/e2e/test_e2e_flink.py reads a live cluster."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from streamplace.errors import InputError

from ..conftest import run, sample
from ..support.rest_server import rest_server
from ..support.snapshots import (
    SNAPSHOT,
    answers,
    assert_what_the_job_was_made_to_do,
)


def observed(*args: str) -> dict[str, Any]:
    result = run("observe", *args, "--json", "-q")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)  # type: ignore[no-any-return]




def test_rates_and_service_rates_are_what_the_job_was_made_to_do():
    assert_what_the_job_was_made_to_do(observed(SNAPSHOT))


def test_operators_are_the_vertices_and_export_finds_them_again(tmp_path: Path):
    doc = observed(SNAPSHOT)
    job = json.loads(Path(SNAPSHOT).read_text())["job"]
    ops = doc["application"]["operators"]
    assert [(o["name"], o["engine_id"]) for o in ops] == \
        [(v["name"], v["id"]) for v in job["vertices"]]
    assert [o["id"] for o in ops] == ["numbers-pace", "counter", "evens", "sink"]
    files = {}
    for key in ("application", "infrastructure", "plan"):
        files[key] = tmp_path / f"{key}.yaml"
        files[key].write_text(yaml.safe_dump(doc[key]))
    exported = run("export", str(files["application"]), str(files["infrastructure"]),
                   str(files["plan"]), "--to", "flink", "--flink-job", SNAPSHOT, "--json", "-q")
    assert exported.exit_code == 0, exported.output
    artifacts = {a["name"]: a["text"] for a in json.loads(exported.stdout)["artifacts"]}
    assert next(iter(artifacts)) == "rest"  # the snapshot's cluster is 2.2.1
    # the plan it runs now, exported, is what it runs
    assert json.loads(artifacts["rest"]) == {
        v["id"]: {"parallelism": {"lowerBound": 1, "upperBound": 2}} for v in job["vertices"]}


def test_the_skeleton_has_the_taskmanagers_and_the_plan_where_subtasks_run():
    doc = observed(SNAPSHOT)
    nodes = doc["infrastructure"]["nodes"]
    assert len(nodes) == 2
    ops = [o["id"] for o in doc["application"]["operators"]]
    assert all(n["resources"] == {f"slots.{o}": 4 for o in ops} for n in nodes)
    placement = doc["plan"]["placement"]
    assert {u for where in placement.values() for u in where} <= {n["id"] for n in nodes}
    assert doc["plan"]["application"] == doc["application"]["name"]
    assert doc["plan"]["infrastructure"] == doc["infrastructure"]["name"]




def test_live_and_saved_give_the_same_files(tmp_path: Path):
    snapshot = json.loads(Path(SNAPSHOT).read_text())
    saved = tmp_path / "again.json"
    with rest_server(answers(snapshot)) as rest:
        live = observed(f"{rest}/jobs/{snapshot['job']['jid']}", "--save", str(saved))
    offline = observed(str(saved))
    for key in ("infrastructure", "plan"):
        assert live[key] == offline[key] == observed(SNAPSHOT)[key]
    assert live["application"]["operators"] == offline["application"]["operators"]
    assert live["application"]["streams"] == offline["application"]["streams"]
    kept = json.loads(saved.read_text())
    assert all(kept[k] == snapshot[k] for k in ("config", "job", "vertices", "metrics",
                                                "taskmanagers"))


def damaged(tmp_path: Path, change) -> str:  # type: ignore[no-untyped-def]
    snapshot = copy.deepcopy(json.loads(Path(SNAPSHOT).read_text()))
    change(snapshot)
    path = tmp_path / "damaged.json"
    path.write_text(json.dumps(snapshot))
    return str(path)


def test_a_snapshot_without_what_it_needs_is_bad_input(tmp_path: Path):
    missing = run("observe", damaged(tmp_path, lambda s: s.pop("metrics")))
    assert missing.exit_code == 2
    assert "damaged.json: metrics: no 'metrics' dict in the snapshot" in missing.stderr
    other = run("observe", sample("debs2015", "plan.yaml"))
    assert other.exit_code == 2 and "'streamplace/plan/v1' is not a Flink snapshot" in \
        other.stderr
    job = run("observe", sample("debs2015", "flink-job.json"))
    assert job.exit_code == 2 and "a job's JSON (GET /jobs/:jobid) alone" in job.stderr

    def unnamed(s: dict[str, Any]) -> None:
        del s["job"]["vertices"][1]["name"]

    vertex = run("observe", damaged(tmp_path, unnamed))
    assert vertex.exit_code == 2 and "job.vertices[1]: a vertex needs" in vertex.stderr
    for result in (missing, other, job, vertex):
        assert "Traceback" not in result.output


def test_no_rates_yet_is_no_answer_and_a_young_job_is_said(tmp_path: Path):
    def fresh(s: dict[str, Any]) -> None:  # as the JobManager answers before its first fetch
        s["metrics"] = {key: [] for key in s["metrics"]}

    early = run("observe", damaged(tmp_path, fresh))
    assert early.exit_code == 3 and "read again" in early.stderr

    def young(s: dict[str, Any]) -> None:
        for v in s["job"]["vertices"]:
            v["duration"] = 20_000

    doc = observed(damaged(tmp_path, young))
    assert any("run only 20 s" in w and "read low" in w for w in doc["report"]["warnings"])


def test_an_unreachable_or_unknown_job_is_bad_input():
    snapshot = json.loads(Path(SNAPSHOT).read_text())
    with rest_server(answers(snapshot)) as rest:
        unknown = run("observe", f"{rest}/jobs/{'0' * 32}")
    assert unknown.exit_code == 2 and "answered 404" in unknown.stderr
    malformed = run("observe", "http://127.0.0.1:1/jobs/latest")
    assert malformed.exit_code == 2 and "32 hex digits" in malformed.stderr


def test_several_slot_sharing_groups_are_said(tmp_path: Path):
    def split(s: dict[str, Any]) -> None:
        s["job"]["vertices"][-1]["slotSharingGroupId"] = "f" * 32

    doc = observed(damaged(tmp_path, split))
    assert any("2 slot-sharing groups" in w for w in doc["report"]["warnings"])
    assert not any("slot-sharing" in w for w in observed(SNAPSHOT)["report"]["warnings"])


SHARED = sample("flink", "shared-snapshot.json")
"""Saved by scripts/make_sample_shared_snapshot.py from a real Flink 2.2.1 cluster: the loaded
job at parallelism 1 beside the paced job at parallelism 3, with what every job holds."""


def _held_by_others(snapshot: dict[str, Any]) -> dict[str, int]:
    """TaskManager id -> slots held by jobs other than the observed one, from the answers."""
    own = snapshot["job"]["jid"]
    return {tm: sum(1 for s in details["allocatedSlots"] if s["jobId"] != own)
            for tm, details in snapshot["load"]["taskmanagers"].items()}


def test_observe_writes_what_the_other_jobs_hold(tmp_path):
    held = tmp_path / "held.yaml"
    doc = observed(SHARED, "--occupied-out", str(held), "--infrastructure-out",
                   str(tmp_path / "infra.yaml"))
    snapshot = json.loads(Path(SHARED).read_text())
    expected = {tm: n for tm, n in _held_by_others(snapshot).items() if n}
    assert sum(expected.values()) == 3  # the paced job, parallelism 3, one slot-sharing group
    written = yaml.safe_load(held.read_text())
    assert written == doc["occupied"]
    [paced] = written["applications"]
    assert paced["name"] == "paced"
    nodes = {n["description"].split()[1].rstrip(":"): n["id"]
             for n in yaml.safe_load((tmp_path / "infra.yaml").read_text())["nodes"]}
    dims = {f"slots.{o['id']}" for o in doc["application"]["operators"]}
    assert paced["nodes"] == {nodes[tm]: dict.fromkeys(dims, n) for tm, n in expected.items()}


def test_a_plan_solved_beside_the_other_jobs_fits_the_slots_they_leave(tmp_path):
    files = {k: str(tmp_path / f"{k}.yaml") for k in ("app", "infra", "now", "held", "plan")}
    observed(SHARED, "--source-rate", "events=200", "-o", files["app"],
             "--infrastructure-out", files["infra"], "--plan-out", files["now"],
             "--occupied-out", files["held"])
    solved = run("solve", files["app"], files["infra"], "--current", files["now"],
                 "--occupied", files["held"], "--target-utilization", "0.7", "-o",
                 files["plan"], "-q")
    assert solved.exit_code == 0, solved.output
    free = {u: 4 - min(dims.values()) for u, dims in
            yaml.safe_load(Path(files["held"]).read_text())["applications"][0]["nodes"].items()}
    placement = yaml.safe_load(Path(files["plan"]).read_text())["placement"]
    for op, nodes in placement.items():
        for u, count in nodes.items():
            assert count <= free.get(u, 4), (op, u)
    # as the README's walk-through says: work takes every slot left, 4 + 1
    assert sorted(placement["work"].values()) == [1, 4]


def test_ds2_is_capped_at_the_slots_the_other_jobs_leave():
    """autoscale --method ds2 spreads DS2's parallelism over the free TaskManagers: more
    than the slots left is never asked for."""
    from streamplace.control.autoscale.rule import spread
    from streamplace.control.flink.holdings import holdings
    from streamplace.control.flink.observe import observe
    from streamplace.control.running.documents import documents, other_jobs
    from streamplace.io.readers import application_from, infrastructure_from
    from streamplace.model.occupied import beside

    snapshot = json.loads(Path(SHARED).read_text())
    obs = observe(snapshot, SHARED)
    docs = documents(obs)
    app = application_from(docs["application"], "app")
    infra = infrastructure_from(docs["infrastructure"], "infra")
    free = beside(infra, other_jobs(obs, holdings(snapshot["load"], SHARED))[1].applications)
    plan = spread(app, free, dict.fromkeys(app.operator_ids, 8))
    left = 8 - sum(_held_by_others(snapshot).values())
    assert all(sum(plan.replicas(op).values()) == left for op in app.operator_ids)


def test_the_occupied_load_needs_a_snapshot_that_holds_it(tmp_path):
    r = run("observe", SNAPSHOT, "--occupied-out", str(tmp_path / "held.yaml"))
    assert r.exit_code == 2 and "does not say what the other jobs hold" in r.output, r.output
    assert not (tmp_path / "held.yaml").exists()


def test_another_job_of_the_same_name_gets_a_name_of_its_own(tmp_path):
    snapshot = json.loads(Path(SHARED).read_text())
    for job in snapshot["load"]["overview"]["jobs"]:
        job["name"] = snapshot["job"]["name"]
    copy_ = tmp_path / "same-name.json"
    copy_.write_text(json.dumps(snapshot))
    files = {k: str(tmp_path / f"{k}.yaml") for k in ("app", "infra", "held")}
    observed(str(copy_), "-o", files["app"], "--infrastructure-out", files["infra"],
             "--occupied-out", files["held"])
    names = [a["name"] for a in yaml.safe_load(Path(files["held"]).read_text())["applications"]]
    assert names == ["loaded-2"]
    r = run("solve", files["app"], files["infra"], "--occupied", files["held"], "-q")
    assert r.exit_code == 0, r.output


def test_a_cluster_that_does_not_say_who_holds_a_slot_is_refused(tmp_path):
    snapshot = json.loads(Path(SHARED).read_text())
    for details in snapshot["load"]["taskmanagers"].values():
        del details["allocatedSlots"]
    copy_ = tmp_path / "old.json"
    copy_.write_text(json.dumps(snapshot))
    r = run("observe", str(copy_), "--occupied-out", str(tmp_path / "held.yaml"))
    assert r.exit_code == 2 and "allocatedSlots" in r.output and "Traceback" not in r.output


def test_autoscale_plans_beside_the_other_jobs_and_alone_where_the_cluster_does_not_say():
    """The instance each autoscale step solves: the TaskManagers less the other jobs'
    slots; where the cluster does not list allocatedSlots, all of them, with a warning."""
    from streamplace.control.autoscale.evaluate import observed_instance
    from streamplace.control.engine import Reading
    from streamplace.control.flink.holdings import holdings
    from streamplace.control.flink.observe import observe

    snapshot = json.loads(Path(SHARED).read_text())
    found = observed_instance(Reading(observe(snapshot, SHARED),
                                      holdings(snapshot["load"], SHARED)), 0.7)
    infra, others = found.infra, found.others
    assert [held.name for held in others] == ["paced"]
    assert infra.holds.names == ("paced",)
    for details in snapshot["load"]["taskmanagers"].values():
        del details["allocatedSlots"]
    obs = observe(snapshot, SHARED)
    with pytest.raises(InputError) as unknown:
        holdings(snapshot["load"], SHARED)
    found = observed_instance(Reading(obs, None, str(unknown.value)), 0.7)
    infra, others = found.infra, found.others
    assert others == [] and infra.holds.names == ()
    assert any("planned as if every slot were this job's" in w for w in obs.warnings)
