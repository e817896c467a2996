"""How tight odrp's root LP would be with what each node holds as columns.

The compact LP behaves like a mixture of plans, each of which may break a node's capacity:
neighbouring operators get the same replica shares over the nodes, so every stream looks
co-located. This bench measures how much of the gap that explains. Beside the compact
program (with its share cuts, as ``odrp`` builds its root) it adds, for every node u:

- a column per *pattern*: a set of operators and their replica counts on u that fits u's
  capacity, priced on demand (a small integer program per node);
- one convexity row (one pattern per node), the replicas of each operator on u equal to its
  pattern's, ``z[i,u]`` at most the patterns holding i, and a co-location column
  ``w[s,u]`` per stream s at most the patterns holding both its ends;
- the share cuts with each stream's pairs (u,u) capped by ``w[s,u]``: a plan's coupling
  puts p_i(u) p_j(u) there, at most both ends' presence; with ``--delays``, the same cuts
  on each stream's delay D (at least the mean delay of any coupling).

Every plan is a point of this LP (its own patterns), so its optimum is a bound on F, and
while columns are still priced, the LP optimum plus each node's best reduced cost is one
(Lagrangian). The script prints both bounds, the time, and the LP's terms beside the best
known plan's (bench/best_known).

    python bench/pattern_bound.py --family routed --size small --label Geant2012
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

from families import add_choice_arguments, chosen
from known import kept
from odrp import balanced

from streamplace.model.evaluate import evaluate
from streamplace.model.metrics import Term
from streamplace.model.plan import Plan
from streamplace.solve import Instance, SolveOptions, get_method
from streamplace.solve.budget import Budget
from streamplace.solve.mip.model import LinearModel
from streamplace.solve.mip.persistent import Ended, PersistentModel
from streamplace.solve.odrp.compact import CompactModel, build_compact
from streamplace.solve.odrp.data import OdrpData, prepare
from streamplace.solve.odrp.root import cut_root
from streamplace.solve.odrp.share_cuts import ReplicaShares, transport_duals

PRICED = 1e-7    # a pattern whose reduced cost is above this enters
VIOLATION = 1e-6  # of F, as for odrp's share cuts
CUT_EVERY = 5     # rounds of pricing between two rounds of share cuts


@dataclass
class Master:
    """The compact program with the pattern rows, and where each row is."""

    data: OdrpData
    built: CompactModel
    nodes: list[str]
    ops_on: dict[str, list[str]]
    streams_on: dict[str, list[tuple[int, str, str]]]  # (stream index, source, target)
    convexity: dict[str, int] = field(default_factory=dict)
    replicas: dict[tuple[str, str], int] = field(default_factory=dict)
    presence: dict[tuple[str, str], int] = field(default_factory=dict)
    together: dict[tuple[int, str], int] = field(default_factory=dict)
    w: dict[tuple[int, str], int] = field(default_factory=dict)
    # (stream index, column, G): what the capped transport cuts bound (pair_costs)
    costs: list[tuple[int, int, np.ndarray]] = field(default_factory=list)


def build_master(data: OdrpData, delays: bool) -> Master:
    built = build_compact(data, Budget(None))
    m = built.model
    nodes = [u for u in data.network.processors
             if any(data.capacity(u, dim) < math.inf for dim in data.dims)]
    ops_on = {u: [op.id for op in data.ops if (op.id, u) in built.z] for u in nodes}
    streams_on = {u: [(s.index, s.source, s.target) for s in data.streams
                      if s.source != s.target and (s.source, u) in built.z
                      and (s.target, u) in built.z] for u in nodes}
    master = Master(data, built, nodes, ops_on, streams_on)
    with m.family("patterns"):
        for u in nodes:
            master.convexity[u] = m.row([], [], 1.0, 1.0)
            for i in ops_on[u]:
                cells = built.cells.get((i, u), [])
                master.replicas[(i, u)] = m.row([c for _m, _a, c in cells], [1.0] * len(cells),
                                                0.0, 0.0)
                master.presence[(i, u)] = m.row([built.z[(i, u)]], [1.0], hi=0.0)
            for s, i, j in streams_on[u]:
                w = master.w[(s, u)] = m.var(f"w[{s},{u}]", 0.0, 1.0)
                for end in (i, j):  # p_i(u) p_j(u) <= each share
                    cells = built.cells.get((end, u), [])
                    m.row([w, *(c for _m, _a, c in cells)],
                          [1.0, *(-1.0 / k for k, _a, _c in cells)], hi=0.0)
                master.together[(s, u)] = m.row([w], [1.0], hi=0.0)
    master.costs = pair_costs(data, built, delays)
    return master


def pattern_column(master: Master, u: str, counts: dict[str, int]) -> tuple[list[int],
                                                                          list[float]]:
    rows, vals = [master.convexity[u]], [1.0]
    for i, k in counts.items():
        if k > 0:
            rows += [master.replicas[(i, u)], master.presence[(i, u)]]
            vals += [-float(k), -1.0]
    for s, i, j in master.streams_on[u]:
        if counts.get(i, 0) > 0 and counts.get(j, 0) > 0:
            rows.append(master.together[(s, u)])
            vals.append(-1.0)
    return rows, vals


def price(master: Master, u: str, duals: np.ndarray) -> tuple[float, dict[str, int]]:
    """The pattern of node u of the highest reduced cost, and that cost."""
    data, ops = master.data, master.ops_on[u]
    model = LinearModel(maximize=True)
    by_id = {op.id: op for op in data.ops}
    most = {i: data.node_cap(by_id[i], u, max(data.counts[i])) for i in ops}
    count = {i: model.var(f"U[{i}]", 0.0, most[i], duals[master.replicas[(i, u)]], True)
             for i in ops}
    there = {i: model.var(f"b[{i}]", 0.0, 1.0, duals[master.presence[(i, u)]], True)
             for i in ops}
    for i in ops:
        model.row([count[i], there[i]], [1.0, -float(most[i])], hi=0.0)
        model.row([count[i], there[i]], [1.0, -1.0], lo=0.0)
    for s, i, j in master.streams_on[u]:
        both = model.var(f"g[{s}]", 0.0, 1.0, duals[master.together[(s, u)]])
        model.row([both, there[i]], [1.0, -1.0], hi=0.0)
        model.row([both, there[j]], [1.0, -1.0], hi=0.0)
    for dim in data.dims:
        if data.capacity(u, dim) < math.inf:
            model.row([count[i] for i in ops], [by_id[i].resources.get(dim, 0.0) for i in ops],
                      hi=data.capacity(u, dim))
    mip = PersistentModel(threads=1, options={"mip_rel_gap": 1e-9})
    mip.load(model)
    mip.solve(Budget(None))
    x = mip.values()
    return (mip.objective - duals[master.convexity[u]],
            {i: round(x[count[i]]) for i in ops})


def pair_costs(data: OdrpData, built: CompactModel, delays: bool,
               ) -> list[tuple[int, int, np.ndarray]]:
    """(stream index, column, G) for each stream's share of the network term, and, with
    ``delays``, for its delay D, which is at least the mean delay of any coupling of its
    ends' shares (a plan's D is the maximum over the pairs in use)."""
    found = []
    for s in data.streams:
        share = built.shares.get(s.index)
        if share is not None and share.weights.size and share.weights.max() > 0:
            found.append((s.index, share.column, share.weights))
        if delays and built.delays is not None and s.index in built.delays.delays:
            delay = np.array([[data.link(u, v).delay if u != v else 0.0
                               for v in data.cands[s.target]] for u in data.cands[s.source]])
            if np.isfinite(delay).all() and delay.max() > 0:
                found.append((s.index, built.delays.delays[s.index], delay))
    return found


def transport_cuts(master: Master, x: np.ndarray) -> list[tuple[float, float, list[int],
                                                                 list[float]]]:
    data, built = master.data, master.built
    streams = {s.index: s for s in data.streams}
    found = []
    for index, column, weights in master.costs:
        s = streams[index]
        ups, downs = data.cands[s.source], data.cands[s.target]
        up = ReplicaShares.of(s.source, ups, built.cells)
        down = ReplicaShares.of(s.target, downs, built.cells)
        p_up, p_down = np.clip(up.shares(x), 0, None), np.clip(down.shares(x), 0, None)
        if p_up.sum() <= 0 or p_down.sum() <= 0:
            continue
        caps = {(k, downs.index(u)): max(0.0, x[master.w[(index, u)]])
                for k, u in enumerate(ups) if (index, u) in master.w}
        duals = transport_duals(weights, p_up / p_up.sum(), p_down / p_down.sum(),
                                Budget(None), caps)
        if duals is None or not np.isfinite(duals[0]).all():
            continue
        alpha, gamma = duals
        bound = weights.copy()  # alpha_u + beta_v <= G(u,v); on a capped pair <= gamma
        for pair, g in gamma.items():
            bound[pair] = g
        beta = (bound - alpha[:, None]).min(axis=0)
        cols = [column, *up.cols.tolist(), *down.cols.tolist()]
        vals = [1.0, *(-(alpha[up.node] * up.weight)).tolist(),
                *(-(beta[down.node] * down.weight)).tolist()]
        for (k, _v), g in gamma.items():
            if g > 0:
                cols.append(master.w[(index, ups[k])])
                vals.append(g)
        if float(np.dot(vals, x[cols])) < -VIOLATION:
            found.append((0.0, math.inf, cols, vals))
    return found


def seed_placement(inst: Instance, best: dict[str, Any] | None) -> dict[str, dict[str, int]]:
    """The best known plan's placement, or that of a plan of odrp's (20 s) where none is
    known: one plan's patterns make the first LP feasible."""
    if best is not None:
        return dict(best["placement"])
    found = get_method("odrp").solve(inst, SolveOptions(time_limit=20.0))
    return {} if found.plan is None else dict(found.plan.model_dump()["placement"])


def terms(model: LinearModel, x: np.ndarray) -> dict[str, float]:
    """The LP's objective split by column family (c: cost, r: R, y: availability, n:
    network)."""
    split: Counter[str] = Counter()
    for col, cost in enumerate(model.cost):
        if cost:
            split[model.names[col].split("[")[0]] += cost * x[col]
    return {name: round(float(value), 4) for name, value in split.items()}


@dataclass(frozen=True)
class PatternBound:
    bound: float      # the Lagrangian bound: a bound on F at every round
    converged: bool   # no pattern would enter and no cut was found: the LP is the bound
    values: np.ndarray  # the last LP's columns
    columns: int
    cuts: int


def pattern_bound(master: Master, seed: dict[str, dict[str, int]], max_rounds: int,
                  progress: Callable[[int, float, float, int, int], None] | None = None,
                  ) -> PatternBound | None:
    """Price patterns and cut, round by round, from the empty patterns and ``seed``'s (a
    plan's placement, which makes the first LP feasible); None if an LP did not solve."""
    lp = PersistentModel(threads=1, relaxation=True)
    lp.load(master.built.model)
    for u in master.nodes:
        for counts in ({}, {i: reps.get(u, 0) for i, reps in seed.items()
                            if (i, u) in master.built.z}):
            lp.add_column(0.0, 0.0, math.inf, *map(np.array, pattern_column(master, u, counts)))
    lagrangian, columns, cuts = math.inf, 0, 0
    x = np.zeros(0)
    for round_ in range(max_rounds):
        if lp.solve(Budget(None)) is not Ended.OPTIMAL:
            return None
        duals, value, x = lp.row_duals(), lp.objective, lp.values()
        bound, entered = value, 0
        for u in master.nodes:
            reduced, counts = price(master, u, duals)
            bound += max(0.0, reduced)
            if reduced > PRICED:
                lp.add_column(0.0, 0.0, math.inf,
                              *map(np.array, pattern_column(master, u, counts)))
                entered += 1
        lagrangian, columns = min(lagrangian, bound), columns + entered
        found = transport_cuts(master, x) if not entered or \
            round_ % CUT_EVERY == CUT_EVERY - 1 else []
        if found:
            lp.add_rows(found)
            cuts += len(found)
        if progress is not None:
            progress(round_, value, lagrangian, columns, cuts)
        if not (entered or found):
            return PatternBound(lagrangian, True, x, columns, cuts)
    # the LP of the patterns so far is no bound (it lacks columns) until none would enter
    return PatternBound(lagrangian, False, x, columns, cuts)


def measure(case_name: str, inst: Instance, max_rounds: int, delays: bool) -> None:
    data = prepare(inst)
    started = time.perf_counter()
    plain = build_compact(data, Budget(None))
    root = cut_root(data, plain, Budget(None))
    print(f"  compact root LP with share cuts: {root.bound if root else None} "
          f"({time.perf_counter() - started:.1f} s)", flush=True)
    started = time.perf_counter()
    master = build_master(data, delays)
    best = kept(case_name)

    def progress(round_: int, value: float, bound: float, columns: int, cuts: int) -> None:
        if round_ % 10 == 0:
            print(f"  round {round_}: LP {value:.5f}, bound {bound:.5f}, {columns} patterns, "
                  f"{cuts} cuts, {time.perf_counter() - started:.1f} s", flush=True)

    found = pattern_bound(master, seed_placement(inst, best), max_rounds, progress)
    if found is None:
        print("  an LP did not solve")
        return
    print(f"  pattern bound: {found.bound:.5f}{'' if found.converged else ' (not converged)'}"
          f" ({time.perf_counter() - started:.1f} s, {found.columns} patterns, "
          f"{found.cuts} cuts)")
    print(f"  LP terms: {terms(master.built.model, found.values)} "
          f"(offset {master.built.model.offset:.4f})")
    if best:
        ev = evaluate(inst.app, inst.infra, Plan.model_validate({"placement": best["placement"]}),
                      inst.objective)
        scales = data.scales
        split = {t.term.value: round(scales[t.term].slope * (
            math.log(t.value) if t.term is Term.AVAILABILITY else t.value), 4)
            for t in ev.utility.terms}
        print(f"  best known plan: F {ev.utility.value:.4f}, terms {split}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_choice_arguments(parser)
    parser.add_argument("--max-rounds", type=int, default=400)
    parser.add_argument("--delays", action="store_true",
                        help="cut each stream's delay D as its network share is")
    args = parser.parse_args()
    for case in chosen(args):
        print(f"{case.family} {case.label}", flush=True)
        measure(case.name, Instance(case.app, case.infra, balanced()), args.max_rounds,
                args.delays)


if __name__ == "__main__":
    main()
