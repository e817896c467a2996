"""HiGHS on odrp's program with its first LP by dual simplex and by the interior-point method.

HiGHS solves the first LP of a MIP (the root's, without a basis yet) by the method its
option ``mip_lp_solver`` names; ``odrp`` asks for the interior-point method
(docs/models.md sec. 2). Per instance of bench/families.py: the program's size, and per
method, HiGHS alone on one thread for ``--time-limit`` seconds (no start, no primal search
beside it): the seconds until its callbacks first reported a dual bound (once its root's
first LP is solved, or later), that bound, and its bound at the end.

    python bench/first_lp.py --families routed --sizes medium --time-limit 90
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from families import GENERATED, SIZES, cases
from odrp import _num, balanced

from streamplace.solve import Instance, SolveOptions
from streamplace.solve.mip.highs.solve import solve_highs
from streamplace.solve.mip.model import LinearModel
from streamplace.solve.odrp.compact import build_compact
from streamplace.solve.odrp.data import prepare
from streamplace.solve.progress import SolverProgress

METHODS = ("simplex", "ipm")


def first_lp(model: LinearModel, method: str,
             time_limit: float) -> tuple[float | None, float | None, float | None]:
    """HiGHS on ``model`` with its first LP by ``method``: seconds to its first dual bound,
    that bound, and the bound it ended with (None where it reported none)."""
    seen: list[tuple[float, float]] = []
    started = time.perf_counter()

    def heard(progress: SolverProgress) -> None:
        if progress.bound is not None:
            seen.append((time.perf_counter() - started, progress.bound))

    outcome = solve_highs(model, SolveOptions(time_limit=time_limit, threads=1,
                                              highs={"mip_lp_solver": method},
                                              progress=heard))
    first = seen[0] if seen else (None, None)
    return first[0], first[1], outcome.bound


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--families", default=",".join([*GENERATED, "routed"]),
                        help="comma-separated, of: " + ", ".join([*GENERATED, "routed"]))
    parser.add_argument("--sizes", default="small,medium",
                        help="comma-separated, of: " + ", ".join(SIZES))
    parser.add_argument("--seeds", type=int, default=1)
    parser.add_argument("--time-limit", type=float, default=90.0)
    args = parser.parse_args()
    print(f"HiGHS alone on odrp's program, one thread, {args.time_limit:g} s; per method "
          "of the first LP: seconds to the first bound, that bound, the bound at the end")
    print(f"{'family':>13} {'instance':>30} {'columns':>8} {'rows':>7} "
          + " ".join(f"{m + ' s':>9} {'first':>7} {'end':>7}" for m in METHODS))
    for case in cases(args.families.split(","), args.sizes.split(","), args.seeds):
        model = build_compact(prepare(Instance(case.app, case.infra, balanced()))).model
        cells = []
        for method in METHODS:
            seconds, first, end = first_lp(model, method, args.time_limit)
            cells.append(f"{_num(seconds, 1):>9} {_num(first, 4):>7} {_num(end, 4):>7}")
        print(f"{case.family:>13} {case.label:>30} {model.num_cols:>8} {model.num_rows:>7} "
              + " ".join(cells), flush=True)


if __name__ == "__main__":
    main()
