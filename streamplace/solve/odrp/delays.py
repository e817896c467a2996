"""The stream-delay rows of the compact ODRP formulation (eq. 4), all in the model or added
only when a solution breaks them.

D[i,j] >= d(u,v) (z[i,u] + z[j,v] - 1) needs a row per stream and pair of candidate nodes:
at 50 nodes x 40 operators 127,645 of the model's 174,887 rows. They leave the root LP
bound unchanged there (the transport and landmark rows carry it) and take the root LP from
8 s to 57 s, so beyond :data:`LAZY_DELAYS_FROM` rows they start out of the model. After each
solve the rows the plan breaks (pairs of nodes it uses, further apart than its D) are added
and the model solved again from that plan. A solution that breaks none is optimal for the
full model, as the model solved is a relaxation of it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from streamplace.model.plan import Plan
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

    def add(self, index: int, up: str, down: str, u: str, v: str, d: float) -> int:
        """The row of eq. 4 for stream ``index`` and nodes u, v (once); 1 if added."""
        if (index, u, v) in self.added:
            return 0
        self.added.add((index, u, v))
        self.model.row([self.delays[index], self.z[(up, u)], self.z[(down, v)]],
                       [1.0, -d, -d], lo=-d, family="stream delay (eq. 4)")
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
