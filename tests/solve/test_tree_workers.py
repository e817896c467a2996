"""Benoit's branch and price on several threads: the bound still never passes a brute-forced
optimum and still reaches it; the search says when its root splits, a worker's failure
stops them all, and no thread outlives the search. Where the search took over from the
compact program, the status says how the search ended."""

from __future__ import annotations

import threading

import pytest

from streamplace.solve import SolveResult, SolveStatus
from streamplace.solve.benoit.branch_price import search
from streamplace.solve.benoit.branch_price.concurrent import BoundBeside
from streamplace.solve.benoit.branch_price.pricing import Pricing
from streamplace.solve.benoit.branch_price.search import column_bound
from streamplace.solve.benoit.plans import ended_by_branching, partition_plan
from streamplace.solve.budget import Budget, StopRequest
from streamplace.solve.conclude import conclude

from ..support.trees import cost, heavy_tree, start_groups


def search_threads() -> list[str]:
    return [t.name for t in threading.enumerate() if t.name.startswith("streamplace-col")]


@pytest.mark.parametrize(("n", "seed"), [(7, 2), (7, 9), (8, 4), (8, 15)])
def test_two_workers_reach_the_brute_forced_optimum_and_never_pass_it(n, seed):
    data, optimum, most = heavy_tree(n, seed)
    branched = StopRequest()
    alone = column_bound(data, Budget(None), most, workers=2, branched=branched)
    assert branched  # these roots lie below the optimum: they split
    assert optimum * (1 - 1e-5) <= alone.bound <= optimum * (1 + 1e-9)
    closing = column_bound(data, Budget(None), most, cheapest=optimum, workers=2)
    assert closing.proven and optimum * (1 - 1e-5) <= closing.bound <= optimum * (1 + 1e-9)
    assert search_threads() == []


def test_a_root_that_closes_never_says_it_split():
    """A root whose LP reaches the cheapest plan closes without branching: the compact
    program is left to run."""
    data, optimum, most = heavy_tree(7, 2)
    branched = StopRequest()
    wide = column_bound(data, Budget(None), most, cheapest=optimum, gap=0.5, workers=2,
                        branched=branched)
    assert wide.proven and wide.nodes == 1 and not branched


def test_a_failing_worker_stops_the_others_and_its_error_is_raised(monkeypatch):
    """The helper's pricing fails: the search raises that error in its own thread, and
    every worker has ended by then."""
    data, _, most = heavy_tree(8, 4)

    class Failing(Pricing):
        def best(self, *args):  # type: ignore[no-untyped-def]
            if threading.current_thread().name.startswith("streamplace-columns-"):
                raise RuntimeError("pricing failed")
            return super().best(*args)

    monkeypatch.setattr(search, "Pricing", Failing)
    with pytest.raises(RuntimeError, match="pricing failed"):
        column_bound(data, Budget(None), most, workers=2)
    assert search_threads() == []


def test_the_bound_beside_takes_over_once_its_root_splits_and_finishes_the_search():
    data, optimum, most = heavy_tree(8, 15)
    beside = BoundBeside(data, Budget(None), most, [], known=lambda: optimum, workers=2)
    found = beside.finish(wait=True)  # no time limit: it ends by closing every node
    assert beside.took_over and beside.proved
    assert found is not None and found.proven
    assert optimum * (1 - 1e-5) <= found.bound <= optimum * (1 + 1e-9)
    one = BoundBeside(data, Budget(None), most, [], known=lambda: optimum, workers=1)
    assert one.finish(wait=True) is not None and not one.took_over  # the compact one stays


def test_a_users_stop_ends_the_search_that_took_over():
    """The user's stop request comes once the root split (asked for the cheapest plan
    then): the workers stop with branches open, the bound the least of theirs."""
    data, optimum, most = heavy_tree(8, 15)
    stop = StopRequest()

    def known() -> float:
        if "streamplace-columns-1" in search_threads():  # the root split: a helper runs
            stop.set()
        return float("inf")

    beside = BoundBeside(data, Budget(None, stop), most, [], known=known, workers=2)
    found = beside.finish(wait=True)
    assert beside.took_over and stop and not beside.proved
    assert found is not None and found.open >= 1 and not found.proven
    assert found.bound is not None and found.bound <= optimum * (1 + 1e-9)
    assert search_threads() == []


def test_the_status_after_a_take_over_says_how_the_search_ended():
    data, optimum, _ = heavy_tree(7, 2)
    plan = partition_plan(data, start_groups(data, 0), 0)
    assert plan is not None and plan.valid
    instance, budget = data.instance, Budget(None)
    stopped = conclude("benoit", instance, plan.plan, SolveStatus.INTERRUPTED, model="benoit",
                       started=budget.started, objective_metric="benoit_cost",
                       bound=optimum * 0.9)
    user = StopRequest()
    user.set()
    for ended, status in [(Budget(0.0), SolveStatus.TIME_LIMIT),
                          (Budget(None, user), SolveStatus.INTERRUPTED),
                          (Budget(None), SolveStatus.LIMIT)]:
        result = ended_by_branching(stopped, ended)
        assert result.status == status and result.plan is not None
        assert result.plan.status == status and result.objective == plan.cost
        assert result.message == ""
    empty = ended_by_branching(
        SolveResult(SolveStatus.INTERRUPTED, "benoit",
                    message="interrupted before any feasible plan"), Budget(0.0))
    assert empty.status == SolveStatus.TIME_LIMIT and empty.plan is None
    assert empty.message == "the time limit passed before any feasible plan"


@pytest.mark.parametrize("workers", [1, 2])
def test_a_whole_branch_is_closed_by_the_plan_its_own_cover_makes(monkeypatch, workers):
    """No other plan is known (the root's cover is not asked for): each whole LP solution's
    cover is the only plan, and it closes the branch it came from, which is then not left
    open; the bound stays at or below the optimum."""
    data, optimum, most = heavy_tree(8, 15)
    monkeypatch.setattr(search._Search, "_partition", lambda self, master: None)
    covers: list[float] = []

    def found(groups: list[set[str]]) -> float:
        covers.append(cost(data, groups))
        return covers[-1]

    closed = column_bound(data, Budget(None), most, found=found, gap=1e-4, workers=workers)
    assert covers and min(covers) >= optimum * (1 - 1e-9)
    assert closed.open == 0 and closed.proven and closed.cheapest == min(covers)
    assert closed.bound is not None and closed.bound <= optimum * (1 + 1e-9)
