"""A compact exact ODRP formulation whose size grows polynomially (docs/models.md sec. 2).

The paper's ILP (Cardellini et al. 2017, eqs. 21-32) has one variable per multiset of candidate
nodes and one per pair of multisets per stream, which explodes with nodes and k. Here instead:

- ``c[i,m]`` (binary): operator i runs m replicas, m among its stable counts;
- ``t[i,u,m,a]`` (binary, a = 1..m): i runs m replicas and at least a of them on u, so
  U_i(u) = sum_a t[i,u,m,a] (a thermometer code, ordered to break symmetry);
- ``z[i,u]`` in [0,1]: i uses node u (pushed to max_m t[i,u,m,1] by the objective);
- ``lat[i] >= R_i(lambda_i/m) / S_u * t[i,u,m,1]``: eq. 1, exact because t[i,u,m,1] says
  both "m replicas" and "u used";
- ``D[i,j] >= d(u,v) (z[i,u] + z[j,v] - 1)``: eq. 4, the worst pair delay;
- ``T[j] >= T[i] + D[i,j] + lat[j]``, ``r >= T[sink]``: the longest path of eqs. 8-9
  without enumerating paths (eq. 22 has one row per path);
- availability (eq. 16): ``y[u] >= z[i,u]``, ``w[u,v] >= z[i,u] + z[j,v] - 1``;
- capacity (eq. 23): ``sum_i res_i U_i(u) <= cap_u y[u]`` where y[u] exists (a node
  whose availability is below 1), else ``<= cap_u``;
- network cost and metric (eqs. 5, 17-20): exact products of the replicas' shares, with
  landmark rows on each stream's share (network.py).

For every integer point the objective equals eq. 21 exactly, so the optimum is the paper's.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from streamplace.model.metrics import Metric, MetricLimits, Term
from streamplace.model.plan import Plan
from streamplace.solve.budget import Budget
from streamplace.solve.mip.model import LinearModel
from streamplace.solve.odrp.cuts import (
    delay_potentials,
    transport_bound,
)
from streamplace.solve.odrp.data import OdrpData
from streamplace.solve.odrp.delays import LAZY_DELAYS_FROM, DelayRows, delay_row_count
from streamplace.solve.odrp.limits import add_limits
from streamplace.solve.odrp.network import Share, add_traffic
from streamplace.solve.odrp.reconfiguration import add_reconfiguration
from streamplace.solve.odrp.through_rows import add_through_rows


@dataclass
class CompactModel:
    """The compact formulation (a :class:`~streamplace.solve.mip.formulation.Formulation`)."""

    model: LinearModel
    bounds_used: dict[str, list[float]]
    t: dict[tuple[str, str, int, int], int] = field(default_factory=dict)
    c: dict[tuple[str, int], int] = field(default_factory=dict)
    # t indexed by (operator, node): [(m, a, column)], so rows are built without scans
    cells: dict[tuple[str, str], list[tuple[int, int, int]]] = field(default_factory=dict)
    z: dict[tuple[str, str], int] = field(default_factory=dict)
    delays: DelayRows | None = None  # the stream delays D (eq. 4) and their pair rows
    shares: dict[int, Share] = field(default_factory=dict)  # by stream index
    # M (reconfiguration) as columns and coefficients, when re-planning
    moves: tuple[list[int], list[float]] = field(default_factory=lambda: ([], []))

    def add_violated(self, values: Sequence[float], plan: Plan) -> int:
        return self.delays.add_broken(values, plan) if self.delays and self.delays.lazy else 0

    def decode(self, values: Sequence[float]) -> Plan:
        placement: dict[str, dict[str, int]] = {}
        for (op, u, _m, _a), col in self.t.items():
            if values[col] > 0.5:
                placement.setdefault(op, {})
                placement[op][u] = placement[op].get(u, 0) + 1
        return Plan.model_validate({"placement": placement, "bounds_used": self.bounds_used})

    def start_from(self, plan: Plan) -> list[float | None]:
        """Values of the integer columns for a given plan (a MIP start)."""
        values: list[float | None] = [None] * self.model.num_cols
        for (op, m), col in self.c.items():
            values[col] = 1.0 if sum(plan.replicas(op).values()) == m else 0.0
        for (op, u, m, a), col in self.t.items():
            reps = plan.replicas(op)
            values[col] = 1.0 if sum(reps.values()) == m and reps.get(u, 0) >= a else 0.0
        return values


def build_compact(data: OdrpData, budget: Budget | None = None,
                  delay_rows: str = "auto", products: bool = True,
                  into: LinearModel | None = None) -> CompactModel:
    """Build the model; raises :class:`Stopped` when ``budget`` runs out meanwhile.
    ``delay_rows``: ``all`` in the model, ``lazy`` (added as solutions break them), or
    ``auto``: lazy beyond :data:`LAZY_DELAYS_FROM` rows. Without ``products`` the traffic
    products are left out, each stream's share of the network term bounded by the landmark
    rows alone: a relaxation (relaxation_bound.py), not the program. ``into`` a model
    already holding other applications' parts, this application's part is added without
    capacity rows: those the joint program writes over every part (solve/bundle)."""
    check = budget.check if budget is not None else _never
    if into is not None:
        into.offset += data.new_model().offset
    out = CompactModel(into if into is not None else data.new_model(), data.bounds_used())
    m_ = out.model
    scales = data.scales
    limits = data.instance.limits or MetricLimits()
    # a response-time limit must hold for whatever plan a time limit leaves: rows all in
    lazy = delay_rows == "lazy" or (
        delay_rows == "auto" and Metric.RESPONSE_TIME not in limits
        and delay_row_count(data) > LAZY_DELAYS_FROM)
    out.delays = DelayRows(m_, data, out.z, lazy)
    need_latency = scales[Term.RESPONSE_TIME].slope != 0 or Metric.RESPONSE_TIME in limits
    need_avail = scales[Term.AVAILABILITY].slope != 0 or Metric.AVAILABILITY in limits
    z = out.z
    for op in data.ops:
        check()
        counts, cands = data.counts[op.id], data.cands[op.id]
        choose = []
        for m in counts:
            out.c[(op.id, m)] = col = m_.binary(f"c[{op.id},{m}]", data.count_cost(op, m))
            choose.append(col)
        m_.row(choose, [1.0] * len(choose), 1.0, 1.0, family="replica count")
        for u in cands:
            z[(op.id, u)] = m_.var(f"z[{op.id},{u}]", 0.0, 1.0)
        for m in counts:
            cols, vals = [out.c[(op.id, m)]], [-float(m)]
            for u in cands:
                prev = None
                for a in range(1, data.node_cap(op, u, m) + 1):
                    out.t[(op.id, u, m, a)] = col = m_.binary(f"t[{op.id},{u},{m},{a}]")
                    out.cells.setdefault((op.id, u), []).append((m, a, col))
                    cols.append(col)
                    vals.append(1.0)
                    if prev is not None:
                        m_.row([col, prev], [1.0, -1.0], hi=0.0, family="thermometer order")
                    prev = col
                m_.row([z[(op.id, u)], out.t[(op.id, u, m, 1)]], [1.0, -1.0], lo=0.0,
                       family="node use")
            m_.row(cols, vals, 0.0, 0.0, family="replica count")
        for u in cands:  # z >= p = U_i(u)/|U_i|: valid, and it tightens the delay rows' LP
            cells = out.cells.get((op.id, u), [])
            m_.row([z[(op.id, u)], *(col for _m, _a, col in cells)],
                   [1.0, *(-1.0 / m for m, _a, _col in cells)], lo=0.0, family="node use")
    with m_.family("unreachable pairs"):
        _unreachable_pairs(data, m_, z)
    check()
    r = _response_time(data, out, z) if need_latency else None
    check()
    log_a: list[tuple[int, float]] = []
    used: dict[str, int] = {}
    if need_avail:
        with m_.family("availability (eqs. 15-16)"):
            log_a, used = _availability(data, m_, z)
    if into is None:
        with m_.family("capacity (eq. 23)"):
            _capacity(data, out, used)
    with m_.family("traffic products (eqs. 5, 17-20)"):
        out.shares = add_traffic(data, out.model, out.cells, check, products)
    if data.instance.current is not None:
        with m_.family(Term.RECONFIGURATION.value):
            out.moves = add_reconfiguration(data, out.model, out.cells)
    if limits:
        with m_.family("metric limits"):
            add_limits(data, out.model, out.c, out.cells, limits, r, log_a, check)
    return out


def _never() -> None:
    return None



def _capacity(data: OdrpData, out: CompactModel, used: dict[str, int]) -> None:
    """Eq. 23, times y[u] where the node's use has a column: nothing runs on a node not in
    use, so the row is as valid, and the LP can no longer spread operators thinly over many
    nodes each barely in use (it must put into use as much capacity as it fills)."""
    for u in data.network.processors:
        for dim in data.dims:
            cap = data.capacity(u, dim)
            if cap == float("inf"):
                continue
            cols: list[int] = []
            vals: list[float] = []
            for op in data.ops:
                amount = op.resources.get(dim, 0.0)
                for _m, _a, col in out.cells.get((op.id, u), []):
                    cols.append(col)
                    vals.append(amount)
            if cols and u in used:
                out.model.row([*cols, used[u]], [*vals, -cap], hi=0.0)
            elif cols:
                out.model.row(cols, vals, hi=cap)


def _unreachable_pairs(data: OdrpData, m_: LinearModel, z: dict[tuple[str, str], int]) -> None:
    for s in data.streams:
        for u in data.cands[s.source]:
            for v in data.cands[s.target]:
                if not data.link(u, v).reachable:
                    m_.row([z[(s.source, u)], z[(s.target, v)]], [1.0, 1.0], hi=1.0)


def _response_time(data: OdrpData, out: CompactModel, z: dict[tuple[str, str], int]) -> int:
    """R's rows; returns the column of r >= every sink's arrival time."""
    m_ = out.model
    lat, arrival = {}, {}
    for op in data.ops:
        lat[op.id] = col = m_.var(f"lat[{op.id}]")
        arrival[op.id] = m_.var(f"T[{op.id}]")
        m_.row([arrival[op.id], col], [1.0, -1.0], lo=0.0, family="arrival times (eqs. 8-9)")
        fastest = max(data.speedup(u) for u in data.cands[op.id])
        counts = data.counts[op.id]
        with m_.family("latency (eq. 1)"):
            # lat >= R_i(lambda/m) / S_max: a convex combination over the count chosen
            m_.row([col, *(out.c[(op.id, m)] for m in counts)],
                   [1.0, *(-data.latency(op, m) / fastest for m in counts)], lo=0.0)
            for u in data.cands[op.id]:
                speed = data.speedup(u)
                if op.service_rate is not None:
                    # one m at a time is active, so summing the per-count rows stays valid
                    cols = [out.t[(op.id, u, m, 1)] for m in counts]
                    m_.row([col, *cols],
                           [1.0, *(-data.latency(op, m) / speed for m in counts)], lo=0.0)
                elif op.latency:
                    m_.row([col, z[(op.id, u)]], [1.0, -op.latency / speed], lo=0.0)
    r = m_.var("r", cost=data.scales[Term.RESPONSE_TIME].slope)
    rows = out.delays
    assert rows is not None
    potentials = delay_potentials(data, out.model, out.cells)
    for s in data.streams:
        delay = m_.var(f"D[{s.source},{s.target}]")
        with m_.family("landmark cuts"):
            for phi in potentials:  # D >= |phi_target - phi_source| (cuts.py)
                m_.row([delay, phi[s.target], phi[s.source]], [1.0, -1.0, 1.0], lo=0.0)
                m_.row([delay, phi[s.target], phi[s.source]], [1.0, 1.0, -1.0], lo=0.0)
        rows.delays[s.index] = delay
        for u in data.cands[s.source] if not rows.lazy else ():
            for v in data.cands[s.target]:
                d = data.link(u, v).delay
                if 0 < d < float("inf"):
                    rows.add(s.index, s.source, s.target, u, v, d)
        with m_.family("transport cuts"):
            transport_bound(data, out.model, out.cells, s.source, s.target, delay)
        m_.row([arrival[s.target], arrival[s.source], delay, lat[s.target]],
               [1.0, -1.0, -1.0, -1.0], lo=0.0, family="arrival times (eqs. 8-9)")
    for sink in data.graph.sinks:
        m_.row([r, arrival[sink]], [1.0, -1.0], lo=0.0, family="response time (eq. 22)")
    add_through_rows(data, m_, out.cells, arrival, lat, r)
    return r


def _availability(data: OdrpData, m_: LinearModel, z: dict[tuple[str, str], int],
                  ) -> tuple[list[tuple[int, float]], dict[str, int]]:
    """log A's rows; returns its terms (column, log availability) and the columns y[u]:
    y[u] per node used, w[u,v] per link used, each pushed to its indicator by F or bounded
    by a limit."""
    slope = data.scales[Term.AVAILABILITY].slope
    terms: list[tuple[int, float]] = []
    used: dict[str, int] = {}
    for (_op, u), col in z.items():
        a_u = math.log(data.availability(u))
        if a_u < 0:
            if u not in used:
                used[u] = m_.var(f"y[{u}]", 0.0, 1.0, cost=slope * a_u)
                terms.append((used[u], a_u))
            m_.row([used[u], col], [1.0, -1.0], lo=0.0)
    links: dict[tuple[str, str], int] = {}
    for s in data.streams:
        if s.rate <= 0:
            continue
        for u in data.cands[s.source]:
            for v in data.cands[s.target]:
                link = data.link(u, v)
                if u == v or not link.reachable or link.availability >= 1.0:
                    continue
                if (u, v) not in links:
                    links[(u, v)] = m_.var(f"w[{u},{v}]", 0.0, 1.0,
                                           cost=slope * math.log(link.availability))
                    terms.append((links[(u, v)], math.log(link.availability)))
                m_.row([links[(u, v)], z[(s.source, u)], z[(s.target, v)]], [1.0, -1.0, -1.0],
                       lo=-1.0)
    return terms, used
