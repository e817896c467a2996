"""A solver-neutral mixed-integer linear model, built in bulk.

Formulations append columns and rows to typed arrays (linear time, 8 bytes an entry where a
list of floats takes about 32); the model is handed to a solver once, as arrays
(``to_csr``). highspy's row-by-row API is quadratic on large models, so nothing here calls
a solver.
"""

from __future__ import annotations

import contextlib
import math
from array import array
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np

from streamplace.solve.solver_report import ModelSize

INF = math.inf


@dataclass
class LinearModel:
    """max or min  cost . x + offset  s.t.  row_lo <= A x <= row_hi,  lb <= x <= ub."""

    maximize: bool = True
    offset: float = 0.0
    lb: array[float] = field(default_factory=lambda: array("d"))
    ub: array[float] = field(default_factory=lambda: array("d"))
    cost: array[float] = field(default_factory=lambda: array("d"))
    integer: list[bool] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    row_lo: array[float] = field(default_factory=lambda: array("d"))
    row_hi: array[float] = field(default_factory=lambda: array("d"))
    row_family: list[str] = field(default_factory=list)  # the family of each row
    _family: str = "other"
    _prefix: str = ""  # put before every column name (one application's part of a program)
    _rows: array[int] = field(default_factory=lambda: array("q"))
    _cols: array[int] = field(default_factory=lambda: array("q"))
    _vals: array[float] = field(default_factory=lambda: array("d"))

    @property
    def num_cols(self) -> int:
        return len(self.lb)

    @property
    def num_rows(self) -> int:
        return len(self.row_lo)

    @property
    def num_nonzeros(self) -> int:
        return len(self._vals)

    @property
    def num_integer(self) -> int:
        return sum(self.integer)

    def var(self, name: str, lb: float = 0.0, ub: float = INF, cost: float = 0.0,
            integer: bool = False) -> int:
        """Add one column; return its index."""
        self.lb.append(lb)
        self.ub.append(ub)
        self.cost.append(cost)
        self.integer.append(integer)
        self.names.append(self._prefix + name)
        return len(self.lb) - 1

    def binary(self, name: str, cost: float = 0.0) -> int:
        return self.var(name, 0.0, 1.0, cost, integer=True)

    def row(self, cols: Sequence[int], vals: Sequence[float], lo: float = -INF,
            hi: float = INF, normalise: bool = False, family: str | None = None) -> int:
        """Add ``lo <= sum vals[k] * x[cols[k]] <= hi``; zero coefficients are dropped.

        ``normalise`` divides the row by its largest coefficient: capacity rows in bytes/s or
        operations/s (1e7..1e11) beside 0/1 variables otherwise defeat the solver's
        tolerances and can make it "prove" a wrong optimum.
        """
        if normalise:
            top = max((abs(v) for v in vals), default=0.0)
            if top > 0:
                vals = [v / top for v in vals]
                lo, hi = lo / top, hi / top
        index = len(self.row_lo)
        self.row_family.append(family or self._family)
        for c, v in zip(cols, vals, strict=True):
            if v != 0.0:
                self._rows.append(index)
                self._cols.append(c)
                self._vals.append(v)
        self.row_lo.append(lo)
        self.row_hi.append(hi)
        return index

    @contextlib.contextmanager
    def family(self, name: str) -> Iterator[None]:
        """Rows added meanwhile count as family ``name`` (``capacity``, ``eq. 22`` ...), so
        a model can be counted and inspected by group."""
        outer, self._family = self._family, name
        try:
            yield
        finally:
            self._family = outer

    @contextlib.contextmanager
    def prefixed(self, prefix: str) -> Iterator[None]:
        """Columns added meanwhile have names beginning with ``prefix``: the part of a
        joint program that belongs to one application (``app/``)."""
        outer, self._prefix = self._prefix, self._prefix + prefix
        try:
            yield
        finally:
            self._prefix = outer

    def add_cost(self, col: int, value: float) -> None:
        self.cost[col] += value

    def to_csr(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Row-wise sparse matrix (start, index, value), duplicates summed."""
        rows = np.frombuffer(self._rows, dtype=np.int64)
        cols = np.frombuffer(self._cols, dtype=np.int64)
        vals = np.frombuffer(self._vals, dtype=np.float64)
        key = rows * max(self.num_cols, 1) + cols
        # rows come in order and most columns too: sorting only when needed saves seconds
        # on models of millions of nonzeros
        if len(key) and bool(np.any(key[1:] < key[:-1])):
            order = np.argsort(key, kind="stable")
            key, cols, vals = key[order], cols[order], vals[order]
        if len(key):
            keep = np.ones(len(key), dtype=bool)
            keep[1:] = key[1:] != key[:-1]
            if not keep.all():
                vals = np.bincount(np.cumsum(keep) - 1, weights=vals).astype(np.float64)
                key, cols = key[keep], cols[keep]
        counts = np.bincount(key // max(self.num_cols, 1), minlength=self.num_rows)
        start = np.zeros(self.num_rows + 1, dtype=np.int64)
        np.cumsum(counts, out=start[1:])
        return start, cols, vals

    def objective_value(self, x: Sequence[float]) -> float:
        return float(np.dot(self.cost, x)) + self.offset

    def size(self) -> ModelSize:
        return ModelSize(self.num_cols, self.num_integer, self.num_rows, self.num_nonzeros,
                         dict(sorted(Counter(self.row_family).items())))
