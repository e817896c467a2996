"""Shared by several test modules (no test module imports another)."""

from __future__ import annotations

from streamplace.model.generate import benoit_instance
from streamplace.solve import (
    Instance,
)
from streamplace.solve.benoit.data import TreeData, group_needs, handles, tree_data
from streamplace.solve.benoit.group_costs import most_processors
from streamplace.solve.benoit.heuristics.placement import PLACEMENTS
from streamplace.solve.benoit.methods import run_tree_heuristic
from streamplace.solve.placement import PlacementFailure

from ..conftest import make_app, make_infra
from .instances import cheapest_platform


def cost(data: TreeData, groups: list[set[str]]) -> float:
    total = 0.0
    for group in groups:
        cls = next(c for c in data.classes if handles(c, *group_needs(data, group)))
        total += cls.cost
    return total


def heavy_tree(n: int, seed: int) -> tuple[TreeData, float, int]:
    """A heavy tree whose root LP lies below its optimum, the optimum brute-forced, and
    kappa as benoit takes it from that optimum."""
    app, infra = benoit_instance(n, alpha=1.7, n_types=3, n_servers=2, seed=seed,
                                 work_scale=1e7)
    instance = Instance(make_app(app), make_infra(infra))
    optimum = cheapest_platform(instance)
    assert optimum is not None
    data = tree_data(instance, need_catalog=True)
    return data, optimum, most_processors(data, optimum * (1 + 1e-9))


def start_groups(data: TreeData, seed: int) -> list[set[str]]:
    best: tuple[float, list[set[str]]] | None = None
    for name in PLACEMENTS:
        try:
            mapping = run_tree_heuristic(name, data, seed)
        except PlacementFailure:
            continue
        groups = [proc.group for proc in mapping.processors]
        if best is None or cost(data, groups) < best[0]:
            best = (cost(data, groups), groups)
    assert best is not None
    return best[1]
