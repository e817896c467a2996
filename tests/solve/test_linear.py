"""The sparse model handed to HiGHS: rows in any column order, repeated columns summed."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from streamplace.solve.budget import Budget
from streamplace.solve.mip.highs.solve import solve_highs
from streamplace.solve.mip.highs.thread import wait_for_abandoned
from streamplace.solve.mip.model import LinearModel
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


def test_the_interpreter_switches_threads_often_only_while_a_solve_runs():
    """HiGHS waits for Python's lock at every simplex iteration, so a solve shortens the
    switch interval; after it the interval the process had is back."""
    import sys

    from streamplace.solve.mip.highs.thread import SWITCH_INTERVAL

    model = LinearModel(maximize=True)
    x = [model.binary(f"x{k}", 3 + k % 5) for k in range(40)]
    model.row(x, [1 + k % 7 for k in range(40)], hi=30)
    before = sys.getswitchinterval()
    during: list[float] = []
    outcome = solve_highs(model, SolveOptions(progress=lambda seen: during.append(
        sys.getswitchinterval())), budget=Budget(time_limit=None))
    assert outcome.status == SolveStatus.OPTIMAL
    assert during and all(interval <= SWITCH_INTERVAL for interval in during)
    assert before > SWITCH_INTERVAL and sys.getswitchinterval() == before


def test_a_solve_left_behind_keeps_its_last_bound_and_incumbent():
    """HiGHS stuck where it minds no interrupt (here: in a callback that waits) is left
    behind after its grace second; what its callbacks reported is kept, not thrown away."""
    import random
    import sys
    import threading

    rng = random.Random(7)
    model = LinearModel(maximize=True)
    items = [model.binary(f"x{k}", rng.randint(10, 60)) for k in range(150)]
    for _ in range(8):  # a multi-dimensional knapsack: far from solved at the first plan
        weights = [rng.randint(5, 40) for _ in items]
        model.row(items, weights, hi=sum(weights) / 3)
    budget = Budget(time_limit=None)
    release = threading.Event()
    interval = sys.getswitchinterval()

    def progress(seen):
        if seen.incumbent is not None and seen.bound is not None and not budget.interrupted:
            budget.stop.set()
            release.wait()  # HiGHS cannot stop while its callback runs

    try:
        outcome = solve_highs(model, SolveOptions(progress=progress), budget=budget)
    finally:
        release.set()
        wait_for_abandoned()  # this process must not end under it
    assert outcome.report.model_status == "abandoned"
    assert sys.getswitchinterval() == interval  # restored, though HiGHS ran on
    assert outcome.status == SolveStatus.INTERRUPTED
    assert outcome.values is not None and outcome.bound is not None
    assert abs(model.objective_value(outcome.values) - outcome.objective) < 1e-6
    assert outcome.bound >= outcome.objective - 1e-9
    start, index, value = model.to_csr()
    for r in range(model.num_rows):
        used = sum(value[k] * outcome.values[index[k]] for k in range(start[r], start[r + 1]))
        assert used <= model.row_hi[r] + 1e-6
    assert outcome.gap == pytest.approx((outcome.bound - outcome.objective) / outcome.objective)
