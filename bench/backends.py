"""The MIP backends side by side: the same program of each exact method solved by HiGHS (the
baseline), SCIP and CBC, per instance family, with each one's status, objective, gap and
seconds, and its time as a ratio of HiGHS's.

Families (each claim below names its own):
- DEBS 2015 sample (``odrp``, response-time and balanced objectives);
- edge + cloud clusters of bench/scenarios.py (``odrp``, balanced weights, network usage),
  30 x 20 and 50 x 40;
- Benoit et al.'s random operator trees of bench/reproduce_benoit.py (``benoit``, Constr with
  a catalog), 20 and 30 operators.

Each run is the command a user gets with ``--solver NAME`` and ``--time-limit``: the same
method, settings and primal search; only the backend of the compact program differs.

Run: ``python bench/backends.py [--time-limit 60] [--skip-cbc] [--only FAMILY]``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from streamplace.io.readers import read_instance, read_objective
from streamplace.model.objective import Objective
from streamplace.solve import Instance, MipSolver, SolveOptions, SolveResult, get_method
from streamplace.solve.mip.highs.thread import wait_for_abandoned

sys.path.insert(0, str(Path(__file__).parent))
from reproduce_benoit import make as benoit_tree
from scenarios import edge_cloud_instance

ROOT = Path(__file__).resolve().parent.parent
DEBS = ROOT / "samples" / "debs2015"


def balanced() -> Objective:
    return Objective.model_validate({
        "weights": {"response_time": 1, "availability": 1, "cost": 1, "network": 1},
        "network_metric": "network_usage"})


def families() -> dict[str, list[tuple[str, str, Instance]]]:
    """Family -> (instance name, method, instance)."""
    app, infra = read_instance(str(DEBS / "application.yaml"),
                               str(DEBS / "infrastructure.yaml"))
    debs = [(f"debs2015 {goal}", "odrp", Instance(app, infra, read_objective(
        str(DEBS / f"objective-{goal}.yaml")))) for goal in ("response-time", "balanced")]
    edge = []
    for n_nodes, n_ops, k in ((30, 20, 4), (50, 40, 4)):
        app, infra = edge_cloud_instance(n_nodes, n_ops, k, 1)
        edge.append((f"edge-cloud {n_nodes}x{n_ops}", "odrp", Instance(app, infra, balanced())))
    trees = [(f"tree {n} ops a1.7 s1", "benoit", benoit_tree(n, 1.7, 1, homogeneous=False))
             for n in (20, 30)]
    return {"debs": debs, "edge-cloud": edge, "benoit-trees": trees}


def solve(method: str, inst: Instance, solver: str, time_limit: float) -> tuple[SolveResult,
                                                                                float]:
    started = time.perf_counter()
    result = get_method(method).solve(inst, SolveOptions(
        time_limit=time_limit, solver=MipSolver(solver), seed=0))
    wall = time.perf_counter() - started
    wait_for_abandoned()  # a solve left behind would take a core from the next
    return result, wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--skip-cbc", action="store_true")
    parser.add_argument("--only", choices=("debs", "edge-cloud", "benoit-trees"))
    args = parser.parse_args()
    solvers = ["highs", "scip"] + ([] if args.skip_cbc else ["cbc"])
    print(f"MIP backends, {args.time_limit:g} s each; ratio = seconds / HiGHS's seconds")
    print(f"{'family':>12} {'instance':>26} {'solver':>6} {'status':>10} {'objective':>11} "
          f"{'gap':>8} {'seconds':>8} {'ratio':>6}")
    for family, cases in families().items():
        if args.only and family != args.only:
            continue
        for name, method, inst in cases:
            baseline = None
            for solver in solvers:
                result, wall = solve(method, inst, solver, args.time_limit)
                baseline = wall if baseline is None else baseline
                objective = "-" if result.objective is None else f"{result.objective:.5g}"
                gap = "-" if result.gap is None else f"{result.gap:.2%}"
                print(f"{family:>12} {name:>26} {solver:>6} {result.status.value:>10} "
                      f"{objective:>11} {gap:>8} {wall:>8.2f} {wall / baseline:>6.2f}",
                      flush=True)


if __name__ == "__main__":
    main()
