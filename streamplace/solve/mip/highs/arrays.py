"""The model as HiGHS sees it: passed in bulk for solving, or written as MPS or LP text."""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from streamplace.errors import SolverError
from streamplace.solve.mip.model import LinearModel


def model_text(model: LinearModel, fmt: str, named: bool = True, offset: bool = True) -> str:
    """The model as HiGHS writes it: ``mps`` (free MPS) or ``lp`` (CPLEX LP format), for
    inspecting it or solving it elsewhere. Columns and rows are named after the model's
    (``named``), or c0, c1, ... and r0, r1, ... where another solver reads the file back;
    without ``offset`` the objective's constant is left out (not every reader takes it)."""
    import tempfile

    import highspy

    h = highspy.Highs()
    h.silent()
    lp = _highs_lp(highspy, model)
    if not offset:
        lp.offset_ = 0.0
    if named:
        lp.col_names_ = [re.sub(r"\s+", "_", name).replace("[", "(").replace("]", ")")
                         for name in model.names]  # as LP and MPS files allow names
        seen: dict[str, int] = {}
        rows = []
        for family in model.row_family:  # rows named by family: capacity_(eq._23).4
            seen[family] = seen.get(family, 0) + 1
            rows.append(f"{re.sub(r'[^A-Za-z0-9()._-]+', '_', family)}.{seen[family]}")
    else:
        lp.col_names_ = [f"c{k}" for k in range(model.num_cols)]
        rows = [f"r{k}" for k in range(model.num_rows)]
    lp.row_names_ = rows
    if h.passModel(lp) != highspy.HighsStatus.kOk:
        raise SolverError("HiGHS rejected the model")
    with tempfile.TemporaryDirectory(prefix="streamplace-") as folder:
        path = f"{folder}/model.{fmt}"
        if h.writeModel(path) == highspy.HighsStatus.kError:
            raise SolverError(f"HiGHS could not write the model as {fmt}")
        with open(path, encoding="utf-8") as written:
            return written.read()


def pass_model(h: Any, highspy: Any, model: LinearModel) -> None:
    """The model passed to HiGHS as arrays: the array form of passModel reads numpy buffers
    at once, where filling a HighsLp converts element by element (seconds on models of
    millions of nonzeros)."""
    start, index, value = model.to_csr()
    sense = highspy.ObjSense.kMaximize if model.maximize else highspy.ObjSense.kMinimize
    status = h.passModel(
        model.num_cols, model.num_rows, len(value), int(highspy.MatrixFormat.kRowwise),
        int(sense), model.offset, np.asarray(model.cost), np.asarray(model.lb),
        np.asarray(model.ub), np.asarray(model.row_lo), np.asarray(model.row_hi),
        start.astype(np.int32), index.astype(np.int32), value,
        np.asarray(model.integer, dtype=np.int32))
    # a warning is not a rejection: HiGHS drops coefficients below its small_matrix_value
    # (1e-9) and says so, as with a tree edge a billion times thinner than a card
    if status not in (highspy.HighsStatus.kOk, highspy.HighsStatus.kWarning):
        raise SolverError("HiGHS rejected the model")


Row = tuple[float, float, list[int], list[float]]  # lower, upper, columns, coefficients


def add_rows(h: Any, rows: list[Row]) -> None:
    """Rows added to a HiGHS model in one call (row by row is quadratic in highspy)."""
    if not rows:
        return
    starts = np.cumsum([0] + [len(row[2]) for row in rows[:-1]])
    h.addRows(len(rows), np.array([row[0] for row in rows], dtype=float),
              np.array([row[1] for row in rows], dtype=float), sum(len(row[2]) for row in rows),
              starts.astype(np.int32),
              np.concatenate([np.array(row[2], dtype=np.int32) for row in rows]),
              np.concatenate([np.array(row[3], dtype=float) for row in rows]))


def _highs_lp(highspy: Any, model: LinearModel) -> Any:
    """The model as one HighsLp, passed in bulk (row by row is quadratic in highspy)."""
    lp = highspy.HighsLp()
    lp.num_col_ = model.num_cols
    lp.num_row_ = model.num_rows
    lp.col_cost_ = np.asarray(model.cost)
    lp.col_lower_ = np.asarray(model.lb)
    lp.col_upper_ = np.asarray(model.ub)
    lp.row_lower_ = np.asarray(model.row_lo)
    lp.row_upper_ = np.asarray(model.row_hi)
    lp.offset_ = model.offset
    lp.sense_ = highspy.ObjSense.kMaximize if model.maximize else highspy.ObjSense.kMinimize
    start_, index, value = model.to_csr()
    lp.a_matrix_.format_ = highspy.MatrixFormat.kRowwise
    lp.a_matrix_.start_ = start_
    lp.a_matrix_.index_ = index
    lp.a_matrix_.value_ = value
    lp.a_matrix_.num_col_ = model.num_cols
    lp.a_matrix_.num_row_ = model.num_rows
    lp.integrality_ = [highspy.HighsVarType.kInteger if i else highspy.HighsVarType.kContinuous
                       for i in model.integer]
    return lp
