"""``report --optimum``: runs of the loop in memory, kept in state files, each set against
the optimum its own rates allow in hindsight, through the real command."""

from __future__ import annotations

import json

from streamplace.io.state import write_state
from streamplace.model.state import StateFile

from ..conftest import run
from ..support.loops import FakeClock, autoscaler, pipeline
from ..support.memory_engine import sine

END = 4800.0


def _kept(tmp_path, name: str, **given: object) -> str:
    """A run on a sine of ten minutes a period, x1 to x4, kept in a state file."""
    clock = FakeClock()
    job = pipeline(clock, rate=sine(60.0, 240.0, 600.0))
    state = StateFile(job=job.address)
    path = str(tmp_path / f"{name}.json")
    loop = autoscaler(job, clock, state, until=END, max_steps=1000, catch_up_duration=300.0,
                      **given)
    loop.run(lambda d: None)
    write_state(path, state)
    return path


def test_each_run_is_set_against_its_hindsight_optimum(tmp_path):
    """The Flink rule holding the peak, and odrp planned ahead within a budget, each
    against the optimum of its own rates under the same budget: the optimum holds no more
    slot-seconds than either run, the run planned ahead comes closer to it, and each
    figure is given as the run's gap."""
    held = _kept(tmp_path, "flink", method="flink", scale_down_interval=3600.0)
    ahead = _kept(tmp_path, "ahead", method="odrp", horizon=12, max_rescales="12/h",
                  scale_down_interval=3600.0)
    done = run("report", "--optimum", held, ahead, "--max-rescales", "12/h", "--json", "-q")
    assert done.exit_code == 0, done.output
    rows = {r["state"]: r for r in json.loads(done.stdout)["optimum"]}
    assert set(rows) == {held, ahead}
    for r in rows.values():
        best, got = r["optimum"], r["run"]
        assert best is not None and best["windows"] == got["windows"] > 50
        assert best["slot_seconds"] <= got["slot_seconds"] + 1e-6
        assert r["gap"]["slot_seconds"] == (
            (got["slot_seconds"] - best["slot_seconds"]) / best["slot_seconds"])
        assert best["rescales"] <= 12 * (END / 3600.0 + 1)
    assert rows[ahead]["gap"]["slot_seconds"] < rows[held]["gap"]["slot_seconds"]
    assert rows[held]["method"] == "flink" and rows[ahead]["method"].startswith("odrp ahead")
    shown = run("report", "--optimum", held, ahead)
    assert shown.exit_code == 0 and "slot-seconds" in shown.output


def test_what_is_not_a_run_is_refused_with_nothing_written(tmp_path):
    held = _kept(tmp_path, "flink", method="flink")
    plan = tmp_path / "plan.yaml"
    plan.write_text("application: a\n")
    for args, said in ((["--max-rescales", "0"], "--max-rescales"),
                       ([str(plan)], "is not one")):
        done = run("report", "--optimum", held, *args, "-o", str(tmp_path / "out.html"))
        assert done.exit_code == 2 and said in done.output, done.output
        assert not (tmp_path / "out.html").exists()
