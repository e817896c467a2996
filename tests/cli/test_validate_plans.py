"""streamplace-validate-plans as a hostile repository would drive it: plan names that look
like options, plans that share a file name, a reports path that is a file, broken shell
words in the CI variables, and signals while a plan is validated."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from ..conftest import ROOT

BIN = Path(sys.executable).parent
DEBS = ROOT / "samples" / "debs2015"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository with the DEBS sample, a good plan and a failing one (doubled load)."""
    for name in ("application.yaml", "application-2x.yaml", "infrastructure.yaml",
                 "plan.yaml"):
        shutil.copy(DEBS / name, tmp_path / name)
    return tmp_path


def wrapper(folder: Path, *args: str, env: dict[str, str] | None = None,
            command: str = "streamplace-validate-plans") -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(BIN / command), *args], cwd=folder, capture_output=True,
                          text=True, timeout=600, env={**os.environ, **(env or {})})


def test_a_plan_named_like_an_option_never_passes_nor_moves_the_reports(repo):
    """A failing plan named --junit-xml=owned.yaml, matched by a glob, must not become an
    option that sends the other plans' JUnit file elsewhere and lets the run pass."""
    shutil.copy(repo / "plan.yaml", repo / "--junit-xml=owned.yaml")
    plans = sorted(str(p.name) for p in repo.glob("*.yaml") if "plan" in p.name
                   or "owned" in p.name)
    done = wrapper(repo, "application-2x.yaml", "infrastructure.yaml", *plans)
    assert done.returncode == 2, done.stderr
    assert "--junit-xml is set for each plan" in done.stderr
    assert not (repo / "owned.yaml").exists()
    # after --, the same name is a plan, validated (and failing) like the others
    after = wrapper(repo, "application-2x.yaml", "infrastructure.yaml", "--", *plans)
    assert after.returncode == 1, after.stderr
    assert "--junit-xml=owned.yaml: FAIL" in after.stderr
    assert (repo / "reports" / "plan.xml").exists()
    assert (repo / "reports" / "--junit-xml=owned.xml").exists()


def test_the_ci_variables_put_every_plan_after_the_options(repo):
    """The env entry point (the action and the GitLab template): a glob matching a plan
    named -x.yaml validates it as a plan, and the good plans still pass."""
    shutil.copy(repo / "plan.yaml", repo / "-x.yaml")
    env = {"STREAMPLACE_APPLICATION": "application.yaml",
           "STREAMPLACE_INFRASTRUCTURE": "infrastructure.yaml",
           "STREAMPLACE_PLANS": "*.yaml", "STREAMPLACE_VALIDATE_OPTIONS": ""}
    shutil.move(repo / "application.yaml", repo / "app")
    shutil.move(repo / "application-2x.yaml", repo / "app-2x")
    shutil.move(repo / "infrastructure.yaml", repo / "infra")
    env |= {"STREAMPLACE_APPLICATION": "app", "STREAMPLACE_INFRASTRUCTURE": "infra"}
    done = wrapper(repo, env=env, command="streamplace-validate-plans-env")
    assert done.returncode == 0, done.stderr
    assert "-x.yaml: pass" in done.stderr and "plan.yaml: pass" in done.stderr
    failing = wrapper(repo, env=env | {"STREAMPLACE_APPLICATION": "app-2x"},
                      command="streamplace-validate-plans-env")
    assert failing.returncode == 1 and "-x.yaml: FAIL" in failing.stderr


def test_plans_of_one_file_name_keep_their_own_reports(repo):
    for folder in ("a", "b"):
        (repo / folder).mkdir()
        shutil.copy(repo / "plan.yaml", repo / folder / "plan.yaml")
    done = wrapper(repo, "application.yaml", "infrastructure.yaml", "a/plan.yaml",
                   "b/plan.yaml")
    assert done.returncode == 0, done.stderr
    written = sorted(p.name for p in (repo / "reports").iterdir())
    assert written == ["a_plan.html", "a_plan.xml", "b_plan.html", "b_plan.xml"]
    assert "a/plan.yaml: validating (reports reports/a_plan.xml" in done.stderr


def test_validate_options_take_their_values_wherever_they_are(repo):
    """The pre-commit recipe: options after the two files, a value as its own word; the
    pre-commit hook appends the plans after them."""
    done = wrapper(repo, "application.yaml", "infrastructure.yaml", "--max-response-time",
                   "150 ms", "--min-availability=0.99", "plan.yaml")
    assert done.returncode == 0, done.stderr
    assert "150 ms" not in done.stderr.replace("--max-response-time", "")  # not a plan
    tight = wrapper(repo, "application.yaml", "infrastructure.yaml", "plan.yaml",
                    "--max-response-time", "1 ms")
    assert tight.returncode == 1, tight.stderr
    assert "response_time" in (repo / "reports" / "plan.xml").read_text()


@pytest.mark.parametrize(("args", "env", "said"), [
    (["application.yaml", "infrastructure.yaml", "plan.yaml", "--reports", "plan.yaml"], {},
     "give --reports a folder"),
    (["application.yaml", "infrastructure.yaml", "plan.yaml", "--max-respons-time", "1"],
     {}, "no option '--max-respons-time'"),
    (["application.yaml", "infrastructure.yaml"], {}, "at least one PLAN"),
])
def test_bad_usage_is_exit_2_in_words(repo, args, env, said):
    done = wrapper(repo, *args, env=env)
    assert done.returncode == 2, done.stderr
    assert said in done.stderr and "Traceback" not in done.stderr


@pytest.mark.parametrize("variable", ["STREAMPLACE_PLANS", "STREAMPLACE_VALIDATE_OPTIONS"])
def test_an_unbalanced_quote_in_a_ci_variable_is_exit_2(repo, variable):
    env = {"STREAMPLACE_APPLICATION": "application.yaml",
           "STREAMPLACE_INFRASTRUCTURE": "infrastructure.yaml",
           "STREAMPLACE_PLANS": "plan.yaml", variable: "--max-response-time '150 ms"}
    if variable == "STREAMPLACE_PLANS":
        env[variable] = "'plan.yaml"
    done = wrapper(repo, env=env, command="streamplace-validate-plans-env")
    assert done.returncode == 2, done.stderr
    assert variable in done.stderr and "Traceback" not in done.stderr


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_signal_stops_the_running_validate_and_leaves_no_child(repo, signum, code):
    """The signal is sent once the wrapper says it is validating (its readiness line): it
    reaches the validate running, the wrapper waits for it, says so and exits 128 + N."""
    plans = []
    for k in range(3):
        shutil.copy(repo / "plan.yaml", repo / f"plan{k}.yaml")
        plans.append(f"plan{k}.yaml")
    process = subprocess.Popen([str(BIN / "streamplace-validate-plans"), "application.yaml",
                                "infrastructure.yaml", *plans, "--reports",
                                str(repo / "reports")], cwd=repo,  # its path names the child
                               stderr=subprocess.PIPE, text=True)
    assert process.stderr is not None
    line = process.stderr.readline()
    assert "plan0.yaml: validating" in line, line
    process.send_signal(signum)
    rest = process.stderr.read()
    assert process.wait(timeout=120) == code, rest
    assert "Traceback" not in rest and f"stopped by signal {int(signum)}" in rest
    assert "plan2.yaml" not in rest  # nothing started after the signal
    leftover = subprocess.run(["pgrep", "-f", f"streamplace validate .*{repo}"],
                              capture_output=True, text=True)
    assert leftover.stdout == ""


def test_a_plan_that_does_not_fit_beside_what_runs_fails_ci(repo):
    """validate's --occupied reaches every plan: the plan fills n1's 8 slots, which fit on
    their own and not beside another application's 2."""
    (repo / "held.yaml").write_text("schema: streamplace/occupied/v1\napplications:\n"
                                    "  - {name: ingest, nodes: {n1: 2}}\n")
    alone = wrapper(repo, "application.yaml", "infrastructure.yaml", "plan.yaml")
    assert alone.returncode == 0, alone.stderr
    beside = wrapper(repo, "application.yaml", "infrastructure.yaml", "--occupied",
                     "held.yaml", "plan.yaml")
    assert beside.returncode == 1, beside.stderr
    assert "held: ingest 2" in (repo / "reports" / "plan.xml").read_text()


def test_every_console_script_answers_help(tmp_path):
    """Each script pyproject.toml installs answers --help with its usage and exit 0, and
    writes nothing."""
    import tomllib

    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert len(scripts) >= 3
    for name in scripts:
        done = wrapper(tmp_path, "--help", command=name)
        assert done.returncode == 0 and "Usage" in done.stdout, (name, done.stderr)
    assert not list(tmp_path.iterdir())
