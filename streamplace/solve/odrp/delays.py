"""The stream-delay rows of the compact ODRP formulation (eq. 4), all in the model or added
only when a solution breaks them.

D[i,j] >= d(u,v) (z[i,u] + z[j,v] - 1) needs a row per stream and pair of candidate nodes:
at 50 nodes x 40 operators 127,645 of the model's 174,887 rows. They leave the root LP
bound unchanged there (the transport and landmark rows carry it) and take the root LP from
8 s to 57 s, so beyond :data:`LAZY_DELAYS_FROM` rows they start out of the model. After each
solve the rows the plan breaks (pairs of nodes it uses, further apart than its D) are added
and the model solved again from that plan. A solution that breaks none is optimal for the
full model, as the model solved is a relaxation of it.

Below that size the rows are in the model HiGHS branches on, but the root LP (root.py)
starts without them too and takes those its solutions break (:class:`HeldRows`): most never
bind, and the LP with them all takes longer to solve.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from streamplace.model.plan import Plan
from streamplace.solve.mip.highs.arrays import Row
from streamplace.solve.mip.model import LinearModel
from streamplace.solve.odrp.data import OdrpData

LAZY_DELAYS_FROM = 50_000


def delay_row_count(data: OdrpData) -> int:
    return sum(len(data.cands[s.source]) * len(data.cands[s.target]) for s in data.streams)


@dataclass
class DelayRows:
    """The stream-delay columns D of ``model`` (one per stream index) and the rows of eq. 4
    added so far, each pair of nodes once."""

    model: LinearModel
    data: OdrpData
    z: dict[tuple[str, str], int]
    lazy: bool = False
    delays: dict[int, int] = field(default_factory=dict)
    added: set[tuple[int, str, str]] = field(default_factory=set)
    # every row added: (its index in the model, the columns D, z[i,u], z[j,v], the delay)
    rows: list[tuple[int, int, int, int, float]] = field(default_factory=list)

    def add(self, index: int, up: str, down: str, u: str, v: str, d: float) -> int:
        """The row of eq. 4 for stream ``index`` and nodes u, v (once); 1 if added."""
        if (index, u, v) in self.added:
            return 0
        self.added.add((index, u, v))
        cols = (self.delays[index], self.z[(up, u)], self.z[(down, v)])
        row = self.model.row(list(cols), [1.0, -d, -d], lo=-d, family="stream delay (eq. 4)")
        self.rows.append((row, *cols, d))
        return 1

    def add_broken(self, values: Sequence[float], plan: Plan) -> int:
        """Add the rows of every pair of nodes ``plan`` uses whose delay exceeds the
        solution's D; how many."""
        added = 0
        for s in self.data.streams:
            col = self.delays.get(s.index)
            if col is None:
                continue
            for u in plan.replicas(s.source):
                for v in plan.replicas(s.target):
                    d = self.data.link(u, v).delay
                    if 0 < d < math.inf and d > values[col] + 1e-9 * max(1.0, d):
                        added += self.add(s.index, s.source, s.target, u, v, d)
        return added


class HeldRows:
    """Eq. 4's rows held out of an LP, each handed back once a solution breaks it."""

    TOLERANCE = 1e-9  # of D, in seconds: below HiGHS's own feasibility tolerance

    def __init__(self, rows: list[tuple[int, int, int, int, float]]) -> None:
        table = np.array(rows, dtype=float).reshape(-1, 5)
        self.model_rows = table[:, 0].astype(np.int64)
        self.delay, self.up, self.down = (table[:, i].astype(np.int64) for i in (1, 2, 3))
        self.d = table[:, 4]
        self.held = np.ones(len(table), dtype=bool)

    def __len__(self) -> int:
        return int(self.held.sum())

    def broken(self, values: np.ndarray) -> list[Row]:
        """The held rows ``values`` break, no longer held."""
        short = self.d * (values[self.up] + values[self.down] - 1.0) - values[self.delay]
        return self._hand_back(self.held & (short > self.TOLERANCE))

    def rest(self) -> list[Row]:
        """Every row still held, no longer held."""
        return self._hand_back(self.held.copy())

    def _hand_back(self, chosen: np.ndarray) -> list[Row]:
        self.held &= ~chosen
        return [(-float(d), math.inf, [int(a), int(b), int(c)], [1.0, -float(d), -float(d)])
                for a, b, c, d in zip(self.delay[chosen], self.up[chosen],
                                      self.down[chosen], self.d[chosen], strict=True)]
