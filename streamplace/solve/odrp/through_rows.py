"""Through rows: R through each operator's nodes (docs/models.md sec. 2).

R is a maximum over the sinks, and each stream's delay D a maximum over the pairs of nodes
the two operators use. The LP pays for a fractional operator the average of its replicas'
delays instead, path by path, so an operator half near one pinned sink and half near
another seems half as far from each as it is (R is then the larger of two halves, where
a plan pays the whole distance to one of them). These rows average over an operator's
nodes what a replica there makes R at least, the maximum over the sinks taken first.

For a replica of operator i on node u, each ancestor a reaches it through a chain of
replicas of the operators between them, one per operator on the way. Each hop is a pair
of nodes its stream uses (every pair of the two operators' replicas carries some of it),
so it adds at least that pair's delay d(w, v), in the stream's direction; every operator
on the way adds at least its least latency. The hops are the streams' own: a metric
closure would let one hop pass through nodes no operator runs on, and on edge + cloud
networks, where two short edge hops beat the direct edge-to-cloud link, it priced a hop
to the cloud as that detour (spread-out pins 30 x 20: the root LP after the share cuts
0.9098 with the closure, 0.9066 hop by hop). So, with head_i(u) the largest such time
over i's ancestors (the least over the nodes each operator on the way may run on, a
pinned one's being its node) and tail_i(u) the same over its descendants:

    T_i >= lat_i + sum_u p_i(u) head_i(u)        R >= T_i + sum_u p_i(u) tail_i(u)

hold for every plan (the averages over i's replicas are at most their maxima), and do
not change the program's optimum.
"""

from __future__ import annotations

import math

import numpy as np

from streamplace.solve.mip.model import LinearModel
from streamplace.solve.odrp.cuts import Cells
from streamplace.solve.odrp.data import OdrpData, compact_columns

# estimated columns (30 x 20: 4,956-9,542 on bench/odrp.py's families; 50 x 40: 21,306-
# 31,980). Each row holds every cell of its operator: at 100 x 60 (spread-out pins) they
# slowed the relaxation's LP past its share of a minute, which then gave neither bound nor
# start, and at 50 x 40 (each of the four families) they moved no bound by more than 0.0001
THROUGH_ROWS_BELOW = 20_000


def add_through_rows(data: OdrpData, m_: LinearModel, cells: Cells,
                     arrival: dict[str, int], lat: dict[str, int], r: int) -> None:
    """The two rows per operator where they say more than the arrival rows, on models
    below :data:`THROUGH_ROWS_BELOW` estimated columns."""
    if compact_columns(data) >= THROUGH_ROWS_BELOW:
        return
    index, hop = _hop_delays(data)
    least = {op.id: min(data.latency(op, m) for m in data.counts[op.id])
             / max(data.speedup(u) for u in data.cands[op.id]) for op in data.ops}
    at = {op: np.array([index[u] for u in c], dtype=np.int64) for op, c in data.cands.items()}
    order, preds, succs = data.graph.topological_order(), data.graph.preds, data.graph.succs
    head = _reach(order, preds, at, least, hop)  # a hop from a predecessor's w to u
    tail = _reach(order[::-1], succs, at, least, hop.T)  # from u to a successor's w
    for op in order:
        if preds[op]:
            _row(m_, cells, data.cands[op], index, op, head[op], [arrival[op], lat[op]])
        if succs[op]:
            _row(m_, cells, data.cands[op], index, op, tail[op], [r, arrival[op]])


def _hop_delays(data: OdrpData) -> tuple[dict[str, int], np.ndarray]:
    """Over every operator's candidate nodes: each node's index, and the delay a stream
    pays from u to v (0 on one node, infinite where no route joins them)."""
    def delay(u: str, v: str) -> float:
        link = data.link(u, v)
        return 0.0 if u == v else link.delay if link.reachable else math.inf

    nodes = sorted({u for cands in data.cands.values() for u in cands})
    hop = np.array([[delay(u, v) for v in nodes] for u in nodes], dtype=float)
    return {u: k for k, u in enumerate(nodes)}, hop


def _row(m_: LinearModel, cells: Cells, cands: list[str], index: dict[str, int], op: str,
         reach: np.ndarray, cols: list[int]) -> None:
    """``cols[0] - cols[1] >= sum_u p(u) reach(u)``, where reach is positive somewhere."""
    terms: list[tuple[int, float]] = []
    for u in cands:
        value = float(reach[index[u]])
        if 0 < value < math.inf:
            terms.extend((col, -value / m) for m, _a, col in cells.get((op, u), []))
    if terms:
        m_.row([*cols, *(col for col, _v in terms)], [1.0, -1.0, *(v for _c, v in terms)],
               lo=0.0, family="through rows")


def _reach(order: list[str], before: dict[str, list[str]], cands: dict[str, np.ndarray],
           least: dict[str, float], hop: np.ndarray) -> dict[str, np.ndarray]:
    """Per operator and node u of the network, a lower bound on the time between it and
    the ends of the DAG on the side of ``before`` (its predecessors: from the sources'
    start to its own; its successors: from its end to R) when one of its replicas runs on
    u. ``order`` lists every operator after those before it; ``cands`` their nodes;
    ``hop[w, u]`` the delay from a node w of an operator in ``before`` to u."""
    n = hop.shape[0]
    out: dict[str, np.ndarray] = {}
    for op in order:
        reach = np.zeros(n)
        for other in before[op]:
            # other runs on some node w of its candidates: its own bound there and its
            # latency, then a hop from w to u
            at = cands[other]
            via = np.min((out[other][at] + least[other])[:, None] + hop[at, :], axis=0)
            np.maximum(reach, np.where(np.isfinite(via), via, 0.0), out=reach)
        out[op] = reach
    return out
