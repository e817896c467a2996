"""What autoscale decides, against the scripted JobManager (tests/support/fake_jobmanager.py):
skew sized by the busiest subtask, and on-call's forced roll-back."""

from __future__ import annotations

import json
import subprocess
import sys

import yaml

from ..conftest import run
from ..support.fake_jobmanager import fake_jobmanager
from ..support.snapshots import SNAPSHOT

HANG_GUARD = 120
STEP = ("--yes", "--stabilization-interval", "0", "--metrics-window", "5", "--max-steps",
        "1", "--dry-run", "-q")


def decided(url: str, *args: str) -> dict:  # type: ignore[type-arg]
    done = subprocess.run([sys.executable, "-m", "streamplace", "autoscale", url, *args,
                           *STEP], capture_output=True, text=True, timeout=HANG_GUARD)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[0])  # type: ignore[no-any-return]


def test_a_skewed_vertex_is_judged_and_sized_by_its_busiest_subtask():
    """One subtask of counter busy 0.99, the other 0.3: the mean (0.645) is within bounds,
    the busiest is at its capacity. By max (the Flink autoscaler's default since its
    PR #505), the vertex is scaled up; by avg it is left alone."""
    with fake_jobmanager(busy={"counter": [0.99, 0.3]}) as jm:
        by_max = decided(jm.job_url, "--method", "ds2")
        by_avg = decided(jm.job_url, "--method", "ds2", "--busy-aggregator", "avg")
    assert by_max["decision"] == "dry run", by_max["why"]
    assert by_max["to"]["counter"] > by_max["from"]["counter"]
    assert by_max["seen"]["counter"]["busy_max"] == 0.99
    assert by_avg["decision"] == "no change", by_avg["why"]


def test_apply_force_sends_a_plan_that_breaks_a_constraint_and_says_so(tmp_path):
    """On-call rolls back to what ran a minute before, though it breaks stability as the
    job is measured now: refused (exit 1) unless --force, which sends it with a warning."""
    done = run("observe", SNAPSHOT, "--json", "-q")
    doc = json.loads(done.stdout)
    files = []
    for key in ("application", "infrastructure", "plan"):
        path = tmp_path / f"{key}.yaml"
        path.write_text(yaml.safe_dump(doc[key]))
        files.append(str(path))
    plan = doc["plan"]
    node = next(iter(plan["placement"]["counter"]))
    plan["placement"]["counter"] = {node: 1}  # half the replicas: the job breaks stability
    (tmp_path / "plan.yaml").write_text(yaml.safe_dump(plan))
    with fake_jobmanager() as jm:
        refused = run("apply", *files, jm.job_url, "--yes")
        forced = run("apply", *files, jm.job_url, "--yes", "--force")
    assert refused.exit_code == 1 and "not applied" in refused.output
    assert forced.exit_code == 0, forced.output
    assert "forced: the plan breaks" in forced.output and len(jm.puts) == 1
