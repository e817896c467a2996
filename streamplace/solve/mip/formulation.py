"""Integer programs, one module per formulation, each built forward from an instance and
decoded back into a plan through the one :class:`Formulation` contract."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from streamplace.model.plan import Plan
from streamplace.solve.mip.model import LinearModel


class Formulation(Protocol):
    """A built integer program: the solver-neutral model, and the way between its columns
    and plans. Solver objects never appear here."""

    @property
    def model(self) -> LinearModel: ...

    def decode(self, values: Sequence[float]) -> Plan:
        """The plan a solution's column values describe."""
        ...

    def start_from(self, plan: Plan) -> list[float | None]:
        """Column values of a given plan (None where the solver may choose): a MIP start."""
        ...

    def add_violated(self, values: Sequence[float], plan: Plan) -> int:
        """Add the rows left out of the model (to keep it small) that this solution breaks;
        how many. A formulation that leaves none out returns 0."""
        ...
