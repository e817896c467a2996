"""The CI recipes, run for real: the GitHub action's and the GitLab template's steps as the
shell scripts they are (their YAML checked against the published schemas that
check-jsonschema ships), and the pre-commit hook through pre-commit itself."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from ..conftest import ROOT

BIN = Path(sys.executable).parent
GOOD = {"STREAMPLACE_APPLICATION": "samples/debs2015/application.yaml",
        "STREAMPLACE_INFRASTRUCTURE": "samples/debs2015/infrastructure.yaml",
        "STREAMPLACE_PLANS": "samples/debs2015/plan*.yaml",
        "STREAMPLACE_CURRENT": "samples/debs2015/plan.yaml",
        "STREAMPLACE_VALIDATE_OPTIONS": "--max-response-time '150 ms' --min-availability 0.99"}
# the same plan once the load doubled: stability fails
BAD = {**GOOD, "STREAMPLACE_APPLICATION": "samples/debs2015/application-2x.yaml"}


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    shutil.copytree(ROOT / "samples", tmp_path / "samples")
    return tmp_path


def shell(script: str, folder: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", "-ec", script], cwd=folder, capture_output=True, text=True,
                          timeout=600, env={**os.environ, **env,
                                            "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"})


@pytest.mark.parametrize(("recipe", "schema"), [("action.yml", "vendor.github-actions"),
                                                ("ci/streamplace.gitlab-ci.yml",
                                                 "vendor.gitlab-ci")])
def test_the_recipes_fit_their_published_schemas(recipe, schema):
    done = subprocess.run([BIN / "check-jsonschema", "--builtin-schema", schema,
                           ROOT / recipe], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    manifest = subprocess.run([BIN / "pre-commit", "validate-manifest",
                               ROOT / ".pre-commit-hooks.yaml"], capture_output=True,
                              text=True)
    assert manifest.returncode == 0, manifest.stdout + manifest.stderr


def action_script(inputs: dict[str, str]) -> tuple[str, dict[str, str]]:
    """The action's shell steps as one script, and the environment its steps set, with
    ``${{ inputs.X }}`` and ``${{ github.action_path }}`` filled in. The install step is
    checked, not run: streamplace is installed here already."""
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    values = {name: spec.get("default", "") for name, spec in action["inputs"].items()}
    values.update(inputs)

    def filled(text: str) -> str:
        text = text.replace("${{ github.action_path }}", str(ROOT))
        return re.sub(r"\$\{\{ inputs\.([\w-]+) \}\}", lambda m: values[m.group(1)], text)

    lines, env = [], {}
    for step in action["runs"]["steps"]:
        if "run" not in step:
            continue
        if "pip install" in step["run"]:
            assert filled(step["run"]) == f'python -m pip install "{ROOT}"'
            continue
        lines.append(filled(step["run"]))
        env.update({k: filled(str(v)) for k, v in step.get("env", {}).items()})
    return "\n".join(lines), env


def inputs_of(variables: dict[str, str]) -> dict[str, str]:
    names = {"STREAMPLACE_APPLICATION": "application",
             "STREAMPLACE_INFRASTRUCTURE": "infrastructure", "STREAMPLACE_PLANS": "plans",
             "STREAMPLACE_CURRENT": "current",
             "STREAMPLACE_VALIDATE_OPTIONS": "validate-options"}
    return {names[k]: v for k, v in variables.items()}


def test_the_github_action_passes_good_plans_and_fails_bad_ones(workspace):
    script, env = action_script(inputs_of(GOOD) | {"fail-on-change": "true"})
    passed = shell(script, workspace, env)
    assert passed.returncode == 0, passed.stderr[-2000:]
    assert (workspace / "reports" / "plan.xml").exists()
    assert (workspace / "reports" / "plan.html").exists()
    script, env = action_script(inputs_of(BAD))
    failed = shell(script, workspace, env)
    assert failed.returncode == 1, failed.stderr[-2000:]
    junit = (workspace / "reports" / "plan.xml").read_text()
    assert "<failure" in junit and "stability" in junit


def test_the_gitlab_template_passes_good_plans_and_fails_bad_ones(workspace):
    template = yaml.safe_load((ROOT / "ci" / "streamplace.gitlab-ci.yml").read_text())
    job = template[".streamplace-validate"]
    assert job["before_script"] == ['python -m pip install --quiet "$STREAMPLACE_PACKAGE"']
    script = "\n".join(job["script"])
    defaults = {k: str(v) for k, v in job["variables"].items()}
    assert shell(script, workspace, defaults | GOOD).returncode == 0
    failed = shell(script, workspace, defaults | BAD)
    assert failed.returncode == 1 and "plan.yaml: FAIL" in failed.stderr
    assert job["artifacts"]["reports"]["junit"] == "$STREAMPLACE_REPORTS/*.xml"


@pytest.mark.install
def test_the_pre_commit_hook_validates_the_plans_a_commit_changes(workspace, tmp_path_factory):
    """pre-commit installs the hook from this repository's HEAD, as a user's config would."""
    head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True,
                          text=True)
    if head.returncode != 0:
        pytest.skip("the hook is installed from a git commit: this copy is not a checkout")
    home = tmp_path_factory.mktemp("pre-commit-home")
    git = ["git", "-c", "user.email=ci@example.org", "-c", "user.name=ci"]
    subprocess.run([*git, "init", "-q"], cwd=workspace, check=True)

    def run_hook(application: str) -> subprocess.CompletedProcess[str]:
        config = {"repos": [{"repo": str(ROOT), "rev": head.stdout.strip(), "hooks": [{
            "id": "streamplace-validate",
            "args": [application, "samples/debs2015/infrastructure.yaml",
                     "--max-response-time=150ms", "--"],
            "files": r"^samples/debs2015/plan\.yaml$"}]}]}
        (workspace / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config))
        subprocess.run([*git, "add", "-A"], cwd=workspace, check=True)
        return subprocess.run([BIN / "pre-commit", "run", "--all-files"], cwd=workspace,
                              capture_output=True, text=True, timeout=900,
                              env={**os.environ, "PRE_COMMIT_HOME": str(home)})

    good = run_hook("samples/debs2015/application.yaml")
    assert good.returncode == 0, good.stdout[-3000:]
    assert "streamplace validate" in good.stdout and "Passed" in good.stdout
    bad = run_hook("samples/debs2015/application-2x.yaml")
    assert bad.returncode == 1 and "constraints.stability" in bad.stdout, bad.stdout[-3000:]
