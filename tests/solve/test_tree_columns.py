"""Benoit's column bound and annealing: the bound never above a brute-forced optimum (a bound
above an optimum is a bug), and where the compact LP buys fractions of processors it is the
optimum; the annealing never returns a platform dearer than its start."""

from __future__ import annotations

import itertools
from dataclasses import replace

import numpy as np
import pytest

from streamplace.model.generate import benoit_instance
from streamplace.model.network import Network
from streamplace.solve import (
    Instance,
    SolveOptions,
    SolveStatus,
    get_method,
)
from streamplace.solve.benoit.branch_price import branching, search
from streamplace.solve.benoit.branch_price.branching import Node, lagrangian
from streamplace.solve.benoit.branch_price.incumbent import ColumnBound
from streamplace.solve.benoit.branch_price.pricing import Pricing, cheap_columns, follows
from streamplace.solve.benoit.branch_price.search import NODE_GAP, column_bound
from streamplace.solve.benoit.data import tree_data
from streamplace.solve.benoit.group_costs import BestClasses, Needs, most_processors
from streamplace.solve.benoit.heuristics.anneal import anneal
from streamplace.solve.benoit.ilp import build_benoit
from streamplace.solve.benoit.plans import Cheapest, cheaper, partition_plan, proven_by
from streamplace.solve.budget import Budget, StopRequest
from streamplace.solve.conclude import conclude
from streamplace.solve.mip.highs.solve import solve_highs

from ..conftest import make_app, make_infra
from ..support.instances import cheapest_platform, tiny_tree, two_operator_tree
from ..support.trees import cost, heavy_tree, start_groups


@pytest.mark.parametrize("seed", range(8))
def test_column_bound_never_exceeds_the_brute_forced_optimum(seed):
    instance = tiny_tree(seed, constr=True)
    optimum = cheapest_platform(instance)
    data = tree_data(instance, need_catalog=True)
    most = len(data.ops)
    if optimum is not None:  # kappa as benoit takes it, from a plan just dearer
        most = most_processors(data, optimum * (1 + 1e-9))
        best = get_method("benoit").solve(instance, SolveOptions(gap=0.0)).plan
        assert most >= len({n for reps in best.placement.values() for n in reps})
    found = column_bound(data, Budget(None), most)
    assert found.converged and found.bound is not None and found.master is not None
    assert found.bound >= found.master * (1 - NODE_GAP - 1e-5)  # the root's LP, or above
    if optimum is not None:
        assert found.bound <= optimum * (1 + 1e-9)




@pytest.mark.parametrize(("n", "seed"), [(7, 2), (7, 9), (8, 4), (8, 15)])
def test_branching_closes_the_root_gap_up_to_the_brute_forced_optimum(n, seed):
    """Heavy trees whose root LP lies below the optimum: branching on the master raises
    the bound to the optimum, never past it, with a plan's cost to close nodes by or not,
    given at the start, answered by ``found`` or learnt from ``known`` while it runs."""
    data, optimum, most = heavy_tree(n, seed)
    alone = column_bound(data, Budget(None), most)
    assert alone.master is not None and alone.master < optimum * (1 - 1e-3)
    assert alone.nodes > 1 and alone.open >= 1
    assert optimum * (1 - 1e-5) <= alone.bound <= optimum * (1 + 1e-9)
    closing = column_bound(data, Budget(None), most, cheapest=optimum)
    assert optimum * (1 - 1e-5) <= closing.bound <= optimum * (1 + 1e-9)
    assert closing.open == 0 and closing.nodes <= alone.nodes
    told = column_bound(data, Budget(None), most, found=lambda groups: optimum)
    assert optimum * (1 - 1e-5) <= told.bound <= optimum * (1 + 1e-9)
    assert told.open == 0  # the cost the partitions' plans answer with closes nodes too
    learnt = column_bound(data, Budget(None), len(data.ops), known=lambda: optimum)
    assert optimum * (1 - 1e-5) <= learnt.bound <= optimum * (1 + 1e-9)
    assert learnt.open == 0  # a plan found elsewhere meanwhile closes nodes too
    assert not alone.proven and closing.proven and told.proven and learnt.proven
    assert learnt.cheapest == optimum and alone.cheapest == np.inf  # no plan: no proof
    loose = column_bound(data, Budget(None), most, cheapest=optimum * 1.02, gap=0.05)
    assert loose.proven and loose.nodes <= closing.nodes  # closed within 5% of the plan
    assert optimum * 1.02 * (1 - 0.05 - 1e-5) <= loose.bound <= optimum * (1 + 1e-9)


@pytest.mark.parametrize(("n", "seed"), [(7, 2), (7, 9), (8, 15)])
def test_nodes_branching_early_still_reach_the_optimum(n, seed, monkeypatch):
    """However far from its LP a node's bound is when it branches, a node whose LP solution
    is whole is priced on to its optimum: the bound still reaches the optimum. And a node
    whose LP reaches the cheapest plan's cost is priced on until that closes it, never
    split."""
    monkeypatch.setattr(search, "NODE_GAP", 0.5)
    monkeypatch.setattr(search, "cheap_columns", lambda *args: [])  # MIP columns only
    data, optimum, most = heavy_tree(n, seed)
    found = column_bound(data, Budget(None), most)
    assert found.open >= 1 and found.bound is not None  # whole leaves, nothing closed them
    assert optimum * (1 - 1e-5) <= found.bound <= optimum * (1 + 1e-9)
    split: list[float] = []

    def children(node, master, solved):
        kids = branching.children(node, master, solved)
        if kids:
            split.append(solved.value)
        return kids

    monkeypatch.setattr(search, "children", children)
    closing = column_bound(data, Budget(None), most, cheapest=optimum)
    assert closing.proven and split and max(split) < optimum * (1 - 1e-6)


def test_a_node_without_plans_bounds_at_infinity():
    node = Node(np.array([2.0, 0.0]), np.array([np.inf, 1.0]))
    prices = np.array([3.0, 4.0, 1.0, -2.0])
    assert lagrangian(node, prices, 2, most=3, best=-np.inf) == np.inf  # no column allowed
    assert lagrangian(node, prices, 2, most=1, best=0.0) == np.inf  # more than kappa
    # 7 + (2 processors at 1) + (at most 1 counted at -2) - (3 columns at 0.5 at most)
    assert lagrangian(node, prices, 2, most=3, best=0.5) == pytest.approx(7 + 2 - 2 - 1.5)
    # no column has a positive reduced cost: at least 2 columns each below -0.5
    assert lagrangian(node, prices, 2, most=3, best=-0.5) == pytest.approx(7 + 2 - 2 + 1)


def test_column_bound_is_the_optimum_where_the_compact_lp_buys_fractions():
    """Two operators each needing 60% of the one class: the compact LP buys 4/3 processors,
    every plan buys 2, and so does every column cover."""
    instance = two_operator_tree(6e9, leaf_output=1, card=1e9)
    data = tree_data(instance, need_catalog=True)
    compact = build_benoit(data, Network(instance.infra)).model
    relaxed = solve_highs(compact, SolveOptions(highs={"solve_relaxation": True}))
    assert relaxed.objective == pytest.approx(4 / 3, rel=1e-6)
    found = column_bound(data, Budget(None), most_processors=2)
    assert found.converged
    assert found.bound == pytest.approx(2.0, rel=1e-5)


def test_column_bound_stopped_at_once_has_no_bound():
    instance = tiny_tree(1, constr=True)
    stop = StopRequest()
    stop.set()
    found = column_bound(tree_data(instance, need_catalog=True), Budget(None, stop), 5)
    assert found.bound is None and not found.converged


@pytest.mark.parametrize("seed", range(4))
def test_the_pricing_offers_real_groups_and_bounds_every_group(seed):
    """Against every one of the 2^8 - 1 groups of a heavy tree and every class, priced one
    by one, with class values that are not their costs (a branch's count rows) and, from
    seed 2, pair rules: each column the pricing MIP offers has a class that runs its group
    and keeps the rules, none beats its upper bound, the best offered is last and within
    the MIP's gap of the true best, which the bound holds."""
    app, infra = benoit_instance(8, alpha=1.7, n_types=3, n_servers=2, seed=seed,
                                 work_scale=1e7)
    data = tree_data(Instance(make_app(app), make_infra(infra)), need_catalog=True)
    needs = Needs(data)
    n = len(needs.ops)
    rng = np.random.default_rng(seed)
    prices = rng.uniform(0.2, 0.6, n) * needs.cost.max()
    values = -needs.cost * rng.uniform(0.6, 1.0, len(needs.cost))
    pairs = {(0, 1): True, (2, 5): False} if seed >= 2 else {}

    def reduced(group: np.ndarray, cls: int) -> float:
        return float(prices[group].sum() + values[cls]) if needs.runs(group, cls) and \
            follows(group, pairs) else -np.inf

    every = [np.array([(m >> i) & 1 for i in range(n)], dtype=bool) for m in range(1, 2 ** n)]
    truth = max(reduced(g, c) for g in every for c in range(len(needs.cost)))
    pricing = Pricing(data, needs)
    pricing.follow({(3, 4): False})
    pricing.follow(pairs)  # the rules before are dropped
    priced = pricing.best(prices, values, Budget(None))
    assert priced is not None
    columns, upper = priced
    assert columns and upper >= truth - 1e-6 * abs(truth)
    offered = [reduced(g, c) for g, c in columns]
    assert all(np.isfinite(offered)) and max(offered) <= upper + 1e-6 * abs(upper)
    assert offered[-1] == max(offered)
    assert offered[-1] >= truth - 1e-3 * abs(truth)
    greedy = cheap_columns(needs, prices, values, 5, pairs)
    assert greedy and all(0 < reduced(g, c) <= truth + 1e-9 for g, c in greedy)


def test_the_columns_partitions_are_plans_never_below_the_brute_forced_optimum():
    """Six heavy operators (two processors or none can run them): the restricted master's
    cover is an exact cover, priced at or above the bound; made into a plan it is never
    cheaper than the optimum and, on these trees, is the optimum."""
    optimal = 0
    for seed in range(8):
        app, infra = benoit_instance(6, alpha=1.7, n_types=3, n_servers=2, seed=seed,
                                     work_scale=1e7)
        instance = Instance(make_app(app), make_infra(infra))
        optimum = cheapest_platform(instance)
        data = tree_data(instance, need_catalog=True)
        partitions: list[list[set[str]]] = []
        found = column_bound(data, Budget(None), len(data.ops), found=partitions.append)
        assert found.converged and found.bound is not None
        assert (optimum is None) == (not partitions)  # no cover where no class runs one
        for groups in partitions:
            assert sorted(op for g in groups for op in g) == sorted(data.ops)
            assert cost(data, groups) >= found.bound
            plan = partition_plan(data, groups, seed)
            assert plan is not None and plan.valid
            assert optimum is not None and plan.cost >= optimum
            optimal += plan.cost == optimum and len(groups) > 1
    assert optimal >= 4


def test_a_cheaper_plan_from_the_columns_replaces_the_solvers_unless_it_proved_its_own():
    """And a plan no dearer than the one that closed every branch is proven optimal."""
    app, infra = benoit_instance(25, alpha=1.7, seed=0)
    instance = Instance(make_app(app), make_infra(infra))
    data = tree_data(instance, need_catalog=True)
    start = start_groups(data, 0)
    dear, cheap = partition_plan(data, start, 0), partition_plan(
        data, anneal(data, start, Budget(None), 0, rounds=1), 0)
    assert dear is not None and cheap is not None and cheap.valid and cheap.cost < dear.cost
    budget = Budget(None)
    stopped = conclude("benoit", instance, dear.plan, SolveStatus.TIME_LIMIT, model="benoit",
                       started=budget.started, objective_metric="benoit_cost",
                       bound=cheap.cost * 0.9)
    swapped = cheaper(instance, stopped, cheap, budget, "columns")
    assert swapped.status == SolveStatus.TIME_LIMIT and swapped.objective == cheap.cost
    assert swapped.bound == stopped.bound and swapped.solver.to_json()["plan_from"] == "columns"
    assert swapped.plan is not None and swapped.plan.gap == pytest.approx(
        (cheap.cost - stopped.bound) / cheap.cost)
    proved = replace(stopped, status=SolveStatus.OPTIMAL)
    assert cheaper(instance, proved, cheap, budget, "columns") is proved
    assert cheaper(instance, swapped, dear, budget, "columns") is swapped  # never a dearer one
    closed = ColumnBound(cheap.cost * 0.99, True, 9, 9, 9, cheap.cost * 0.98, 3, 0, cheap.cost)
    proven = proven_by(swapped, closed)
    assert proven.status == SolveStatus.OPTIMAL and proven.plan is not None
    assert proven.plan.status == SolveStatus.OPTIMAL and proven.objective == cheap.cost
    assert proven_by(stopped, closed) is stopped  # its plan is dearer than the one closing
    assert proven_by(swapped, replace(closed, open=1)) is swapped  # a branch left open
    assert proven_by(swapped, replace(closed, cheapest=np.inf)) is swapped  # no plan closed
    known = Cheapest(data, dear, 0)  # the start, then the annealed plan, then the columns'
    assert known.offer(start) == dear.cost and known.source == "heuristics"
    known.consider(cheap)
    assert known.cost() == cheap.cost and known.offer(start) == cheap.cost
    assert known.best is cheap and known.source == "annealing"  # not a dearer partition
    annealed = cheaper(instance, stopped, cheap, budget, known.source)
    assert annealed.solver.to_json()["plan_from"] == "annealing"




def test_annealing_never_returns_a_dearer_platform():
    cheaper = 0
    for seed in range(4):  # heavy operators: at alpha 1.5 one processor runs them all
        app, infra = benoit_instance(25, alpha=1.7, seed=seed)
        data = tree_data(Instance(make_app(app), make_infra(infra)), need_catalog=True)
        start = start_groups(data, seed)
        groups = anneal(data, start, Budget(None), seed, rounds=1)
        assert sorted(op for g in groups for op in g) == sorted(data.ops)  # each once
        assert cost(data, groups) <= cost(data, start)
        cheaper += cost(data, groups) < cost(data, start)
        if seed == 0:
            assert anneal(data, start, Budget(None), seed, rounds=1) == groups  # in moves
            told: list[list[set[str]]] = []
            more = anneal(data, start, Budget(None), seed, improved=told.append)
            assert cost(data, more) <= cost(data, groups)  # its first round is that one
            assert told[0] == groups and told[-1] == more  # each round's better one told
            assert all(cost(data, b) < cost(data, a) for a, b in itertools.pairwise(told))
    assert cheaper == 4  # the heuristics' best is beaten on every one of these trees


def test_annealing_stopped_at_once_returns_its_start():
    app, infra = benoit_instance(25, alpha=1.5, seed=0)
    data = tree_data(Instance(make_app(app), make_infra(infra)), need_catalog=True)
    start = start_groups(data, 0)
    stop = StopRequest()
    stop.set()
    groups = anneal(data, start, Budget(None, stop), 0)
    assert sorted(map(sorted, groups)) == sorted(map(sorted, start))


@pytest.mark.parametrize("seed", range(3))
def test_the_best_class_lookup_is_the_best_of_every_class_tried(seed):
    """The table lookup against trying every class, on small catalogs where classes share
    speeds, cards and values and the asked needs fall on them exactly: the same value and
    the same class (the first of equals), -inf where none handles."""
    rng = np.random.default_rng(seed)
    for _ in range(300):
        k = int(rng.integers(1, 8))
        speed, card = rng.integers(1, 5, k).astype(float), rng.integers(1, 5, k).astype(float)
        values = rng.integers(-5, 3, k).astype(float)
        work = rng.integers(0, 6, 40) + rng.choice([0.0, 0.5], 40)
        need = rng.integers(0, 6, 40).astype(float)
        handles = (work[:, None] <= speed) & (need[:, None] <= card)
        valued = np.where(handles, values, -np.inf)
        first = valued.argmax(axis=1)
        best, chosen = BestClasses(speed, card, values)(work, need)
        assert np.array_equal(best, valued[np.arange(40), first])
        assert np.array_equal(chosen[np.isfinite(best)], first[np.isfinite(best)])
