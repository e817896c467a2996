"""Valid inequalities that tighten the compact ODRP formulation's LP (never cut off a plan):
landmark potentials from the geometry of the delays (or of the network metric's per-byte
factor, network.py), and a transport bound on each stream's delay."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from streamplace.solve.mip.model import LinearModel
from streamplace.solve.odrp.data import OdrpData

Cells = dict[tuple[str, str], list[tuple[int, int, int]]]  # (op, node) -> [(m, a, column)]


MAX_LANDMARKS = 4
MAX_TRANSPORT_PAIRS = 144


def landmark_potentials(data: OdrpData, m_: LinearModel, cells: Cells,
                        distance: Callable[[str, str], float] | None = None,
                        name: str = "phi") -> list[dict[str, int]]:
    """Landmark potentials: columns phi_i = sum_u d''(l,u) p[i,u], one family per landmark.

    d'' is the metric closure of the symmetrised ``distance`` (the link delays unless
    given): shortest paths over min(d(u,v), d(v,u)), so d >= d'' and d'' obeys the triangle
    inequality. For a landmark l, |d''(l,u) - d''(l,v)| <= d''(u,v) <= d(u,v), so for any
    stream (k, i) and any coupling of the replicas, the mean distance of its pairs is at
    least |phi_i - phi_k| (Jensen: |.| is convex). Landmarks are the nodes operators are
    pinned to, so along a pinned source-to-sink path the LP must pay for every operator
    that capacity pushes away from the pinned node, as the integer plan does.
    """
    pinned = [cands[0] for cands in data.cands.values() if len(cands) == 1]
    landmarks = sorted(set(pinned), key=lambda u: (-pinned.count(u), u))[:MAX_LANDMARKS]
    if not landmarks:
        return []
    index, dist = candidate_closure(data, distance)
    potentials = []
    for landmark in landmarks:
        if landmark not in index:
            continue
        far = dist[index[landmark]]
        phi: dict[str, int] = {}
        for op in data.ops:
            phi[op.id] = col = m_.var(f"{name}[{landmark},{op.id}]")
            cols, vals = [col], [1.0]
            for u in data.cands[op.id]:
                if 0 < far[index[u]] < math.inf:
                    for m, _a, t in cells[(op.id, u)]:
                        cols.append(t)
                        vals.append(-float(far[index[u]]) / m)
            m_.row(cols, vals, 0.0, 0.0)
        potentials.append(phi)
    return potentials


def delay_potentials(data: OdrpData, m_: LinearModel, cells: Cells) -> list[dict[str, int]]:
    """The landmark potentials of the delays, where the stream delays need them."""
    if all(len(data.cands[s.source]) * len(data.cands[s.target]) <= MAX_TRANSPORT_PAIRS
           for s in data.streams):
        return []  # the exact-for-one-replica transport rows are there and are stronger
    return landmark_potentials(data, m_, cells)


def candidate_closure(data: OdrpData, distance: Callable[[str, str], float] | None = None,
                      ) -> tuple[dict[str, int], np.ndarray]:
    """The metric closure of ``distance`` (the link delays unless given) over every
    operator's candidate nodes, and each node's index in it."""
    nodes = sorted({u for cands in data.cands.values() for u in cands})
    dist = _closure(nodes, distance or (lambda u, v: data.link(u, v).delay))
    return {u: k for k, u in enumerate(nodes)}, dist


def _closure(nodes: list[str], distance: Callable[[str, str], float]) -> np.ndarray:
    """Floyd-Warshall over the symmetrised distances: the metric closure (inf where no
    route)."""
    dist = np.array([[0.0 if u == v else min(distance(u, v), distance(v, u)) for v in nodes]
                     for u in nodes], dtype=float)
    for w in range(len(nodes)):
        np.minimum(dist, dist[:, w, None] + dist[None, w, :], out=dist)
    return dist


def transport_bound(data: OdrpData, m_: LinearModel, cells: Cells, up: str, down: str,
                    delay: int) -> None:
    """A valid inequality that tightens the LP: D >= min-cost transport of p_up to p_down.

    The cheapest coupling of the replica shares costs at most the all-to-all (product)
    coupling, whose mean delay is at most the worst pair, so the row never cuts off a plan;
    with one replica on each side it is exact. Without it, fractional placements would make
    every stream look co-located.
    """
    if len(data.cands[up]) * len(data.cands[down]) > MAX_TRANSPORT_PAIRS:
        return  # quadratic in nodes; at that size the landmark rows do most of its work
    pairs = {(u, v): data.link(u, v).delay for u in data.cands[up] for v in data.cands[down]
             if data.link(u, v).reachable}
    if not any(d > 0 for d in pairs.values()):
        return
    flow = {pair: m_.var(f"f[{up},{down},{pair[0]},{pair[1]}]") for pair in pairs}
    for side, op, cands in ((0, up, data.cands[up]), (1, down, data.cands[down])):
        for node in cands:
            cols = [col for pair, col in flow.items() if pair[side] == node]
            vals = [1.0] * len(cols)
            for m, _a, col in cells[(op, node)]:
                cols.append(col)
                vals.append(-1.0 / m)
            m_.row(cols, vals, 0.0, 0.0)
    m_.row([delay, *flow.values()], [1.0, *(-d for d in pairs.values())], lo=0.0)
