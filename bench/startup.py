"""Whole-process times of the commands people and CI jobs run most, against a bare Python.

Each command runs as its own process (``python -m streamplace ...``), the median of
``--repeat`` runs (5 by default) after one warm-up run that writes the bytecode caches, as
an installed copy has them. The baseline is ``python -c pass`` in the same run; the solve
also prints the seconds the method reported, so the rest is start-up, reading and writing.

Family: the DEBS 2015 sample (``samples/debs2015``), response-time objective.
Run: ``python bench/startup.py`` (or ``make bench``); docs/benchmarks.md keeps the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "samples" / "debs2015"


def timed(args: list[str], repeat: int, env: dict[str, str]) -> tuple[float, str]:
    """The median wall time of ``repeat`` runs (after one warm-up), and the last output."""
    out = ""
    times = []
    for k in range(repeat + 1):
        started = time.perf_counter()
        done = subprocess.run(args, capture_output=True, text=True, env=env, check=False)
        took = time.perf_counter() - started
        if done.returncode != 0:
            raise SystemExit(f"{' '.join(args)} exited {done.returncode}: {done.stderr}")
        out = done.stdout
        if k:  # the first run writes the bytecode caches
            times.append(took)
    return statistics.median(times), out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    repeat = parser.parse_args().repeat
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    python = [sys.executable]
    base, _ = timed([*python, "-c", "pass"], repeat, env)
    print(f"median of {repeat} whole processes; baseline `python -c pass` {base:.3f} s")
    print(f"{'command':<44} {'seconds':>8} {'x baseline':>11}")
    with tempfile.TemporaryDirectory() as folder:
        plan = str(Path(folder) / "plan.yaml")
        rows = [("streamplace --version", ["--version"]),
                ("streamplace --help", ["--help"]),
                ("streamplace solve --help", ["solve", "--help"]),
                ("streamplace solve (DEBS 2015, response time)",
                 ["solve", str(SAMPLE / "application.yaml"),
                  str(SAMPLE / "infrastructure.yaml"), "--objective",
                  str(SAMPLE / "objective-response-time.yaml"), "-o", plan, "--json", "-q"])]
        for label, args in rows:
            seconds, out = timed([*python, "-m", "streamplace", *args], repeat, env)
            print(f"{label:<44} {seconds:>8.3f} {seconds / base:>10.1f}x")
            if "--json" in args:
                method = json.loads(out)["seconds"]
                print(f"{'  of which the method (its own report)':<44} {method:>8.3f}")
                print(f"{'  the rest: start-up, reading, writing':<44} "
                      f"{seconds - method:>8.3f}")


if __name__ == "__main__":
    main()
