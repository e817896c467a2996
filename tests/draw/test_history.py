"""``report STATE``: an autoscale run's history, drawn from its --state file (written here by
the loop, run in-process against a job in memory)."""

from __future__ import annotations

import json

from streamplace.io.state import write_state
from streamplace.model.state import StateFile

from ..conftest import DEBS, PLAN, run
from ..support.loops import FakeClock, decisions, pipeline


def test_a_state_file_is_drawn_vertex_by_vertex_with_its_rescales(tmp_path):
    state = tmp_path / "state.json"
    clock = FakeClock()
    job = pipeline(clock, rate=150.0)
    kept = StateFile(job=job.address)
    decisions(job, clock, 3, kept)
    write_state(str(state), kept)
    written = json.loads(state.read_text())["decisions"]
    assert written[0]["decision"] == "rescale"
    out = tmp_path / "history.html"
    report = run("report", str(state), "-o", str(out), "--title", "the counter's week")
    assert report.exit_code == 0, report.output
    page = out.read_text()
    assert "<svg" in page and "the counter&#x27;s week" in page
    rescales = sum(d["decision"] == "rescale" for d in written)
    assert page.count("<tr><td class='num'>") == rescales  # each rescale, with why
    assert "work 1 → 3" in page and "source is back-pressured" in page


def test_a_state_file_beside_plans_is_refused(tmp_path):
    state = tmp_path / "state.json"
    state.write_text(json.dumps({"schema": "streamplace/autoscale-state/v1", "job": "x",
                                 "decisions": [], "restarts": [], "pending": {}}))
    mixed = run("report", *DEBS, PLAN, str(state), "-o", str(tmp_path / "r.html"))
    assert mixed.exit_code == 2 and "report state files on their own" in mixed.output
    alone = run("report", str(state), "-o", str(tmp_path / "r.html"))
    assert alone.exit_code == 0 and "nothing to draw" in (tmp_path / "r.html").read_text()
