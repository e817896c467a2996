"""How tight a Lagrangian relaxation of odrp's capacity rows would be.

Without its capacity rows (eq. 23) the compact program was solved to optimality by HiGHS
in seconds on the routed 30 x 20 instances of bench/families.py, its LP 0.4% above its
optimum there. Moving those rows into the objective,
each with a price per unit of load, gives for every vector of prices a bound on F (the
priced program's own proven bound plus the prices times the capacities), and the best such
bound is the Lagrangian dual. It is found here as Dantzig-Wolfe does: a master LP mixes the
uncapacitated plans found so far (one column each: its F and its load per node) within the
capacities, its row duals are the next prices, and the priced program, solved as a MIP,
gives the next plan and the next bound. Once the master's optimum meets the best bound the
two are the dual.

Each row enters with the plain capacity (``load <= cap``), the node's use column dropped:
with the use column in the row, a price would make putting a node into use pay.

    python bench/capacity_lagrangian.py --family routed --size small --label Geant2012
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from array import array
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

from families import add_choice_arguments, chosen
from odrp import balanced

from streamplace.solve import Instance, SolveOptions, SolveStatus
from streamplace.solve.budget import Budget
from streamplace.solve.mip.model import LinearModel
from streamplace.solve.mip.persistent import Ended, PersistentModel
from streamplace.solve.mip.solve import solve_mip
from streamplace.solve.odrp.compact import build_compact
from streamplace.solve.odrp.data import prepare

ARTIFICIAL_F = -10.0  # a plan that loads nothing: the master is feasible from the start
CONVERGED = 1e-5


def capacity_rows(model: LinearModel) -> list[tuple[np.ndarray, np.ndarray, float]]:
    """Each capacity row as (columns, coefficients, capacity), the node's use column out;
    the rows themselves are freed in ``model``."""
    start, index, value = model.to_csr()
    rows = []
    for k, family in enumerate(model.row_family):
        if family != "capacity (eq. 23)":
            continue
        cols, vals, cap = index[start[k]:start[k + 1]], value[start[k]:start[k + 1]], \
            model.row_hi[k]
        use = vals < 0  # - cap * y[u]
        if use.any():
            cap = -float(vals[use][0])
            cols, vals = cols[~use], vals[~use]
        rows.append((cols, vals, cap))
        model.row_lo[k], model.row_hi[k] = -math.inf, math.inf
    return rows


def master(plans_f: list[float], loads: list[np.ndarray],
           caps: np.ndarray) -> tuple[float, np.ndarray]:
    """The best mixture of the plans within the capacities: its F and the capacity rows'
    prices (>= 0)."""
    n_rows, n_plans = len(caps), len(plans_f)
    lp = PersistentModel(threads=1)
    load = np.array(loads).T  # rows x plans, as columns: one per plan
    values = np.vstack([load, np.ones(n_plans)])
    start = np.arange(0, (n_rows + 1) * n_plans + 1, n_rows + 1)
    lp.load_columns(-np.array(plans_f), np.zeros(n_plans), np.full(n_plans, np.inf),
                    np.append(np.full(n_rows, -np.inf), 1.0), np.append(caps, 1.0),
                    start, np.tile(np.arange(n_rows + 1), n_plans), values.T.ravel())
    if lp.solve(Budget(time_limit=None)) is not Ended.OPTIMAL:
        raise SystemExit("the master LP was not solved")
    return -lp.objective, np.maximum(-lp.row_duals()[:n_rows], 0.0)


@dataclass(frozen=True)
class Dual:
    bound: float  # the best Lagrangian bound found: a bound on F
    mixed: float  # the master's last optimum: the dual lies in [mixed, bound]
    rounds: int

    @property
    def converged(self) -> bool:
        return self.bound - self.mixed <= CONVERGED


def lagrangian_dual(instance: Instance, pricing_seconds: float, max_rounds: int,
                    say: Callable[[str], None] = print) -> Dual:
    data = prepare(instance)
    model = build_compact(data).model
    rows = capacity_rows(model)
    caps = np.array([cap for _c, _v, cap in rows])
    cost, offset = np.array(model.cost), model.offset
    plans_f, loads = [ARTIFICIAL_F], [np.zeros(len(rows))]
    best, mixed, started = math.inf, -math.inf, time.perf_counter()
    say(f"{'round':>5} {'master':>8} {'bound':>8} {'best':>8} {'plan F':>8} {'fits':>5} "
        f"{'seconds':>7}")
    for round_ in range(1, max_rounds + 1):
        mixed, prices = master(plans_f, loads, caps)
        priced = cost.copy()
        for price, (cols, vals, _cap) in zip(prices, rows, strict=True):
            priced[cols] -= price * vals
        model.cost = array("d", priced)
        outcome = solve_mip(model, SolveOptions(threads=1, time_limit=pricing_seconds), None,
                            Budget(time_limit=pricing_seconds))
        if outcome.bound is None or outcome.values is None:
            raise SystemExit(f"pricing ended {outcome.status.value} with no bound or plan")
        bound = outcome.bound + float(prices @ caps)
        best = min(best, bound)
        x = np.array(outcome.values)
        load = np.array([vals @ x[cols] for cols, vals, _cap in rows])
        plans_f.append(float(cost @ x) + offset)
        loads.append(load)
        proven = "" if outcome.status == SolveStatus.OPTIMAL else " (pricing not proven)"
        say(f"{round_:>5} {mixed:>8.5f} {bound:>8.5f} {best:>8.5f} {plans_f[-1]:>8.5f} "
            f"{bool((load <= caps + 1e-6).all())!s:>5} "
            f"{time.perf_counter() - started:>7.0f}{proven}")
        if best - mixed <= CONVERGED:
            return Dual(best, mixed, round_)
    return Dual(best, mixed, max_rounds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_choice_arguments(parser)
    parser.add_argument("--pricing-seconds", type=float, default=60.0)
    parser.add_argument("--max-rounds", type=int, default=60)
    args = parser.parse_args()
    for case in chosen(args):
        print(f"{case.family} {case.label}", flush=True)
        dual = lagrangian_dual(Instance(case.app, case.infra, balanced()),
                               args.pricing_seconds, args.max_rounds,
                               lambda line: print(line, flush=True))
        print(f"Lagrangian dual of the capacity rows: {dual.bound:.5f}" if dual.converged
              else f"not converged: the dual lies in [{dual.mixed:.5f}, {dual.bound:.5f}]")


if __name__ == "__main__":
    main()
