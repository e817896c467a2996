"""``export --flink-job http://...``: the job and the cluster's version read over HTTP from a
real server (Python's own, answering with the recorded job of samples/debs2015 and a
``GET /config`` of the version asked), and the errors of an address that does not answer."""

from __future__ import annotations

import json
import socket
from contextlib import AbstractContextManager
from pathlib import Path

from ..conftest import run, sample
from ..support.rest_server import rest_server

DEBS = [sample("debs2015", "application.yaml"), sample("debs2015", "infrastructure.yaml")]
PLAN = sample("debs2015", "plan.yaml")
JOB = json.loads(Path(sample("debs2015", "flink-job.json")).read_text())


def jobmanager(version: str) -> AbstractContextManager[str]:
    """A REST endpoint answering GET /jobs/JID and GET /config as a JobManager does."""
    return rest_server({f"/jobs/{JOB['jid']}": JOB,
                        "/config": {"flink-version": version, "refresh-interval": 3000}})


def exported(*args: str) -> tuple[list[str], list[str]]:
    result = run("export", *DEBS, PLAN, "--to", "flink", *args, "--json", "-q")
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    return [a["name"] for a in document["artifacts"]], document["notes"]


def test_the_version_comes_from_the_jobmanager():
    with jobmanager("2.2.1") as rest:
        names, notes = exported("--flink-job", f"{rest}/jobs/{JOB['jid']}")
    assert names[0] == "rest"  # what takes effect on 2.x
    assert any("Flink 2.2.1 applies" in n for n in notes)
    with jobmanager("1.20.3") as rest:
        names, notes = exported("--flink-job", f"{rest}/jobs/{JOB['jid']}/")
        assert names[0] == "config"
        assert any("written for Flink 1.20.3" in n for n in notes)
        # the flag, when given, is the user's word
        names, _ = exported("--flink-job", f"{rest}/jobs/{JOB['jid']}", "--flink-version",
                            "2.0.0")
    assert names[0] == "rest"


def test_the_same_artifacts_as_from_the_saved_json(tmp_path):
    saved = tmp_path / "job.json"
    saved.write_text(json.dumps(JOB))
    with jobmanager("1.20.3") as rest:
        live = run("export", *DEBS, PLAN, "--to", "flink", "--flink-job",
                   f"{rest}/jobs/{JOB['jid']}", "--json", "-q")
    offline = run("export", *DEBS, PLAN, "--to", "flink", "--flink-job", str(saved),
                  "--flink-version", "1.20.3", "--json", "-q")
    assert json.loads(live.stdout)["artifacts"] == json.loads(offline.stdout)["artifacts"]


def test_an_address_that_does_not_answer_is_bad_input():
    with socket.socket() as s:  # a port nothing listens on once closed
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    refused = run("export", *DEBS, PLAN, "--to", "flink", "--flink-job",
                  f"http://127.0.0.1:{port}/jobs/{JOB['jid']}")
    assert refused.exit_code == 2
    assert "cannot reach" in refused.stderr and "rest.address" in refused.stderr
    with jobmanager("1.20.3") as rest:
        missing = run("export", *DEBS, PLAN, "--to", "flink", "--flink-job",
                      f"{rest}/jobs/{'0' * 32}")
        malformed = run("export", *DEBS, PLAN, "--to", "flink", "--flink-job",
                        f"{rest}/jobs/latest")
    assert missing.exit_code == 2 and "answered 404" in missing.stderr
    assert "GET /jobs lists" in missing.stderr
    assert malformed.exit_code == 2 and "32 hex digits" in malformed.stderr
    for result in (refused, missing, malformed):
        assert "Traceback" not in result.output
