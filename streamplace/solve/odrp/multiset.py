"""The paper's ODRP integer program, one variable per multiset (Cardellini et al. 2017, eqs. 21-32).

Kept as the faithful reference for the compact form: ``x[i,U]`` picks the multiset U of
candidate nodes for operator i (eq. 29), ``y[(i,j),(U,V)]`` the pair of multisets of a
stream (eq. 30, linked by eqs. 27-28), ``z[u]`` and ``z[u,v]`` activate nodes and links
(eqs. 24-25, 31-32), and ``r`` bounds the delay of every source-to-sink path (eq. 22).
Multisets whose replicas would be unstable have no variable (R_i is undefined there), and
neither do multiset pairs joined by an unroutable node pair. Link activations are created
only for links whose availability is below 1, the only ones eq. 16 can charge.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from streamplace.errors import InputError
from streamplace.model.application import Operator
from streamplace.model.metrics import Term
from streamplace.model.plan import Plan
from streamplace.solve.budget import Budget
from streamplace.solve.mip.model import LinearModel
from streamplace.solve.odrp.data import OdrpData, TermScale

MAX_PATHS = 100_000
_NO_TERM = TermScale(0.0, 0.0, 0.0, 0.0, 0.0, False)
Multiset = tuple[str, ...]


@dataclass
class MultisetModel:
    """The paper's formulation (a :class:`~streamplace.solve.mip.formulation.Formulation`)."""

    model: LinearModel
    bounds_used: dict[str, list[float]]
    x: dict[tuple[str, Multiset], int] = field(default_factory=dict)
    moves: dict[tuple[str, Multiset], float] = field(default_factory=dict)  # M of each x

    def decode(self, values: Sequence[float]) -> Plan:
        placement = {op: dict(Counter(u)) for (op, u), col in self.x.items()
                     if values[col] > 0.5}
        return Plan.model_validate({"placement": placement, "bounds_used": self.bounds_used})

    def add_violated(self, values: Sequence[float], plan: Plan) -> int:
        return 0  # every row is in the model

    def start_from(self, plan: Plan) -> list[float | None]:
        """x values of a given plan (a MIP start); the y and z follow from eqs. 24-28."""
        values: list[float | None] = [None] * self.model.num_cols
        chosen = {op: tuple(sorted(u for u, c in plan.replicas(op).items() for _ in range(c)))
                  for op in plan.placement}
        for (op, multiset), col in self.x.items():
            values[col] = 1.0 if tuple(sorted(multiset)) == chosen.get(op) else 0.0
        return values


def estimated_columns(data: OdrpData) -> int:
    """x columns plus the y columns of every stream (pairs of multisets), before building."""
    x = {op.id: sum(math.comb(len(data.cands[op.id]) + m - 1, m) for m in data.counts[op.id])
         for op in data.ops}
    return sum(x.values()) + sum(x[s.source] * x[s.target] for s in data.streams)


def build_multiset(data: OdrpData, budget: Budget | None = None) -> MultisetModel:
    """Build the model; raises :class:`Stopped` when ``budget`` runs out meanwhile."""
    out = MultisetModel(data.new_model(), data.bounds_used())
    m_ = out.model
    multisets: dict[str, list[Multiset]] = {}
    response: dict[tuple[str, Multiset], float] = {}
    for op in data.ops:
        if budget is not None:
            budget.check()
        multisets[op.id] = []
        for m in data.counts[op.id]:
            caps = {u: data.node_cap(op, u, m) for u in data.cands[op.id]}
            for u in itertools.combinations_with_replacement(data.cands[op.id], m):
                if any(u.count(n) > caps[n] for n in set(u)):
                    continue  # more replicas on a node than it holds on its own
                multisets[op.id].append(u)
                # eq. 1: the slowest node of U bounds the operator's latency; eq. 2: cost
                response[(op.id, u)] = data.latency(op, m) / min(data.speedup(n) for n in u)
                moves = _moves(data, op, u)
                out.x[(op.id, u)] = m_.binary(
                    f"x[{op.id},{','.join(u)}]", data.count_cost(op, m)
                    + data.scales.get(Term.RECONFIGURATION, _NO_TERM).slope * moves)
                if moves:
                    out.moves[(op.id, u)] = moves
        cols = [out.x[(op.id, u)] for u in multisets[op.id]]
        m_.row(cols, [1.0] * len(cols), 1.0, 1.0, family="one multiset (eq. 26)")
    with m_.family("stream linking (eqs. 27-28)"):
        y = _streams(data, out, multisets, budget)
    with m_.family("capacity (eq. 23)"):
        _capacity(data, out)
    with m_.family("activation (eqs. 24-25)"):
        _activations(data, out, y)
    current = data.instance.current
    if current is not None and current.max_moves is not None and out.moves:
        m_.row([out.x[key] for key in out.moves], list(out.moves.values()),
               hi=current.max_moves, family="max moves")
    if data.scales[Term.RESPONSE_TIME].slope != 0:
        with m_.family("paths (eq. 22)"):
            _paths(data, out, y, response)
    return out


def _moves(data: OdrpData, op: Operator, multiset: Multiset) -> float:
    """The reconfiguration a multiset costs against the current plan (0 without one)."""
    if data.instance.current is None:
        return 0.0
    placed = Counter(multiset)
    return float(sum(data.moves_cost(op, u, k) for u, c in placed.items()
                     for k in range(1, c + 1)))


def _streams(data: OdrpData, out: MultisetModel, multisets: dict[str, list[Multiset]],
             budget: Budget | None) -> dict[int, dict[tuple[Multiset, Multiset],
                                                       tuple[int, float]]]:
    m_ = out.model
    scales = data.scales
    y: dict[int, dict[tuple[Multiset, Multiset], tuple[int, float]]] = {}
    for s in data.streams:
        if budget is not None:
            budget.check()
        y[s.index] = {}
        by_up: dict[Multiset, list[int]] = {u: [] for u in multisets[s.source]}
        by_down: dict[Multiset, list[int]] = {v: [] for v in multisets[s.target]}
        for up in multisets[s.source]:
            cu = Counter(up)
            for down in multisets[s.target]:
                cv = Counter(down)
                links = {(a, b): data.link(a, b) for a in cu for b in cv}
                if not all(link.reachable for link in links.values()):
                    continue
                share = s.rate * s.tuple_size / (len(up) * len(down))         # eq. 7, bytes
                cost = sum(share * cu[a] * cv[b] * links[(a, b)].cost
                           for a, b in links if a != b)                          # eq. 5
                metric = sum(share * cu[a] * cv[b] * data.network_factor(a, b)
                             for a, b in links)                                  # eqs. 18-20
                delay = max(link.delay for link in links.values())              # eq. 4
                col = m_.binary(f"y[{s.source},{s.target},{','.join(up)},{','.join(down)}]",
                                scales[Term.COST].slope * cost
                                + scales[Term.NETWORK].slope * metric)
                y[s.index][(up, down)] = (col, delay)
                by_up[up].append(col)
                by_down[down].append(col)
        for up, cols in by_up.items():                                           # eq. 27
            m_.row([out.x[(s.source, up)], *cols], [1.0] + [-1.0] * len(cols), 0.0, 0.0)
        for down, cols in by_down.items():                                       # eq. 28
            m_.row([out.x[(s.target, down)], *cols], [1.0] + [-1.0] * len(cols), 0.0, 0.0)
    return y


def _capacity(data: OdrpData, out: MultisetModel) -> None:
    for u in data.network.processors:
        for dim in data.dims:
            cap = data.capacity(u, dim)
            if math.isinf(cap):
                continue
            cols, vals = [], []
            for (op_id, ms), col in out.x.items():
                count = ms.count(u)
                amount = data.instance.app.operator(op_id).resources.get(dim, 0.0)
                if count and amount:
                    cols.append(col)
                    vals.append(count * amount)
            if cols:
                out.model.row(cols, vals, hi=cap)


def _activations(data: OdrpData, out: MultisetModel,
                 y: dict[int, dict[tuple[Multiset, Multiset], tuple[int, float]]]) -> None:
    m_ = out.model
    slope = data.scales[Term.AVAILABILITY].slope
    big_m = len(data.ops)
    for u in data.network.processors:
        cols = [col for (_op, ms), col in out.x.items() if u in ms]
        if not cols:
            continue
        a_u = math.log(data.availability(u))
        z = m_.binary(f"z[{u}]", slope * a_u)
        m_.row([z, *cols], [float(big_m)] + [-1.0] * len(cols), lo=0.0)          # eq. 24
    if slope == 0:
        return
    big_n = max(1, len(data.streams))
    touching: dict[tuple[str, str], list[int]] = {}
    for s in data.streams:
        if s.rate <= 0:
            continue
        for (up, down), (col, _delay) in y[s.index].items():
            for a in set(up):
                for b in set(down):
                    if a != b and data.link(a, b).availability < 1.0:
                        touching.setdefault((a, b), []).append(col)
    for (a, b), cols in sorted(touching.items()):
        z = m_.binary(f"z[{a},{b}]", slope * math.log(data.link(a, b).availability))
        m_.row([z, *cols], [float(big_n)] + [-1.0] * len(cols), lo=0.0)          # eq. 25


def _paths(data: OdrpData, out: MultisetModel,
           y: dict[int, dict[tuple[Multiset, Multiset], tuple[int, float]]],
           response: dict[tuple[str, Multiset], float]) -> None:
    import networkx as nx

    m_ = out.model
    r = m_.var("r", cost=data.scales[Term.RESPONSE_TIME].slope)
    index = {(s.source, s.target): s.index for s in data.streams}
    paths: list[list[str]] = []
    graph = data.graph.digraph
    for source in data.graph.sources:
        for sink in data.graph.sinks:
            if source == sink:
                paths.append([source])
                continue
            for path in nx.all_simple_paths(graph, source, sink):
                paths.append(path)
                if len(paths) > MAX_PATHS:
                    raise InputError.single(
                        f"the application has more than {MAX_PATHS:,} source-to-sink paths, "
                        "one constraint each in the multiset formulation",
                        "use the compact formulation", path="formulation")
    for path in paths:
        cols, vals = [r], [1.0]
        for op in path:
            for (op_id, ms), col in out.x.items():
                if op_id == op and response[(op_id, ms)] > 0:
                    cols.append(col)
                    vals.append(-response[(op_id, ms)])
        for a, b in itertools.pairwise(path):
            for col, delay in y[index[(a, b)]].values():
                if delay > 0:
                    cols.append(col)
                    vals.append(-delay)
        m_.row(cols, vals, lo=0.0)
