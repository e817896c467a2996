"""The network cost and metric of the compact ODRP formulation (eqs. 5, 17-20).

Stream (i,j) contributes sum_{u,v} G(u,v) p[i,u] p[j,v] with p[i,u] = U_i(u)/|U_i| =
sum_{m,a} t[i,u,m,a]/m linear. With h[v] = sum_u G(u,v) p[i,u] (linear) the product
p[j,v] h[v] is sum_{m,a} (1/m) t[j,v,m,a] h[v], and each binary-times-bounded product is exact
with ``q >= h[v] - H_v (1 - t[j,v,m,a])``, ``q >= 0`` (it is minimised). The stream's share
of F is a column pushed to the products' sum. Those rows are weak in the LP, so the share is
bounded from below by valid rows too: landmark rows where the network metric counts
(cuts.py), and the transport cuts the root adds as the LP needs them
(share_cuts.py).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from streamplace.model.graph import ResolvedStream
from streamplace.model.metrics import Term
from streamplace.solve.mip.model import LinearModel
from streamplace.solve.odrp.cuts import Cells, landmark_potentials
from streamplace.solve.odrp.data import OdrpData


@dataclass(frozen=True)
class Share:
    """A stream's share of F: its column, and G (:func:`stream_weights`)."""

    column: int
    weights: np.ndarray


def stream_weights(data: OdrpData, s: ResolvedStream) -> np.ndarray:
    """G(u,v): what F loses per unit of the pair's share of stream ``s``, for u among its
    source's candidates (rows) and v among its target's (columns); 0 on one node."""
    cost_slope = -data.scales[Term.COST].slope       # >= 0: F falls by this per unit of cost
    metric_slope = -data.scales[Term.NETWORK].slope  # >= 0

    def weight(u: str, v: str) -> float:
        link = data.link(u, v)
        if u == v or not link.reachable:
            return 0.0
        return s.bytes_per_s * (cost_slope * link.cost + metric_slope * data.network_factor(u, v))

    return np.array([[weight(u, v) for v in data.cands[s.target]]
                     for u in data.cands[s.source]], dtype=float).reshape(
        len(data.cands[s.source]), len(data.cands[s.target]))


def add_traffic(data: OdrpData, m_: LinearModel, cells: Cells, check: Callable[[], None],
                products: bool) -> dict[int, Share]:
    """The network cost and metric's columns and rows; returns each stream's share (by
    stream index). Without ``products``, each stream's share is bounded by the landmark
    rows alone (a relaxation)."""
    metric_slope = -data.scales[Term.NETWORK].slope  # >= 0
    shares: dict[int, Share] = {}
    if data.scales[Term.COST].slope == 0 and metric_slope == 0:
        return shares
    potentials = _network_potentials(data, m_, cells) if metric_slope > 0 else []
    for s in data.streams:
        check()
        if s.bytes_per_s <= 0:
            continue
        ups, downs = data.cands[s.source], data.cands[s.target]
        weights = stream_weights(data, s)
        # the stream's share of F, pushed to its products' sum by F; the landmark rows
        # and the share cuts (share_cuts.py) bound it from below where fractional
        # replicas would sit together
        share = m_.var(f"n[{s.source},{s.target}]", cost=-1.0)
        shares[s.index] = Share(share, weights)
        terms: list[int] = []  # the products q, each weighing 1/m in the share
        terms_vals: list[float] = []
        for col_v, v in enumerate(downs if products else ()):
            g = {u: float(weights[row_u, col_v]) for row_u, u in enumerate(ups)}
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
                q = m_.var(f"q[{s.source},{s.target},{v},{m},{a}]", 0.0, top)
                m_.row([q, h, t], [1.0, -1.0, -top], lo=-top)
                terms.append(q)
                terms_vals.append(-1.0 / m)
        if terms:
            m_.row([share, *terms], [1.0, *terms_vals], lo=0.0)
        per_unit = s.bytes_per_s * metric_slope  # F per unit of the potentials' distance
        for phi in potentials:
            a, b = phi[s.source], phi[s.target]
            m_.row([share, b, a], [1.0, -per_unit, per_unit], lo=0.0, family="landmark cuts")
            m_.row([share, b, a], [1.0, per_unit, -per_unit], lo=0.0, family="landmark cuts")
    return shares


def _network_potentials(data: OdrpData, m_: LinearModel, cells: Cells,
                        ) -> list[dict[str, int]]:
    """Landmark potentials over the network metric's per-byte factor (cuts.py): a
    stream's share of the metric is at least its bytes times the potentials' difference."""
    def factor(u: str, v: str) -> float:
        return data.network_factor(u, v) if data.link(u, v).reachable else math.inf

    return landmark_potentials(data, m_, cells, factor, "psi")
