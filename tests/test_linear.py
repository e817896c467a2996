"""The sparse model handed to HiGHS: rows in any column order, repeated columns summed."""

from __future__ import annotations

import itertools

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from streamplace.solve.budget import Budget
from streamplace.solve.highs import solve_highs
from streamplace.solve.linear import LinearModel
from streamplace.solve.result import SolveOptions, SolveStatus

ENTRY = st.tuples(st.integers(0, 5), st.sampled_from([-2.0, -1.0, 0.5, 1.0, 3.0]))


@settings(max_examples=80, deadline=None)
@given(st.lists(st.lists(ENTRY, max_size=8), max_size=6))
def test_csr_is_the_sum_of_every_row_entry(rows):
    model = LinearModel()
    for c in range(6):
        model.var(f"x{c}")
    dense = np.zeros((len(rows), 6))
    for r, entries in enumerate(rows):
        model.row([c for c, _ in entries], [v for _, v in entries], hi=1.0)
        for c, v in entries:
            dense[r, c] += v
    start, index, value = model.to_csr()
    rebuilt = np.zeros_like(dense)
    for r in range(len(rows)):
        for k in range(start[r], start[r + 1]):
            rebuilt[r, index[k]] += value[k]
        assert list(index[start[r]:start[r + 1]]) == sorted(set(index[start[r]:start[r + 1]]))
    assert np.allclose(rebuilt, dense)


def test_highs_solves_what_brute_force_finds_with_repeated_columns_and_an_offset():
    model = LinearModel(maximize=True, offset=0.5)
    x = [model.var(f"x{k}", 0, 3, cost, integer=True) for k, cost in enumerate((3, 2, 4))]
    model.row([x[2], x[0], x[2]], [1, 1, 1], hi=4)  # x0 + 2 x2 <= 4, written out of order
    model.row([x[1], x[0], x[1], x[2]], [1, 2, 1, -1], hi=5)  # 2 x0 + 2 x1 - x2 <= 5
    outcome = solve_highs(model, SolveOptions(), budget=Budget(time_limit=None))
    best = max(3 * a + 2 * b + 4 * c + 0.5
               for a, b, c in itertools.product(range(4), repeat=3)
               if a + 2 * c <= 4 and 2 * a + 2 * b - c <= 5)
    assert outcome.status == SolveStatus.OPTIMAL
    assert outcome.objective is not None and abs(outcome.objective - best) < 1e-6
