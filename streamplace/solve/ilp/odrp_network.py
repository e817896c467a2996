"""The network cost and metric of the compact ODRP formulation (eqs. 5, 17-20).

Stream (i,j) contributes sum_{u,v} G(u,v) p[i,u] p[j,v] with p[i,u] = U_i(u)/|U_i| =
sum_{m,a} t[i,u,m,a]/m linear. With h[v] = sum_u G(u,v) p[i,u] (linear) the product
p[j,v] h[v] is sum_{m,a} (1/m) t[j,v,m,a] h[v], and each binary-times-bounded product is exact
with ``q >= h[v] - H_v (1 - t[j,v,m,a])``, ``q >= 0`` (it is minimised). Where the network
metric counts, the stream's share of F is a column pushed to the products' sum and bounded
by landmark rows too (odrp_cuts.py), which bind only where fractional replicas would sit
together.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from streamplace.model.metrics import Term
from streamplace.solve.ilp.odrp_cuts import Cells, landmark_potentials
from streamplace.solve.ilp.odrp_data import OdrpData
from streamplace.solve.linear import LinearModel


def add_traffic(data: OdrpData, m_: LinearModel, cells: Cells, check: Callable[[], None],
                products: bool) -> None:
    """The network cost and metric's columns and rows; without ``products``, each
    stream's share is bounded by the landmark rows alone (a relaxation)."""
    cost_slope = -data.scales[Term.COST].slope       # >= 0: F falls by this per unit of cost
    metric_slope = -data.scales[Term.NETWORK].slope  # >= 0
    if cost_slope == 0 and metric_slope == 0:
        return
    potentials = _network_potentials(data, m_, cells) if metric_slope > 0 else []
    for s in data.streams:
        check()
        if s.bytes_per_s <= 0:
            continue
        ups, downs = data.cands[s.source], data.cands[s.target]

        def weight(u: str, v: str, s_bytes: float = s.bytes_per_s) -> float:
            link = data.link(u, v)
            if u == v or not link.reachable:
                return 0.0
            return s_bytes * (cost_slope * link.cost + metric_slope * data.network_factor(u, v))

        # the stream's share of F, pushed to its products' sum by F; the landmark rows
        # below it only ever bind where fractional replicas would sit together
        share = m_.var(f"n[{s.source},{s.target}]", cost=-1.0) if potentials else None
        terms: list[int] = []  # the products q, each weighing 1/m in the share
        terms_vals: list[float] = []
        for v in downs if products else ():
            g = {u: weight(u, v) for u in ups}
            top = max(g.values(), default=0.0)
            if top <= 0:
                continue
            h = m_.var(f"h[{s.source},{s.target},{v}]", 0.0, top)
            cols, vals = [h], [1.0]
            for u in ups:
                if g[u] > 0:
                    for m, _a, col in cells[(s.source, u)]:
                        cols.append(col)
                        vals.append(-g[u] / m)
            m_.row(cols, vals, 0.0, 0.0)
            for m, a, t in cells[(s.target, v)]:
                q = m_.var(f"q[{s.source},{s.target},{v},{m},{a}]", 0.0, top,
                           cost=0.0 if share is not None else -1.0 / m)
                m_.row([q, h, t], [1.0, -1.0, -top], lo=-top)
                terms.append(q)
                terms_vals.append(-1.0 / m)
        if share is None:
            continue
        if terms:
            m_.row([share, *terms], [1.0, *terms_vals], lo=0.0)
        per_unit = s.bytes_per_s * metric_slope  # F per unit of the potentials' distance
        for phi in potentials:
            a, b = phi[s.source], phi[s.target]
            m_.row([share, b, a], [1.0, -per_unit, per_unit], lo=0.0, family="landmark cuts")
            m_.row([share, b, a], [1.0, per_unit, -per_unit], lo=0.0, family="landmark cuts")


def _network_potentials(data: OdrpData, m_: LinearModel, cells: Cells,
                        ) -> list[dict[str, int]]:
    """Landmark potentials over the network metric's per-byte factor (odrp_cuts.py): a
    stream's share of the metric is at least its bytes times the potentials' difference."""
    def factor(u: str, v: str) -> float:
        return data.network_factor(u, v) if data.link(u, v).reachable else math.inf

    return landmark_potentials(data, m_, cells, factor, "psi")
