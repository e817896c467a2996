"""``streamplace-validate-plans``: ``validate`` (and ``diff`` against what runs) for every
plan a CI job or a pre-commit hook hands over, with a JUnit file and an HTML report per
plan. The GitHub action, the GitLab template and the pre-commit hook all run it.

Usage: ``streamplace-validate-plans APP INFRA PLAN... [--current PLAN] [--fail-on-change]
[--reports DIR] [any option of validate, e.g. --max-response-time '150 ms']``, or
``streamplace-validate-plans-env`` with the same from environment variables (what CI
templates set): ``STREAMPLACE_APPLICATION``, ``STREAMPLACE_INFRASTRUCTURE``,
``STREAMPLACE_PLANS`` (space-separated, globs allowed), and optionally
``STREAMPLACE_CURRENT``, ``STREAMPLACE_FAIL_ON_CHANGE`` (``true``),
``STREAMPLACE_VALIDATE_OPTIONS`` (shell words), ``STREAMPLACE_REPORTS``.
Exit code: the worst of the plans': 0 all pass, 1 a check failed (or a plan differs, with
``--fail-on-change``), 2 bad input.
"""

from __future__ import annotations

import argparse
import glob
import os
import shlex
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="streamplace-validate-plans",
        description="streamplace validate for each PLAN, JUnit XML and HTML per plan.")
    parser.add_argument("application")
    parser.add_argument("infrastructure")
    parser.add_argument("plans", nargs="+", metavar="PLAN")
    parser.add_argument("--current", help="The plan that runs now: diff each plan to it.")
    parser.add_argument("--fail-on-change", action="store_true",
                        help="With --current: a plan that differs fails.")
    parser.add_argument("--reports", default="reports",
                        help="Where the JUnit and HTML files go (default: reports).")
    known, validate_options = parser.parse_known_args(argv)
    reports = Path(known.reports)
    reports.mkdir(parents=True, exist_ok=True)
    worst = 0
    for plan in known.plans:
        name = Path(plan).stem
        codes = [_streamplace("validate", known.application, known.infrastructure, plan,
                              "--junit-xml", str(reports / f"{name}.xml"),
                              "--html", str(reports / f"{name}.html"), *validate_options)]
        if known.current:
            codes.append(_streamplace(
                "diff", known.application, known.infrastructure, known.current, plan,
                *(["--fail-on-change"] if known.fail_on_change else [])))
        severity = max(_severity(c) for c in codes)
        worst = max(worst, severity)
        print(f"{plan}: {('pass', 'FAIL', 'bad input')[severity]}", file=sys.stderr,
              flush=True)
    return worst


def _severity(code: int) -> int:
    """0 passed, 2 bad input, 1 anything else (a failed check, a change, no answer)."""
    return code if code in (0, 2) else 1


def _streamplace(*args: str) -> int:
    return subprocess.run([sys.executable, "-m", "streamplace", *args]).returncode


def argv_from(env: Mapping[str, str]) -> list[str]:
    """The arguments the STREAMPLACE_* variables stand for (a missing one: exit 2)."""
    missing = [f"STREAMPLACE_{name}" for name in ("APPLICATION", "INFRASTRUCTURE", "PLANS")
               if not env.get(f"STREAMPLACE_{name}")]
    if missing:
        print(f"error: set {', '.join(missing)}", file=sys.stderr)
        sys.exit(2)
    plans = [match for pattern in shlex.split(env["STREAMPLACE_PLANS"])
             for match in sorted(glob.glob(pattern)) or [pattern]]  # unmatched: said missing
    argv = [env["STREAMPLACE_APPLICATION"], env["STREAMPLACE_INFRASTRUCTURE"], *plans,
            "--reports", env.get("STREAMPLACE_REPORTS") or "reports"]
    if env.get("STREAMPLACE_CURRENT"):
        argv += ["--current", env["STREAMPLACE_CURRENT"]]
        if env.get("STREAMPLACE_FAIL_ON_CHANGE", "false").lower() == "true":
            argv.append("--fail-on-change")
    return argv + shlex.split(env.get("STREAMPLACE_VALIDATE_OPTIONS", ""))


def console_main() -> None:
    sys.exit(main())


def env_main() -> None:
    sys.exit(main(argv_from(os.environ)))


if __name__ == "__main__":
    console_main()
