"""Transport cuts on each stream's share of the network term (docs/models.md sec. 2).

A plan pays, for stream (i,j), sum_{u,v} G(u,v) p_i(u) p_j(v) (network.py): the cost of
the product coupling of the two operators' replica shares. No coupling of p_i and p_j costs
less than the cheapest one (a transport problem), and by LP duality, for every alpha, beta
with alpha_u + beta_v <= G(u,v) for all pairs,

    share >= sum_u alpha_u p_i(u) + sum_v beta_v p_j(v)

holds for every plan: a valid row, which never cuts one off. The products' own rows
(``q >= h - H (1 - t)``) give little while t is fractional, and the landmark rows are rows
of this family with alpha = -beta, a potential of the metric closure of G: where the delays
break the triangle inequality (an edge node reaches the cloud sooner through a neighbour
than directly), the closure is shorter than any link a plan pays for. On the bench's edge +
cloud instances the LP then keeps an operator's replicas partly on each side of the cloud's
edge for a fraction of what a plan pays. Separating at an LP point solves each stream's
transport problem (at most |candidates|^2 columns, milliseconds) and keeps its duals, made
feasible exactly (beta_v = min_u G(u,v) - alpha_u), as the row: the deepest row of the
family at that point. The feasibility is what makes the row valid, whatever the LP solver's
tolerances; a better optimum would only make it deeper.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from streamplace.solve.budget import Budget
from streamplace.solve.mip.persistent import Ended, PersistentModel
from streamplace.solve.odrp.cuts import Cells
from streamplace.solve.odrp.data import OdrpData
from streamplace.solve.odrp.network import Share

VIOLATION = 1e-6  # of F: a cut that the point breaks by less is not worth its row
SAME = 1e-12      # potentials this close are one value (the row leaves them out)


@dataclass(frozen=True)
class ShareCut:
    """``share - sum(vals * x[cols]) >= lo``."""

    cols: list[int]
    vals: list[float]
    lo: float


@dataclass(frozen=True)
class ReplicaShares:
    """One operator's replica shares p(u) over its candidates, as columns t/m."""

    cols: np.ndarray
    node: np.ndarray    # each column's candidate index
    weight: np.ndarray  # 1/m
    nodes: int

    @classmethod
    def of(cls, op: str, cands: list[str], cells: Cells) -> ReplicaShares:
        cols, node, weight = [], [], []
        for k, u in enumerate(cands):
            for m, _a, col in cells.get((op, u), []):
                cols.append(col)
                node.append(k)
                weight.append(1.0 / m)
        return cls(np.array(cols, dtype=np.int64), np.array(node, dtype=np.int64),
                   np.array(weight), len(cands))

    def shares(self, x: np.ndarray) -> np.ndarray:
        return np.bincount(self.node, weights=x[self.cols] * self.weight,
                           minlength=self.nodes)

    def terms(self, potential: np.ndarray) -> tuple[list[int], list[float], float]:
        """The row's columns and coefficients for ``sum_u potential_u p(u)``, shifted by its
        most common value, which p's sum of 1 turns into a constant: most rows then leave
        out every node of that value (the cloud, say)."""
        values, counts = np.unique(np.round(potential / SAME) * SAME, return_counts=True)
        shift = float(values[np.argmax(counts)])
        coef = potential[self.node] - shift
        keep = np.abs(coef) > SAME
        return self.cols[keep].tolist(), (coef[keep] * self.weight[keep]).tolist(), shift


@dataclass(frozen=True)
class _Stream:
    share: Share
    up: ReplicaShares
    down: ReplicaShares


class ShareCuts:
    """The separation of transport cuts for every stream whose share is a column."""

    def __init__(self, data: OdrpData, shares: dict[int, Share], cells: Cells) -> None:
        self._streams: list[_Stream] = []
        for s in data.streams:
            share = shares.get(s.index)
            if share is not None and share.weights.size and share.weights.max() > 0:
                self._streams.append(_Stream(
                    share, ReplicaShares.of(s.source, data.cands[s.source], cells),
                    ReplicaShares.of(s.target, data.cands[s.target], cells)))

    def __bool__(self) -> bool:
        return bool(self._streams)

    def separate(self, values: np.ndarray, budget: Budget) -> list[ShareCut]:
        """The cuts that the point ``values`` breaks by more than :data:`VIOLATION`; those
        found so far when ``budget`` ends (each is valid on its own)."""
        x = np.asarray(values, dtype=float)
        found = []
        for stream in self._streams:
            p_up = np.clip(stream.up.shares(x), 0.0, None)
            p_down = np.clip(stream.down.shares(x), 0.0, None)
            if p_up.sum() <= 0 or p_down.sum() <= 0:
                continue
            duals = transport_duals(stream.share.weights, p_up / p_up.sum(),
                                    p_down / p_down.sum(), budget)
            if duals is None:
                break
            alpha = duals[0]
            if not np.isfinite(alpha).all():
                continue
            beta = (stream.share.weights - alpha[:, None]).min(axis=0)  # feasible by construction
            if x[stream.share.column] + VIOLATION >= alpha @ p_up + beta @ p_down:
                continue
            up_cols, up_vals, up_shift = stream.up.terms(alpha)
            down_cols, down_vals, down_shift = stream.down.terms(beta)
            found.append(ShareCut([stream.share.column, *up_cols, *down_cols],
                                  [1.0, *(-v for v in up_vals), *(-v for v in down_vals)],
                                  up_shift + down_shift))
        return found


def transport_duals(weights: np.ndarray, supply: np.ndarray, demand: np.ndarray,
                    budget: Budget, caps: dict[tuple[int, int], float] | None = None,
                    ) -> tuple[np.ndarray, dict[tuple[int, int], float]] | None:
    """The supply side's duals alpha of min sum G f s.t. f's rows sum to ``supply`` and its
    columns to ``demand``, f >= 0 (both sum to 1), and f(u,v) <= ``caps[(u,v)]`` where
    given, with each cap's dual gamma >= 0 (the price of one more unit there); None when
    ``budget`` stopped the LP, NaN duals where it ended otherwise than optimal (caps can
    make it infeasible, and an infeasible LP's duals are no prices)."""
    caps = caps or {}
    rows, cols = weights.shape
    pairs = rows * cols
    up, down = np.divmod(np.arange(pairs), cols)
    capped = np.array([u * cols + v for u, v in caps], dtype=np.int64)
    per_pair = np.full(pairs, 2, dtype=np.int64)
    per_pair[capped] = 3
    start = np.concatenate([[0], np.cumsum(per_pair)])
    index = np.empty(start[-1], dtype=np.int32)
    index[start[:-1]], index[start[:-1] + 1] = up, rows + down
    index[start[capped] + 2] = rows + cols + np.arange(len(caps))
    lp = PersistentModel(threads=1)
    lp.load_columns(weights.ravel(), np.zeros(pairs), np.full(pairs, np.inf),
                    np.concatenate([supply, demand, np.full(len(caps), -np.inf)]),
                    np.concatenate([supply, demand, np.fromiter(caps.values(), float,
                                                                len(caps))]),
                    start, index, np.ones(start[-1]))
    ended = lp.solve(budget)
    if ended is Ended.STOPPED:
        return None
    duals = lp.row_duals() if ended is Ended.OPTIMAL else np.full(lp.num_rows, np.nan)
    return duals[:rows], {pair: max(0.0, -float(duals[rows + cols + k]))
                          for k, pair in enumerate(caps)}
