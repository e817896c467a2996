"""The README as a new user follows it on a live Flink: a fresh ``git clone`` with nothing
beside it, the set-up (``make run``, then ``source .venv/bin/activate``), then the live
walk-through pasted command by command (``make flink`` first, ``make flink-stop`` last),
each command exiting as the README says. ``make flink-stop`` runs whatever happened."""

from __future__ import annotations

import fnmatch
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from ..conftest import ROOT
from ..support.readme import EXPECTED, live, shell_blocks

pytestmark = [pytest.mark.e2e, pytest.mark.install, pytest.mark.xdist_group("readme-flink")]

HANG_GUARD = 3600  # seconds: an install, a Flink cluster and a few autoscale windows
MADE = (".venv", "out", "__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache",
        ".hypothesis", "*.egg-info", ".stamp-*")


def _commands(block: str) -> list[tuple[str, int]]:
    """Every command of the block, ``make`` lines included, continued lines joined."""
    out: list[tuple[str, int]] = []
    lines = iter(block.splitlines())
    for line in lines:
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        while line.endswith("\\"):
            line = line[:-1] + " " + next(lines).strip()
        expected = EXPECTED.search(line)
        out.append((line, int(expected.group(1)) if expected else 0))
    return out


def test_the_live_walk_through_runs_as_pasted_from_a_fresh_clone(tmp_path: Path):
    [block] = [b for b in shell_blocks((ROOT / "README.md").read_text()) if live(b)]
    clone = tmp_path / "streamplace"
    if (ROOT / ".git").exists():
        subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True, timeout=300)
    else:  # a checkout exported without its history: what it holds, less what it made
        shutil.copytree(ROOT, clone, ignore=shutil.ignore_patterns(*MADE))
    before = {p.name for p in clone.iterdir()}
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    env["NO_COLOR"] = "1"
    script = ["set -u", "mkdir -p out", "make run > out/setup.log 2>&1 || "
              "{ tail -50 out/setup.log >&2; exit 98; }", "source .venv/bin/activate"]
    for command, expected in _commands(block):
        quoted = command.replace("'", "'\\''")
        script.append(f"{command}\nrc=$?\nif [ $rc -ne {expected} ]; then echo 'exit '$rc"
                      f"' (README says {expected}): {quoted}' >&2; exit 99; fi")
    try:
        done = subprocess.run(["bash", "-c", "\n".join(script)], cwd=clone, env=env,
                              capture_output=True, text=True, timeout=HANG_GUARD)
    finally:
        if (clone / ".venv").exists():
            subprocess.run(["make", "flink-stop"], cwd=clone, env=env, capture_output=True,
                           timeout=300)
    assert done.returncode == 0, (done.stdout[-3000:], done.stderr[-5000:])
    assert (clone / "out" / "history.html").stat().st_size > 0
    assert not (clone / "out" / "flink" / "job").exists()  # make flink-stop said so
    # everything the set-up and the walk-through wrote is in .venv/ and out/ (and the
    # editable install's egg-info, which git ignores as well)
    added = {p.name for p in clone.iterdir()} - before
    assert all(name in (".venv", "out") or fnmatch.fnmatch(name, "*.egg-info")
               for name in added), added
    if (clone / ".git").exists():
        status = subprocess.run(["git", "status", "--porcelain"], cwd=clone,
                                capture_output=True, text=True, check=True).stdout
        assert not status.strip(), status
