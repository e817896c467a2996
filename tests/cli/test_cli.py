"""The command line through Typer's runner: every exit code of docs/cli.md, outputs, JUnit."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from typer.testing import CliRunner

from streamplace.io.schema import KINDS

from ..conftest import DEBS, PLAN, ROOT, run, sample

runner = CliRunner()


def test_evaluate_prints_tables_on_stderr_and_json_on_stdout():
    result = run("evaluate", *DEBS, PLAN, "--objective",
                 sample("debs2015", "objective-balanced.yaml"), "--json")
    assert result.exit_code == 0, result.stderr
    doc = json.loads(result.stdout)
    assert doc["feasible"] is True
    assert doc["metrics"]["utility"] == pytest.approx(0.93336, abs=5e-6)
    assert doc["plan"]["placement"]["partialRank"] == {"n1": 2}
    assert doc["plan"]["bounds_used"]["response_time"] == [0.005, 0.45]
    assert "Critical path" in result.stderr and "utility F" in result.stderr


def test_weights_flag_overrides_objective():
    result = run("evaluate", *DEBS, PLAN, "--weights", "r=1", "--json", "-q")
    assert result.exit_code == 0
    terms = json.loads(result.stdout)["evaluation"]["utility"]["terms"]
    assert [t["weight"] for t in terms] == [1.0, 0.0, 0.0, 0.0]
    assert result.stderr == ""


def test_validate_passes_then_fails_a_threshold(tmp_path):
    ok = run("validate", *DEBS, PLAN, "--max-response-time", "100 ms", "--min-availability",
             "0.99")
    assert ok.exit_code == 0, ok.stderr
    junit = tmp_path / "reports" / "placement.xml"
    slow = run("validate", *DEBS, PLAN, "--max-response-time", "50 ms", "--max-traffic",
               "1 kB/s", "--junit-xml", str(junit), "--json")
    assert slow.exit_code == 1
    doc = json.loads(slow.stdout)
    failed = [c["name"] for c in doc["checks"] if not c["passed"]]
    assert failed == ["max_response_time"]
    suite = ET.parse(junit).getroot().find("testsuite")
    assert suite is not None and suite.get("failures") == "1"
    case = suite.find("testcase[@name='max_response_time']")
    assert case is not None and case.find("failure") is not None
    assert "69.17 ms" not in case.find("failure").get("message")  # raw seconds, not prose
    assert suite.find("testcase[@name='capacity']").find("failure") is None


def test_validate_reports_constraint_violations(tmp_path):
    plan = tmp_path / "bad.yaml"
    plan.write_text("placement:\n  source: [n1]\n  parser: [n2, n2, n2, n2]\n"
                    "  filterByCoordinates: [n2]\n  computeRouteID: [n2]\n  metronome: [n2]\n"
                    "  countByWindow: [n2]\n  partialRank: [n2]\n  globalRank: [n3]\n")
    result = run("validate", *DEBS, str(plan), "--json")
    assert result.exit_code == 1
    names = sorted({v["constraint"] for v in json.loads(result.stdout)["violations"]})
    assert names == ["candidates", "capacity", "replicas.max", "stability"]


def test_bad_input_exits_2_with_location(tmp_path):
    bad = tmp_path / "app.yaml"
    bad.write_text("name: x\noperators:\n  - id: a\n    replicas: two\n")
    result = run("evaluate", str(bad), DEBS[1], PLAN)
    assert result.exit_code == 2
    assert f"{bad}:4: operators[0].replicas: expected a whole number" in result.stderr
    assert "Traceback" not in result.stderr + result.stdout


def test_plan_with_unknown_ids_exits_2(tmp_path):
    plan = tmp_path / "p.yaml"
    plan.write_text("placement:\n  parsr: [n1]\n  parser: [n9]\n")
    result = run("validate", *DEBS, str(plan))
    assert result.exit_code == 2
    assert "placement.parsr: unknown operator 'parsr' — did you mean 'parser'?" in result.stderr
    assert "unknown node 'n9'" in result.stderr


def test_cycle_is_named_and_exits_2(tmp_path):
    app_file = tmp_path / "cyc.yaml"
    app_file.write_text("name: c\noperators: [{id: a}, {id: b}]\nstreams:\n"
                        "  - {from: a, to: b, rate: 1}\n  - {from: b, to: a, rate: 1}\n")
    infra = tmp_path / "i.yaml"
    infra.write_text("name: i\nnodes: [{id: n}]\n")
    plan = tmp_path / "p.yaml"
    plan.write_text("placement: {a: [n], b: [n]}\n")
    result = run("evaluate", str(app_file), str(infra), str(plan))
    assert result.exit_code == 2
    assert "the streams form a cycle a -> b -> a" in result.stderr


def test_usage_errors_exit_2():
    assert run("evaluate", *DEBS).exit_code == 2
    assert run("validate", *DEBS, PLAN, "--no-such-flag").exit_code == 2
    bad_limit = run("validate", *DEBS, PLAN, "--max-response-time", "fast")
    assert bad_limit.exit_code == 2 and "--max-response-time" in bad_limit.stderr
    assert run("evaluate", *DEBS, PLAN, "--weights", "q=1").exit_code == 2
    assert run("schema", "planet").exit_code == 2


def test_junit_never_overwrites_an_input():
    before = Path(PLAN).read_bytes()
    result = run("validate", *DEBS, PLAN, "--junit-xml", PLAN)
    assert result.exit_code == 2 and "is also an input" in result.stderr
    assert Path(PLAN).read_bytes() == before


def test_internal_errors_exit_3_without_traceback(monkeypatch):
    import streamplace.cli.commands.evaluate as cli

    def broken(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(cli, "evaluate", broken)
    result = run("evaluate", *DEBS, PLAN)
    assert result.exit_code == 3
    assert "internal error: RuntimeError: boom" in result.stderr
    assert "Traceback" not in result.stderr


def test_missing_file_exits_2():
    result = run("evaluate", "nope.yaml", DEBS[1], PLAN)
    assert result.exit_code == 2 and "nope.yaml: file not found" in result.stderr


def test_plan_from_stdin():
    result = run("validate", *DEBS, "-", "--json", "-q", stdin=Path(PLAN).read_text())
    assert result.exit_code == 0 and json.loads(result.stdout)["passed"] is True


@pytest.mark.parametrize("kind", KINDS)
def test_schema_matches_the_golden_file(kind):
    result = run("schema", kind)
    assert result.exit_code == 0
    golden = (ROOT / "schemas" / f"{kind}.schema.json").read_text()
    assert result.stdout == golden, f"schemas/{kind}.schema.json drifted: run `make golden`"


def test_an_unknown_schema_kind_is_named_with_the_kinds_there_are():
    result = run("schema", "bogus")
    assert result.exit_code == 2
    assert "no file kind 'bogus'" in result.stderr and "catalog" in result.stderr
    assert "Value error" not in result.stderr


def test_methods_lists_the_registry():
    from streamplace.solve import methods

    result = run("methods", "--json")
    assert result.exit_code == 0
    assert [m["name"] for m in json.loads(result.stdout)] == [m.name for m in methods()]
    table = run("methods")  # the requested listing: on stdout, whole
    assert table.exit_code == 0 and table.stderr == ""
    assert all(m.name in table.stdout for m in methods())
    assert "annealed-least-cost-map" in table.stdout and "mapping=usage|nearest" in table.stdout


def test_real_console_script_runs_the_sample():
    """The installed entry point, as a user runs it (python -m streamplace)."""
    done = subprocess.run([sys.executable, "-m", "streamplace", "validate", *DEBS, PLAN,
                           "--max-response-time", "0.1"], capture_output=True, text=True,
                          check=False)
    assert done.returncode == 0, done.stderr
    assert "all" in done.stderr and "checks passed" in done.stderr
    version = subprocess.run([sys.executable, "-m", "streamplace", "--version"],
                             capture_output=True, text=True, check=False)
    assert version.stdout.startswith("streamplace ")


def test_tables_off_a_terminal_cut_no_number_and_no_name():
    """A CI log is not a terminal: every table is as wide as what it holds."""
    result = run("extract", str(ROOT / "samples" / "eventlog"), "--engine", "python",
                 "-o", "-")
    assert result.exit_code == 0, result.stderr
    assert "…" not in result.stderr
    assert "HashAggregate > BroadcastHashJoin > HashAggregate (stage 3)" in result.stderr
    assert re.search(r"\| +9\.307e\+04/s +\|", result.stderr)


def test_validate_says_each_thing_once():
    doubled = [sample("debs2015", "application-2x.yaml"), DEBS[1]]
    result = run("validate", *doubled, PLAN, "--json")
    assert result.exit_code == 1
    (stability,) = [c for c in json.loads(result.stdout)["checks"] if c["name"] == "stability"]
    assert stability["details"] == [
        "operator partialRank: 2500 tuples/s per replica on 2 replica(s) >= service rate 2371"]
    assert "partialRank: partialRank" not in result.stderr


def test_every_help_ends_with_an_example_and_the_exit_codes(tmp_path, monkeypatch):
    """Each command's --help shows an example that runs as shown (from the repository
    root; those that need a file made first are only parsed) and its exit codes."""
    import shlex
    import shutil

    from streamplace.cli.app import COMMANDS
    from streamplace.cli.epilogs import EXAMPLES

    assert set(EXAMPLES) == set(COMMANDS)
    shutil.copytree(ROOT / "samples", tmp_path / "samples")
    monkeypatch.chdir(tmp_path)
    for name in COMMANDS:
        shown = run(name, "--help")
        assert shown.exit_code == 0
        assert "Example:" in shown.stdout and "Exit codes: 0 done" in shown.stdout, name
        assert EXAMPLES[name] in shown.stdout, name
        words = shlex.split(EXAMPLES[name].split(" > ")[0])
        assert words[0] == "streamplace" and words[1] == name
        if name in ("evaluate", "validate", "explain", "render", "schema", "methods",
                    "export", "report"):
            ran = run(*words[1:])
            assert ran.exit_code == 0, (name, ran.stderr)


def test_shell_completion_for_bash_zsh_and_fish(monkeypatch):
    monkeypatch.setenv("_TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION", "1")
    for shell, marker in (("bash", "complete -o default -F _streamplace_completion"),
                          ("zsh", "#compdef streamplace"), ("fish", "complete --command")):
        shown = run("--show-completion", shell)
        assert shown.exit_code == 0 and marker in shown.stdout, shell
    import subprocess
    import sys

    def completed(words: str, index: int) -> list[str]:
        env = {**os.environ, "COMP_WORDS": words, "COMP_CWORD": str(index),
               "_STREAMPLACE_COMPLETE": "complete_bash"}
        done = subprocess.run([sys.executable, "-m", "streamplace"], env=env,
                              capture_output=True, text=True, timeout=120)
        return done.stdout.split()

    assert completed("streamplace so", 1) == ["solve"]
    assert "kubernetes" in completed("streamplace export a b c --to ", 6)


def test_json_stays_one_document_where_stderr_shares_stdout(tmp_path):
    """``cmd --json > out 2>&1``, and spark-submit, which merges a Python driver's stderr
    into its stdout: the JSON document is all there is; an error is still said."""
    import subprocess
    import sys

    def merged(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "streamplace", *args], cwd=tmp_path,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                              timeout=300)

    for args in (("solve", *DEBS, "--json"),
                 ("extract", str(ROOT / "samples" / "eventlog"), "--engine", "python",
                  "--json")):
        done = merged(*args)
        assert done.returncode == 0
        assert isinstance(json.loads(done.stdout), dict), done.stdout[:300]
    wrong = merged("solve", DEBS[0], "nope.yaml", "--json")
    assert wrong.returncode == 2 and "nope.yaml: file not found" in wrong.stdout


def test_a_ci_log_shows_the_first_bound_at_once_then_a_line_every_ten_seconds():
    """Off a terminal, progress lines are rate-limited; the first line with a bound (one
    known before the solver's own root, say) is news and is shown at once."""
    from rich.console import Console

    from streamplace.cli.progress import live_progress
    from streamplace.solve.progress import SolverProgress

    con = Console(record=True, force_terminal=False, width=200)
    with live_progress(con, "odrp", enabled=True) as progress:
        for seconds, bound in [(1.0, None), (2.0, 0.99), (3.0, 0.98), (12.5, 0.97)]:
            progress(SolverProgress(seconds, 0.5, bound, None, 0))
    lines = con.export_text().splitlines()
    assert [line.split(",")[0] for line in lines] == ["odrp: 1.0s", "odrp: 2.0s",
                                                      "odrp: 12.5s"], lines
