"""The README as a newcomer follows it: every shell block, run from a fresh copy of the
samples with ``streamplace`` on the PATH, each command exiting as the README says (0, or
the code a ``# exits N`` comment on its line gives). The set-up block (``make``, ``source``)
is what runs this suite, so it is left out; the live Flink walk-through (``make flink``)
runs in the end-to-end tier (tests/e2e/test_e2e_readme.py)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from .conftest import ROOT
from .support.readme import commands, live, shell_blocks


def test_the_parser_reads_continuations_heredocs_and_expected_codes():
    block = ("S=x\nfoo a \\\n    b  # exits 1\n# a comment\ncat > f <<'Y'\nk: 1\nY\nmake run\n"
             "source .venv/bin/activate\n")
    assert commands(block) == [("S=x", 0), ("foo a  b  # exits 1", 1),
                               ("cat > f <<'Y'\nk: 1\nY", 0)]


def test_every_readme_command_runs_as_pasted(tmp_path: Path):
    shutil.copytree(ROOT / "samples", tmp_path / "samples")
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}"
                                 f"{os.environ.get('PATH', '')}", "NO_COLOR": "1"}
    blocks = [b for b in shell_blocks((ROOT / "README.md").read_text()) if not live(b)]
    script = ["set -u"]
    ran = 0
    for block in blocks:
        for command, expected in commands(block):
            ran += command.startswith("streamplace")
            quoted = command.replace("'", "'\\''")
            script.append(f"{command}\nrc=$?\nif [ $rc -ne {expected} ]; then "
                          f"echo 'exit '$rc' (README says {expected}): {quoted}' >&2; "
                          f"exit 99; fi")
    assert ran >= 15  # the tour, the walk-through, pictures, the sweep
    done = subprocess.run(["bash", "-c", "\n".join(script)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    for written in ("plan.yaml", "plan-2x.yaml", "app-plan.yaml", "report.html",
                    "reports/placement.xml", "deployments.yaml", "results/results.csv"):
        assert (tmp_path / "out" / written).stat().st_size > 0, written
    # everything the tour wrote is in out/, which git ignores
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out", "samples"]
    assert "/out/" in (ROOT / ".gitignore").read_text().splitlines()


def test_the_readme_is_a_guide_and_the_figures_live_in_the_benchmarks_page():
    """About 300 lines a person reads; measured figures are in docs/benchmarks.md, each
    with the command that prints it."""
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) <= 310
    assert "docs/benchmarks.md" in readme
    benchmarks = (ROOT / "docs" / "benchmarks.md").read_text()
    sections = benchmarks.split("\n## ")[1:]
    assert sections and all("python bench/" in s or "make test" in s for s in sections), \
        [s.splitlines()[0] for s in sections if "python bench/" not in s
         and "make test" not in s]
