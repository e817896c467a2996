"""Re-planning against what runs now (docs/models.md sec. 2, "Re-planning"): the fifth term
of the utility, reconfiguration M = sum over operators i and nodes u of
migration_cost_i * max(0, U_i(u) - c_i(u)), where c is the current plan. Starting a replica
where none ran costs a restart and its state; removing one costs nothing. The idea of
Cardellini et al.'s elastic follow-up to ODRP (CCPE 2018).

>>> from streamplace.model.application import Operator
>>> ops = [Operator(id="a", migration_cost=2), Operator(id="b")]
>>> now = Current({"a": {"n1": 1}, "b": {"n1": 2}})
>>> now.moves(ops, {"a": {"n1": 1, "n2": 1}, "b": {"n2": 1}})
3.0
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from streamplace.model.application import Operator


@dataclass(frozen=True)
class Current:
    """The plan that runs now (replicas per operator per node) and, optionally, the most
    reconfiguration a new plan may cost (``--max-moves``)."""

    placement: Mapping[str, Mapping[str, int]]
    max_moves: float | None = None
    source: str = field(default="the current plan", compare=False)

    def count(self, op: str, node: str) -> int:
        return int(self.placement.get(op, {}).get(node, 0))

    def moves(self, ops: Sequence[Operator], placement: Mapping[str, Mapping[str, int]],
              ) -> float:
        """M of ``placement`` against this plan."""
        return float(sum(op.migration_cost * max(0, count - self.count(op.id, node))
                         for op in ops for node, count in placement.get(op.id, {}).items()))
