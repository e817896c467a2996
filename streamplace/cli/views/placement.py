"""The placement of a solved plan, as the summary shows it: an operator x node matrix, or
for a large plan the replicas summed up by node."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rich.console import Console

from streamplace.cli.views.tables import table
from streamplace.solve.result import SolveResult

MATRIX_ROWS = 60  # beyond this a placement is summed up by node: the plan file has it all


def placement_matrix(con: Console, result: SolveResult, processors: Sequence[str]) -> None:
    assert result.plan is not None
    placement = result.plan.placement
    used = [u for u in processors if any(u in reps for reps in placement.values())]
    if len(placement) > MATRIX_ROWS:
        _placement_by_node(con, placement, used)
        return
    shown = list(processors) if len(processors) <= 12 else used
    t = table(con, "Placement (replicas per node)", "operator", *shown, "total")
    for op, reps in placement.items():
        t.add_row(op, *(str(reps.get(u, "")) for u in shown), str(sum(reps.values())))
    con.print(t)
def _placement_by_node(con: Console, placement: Mapping[str, Mapping[str, int]],
                       used: Sequence[str]) -> None:
    """A large plan by node (a table of every operator takes seconds to draw and screens
    to read); ``explain`` and the plan file give it operator by operator."""
    t = table(con, f"Placement by node ({len(placement)} operators: the plan file lists "
                   "each)", "node", "operators", "replicas")
    for u in used:
        hosted = [reps[u] for reps in placement.values() if u in reps]
        t.add_row(u, str(len(hosted)), str(sum(hosted)))
    con.print(t)
