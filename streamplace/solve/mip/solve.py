"""The one way an exact method hands its integer program to a solver, whichever backend the
options name, and gets back the same :class:`~streamplace.solve.mip.outcome.MipOutcome`:
our status, the values, objective, bound and gap, and the backend's report.

Backends, each importing its solver only when it solves:

- ``highs`` (default): HiGHS in-process, in a thread a stop request always reaches.
- ``cbc``: COIN-OR CBC through PuLP, in a process of its own.
- ``scip``: SCIP through PySCIPOpt (``pip install 'streamplace[scip]'``).
"""

from __future__ import annotations

from collections.abc import Sequence

from streamplace.errors import InputError
from streamplace.solve.budget import Budget
from streamplace.solve.mip.model import LinearModel
from streamplace.solve.mip.outcome import MipOutcome, StatusMeaning
from streamplace.solve.result import MipSolver, SolveOptions

MODEL_FORMATS = ("mps", "lp")


def solve_mip(model: LinearModel, options: SolveOptions,
              start: Sequence[float | None] | None = None,
              budget: Budget | None = None) -> MipOutcome:
    """Solve ``model`` with ``options.solver`` within ``budget`` (default: the options' time
    limit from now), from the MIP start ``start`` (a value per column, None where the solver
    may choose) where the backend takes one."""
    budget = budget or options.budget()
    if options.solver == MipSolver.CBC:
        from streamplace.solve.mip.cbc import solve_cbc

        return solve_cbc(model, options, start, budget)
    if options.solver == MipSolver.SCIP:
        from streamplace.solve.mip.scip import solve_scip

        return solve_scip(model, options, start, budget)
    from streamplace.solve.mip.highs.solve import solve_highs

    return solve_highs(model, options, start, budget)


def status_tables() -> dict[str, dict[str, StatusMeaning]]:
    """Every backend's statuses, each with the outcome it means: one table per backend."""
    from streamplace.solve.mip.cbc import CBC_STATUSES
    from streamplace.solve.mip.highs.solve import HIGHS_STATUSES
    from streamplace.solve.mip.scip import SCIP_STATUSES

    return {"HiGHS": HIGHS_STATUSES, "CBC": CBC_STATUSES, "SCIP": SCIP_STATUSES}


def write_model(model: LinearModel, fmt: str) -> str:
    """``model`` as text, free MPS (``mps``) or CPLEX LP (``lp``), columns and rows named as
    the formulation names them: for inspecting the very program a method built, or solving
    it with another solver (Gurobi, CPLEX, SCIP, HiGHS's own command line)."""
    if fmt not in MODEL_FORMATS:
        raise InputError.single(f"no model format {fmt!r}", "use mps or lp", path="format")
    from streamplace.solve.mip.highs.arrays import model_text

    return model_text(model, fmt)
