"""A model kept in the solver between solves: rows and columns added, bounds and costs
changed, solved again from where it was (cut rounds, column generation, pricing).

HiGHS holds it in-process. Every solve runs through the stoppable thread
(:func:`~streamplace.solve.mip.highs.thread.solve_in_thread`), so a stop request or the
budget running out reaches it; each model has locks of its own, so several solve at once.
Changes go in as arrays, in one call each: row by row is quadratic in highspy.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from enum import Enum

import numpy as np

from streamplace.errors import SolverError
from streamplace.solve.budget import Budget
from streamplace.solve.mip.highs.arrays import Row, add_rows, pass_model
from streamplace.solve.mip.highs.thread import own_locks, solve_in_thread
from streamplace.solve.mip.model import LinearModel


class Ended(Enum):
    """How a solve of a persistent model ended, as its callers need to know it."""

    OPTIMAL = "optimal"        # proven, within the model's gap
    INFEASIBLE = "infeasible"  # proven
    STOPPED = "stopped"        # not solved: the budget had run out, or HiGHS was left behind
    TIME_LIMIT = "time_limit"  # HiGHS's own time limit, the budget's end: read has_solution
    OTHER = "other"            # any other status (another limit among them): read has_solution


class PersistentModel:
    """One solver model, changed in place between solves."""

    def __init__(self, threads: int | None = 1, relaxation: bool = False,
                 options: dict[str, bool | int | float | str] | None = None) -> None:
        import highspy

        self._highspy = highspy
        h = self._h = highspy.Highs()
        own_locks(h)
        h.silent()
        if threads is not None:
            h.setOptionValue("threads", int(threads))
        if relaxation:
            h.setOptionValue("solve_relaxation", True)
        for name, value in (options or {}).items():
            self.set_option(name, value)

    def set_option(self, name: str, value: bool | int | float | str) -> None:
        if self._h.setOptionValue(name, value) == self._highspy.HighsStatus.kError:
            raise SolverError(f"HiGHS rejected option {name}={value!r}")

    # building
    def load(self, model: LinearModel) -> None:
        """Replace whatever the solver holds by ``model``, passed in bulk."""
        pass_model(self._h, self._highspy, model)

    def load_columns(self, cost: np.ndarray, lower: np.ndarray, upper: np.ndarray,
                     row_lower: np.ndarray, row_upper: np.ndarray, start: np.ndarray,
                     index: np.ndarray, value: np.ndarray) -> None:
        """Replace whatever the solver holds by a minimisation LP given column-wise
        (``start``, ``index``, ``value`` as in compressed sparse columns)."""
        highspy = self._highspy
        status = self._h.passModel(
            len(cost), len(row_lower), len(value), int(highspy.MatrixFormat.kColwise),
            int(highspy.ObjSense.kMinimize), 0.0, np.asarray(cost, dtype=float),
            np.asarray(lower, dtype=float), np.asarray(upper, dtype=float),
            np.asarray(row_lower, dtype=float), np.asarray(row_upper, dtype=float),
            np.asarray(start, dtype=np.int32), np.asarray(index, dtype=np.int32),
            np.asarray(value, dtype=float), np.zeros(len(cost), dtype=np.int32))
        if status not in (highspy.HighsStatus.kOk, highspy.HighsStatus.kWarning):
            raise SolverError("HiGHS rejected the model")

    def add_variables(self, lower: np.ndarray, upper: np.ndarray) -> None:
        self._h.addVars(len(lower), np.asarray(lower, dtype=float),
                        np.asarray(upper, dtype=float))

    def make_integer(self, columns: np.ndarray) -> None:
        integer = self._highspy.HighsVarType.kInteger
        self._h.changeColsIntegrality(len(columns), np.asarray(columns, dtype=np.int32),
                                      np.array([integer] * len(columns)))

    def add_rows(self, rows: Sequence[Row]) -> None:
        """Rows (lower, upper, columns, coefficients), added in one call."""
        add_rows(self._h, list(rows))

    def add_column(self, cost: float, lower: float, upper: float, rows: np.ndarray,
                   values: np.ndarray) -> None:
        self._h.addCol(float(cost), float(lower), float(upper), len(rows),
                       np.asarray(rows, dtype=np.int32), np.asarray(values, dtype=float))

    def delete_rows(self, rows: np.ndarray) -> None:
        """Delete the rows ``rows``; those after them move up."""
        if len(rows):
            self._h.deleteRows(len(rows), np.asarray(rows, dtype=np.int32))

    def delete_rows_from(self, first: int) -> None:
        """Delete every row from ``first`` on."""
        extra = self.num_rows - first
        if extra > 0:
            self._h.deleteRows(extra, np.arange(first, first + extra, dtype=np.int32))

    def set_row_bounds(self, row: int, lower: float, upper: float) -> None:
        self._h.changeRowBounds(int(row), float(lower), float(upper))

    def set_column_bounds(self, columns: np.ndarray, lower: np.ndarray,
                          upper: np.ndarray) -> None:
        self._h.changeColsBounds(len(columns), np.asarray(columns, dtype=np.int32),
                                 np.asarray(lower, dtype=float), np.asarray(upper, dtype=float))

    def set_costs(self, costs: np.ndarray) -> None:
        """The objective's coefficients of the first ``len(costs)`` columns."""
        self._h.changeColsCost(len(costs), np.arange(len(costs), dtype=np.int32),
                               np.asarray(costs, dtype=float))

    def maximize(self) -> None:
        self._h.changeObjectiveSense(self._highspy.ObjSense.kMaximize)

    def integer_copy(self, threads: int | None = 1) -> PersistentModel:
        """A new model of the same rows and columns, every column integer."""
        copy = PersistentModel(threads=threads)
        copy._h.passModel(self._h.getLp())
        copy.make_integer(np.arange(copy.num_cols))
        return copy

    @property
    def num_rows(self) -> int:
        return int(self._h.getNumRow())

    @property
    def num_cols(self) -> int:
        return int(self._h.getNumCol())

    # solving
    def solve(self, budget: Budget) -> Ended:
        """Solve within ``budget``: HiGHS's own time limit is set to what is left (it counts
        from the model's first solve), and a stop request or the budget's end interrupts it."""
        if budget.expired():  # checked first: HiGHS would keep the last solve's status
            return Ended.STOPPED
        left = budget.remaining()
        if left is not None:
            self._h.setOptionValue("time_limit", self._h.getRunTime() + max(left, 0.01))
        if not solve_in_thread(self._h, budget):
            return Ended.STOPPED
        status = self._h.getModelStatus()
        statuses = self._highspy.HighsModelStatus
        if status == statuses.kOptimal:
            return Ended.OPTIMAL
        if status == statuses.kInfeasible:
            return Ended.INFEASIBLE
        if status == statuses.kTimeLimit:
            return Ended.TIME_LIMIT
        return Ended.OTHER

    @property
    def has_solution(self) -> bool:
        return bool(self._h.getInfo().primal_solution_status == 2)  # kSolutionStatusFeasible

    @property
    def objective(self) -> float:
        return float(self._h.getInfo().objective_function_value)

    @property
    def dual_bound(self) -> float:
        """The MIP's dual bound (infinite where none is known)."""
        bound = float(self._h.getInfo().mip_dual_bound)
        return bound if abs(bound) < 1e30 else math.copysign(math.inf, bound)

    def values(self) -> np.ndarray:
        return np.array(self._h.getSolution().col_value)

    def row_duals(self) -> np.ndarray:
        return np.array(self._h.getSolution().row_dual)

    def improving_solutions(self) -> list[np.ndarray]:
        """Every improving solution of the last MIP solve (with the option
        ``mip_improving_solution_save``), the best last."""
        return [np.array(solution.col_value) for solution in self._h.getSavedMipSolutions()]
