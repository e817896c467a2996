"""``report STATE``: an autoscale run's history, drawn from its --state file (written here by
a real autoscale against the scripted JobManager)."""

from __future__ import annotations

import json
import subprocess
import sys

from ..conftest import DEBS, PLAN, run
from ..support.fake_jobmanager import fake_jobmanager

HANG_GUARD = 120


def test_a_state_file_is_drawn_vertex_by_vertex_with_its_rescales(tmp_path):
    state = tmp_path / "state.json"
    with fake_jobmanager(busy={"counter": [0.99, 0.3]}) as jm:
        done = subprocess.run(
            [sys.executable, "-m", "streamplace", "autoscale", jm.job_url, "--method", "ds2",
             "--stabilization-interval", "0", "--metrics-window", "5", "--max-steps", "2",
             "--state", str(state), "--yes", "-q"],
            capture_output=True, text=True, timeout=HANG_GUARD)
    assert done.returncode == 0, done.stderr
    decisions = json.loads(state.read_text())["decisions"]
    assert decisions[0]["decision"] == "rescale"
    out = tmp_path / "history.html"
    report = run("report", str(state), "-o", str(out), "--title", "the counter's week")
    assert report.exit_code == 0, report.output
    page = out.read_text()
    assert "<svg" in page and "the counter&#x27;s week" in page
    rescales = sum(d["decision"] == "rescale" for d in decisions)
    assert page.count("<tr><td class='num'>") == rescales  # each rescale, with why
    assert "counter 2 → " in page and "busy 0.99" in page


def test_a_state_file_beside_plans_is_refused(tmp_path):
    state = tmp_path / "state.json"
    state.write_text(json.dumps({"schema": "streamplace/autoscale-state/v1", "job": "x",
                                 "decisions": [], "restarts": [], "pending": {}}))
    mixed = run("report", *DEBS, PLAN, str(state), "-o", str(tmp_path / "r.html"))
    assert mixed.exit_code == 2 and "report state files on their own" in mixed.output
    alone = run("report", str(state), "-o", str(tmp_path / "r.html"))
    assert alone.exit_code == 0 and "nothing to draw" in (tmp_path / "r.html").read_text()
