"""deploy/: the Kubernetes manifests pass the Kubernetes schemas, the systemd unit passes
systemd's own check, and each runs autoscale with options the command has."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import kubernetes_validate
import pytest
import typer
import yaml

from streamplace.cli.app import build_app

from .conftest import ROOT

DEPLOY = ROOT / "deploy"


def _autoscale_flags() -> set[str]:
    group = typer.main.get_command(build_app(["autoscale"]))
    command = getattr(group, "commands", {}).get("autoscale", group)
    return {name for p in command.params if p.param_type_name == "option"
            for name in (*p.opts, *p.secondary_opts)}


def test_the_kubernetes_manifests_pass_the_schemas_and_name_real_options():
    manifests = list(yaml.safe_load_all((DEPLOY / "kubernetes" / "autoscale.yaml").read_text()))
    assert {m["kind"] for m in manifests} == {"PersistentVolumeClaim", "Secret", "Deployment"}
    for manifest in manifests:
        kubernetes_validate.validate(manifest, "1.34.0", strict=True)
    deployment = next(m for m in manifests if m["kind"] == "Deployment")
    assert deployment["spec"]["strategy"]["type"] == "Recreate"  # one process per state
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    args = container["args"]
    assert args[0] == "autoscale"
    flags = {a for a in args if a.startswith("--")}
    assert flags <= _autoscale_flags(), flags - _autoscale_flags()
    port = args[args.index("--metrics-port") + 1]
    assert container["ports"][0]["containerPort"] == int(port)
    assert container["livenessProbe"]["httpGet"]["path"] == "/healthz"
    mount = container["volumeMounts"][0]["mountPath"]
    assert args[args.index("--state") + 1].startswith(mount)


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="no systemd-analyze")
def test_the_systemd_unit_passes_systemds_check(tmp_path):
    """systemd-analyze verify, with ExecStart pointed at this environment's command (it
    checks that the program exists): no warning, and the options are the command's."""
    unit = (DEPLOY / "systemd" / "streamplace-autoscale.service").read_text()
    here = str(Path(sys.executable).parent / "streamplace")
    checked = tmp_path / "streamplace-autoscale.service"
    checked.write_text(unit.replace("/opt/streamplace/bin/streamplace", here))
    done = subprocess.run(["systemd-analyze", "verify", str(checked)], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0 and checked.name not in done.stderr, done.stderr
    start = unit.split("ExecStart=", 1)[1].split("\n\n", 1)[0].replace("\\\n", " ")
    flags = {w for w in start.split() if w.startswith("--")}
    assert flags <= _autoscale_flags(), flags - _autoscale_flags()
