"""Does ``--time-limit`` bound the whole ``streamplace solve`` process? Wall time and peak
memory of the installed command against the limit, on instances whose model outgrows it.

The baseline is the limit itself: per instance the wall time, its excess over the limit and
the goal beside it (docs/cli.md, "What bounds time and memory": the limit plus 1 s). The
200 x 30 instance (537,000 columns, 11 million nonzeros) is the one where loading the model
into HiGHS and letting it go weigh most. Peak memory is the largest
resident set of any solve so far (what getrusage reports for children). Run it beside two
``yes > /dev/null`` to see the margin on a busy machine.

Run: ``python bench/time_limit.py [--limit 20]`` (or ``make bench``).
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).parent))
from scenarios import cluster, dag

MARGIN_GOAL = 1.0  # seconds over the limit
SIZES = ((500, 40, 8), (200, 30, 8))  # operators, nodes, k (slots scaled to hold them)


def instance(folder: Path, n_ops: int, n_nodes: int, k: int) -> list[str]:
    infra = cluster(n_nodes, 1)
    for node in infra["nodes"]:
        node["resources"] *= 8  # enough slots for every operator's stable replicas
    app_file, infra_file = folder / f"a{n_ops}.yaml", folder / f"i{n_nodes}.yaml"
    app_file.write_text(yaml.safe_dump(dag(n_ops, k, 1)))
    infra_file.write_text(yaml.safe_dump(infra))
    return [str(app_file), str(infra_file)]


def run(files: list[str], limit: float, out: Path) -> tuple[float, float, str]:
    """Wall seconds of one solve process, the peak resident MB of every solve so far, and
    the plan's status."""
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "streamplace", "solve", *files, "--time-limit",
                    str(limit), "-o", str(out), "-q"], check=True)
    wall = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    status = yaml.safe_load(out.read_text())["status"]
    return wall, peak / 1024, status


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--limit", type=float, default=20.0)
    limit = parser.parse_args().limit
    print(f"{'instance':>12} {'limit s':>8} {'wall s':>8} {'over s':>7} {'goal':>6} "
          f"{'peak MB so far':>14}  status")
    with tempfile.TemporaryDirectory() as tmp:
        for n_ops, n_nodes, k in SIZES:
            files = instance(Path(tmp), n_ops, n_nodes, k)
            wall, peak, status = run(files, limit, Path(tmp) / "plan.yaml")
            verdict = "met" if wall <= limit + MARGIN_GOAL else "MISSED"
            print(f"{n_ops:>5} x {n_nodes:<4} {limit:8.1f} {wall:8.2f} {wall - limit:+7.2f} "
                  f"{verdict:>6} {peak:14.0f}  {status}")


if __name__ == "__main__":
    main()
