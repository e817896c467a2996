"""Never crash, never hang: each defect of the second hardening round, through the real CLI
on real files or the function at fault (docs/cli.md, "Guarantees")."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from streamplace.cli.app import app
from streamplace.model.application import Operator
from streamplace.model.replicas import fewest_stable
from streamplace.model.sweep import MaxRate, Pareto
from streamplace.solve.budget import StopRequest

from ..conftest import sample

runner = CliRunner()
DEBS = [sample("debs2015", "application.yaml"), sample("debs2015", "infrastructure.yaml")]


def run(*args: str, stdin: str | None = None):
    return runner.invoke(app, list(args), input=stdin)


# ---------------------------------------------------------------- 1: nesting past the C stack

def test_deeply_nested_yaml_is_refused_with_its_line(tmp_path: Path):
    """25,000 levels (60 KB) used to overflow libyaml's recursive composer: exit 139."""
    flow = tmp_path / "flow.yaml"
    flow.write_text("name: x\noperators: " + "[" * 25_000 + "]" * 25_000 + "\n")
    block = tmp_path / "block.yaml"
    block.write_text("name: x\noperators:\n" + "".join(" " * i + "-\n" for i in range(3000)))
    for path, line in ((flow, 2), (block, 66)):
        result = run("solve", str(path), DEBS[1])
        assert result.exit_code == 2, result.stderr
        assert f"{path}:{line}: nesting deeper than 64 levels" in result.stderr


def test_deep_nesting_is_not_called_an_alias_bomb(tmp_path: Path):
    path = tmp_path / "deep.yaml"
    path.write_text("a:\n" + "".join(" " * (i + 1) + f"k{i}:\n" for i in range(80)))
    result = run("solve", str(path), DEBS[1])
    assert result.exit_code == 2
    assert "nesting deeper" in result.stderr and "alias" not in result.stderr


# --------------------------------------------------------- 2: replica counts beyond any float

def test_an_astronomical_replica_need_is_answered_at_once():
    """1e5 tuples/s into 1e-20 tuples/s per replica: the settling loop used to spin for
    ever once a step no longer changed the quotient."""
    op = Operator(id="a", service_rate=1e-20, max_replicas=4)
    assert fewest_stable(op, 1e5) > 10**24
    target = Operator(id="b", service_rate=10, max_replicas=4, target_utilization=1e-20)
    assert fewest_stable(target, 1e5) > 10**23


def test_an_operator_that_cannot_be_stable_is_reported(tmp_path: Path):
    data = yaml.safe_load(Path(DEBS[0]).read_text())
    data["operators"][1]["service_rate"] = 1e-20
    path = tmp_path / "app.yaml"
    path.write_text(yaml.safe_dump(data))
    result = run("solve", str(path), DEBS[1])
    assert result.exit_code == 1, result.stderr
    assert "operator parser cannot be stable with 3 replica(s)" in result.stderr


# ----------------------------------------------------------- 3: Kubernetes selectors collide

CLASHING = ("enrich-geo", "enrich geo", "enrich:geo")


def test_kubernetes_selectors_stay_distinct_when_ids_differ_only_in_punctuation(tmp_path):
    app = tmp_path / "app.yaml"
    app.write_text(
        "name: geo\noperators:\n  - {id: src, service_rate: 100, input_rate: 10}\n"
        + "".join(f"  - {{id: {op!r}, service_rate: 100}}\n" for op in CLASHING)
        + "streams:\n" + "".join(f"  - {{from: src, to: {op!r}, rate: 10}}\n"
                                 for op in CLASHING))
    infra = tmp_path / "infra.yaml"
    infra.write_text("name: two\nnodes:\n  - {id: n1, resources: 8}\n  - {id: n2, resources: 8}"
                     "\nlinks:\n  - {from: n1, to: n2, delay: 1 ms}\n")
    plan = tmp_path / "plan.yaml"
    assert run("solve", str(app), str(infra), "-o", str(plan), "-q").exit_code == 0
    result = run("export", str(app), str(infra), str(plan), "--to", "kubernetes", "-q",
                 "-o", "-")
    assert result.exit_code == 0, result.stderr
    selectors = {}
    for manifest in yaml.safe_load_all(result.stdout):
        if manifest:
            labels = manifest["spec"]["selector"]["matchLabels"]
            operator = manifest["metadata"]["annotations"]["streamplace/operator"]
            selectors.setdefault(labels["app.kubernetes.io/name"], set()).add(operator)
    assert sorted(len(ops) for ops in selectors.values()) == [1, 1, 1, 1], selectors


def test_kubernetes_options_are_checked_with_the_fix():
    plan = sample("debs2015", "plan.yaml")
    result = run("export", *DEBS, plan, "--to", "kubernetes", "--image", "{bogus}",
                 "--namespace", "Bad_NS", "--node-label", "a/b/c")
    assert result.exit_code == 2
    for flag in ("--image", "--namespace", "--node-label"):
        assert f"error: {flag}: " in result.stderr
    assert "internal error" not in result.stderr


# ------------------------------------------------------------ 4: a signal at any moment

HOOK = '''
import os, signal, sys

class _SignalOnImport:
    """Sends this process SIGINT the first time the module named in the test is imported."""
    def find_spec(self, name, path=None, target=None):
        if name == os.environ["SIGNAL_ON_IMPORT"] and not getattr(self, "sent", False):
            self.sent = True
            os.kill(os.getpid(), signal.SIGINT)
        return None

sys.meta_path.insert(0, _SignalOnImport())
'''


def _interrupted_on_import(tmp_path: Path, module: str, ignore: bool = False):
    """The installed command, sent SIGINT synchronously when ``module`` is first imported:
    a moment chosen by what the process is doing, not by a clock."""
    (tmp_path / "sitecustomize.py").write_text(HOOK)
    env = {**os.environ, "PYTHONPATH": str(tmp_path), "SIGNAL_ON_IMPORT": module}
    out = tmp_path / f"plan-{module}.yaml"
    return subprocess.run(
        [sys.executable, "-m", "streamplace", "solve", *DEBS, "-o", str(out), "-q"],
        env=env, capture_output=True, text=True, check=False,
        preexec_fn=(lambda: signal.signal(signal.SIGINT, signal.SIG_IGN)) if ignore else None,
    ), out


@pytest.mark.parametrize("module", ["typer", "streamplace.cli.commands.solve", "pydantic",
                                    "highspy"])
def test_sigint_at_any_moment_exits_130_without_a_traceback(tmp_path: Path, module: str):
    done, out = _interrupted_on_import(tmp_path, module)
    assert done.returncode == 130, done.stderr
    assert "Traceback" not in done.stderr and "interrupted" in done.stderr
    # highspy loads once the solve has begun: the signal asks it to stop with its best plan
    assert out.exists() == (module == "highspy")


def test_an_inherited_ignored_sigint_stays_ignored(tmp_path: Path):
    done, out = _interrupted_on_import(tmp_path, "highspy", ignore=True)
    assert done.returncode == 0, done.stderr
    assert out.exists()


# ------------------------------------------- 6, 7: no time for an ant; work, not the clock

def test_hybrid_without_time_for_an_ant_answers_with_the_start():
    """Building the start outlasted the ants' share: an AssertionError, before."""
    from streamplace.model.topologies import ecker_topology, ecker_workers
    from streamplace.solve import Instance, SolveOptions, SolveStatus, get_method

    from ..conftest import make_app, make_infra

    instance = Instance(make_app(ecker_topology(1, operations=60, parallelism=(1, 2),
                                                duplicate=False,
                                                demand={"cpu": 0.05, "memory": 64.0})),
                        make_infra(ecker_workers(20)))
    for name in ("hybrid", "ant-system"):
        result = get_method(name).solve(instance, SolveOptions(seed=2, time_limit=1e-9))
        assert result.status == SolveStatus.FEASIBLE, result.message
        assert result.solver["fallback"] == "no time for a single ant: hill climbing's start"
        assert "the clock ended the search" in result.message


def test_seeded_heuristics_repeat_under_a_work_limit_through_the_cli(tmp_path: Path):
    plans = []
    for k in range(2):
        out = tmp_path / f"p{k}.yaml"
        result = run("solve", *DEBS, "--method", "ant-system", "--seed", "2",
                     "--solver-option", "work=3000", "-o", str(out), "-q")
        assert result.exit_code == 0, result.stderr
        plans.append(yaml.safe_load(out.read_text())["placement"])
    assert plans[0] == plans[1]


# ------------------------------------------- 12: a plan made for another instance is refused

@pytest.mark.parametrize("field", ["application", "infrastructure"])
def test_a_plan_naming_another_instance_is_refused_by_what_acts_on_it(tmp_path, field):
    plan = yaml.safe_load(Path(sample("debs2015", "plan.yaml")).read_text())
    plan[field] = "someone-else"
    other = tmp_path / "other.yaml"
    other.write_text(yaml.safe_dump(plan, sort_keys=False))
    commands = [["export", *DEBS, str(other), "--to", "storm"],
                ["diff", *DEBS, sample("debs2015", "plan.yaml"), str(other)],
                ["solve", *DEBS, "--current", str(other)],
                ["solve", *DEBS, "--start", str(other)],
                ["evaluate", *DEBS, sample("debs2015", "plan.yaml"), "--current", str(other)]]
    for args in commands:
        out = ["-o", str(tmp_path / "out")] if args[0] == "solve" else []
        result = run(*args, "-q", *out)
        assert result.exit_code == 2, (args, result.stderr)
        assert f"other.yaml:{list(plan).index(field) + 1}: {field}: the plan was made for " \
               f"{field} 'someone-else'" in result.stderr, result.stderr
        assert "--ignore-names" in result.stderr
        assert run(*args, "--ignore-names", "-q", *out).exit_code == 0, args


# ------------------------------------------------ 8: one tolerance from HiGHS to the evaluator

def test_a_limit_a_hair_below_the_optimum_gives_the_next_best_plan():
    """The free optimum's response time is 0.0691697056 s: a limit 1e-7 s below it used to
    end solve with exit 3 (HiGHS's row kept within its tolerance, the evaluator at 1e-9)."""
    free = json.loads(run("solve", *DEBS, "-q", "--json").stdout)
    rt = free["plan"]["metrics"]["response_time"]
    for limit in (rt - 1e-7, rt * (1 - 1e-6)):
        result = run("solve", *DEBS, "--max-response-time", repr(limit), "-q", "--json")
        assert result.exit_code == 0, result.stderr
        answer = json.loads(result.stdout)
        assert answer["status"] == "optimal"
        assert answer["plan"]["metrics"]["response_time"] <= limit
        assert answer["objective"] < free["objective"]


def test_validate_and_the_evaluator_share_the_tolerance(tmp_path: Path):
    from streamplace.model.metrics import LIMIT_TOLERANCE, Metric, meets

    out = tmp_path / "plan.yaml"
    assert run("solve", *DEBS, "-q", "-o", str(out)).exit_code == 0
    rt = yaml.safe_load(out.read_text())["metrics"]["response_time"]
    inside = rt * (1 - LIMIT_TOLERANCE / 2)
    outside = rt * (1 - 4 * LIMIT_TOLERANCE)
    assert meets(Metric.RESPONSE_TIME, rt, inside)
    assert not meets(Metric.RESPONSE_TIME, rt, outside)
    ok = run("validate", *DEBS, str(out), "--max-response-time", repr(inside), "-q")
    assert ok.exit_code == 0, ok.stderr
    bad = run("validate", *DEBS, str(out), "--max-response-time", repr(outside), "--json")
    assert bad.exit_code == 1


# ------------------------------------- 9: the best plan seen; a bug fails its row, with cause

def test_the_best_accepted_plan_wins_over_the_last_one(tmp_path: Path):
    """Lazy rounds and refused plans: every plan seen competes on its true value; a plan
    the evaluator refuses never wins."""
    from streamplace.io.readers import read_instance, read_plan_for
    from streamplace.solve import Instance, SolveStatus
    from streamplace.solve.budget import Budget
    from streamplace.solve.odrp.methods import _best_accepted
    from streamplace.solve.solver_report import SolverReport

    app, infra = read_instance(*DEBS)
    running = read_plan_for(sample("debs2015", "plan.yaml"), app, infra)
    solved = tmp_path / "solved.yaml"
    assert run("solve", *DEBS, "-q", "-o", str(solved)).exit_code == 0
    better = read_plan_for(str(solved), app, infra)
    broken = running.model_copy(update={"placement": {**running.placement,
                                                      "parser": {"n1": 99}}})
    best = _best_accepted("odrp", Instance(app, infra), [running, broken, better],
                          SolveStatus.FEASIBLE, Budget(None), SolverReport("odrp"), None)
    assert best is not None and best.plan is not None
    assert best.plan.placement == better.placement
    assert best.objective == pytest.approx(yaml.safe_load(solved.read_text())["objective"])


@pytest.mark.parametrize(("analysis", "spec"), [
    ("max-rate", {"max_rate": MaxRate(low=0.5, high=4.0, tolerance=0.1)}),
    ("pareto", {"pareto": Pareto(metrics=("response_time", "cost"), max_points=4,
                                 step=1e-6)})])
def test_a_bug_in_a_probe_fails_its_row_with_the_cause(monkeypatch, analysis, spec):
    """Before, the probes caught every exception: a bug read as "no plan at this scale"
    and steered the bisection down (or ended a front), with exit 0."""
    from streamplace.sweep import analyses
    from streamplace.sweep.rows import Settings
    from streamplace.sweep.run import run_scenario
    from streamplace.sweep.scenarios import Scenario

    def broken(*args, **kwargs):
        raise ZeroDivisionError("a bug, not an answer")

    monkeypatch.setattr(analyses, "solve", broken)
    monkeypatch.setattr(analyses, "instance_of", lambda *args, **kwargs: None)
    scenario = Scenario(id="s0", method="odrp", rate_scale=1.0, failure="none", weights=None,
                        seed=0, infrastructure="infrastructure.yaml")
    (row,) = [o.row for o in run_scenario(None, Settings(analysis, 1.0, **spec), scenario)]
    assert row["status"] == "error"
    assert row["error"].startswith("ZeroDivisionError: a bug, not an answer (")
    assert "test_reliability.py" in row["error"]  # where it was raised


# ----------------------------------------------------------- 13: odd values, said plainly

def test_odd_values_exit_2_with_the_fix(tmp_path: Path):
    long_number = tmp_path / "long.yaml"
    long_number.write_text("name: x\noperators:\n- id: a\n  service_rate: " + "9" * 5000 + "\n")
    result = run("solve", str(long_number), DEBS[1])
    assert result.exit_code == 2 and "long.yaml:4: cannot read value: a number of 5,000 " \
        "characters" in result.stderr, result.stderr
    long_json = tmp_path / "long.json"
    long_json.write_text('{"name": "x", "operators": [{"id": "a", "service_rate": '
                         + "9" * 5000 + "}]}")
    result = run("solve", str(long_json), DEBS[1])
    assert result.exit_code == 2 and "cannot read a number" in result.stderr, result.stderr
    data = yaml.safe_load(Path(DEBS[0]).read_text())
    data["operators"][1]["max_replicas"] = True
    boolean = tmp_path / "boolean.yaml"
    boolean.write_text(yaml.safe_dump(data, sort_keys=False))
    result = run("solve", str(boolean), DEBS[1])
    assert result.exit_code == 2, result.stderr
    assert "operators[1].max_replicas: true is a yes/no value, not a number" in result.stderr
    result = run("solve", *DEBS, "--threads", "100000")
    assert result.exit_code == 2 and "error: --threads: threads 100000 is above" in \
        result.stderr


def test_a_failing_validate_says_what_failed_even_when_quiet():
    result = run("validate", sample("debs2015", "application-2x.yaml"), DEBS[1],
                 sample("debs2015", "plan.yaml"), "--quiet")
    assert result.exit_code == 1
    assert "failed: 1 of " in result.stderr and "constraints.stability" in result.stderr


# row 10: a resumed sweep trusts only whole rows files


def test_resume_reruns_damaged_rows_files_and_names_them(tmp_path: Path) -> None:
    from ..support.sweeps import write_sweep

    path = write_sweep(tmp_path, {"methods": ["odrp"], "time_limit": 30,
                                  "axes": {"rate_scale": [1, 1.5, 2]}})
    out = tmp_path / "out"
    first = run("sweep", str(path), "-o", str(out), "--engine", "python", "--json")
    assert first.exit_code == 0, first.output
    before = (out / "results.csv").read_text()
    files = sorted((out / "rows").glob("*.json"))
    assert len(files) == 3
    cut, edited, kept = files
    cut.write_text(cut.read_text()[: len(cut.read_text()) // 2])
    rows = json.loads(edited.read_text())
    del rows[0]["objective"]
    edited.write_text(json.dumps(rows))
    kept_time = kept.stat().st_mtime_ns

    again = run("sweep", str(path), "-o", str(out), "--engine", "python", "--resume",
                "--json")
    assert again.exit_code == 0, again.output
    document = json.loads(again.stdout)
    assert document["ran"] == 2 and document["skipped"] == 1
    assert cut.name in again.stderr and edited.name in again.stderr
    assert "runs again" in again.stderr
    assert kept.stat().st_mtime_ns == kept_time
    assert _without_seconds((out / "results.csv").read_text()) == _without_seconds(before)


def test_a_damaged_rows_file_left_by_an_interrupted_resume_adds_no_rows(
        tmp_path: Path) -> None:
    from streamplace.sweep import run_sweep

    from ..support.sweeps import write_sweep

    path = write_sweep(tmp_path, {"methods": ["odrp"], "time_limit": 30,
                                  "axes": {"rate_scale": [1, 2]}})
    out = tmp_path / "out"
    run_sweep(str(path), str(out), engine="python", plots=False)
    damaged = sorted((out / "rows").glob("*.json"))[0]
    damaged.write_text('[{"scenario_id": "')
    stop = StopRequest()
    stop.set(2)  # the resumed sweep is stopped before it runs anything
    report = run_sweep(str(path), str(out), engine="python", resume=True, plots=False,
                       stop=stop)
    assert report.interrupted and report.ran == 0
    assert len(report.rows) == 1 and report.rows[0]["scenario_id"] != damaged.stem
    assert any(damaged.name in w for w in report.warnings)


def _without_seconds(csv_text: str) -> list[dict[str, str]]:
    import csv
    import io

    return [{k: v for k, v in row.items() if k != "seconds"}
            for row in csv.DictReader(io.StringIO(csv_text))]


# row 11: a sweep file is checked before anything runs


@pytest.mark.parametrize(("body", "expected"), [
    ({"methods": ["odrp", "greedy-first-fit"]}, "methods[1]: unknown method"),
    ({"methods": ["odrp", "odrp"]}, "methods[1]"),
    ({"axes": {"seed": [1, 2, 1]}}, "axes.seed[2]: 1 repeats axes.seed[0]"),
    ({"axes": {"rate_scale": [1, 1.0]}}, "axes.rate_scale[1]"),
    ({"axes": {"weights": [{"r": 1}, {"response_time": 1.0}]}}, "axes.weights[1]"),
    ({"axes": {"failures": ["none", "none"]}}, "axes.failures[1]"),
    ({"analysis": "max-rate", "axes": {"rate_scale": [1.0, 2.0]}}, "drop axes.rate_scale"),
])
def test_sweep_files_that_cannot_mean_what_they_say_exit_2(
        tmp_path: Path, body: dict[str, Any], expected: str) -> None:
    from ..support.sweeps import write_sweep

    path = write_sweep(tmp_path, {"methods": ["odrp"], **body})
    result = run("sweep", str(path), "-o", str(tmp_path / "out"), "--engine", "python")
    assert result.exit_code == 2, result.output
    assert expected in result.stderr and "sweep.yaml:" in result.stderr
    assert not (tmp_path / "out").exists()


def test_a_huge_sweep_needs_yes(tmp_path: Path) -> None:
    from streamplace.io.readers import read_document
    from streamplace.model.sweep import SweepFile
    from streamplace.sweep.checks import LARGE_SWEEP, check_size

    from ..support.sweeps import write_sweep

    seeds = list(range(LARGE_SWEEP // 2 + 1))
    path = write_sweep(tmp_path, {"methods": ["odrp", "round-robin"], "axes": {"seed": seeds}})
    result = run("sweep", str(path), "-o", str(tmp_path / "out"), "--engine", "python")
    assert result.exit_code == 2
    assert f"{2 * len(seeds):,} scenarios" in result.stderr and "--yes" in result.stderr
    assert not (tmp_path / "out").exists()
    sweep = read_document(SweepFile, str(path))
    assert check_size(sweep, {"infra.yaml": 1}, yes=True) == 2 * len(seeds)


# row 14: explain and report honour a time limit and say what they left out


def test_explain_and_report_stop_their_what_ifs_at_the_time_limit(tmp_path: Path) -> None:
    files = [sample("debs2015", "application.yaml"), sample("debs2015", "infrastructure.yaml"),
             sample("debs2015", "plan.yaml")]
    # the limit is over before the first what-if: reading the files takes longer than this
    cut = run("explain", *files, "--time-limit", "0.000001", "--json")
    assert cut.exit_code == 0, cut.output
    document = json.loads(cut.stdout)
    assert document["what_if"] == []
    assert any("stopped at the time limit" in n and "not tried" in n
               for n in document["notes"])
    assert document["binding"] and document["operators"]  # the rest is still explained
    whole = json.loads(run("explain", *files, "--time-limit", "600", "--json").stdout)
    assert whole["what_if"] and not any("time limit" in n for n in whole["notes"])

    html = tmp_path / "r.html"
    report = run("report", *files, "-o", str(html), "--time-limit", "0.000001")
    assert report.exit_code == 0, report.output
    assert "stopped at the time limit" in html.read_text()
    bad = run("explain", *files, "--time-limit", "-1")
    assert bad.exit_code == 2 and "--time-limit" in bad.stderr


def test_a_command_run_inside_a_longer_process_counts_its_limit_from_its_own_start() -> None:
    """The console script's limit counts from its process's start (imports included); the
    app run in-process (this test runner, a notebook) counts from the command's start, not
    from when the host process started: an explain late in a long test run used to find
    its 600 s already spent."""
    from streamplace.cli import clock
    from streamplace.cli.runtime import finishing_reserve, remaining

    age = clock.process_seconds()  # this process has run for this long before the command
    limit = age + 1.0
    clock.command_begins()
    assert remaining(limit) > limit - finishing_reserve(limit) - age


# ---------------------------------------------------------- HiGHS left behind at the exit

LEFT_BEHIND = """
import random, sys, threading
from streamplace.cli import entry
from streamplace.solve.budget import Budget
from streamplace.solve.mip.highs.solve import solve_highs
from streamplace.solve.mip.model import LinearModel
from streamplace.solve.result import SolveOptions

rng = random.Random(7)
model = LinearModel(maximize=True)
items = [model.binary(f"x{k}", rng.randint(10, 60)) for k in range(150)]
for _ in range(8):
    weights = [rng.randint(5, 40) for _ in items]
    model.row(items, weights, hi=sum(weights) / 3)
budget = Budget(time_limit=None)
release = threading.Event()

def progress(seen):
    if seen.incumbent is not None and not budget.interrupted:
        budget.stop.set()
        release.wait()  # HiGHS cannot stop while its callback runs

outcome = solve_highs(model, SolveOptions(progress=progress), budget=budget)
print(outcome.report.model_status, flush=False)
if sys.argv[1] == "cli":
    entry._leave_solves_behind(3)  # HiGHS is still stuck: the command line leaves at once
release.set()  # a library user's process ends while HiGHS is still stopping
"""


@pytest.mark.parametrize(("how", "code"), [("cli", 3), ("library", 0)])
def test_a_process_ends_cleanly_with_a_solve_left_behind(tmp_path: Path, how: str,
                                                          code: int):
    """A Python ending while HiGHS still ran in its thread aborted (exit 134, "terminate
    called"): the command line leaves at once with its own exit code, everything written;
    a library user's process waits at exit for the solve to stop."""
    script = tmp_path / "left_behind.py"
    script.write_text(LEFT_BEHIND)
    done = subprocess.run([sys.executable, str(script), how], capture_output=True, text=True,
                          timeout=300, check=False)
    assert (done.returncode, done.stdout) == (code, "abandoned\n"), done.stderr
    assert "terminate" not in done.stderr


class Ended(BaseException):
    """What a signal raises to end the command at once (cli.signals.Interrupted)."""


def test_a_solve_ended_by_an_exception_is_cancelled_not_left_running():
    """A hard multi-dimensional knapsack in HiGHS; the budget raises while HiGHS runs, as
    a second signal does: the solve is cancelled and kept for the exit to wait on (left
    running, it would call into a finalising interpreter: a C++ abort)."""
    import random

    import highspy
    import numpy as np

    from streamplace.solve.budget import Budget
    from streamplace.solve.mip.highs import thread

    rng = random.Random(7)
    n, m = 80, 6
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    thread.own_locks(h)
    h.addVars(n, np.zeros(n), np.ones(n))
    h.changeColsIntegrality(n, np.arange(n, dtype=np.int32),
                            np.array([highspy.HighsVarType.kInteger] * n))
    h.changeColsCost(n, np.arange(n, dtype=np.int32),
                     np.array([-rng.randint(10, 100) for _ in range(n)], dtype=float))
    for _ in range(m):
        weights = np.array([rng.randint(5, 60) for _ in range(n)], dtype=float)
        h.addRow(-highspy.kHighsInf, float(weights.sum() / 3), n,
                 np.arange(n, dtype=np.int32), weights)

    class Raising(Budget):
        calls = 0

        def expired(self) -> bool:
            Raising.calls += 1
            if Raising.calls > 3:  # HiGHS has started: it is running when this raises
                raise Ended
            return False

    with pytest.raises(Ended):
        thread.solve_in_thread(h, Raising(None, StopRequest()))
    assert h in thread._ABANDONED or not h.is_solver_running()
    thread.wait_for_abandoned()  # returns: the cancelled solve stopped at its next check
    assert not h.is_solver_running()
