"""A fresh clone, hostile input and interrupts: what a user hits, through the real CLI on
real files (docs/cli.md, "Guarantees")."""

from __future__ import annotations

import json
import os
import re
import signal
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from streamplace.cli.app import app

from ..conftest import ROOT, sample

runner = CliRunner()
DEBS = [sample("debs2015", "application.yaml"), sample("debs2015", "infrastructure.yaml")]
PLAN = sample("debs2015", "plan.yaml")
CHAIN = [sample("video-chain", "application.yaml"), sample("video-chain", "infrastructure.yaml")]


def run(*args: str, stdin: str | None = None):
    return runner.invoke(app, list(args), input=stdin)


def cli(*args: str, **kwargs) -> subprocess.Popen[str]:
    """The installed command in its own process, as a CI job runs it (no terminal)."""
    return subprocess.Popen([sys.executable, "-m", "streamplace", *args], text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kwargs)


# ------------------------------------------------------------------ the repository stands alone

def test_nothing_in_the_repository_points_outside_it():
    """Users have the repository only: no relative path in any file leads out of it, and
    the papers are named, not numbered as they are filed elsewhere."""
    files = [ROOT / name for name in ("README.md", "Makefile", "pyproject.toml", ".ci/run")]
    for folder in ("streamplace", "tests", "bench", "scripts", "docs", "samples", "schemas"):
        files += [p for p in (ROOT / folder).rglob("*") if p.is_file()
                  and "__pycache__" not in p.parts and p.suffix != ".png"]
    upward = re.compile(r"(?<![\w.])(?:\.\./)+[\w.-]+")
    numbered = re.compile(r"\bseed \d{3}\b", re.IGNORECASE)
    offenders = []
    for path in files:
        text = path.read_text(errors="replace")
        # the README's commands write files into out/ (a sweep file), whose paths start there
        bases = [path.parent, *([ROOT / "out"] if path.name == "README.md" else [])]
        escapes = [m for m in upward.findall(text)
                   if not any((base / m).resolve().is_relative_to(ROOT.resolve())
                              for base in bases)]
        if escapes or numbered.search(text):
            offenders.append((str(path.relative_to(ROOT)), escapes[:3]))
    assert offenders == []


def test_every_method_is_documented_and_every_documented_method_exists():
    from streamplace.solve import method_names

    cli_md = (ROOT / "docs" / "cli.md").read_text()
    names = method_names()
    assert [n for n in names if f"`{n}`" not in cli_md] == []
    for doc in ("cli.md", "formats.md", "models.md"):
        assert (ROOT / "docs" / doc).stat().st_size > 2000, doc


# ------------------------------------------------------------ output files: never destroyed

def test_dash_writes_the_plan_to_stdout():
    result = run("solve", *DEBS, "--weights", "c=1", "-q", "-o", "-")
    assert result.exit_code == 0, result.stderr
    assert yaml.safe_load(result.stdout)["metrics"]["cost"] == 9.0
    both = run("solve", *DEBS, "-o", "-", "--json")
    assert both.exit_code == 2 and "would both write to standard output" in both.stderr


def test_a_link_is_followed_and_its_target_replaced(tmp_path):
    target = tmp_path / "real" / "plan.yaml"
    target.parent.mkdir()
    target.write_text("old\n")
    os.chmod(target, 0o640)
    link = tmp_path / "plan.yaml"
    link.symlink_to(target)
    dangling = tmp_path / "new.yaml"
    dangling.symlink_to(tmp_path / "real" / "fresh.yaml")
    for out in (link, dangling):
        result = run("solve", *DEBS, "--weights", "c=1", "-q", "-o", str(out))
        assert result.exit_code == 0, result.stderr
        assert out.is_symlink()
    assert yaml.safe_load(target.read_text())["status"] == "optimal"
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert yaml.safe_load((tmp_path / "real" / "fresh.yaml").read_text())["method"] == "odrp"
    assert sorted(p.name for p in target.parent.iterdir()) == ["fresh.yaml", "plan.yaml"]


def test_a_fifo_is_written_through_never_replaced(tmp_path):
    fifo = tmp_path / "plan.fifo"
    os.mkfifo(fifo)
    received: list[str] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_text()))
    reader.start()
    result = run("solve", *DEBS, "--weights", "c=1", "-q", "-o", str(fifo))
    reader.join(timeout=30)
    assert result.exit_code == 0, result.stderr
    assert stat.S_ISFIFO(fifo.stat().st_mode)
    assert yaml.safe_load(received[0])["metrics"]["cost"] == 9.0


def test_write_failure_names_the_users_path_and_exits_2(tmp_path):
    for where in ("/proc/streamplace-plan.yaml", "/proc/no-such-folder/plan.yaml"):
        result = run("solve", *DEBS, "--weights", "c=1", "-q", "-o", where)
        assert result.exit_code == 2, result.stderr
        assert f"error: {where}: cannot write" in result.stderr
        assert ".tmp" not in result.stderr and "Errno" not in result.stderr
    folder = tmp_path / "out"
    folder.mkdir()
    result = run("validate", *DEBS, PLAN, "--junit-xml", str(folder))
    assert result.exit_code == 2 and f"{folder}: is a directory" in result.stderr


# ----------------------------------------------------- time limits, memory and interrupts

def _huge_replicas(tmp_path: Path, replicas: int, resources: bool = True) -> list[str]:
    app_doc = yaml.safe_load(Path(DEBS[0]).read_text())
    app_doc["operators"][1]["max_replicas"] = replicas
    infra_doc = yaml.safe_load(Path(DEBS[1]).read_text())
    if not resources:
        for node in infra_doc["nodes"]:
            node.pop("resources")
    (tmp_path / "app.yaml").write_text(yaml.safe_dump(app_doc))
    (tmp_path / "infra.yaml").write_text(yaml.safe_dump(infra_doc))
    return [str(tmp_path / "app.yaml"), str(tmp_path / "infra.yaml")]


@pytest.mark.parametrize("replicas", [1000, 100_000_000])
def test_a_huge_max_replicas_costs_what_capacity_allows(tmp_path, replicas):
    """Six nodes of 8 slots hold 40 parser replicas next to the others' minimum needs: the
    models and heuristics are sized by that (a node limit, not a time limit, ends the MIP,
    so a busy machine gives the same answer)."""
    files = _huge_replicas(tmp_path, replicas)
    done = cli("solve", *files, "--solver-option", "mip_max_nodes=200", "-o",
               str(tmp_path / "p.yaml"), "-q")
    _out, err = done.communicate()
    assert done.returncode == 0, err
    plan = yaml.safe_load((tmp_path / "p.yaml").read_text())
    assert plan["status"] in ("optimal", "limit")
    assert sum(plan["placement"]["parser"].values()) <= 40
    assert plan["solver"]["variables"] < 50_000  # before, 91 s and 13 GB of model
    for method in ("hill-climbing", "resource-aware"):
        result = run("solve", *files, "--method", method, "-q", "--json")
        assert result.exit_code == 0, result.stderr


def test_unbounded_capacity_and_huge_k_is_refused_before_building(tmp_path):
    files = _huge_replicas(tmp_path, 100_000_000, resources=False)
    result = run("solve", *files, "-q")
    assert result.exit_code == 2
    assert "operators[1].max_replicas: the compact model would need about" in result.stderr
    assert "set max_replicas of parser to the most replicas you would run" in result.stderr


def _hard_instance(tmp_path: Path) -> list[str]:
    """30 nodes x 20 operators, k = 4, response time only: HiGHS needs minutes to prove it,
    and has an incumbent within a second (the baseline start)."""
    sys.path.insert(0, str(ROOT / "bench"))
    from scenarios import cluster, dag

    (tmp_path / "a.yaml").write_text(yaml.safe_dump(dag(20, 4, 0)))
    (tmp_path / "i.yaml").write_text(yaml.safe_dump(cluster(30, 0)))
    return [str(tmp_path / "a.yaml"), str(tmp_path / "i.yaml"), "--weights", "r=1"]


@pytest.mark.parametrize(("sig", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_stops_the_solve_and_keeps_the_best_plan(tmp_path, sig, code):
    out = tmp_path / "plan.yaml"
    proc = cli("solve", *_hard_instance(tmp_path), "-o", str(out))
    ready = _progress_line(proc)  # under way with a plan and a bound
    while "gap" not in ready:
        assert ready.startswith("odrp: ") and "incumbent" in ready, ready
        ready = _progress_line(proc)
    proc.send_signal(sig)
    _stdout, stderr = proc.communicate()
    assert proc.returncode == code, stderr
    plan = yaml.safe_load(out.read_text())
    assert plan["status"] == "interrupted" and plan["gap"] > 0
    assert "interrupted: the best plan so far" in stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.yaml", "i.yaml", "plan.yaml"]


def _progress_line(proc: subprocess.Popen[str]) -> str:
    """The first line the command writes on stderr (its first progress line off a
    terminal); what it says is the caller's to check."""
    assert proc.stderr is not None
    return proc.stderr.readline()


def test_a_signal_stops_a_heuristic_too(tmp_path):
    """Hill climbing over 1,000 instances on 200 workers improves for minutes; stopped, it
    hands over its current (feasible) placement."""
    from streamplace.model.topologies import ecker_topology, ecker_workers

    app_doc = ecker_topology(1, operations=667, parallelism=(1, 2), duplicate=False,
                             demand={"cpu": 0.05, "memory": 64.0})
    (tmp_path / "a.yaml").write_text(yaml.safe_dump(app_doc))
    (tmp_path / "i.yaml").write_text(yaml.safe_dump(ecker_workers(200)))
    out = tmp_path / "plan.yaml"
    proc = cli("solve", str(tmp_path / "a.yaml"), str(tmp_path / "i.yaml"), "--method",
               "hill-climbing", "--time-limit", "600", "-o", str(out))
    ready = _progress_line(proc)  # the start is built and the climb under way
    assert ready.startswith("hill-climbing: ") and "incumbent" in ready, ready
    proc.send_signal(signal.SIGINT)
    _stdout, stderr = proc.communicate()
    assert proc.returncode == 130, stderr
    assert yaml.safe_load(out.read_text())["status"] == "interrupted"


# ----------------------------------------------------------------- options and messages

@pytest.mark.parametrize(("args", "flag"), [
    (["--time-limit", "-1"], "--time-limit"), (["--time-limit", "nan"], "--time-limit"),
    (["--gap", "2"], "--gap"), (["--gap", "-0.1"], "--gap"), (["--gap", "nan"], "--gap"),
    (["--threads", "-3"], "--threads"), (["--seed", "-1"], "--seed"),
    (["--weights", "r=.5,r=.5"], "--weights"), (["--weights", "r=inf"], "--weights"),
    (["--weights", "r=1", "--objective", sample("debs2015", "objective-balanced.yaml")],
     "--weights"),
    (["--method", "hill-climbing", "--formulation", "multiset"], "--formulation"),
    (["--method", "hill-climbing", "--solver-option", "mapping=usage"],
     "--solver-option mapping"),
    (["--method", "relaxation", "--solver-option", "maping=usage"], "--solver-option maping"),
    (["--method", "relaxation", "--solver-option", "mapping=closest"],
     "--solver-option mapping"),
    (["--method", "round-robin", "--seed", "3"], "--seed"),
    (["--solver", "cbc", "--solver-option", "presolve=off"], "--solver-option presolve"),
    (["--solver-option", "mip_rel_gap=0.1"], "--solver-option mip_rel_gap"),
])
def test_bad_options_exit_2_naming_the_flag(args, flag):
    result = run("solve", *DEBS, *args)
    assert result.exit_code == 2, result.stderr
    assert f"error: {flag}" in result.stderr, result.stderr
    assert "—" in result.stderr  # and a fix


def test_misspelt_parameter_gets_a_hint():
    result = run("solve", *DEBS, "--method", "relaxation", "--solver-option", "maping=usage")
    assert "did you mean 'mapping'?" in result.stderr


@pytest.mark.parametrize(("args", "flag"), [
    (["--min-availability", "1.5"], "--min-availability"),
    (["--max-cost", "-1"], "--max-cost"), (["--max-response-time", "-5 ms"],
                                           "--max-response-time"),
    (["--max-traffic", "nan"], "--max-traffic")])
def test_bad_thresholds_exit_2(args, flag):
    result = run("validate", *DEBS, PLAN, *args)
    assert result.exit_code == 2 and f"error: {flag}" in result.stderr, result.stderr


def test_compare_names_methods_flag():
    result = run("compare", *DEBS, "--methods", "odrp,bogus")
    assert result.exit_code == 2
    assert "error: --methods: unknown method 'bogus'" in result.stderr


def test_every_problem_of_a_file_at_once_types_and_references(tmp_path):
    bad = tmp_path / "app.yaml"
    bad.write_text("name: x\noperators:\n  - {id: a, replicas: two}\n  - {id: b}\n"
                   "streams:\n  - {from: a, to: ghost, rate: 1}\n  - {from: a, to: b, "
                   "rate: lots}\n")
    result = run("solve", str(bad), DEBS[1])
    assert result.exit_code == 2
    assert f"{bad}:3: operators[0].replicas: expected a whole number" in result.stderr
    assert f"{bad}:6: streams[0].to: unknown operator 'ghost'" in result.stderr
    assert f"{bad}:7: streams[1].rate: 'lots' is not a rate" in result.stderr
    assert "3 problems found" in result.stderr


def test_no_validation_library_wording(tmp_path):
    empty = tmp_path / "app.yaml"
    empty.write_text("name: x\noperators: []\n")
    result = run("solve", str(empty), DEBS[1])
    assert result.exit_code == 2
    assert "operators: operators is empty — list at least 1 entry" in result.stderr
    assert "after validation" not in result.stderr and "should have" not in result.stderr


def test_two_inputs_from_stdin_are_refused():
    result = run("solve", "-", "-", stdin=Path(DEBS[0]).read_text())
    assert result.exit_code == 2
    assert "2 inputs read standard input (-) — only one file can come from -" in result.stderr


def test_validate_fails_a_plan_made_for_another_application(tmp_path):
    other = tmp_path / "plan.yaml"
    other.write_text(Path(PLAN).read_text().replace("application: debs2015-q1",
                                                    "application: debs2016-q2"))
    result = run("validate", *DEBS, str(other), "--json")
    assert result.exit_code == 1
    failed = [c for c in json.loads(result.stdout)["checks"] if not c["passed"]]
    assert [(c["group"], c["name"]) for c in failed] == [("plan", "application")]


def test_a_closed_pipe_ends_quietly():
    command = (f"set -o pipefail; {sys.executable} -m streamplace solve {DEBS[0]} {DEBS[1]} "
               "2>&1 | head -2; echo \"status=${PIPESTATUS[0]}\"")
    done = subprocess.run(["bash", "-c", command], capture_output=True, text=True, timeout=120,
                          check=False)
    lines = done.stdout.splitlines()
    assert lines[-1] == "status=141", done.stdout + done.stderr
    assert len(lines) == 3 and "Traceback" not in done.stdout + done.stderr
    assert done.stderr == ""


def test_progress_to_a_reader_that_left_stops_without_ending_the_solve(capsys):
    """A progress line written after ``| head`` left (on a slow machine the solve outlives
    it) met the closed pipe in the solver's callback, where the exit it raises ended the
    solve as a solver error (exit 3). It is caught there, no line is tried again, and the
    command, which goes on, ends with 141 (capsys: no real stdout to set aside)."""
    import io

    import typer

    from streamplace.cli import console as cli_console
    from streamplace.cli.progress import live_progress
    from streamplace.solve.progress import SolverProgress

    class Gone(io.StringIO):  # a pipe whose reader left: every write fails as it does
        tried = 0

        def write(self, text: str) -> int:
            Gone.tried += 1
            raise BrokenPipeError(32, "Broken pipe")

    reached: list[float] = []  # the solve's progress, each report returned from

    @cli_console.handle_errors
    def solve() -> str:
        con = cli_console._Console(file=Gone(), force_terminal=False)
        with live_progress(con, "odrp", True) as show:
            for seconds in (0.1, 0.4, 20.0, 40.0):
                show(SolverProgress(seconds, 0.7, 0.98, 0.38, 0))
                reached.append(seconds)
        return "solved"

    with pytest.raises(typer.Exit) as ended:
        solve()
    assert ended.value.exit_code == 141 and reached == [0.1, 0.4, 20.0, 40.0]
    assert Gone.tried == 1  # the first line met the closed pipe; none was tried after


def test_the_path_methods_solve_the_chain_sample(tmp_path):
    for method in ("path-exact", "least-cost-map", "annealed-least-cost-map",
                   "random-neighbor"):
        out = tmp_path / f"{method}.yaml"
        result = run("solve", *CHAIN, "--method", method, "-q", "-o", str(out))
        assert result.exit_code == 0, (method, result.stderr)
        assert run("validate", *CHAIN, str(out), "-q").exit_code == 0


def test_isolated_operators_and_disconnected_parts_are_warned(tmp_path):
    app_file = tmp_path / "app.yaml"
    app_file.write_text("name: x\noperators: [{id: a}, {id: b}, {id: c}, {id: d}, {id: lone}]\n"
                        "streams:\n  - {from: a, to: b, rate: 1}\n  - {from: c, to: d, rate: 1}\n")
    result = run("solve", str(app_file), DEBS[1], "-q", "--json")
    assert result.exit_code == 0, result.stderr
    assert "warning: operator lone has no stream" in result.stderr
    assert "the application has 2 parts with no stream between them ({a, b}; {c, d})" in \
        result.stderr
    assert len(json.loads(result.stdout)["warnings"]) == 2
