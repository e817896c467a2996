"""What groups of a Constr operator tree need, vectorised for the column bound and the
annealing (constraints (1)-(2) of Benoit et al. 2008, sec. 5), and how many processors a
platform below a given cost can have."""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np

from streamplace.solve.tree_data import TreeData


def most_processors(data: TreeData, cheaper_than: float) -> int:
    """The most processors a platform cheaper than ``cheaper_than`` can have: p is possible
    only if some p classes, fractions allowed, reach the total work's speed for less (an LP
    whose optimum mixes at most two classes, so every pair is tried).

    >>> from streamplace.model.infrastructure import ProcessorClass
    >>> from types import SimpleNamespace
    >>> classes = [ProcessorClass(id="slow", cost=1, speed=1, bandwidth=1),
    ...            ProcessorClass(id="fast", cost=3, speed=4, bandwidth=1)]
    >>> tree = SimpleNamespace(ops=["a"] * 9, work={"a": 10.0}, classes=classes)
    >>> most_processors(tree, 9.0)  # 7 processors: 6 slow and 1 fast, 9; 6: 8.67
    6
    >>> most_processors(tree, 20.0)  # at most one per operator
    9
    """
    need = sum(data.work.values())
    classes = [(float(c.cost), float(c.speed)) for c in data.classes]

    def cheapest(p: int) -> float:
        best = math.inf
        for cost_a, speed_a in classes:
            for cost_b, speed_b in classes:
                if p * speed_b < need * (1 - 1e-12) or speed_a > speed_b:
                    continue  # b alone must reach it; a is the slower one
                share = 0.0 if p * speed_a >= need else \
                    (need - p * speed_a) / (speed_b - speed_a)
                best = min(best, (p - share) * cost_a + share * cost_b)
        return best

    cheapest_class = min(cost for cost, _ in classes)
    most = min(len(data.ops), math.floor(cheaper_than / cheapest_class))
    while most > 1 and cheapest(most) >= cheaper_than:
        most -= 1
    return max(most, 1)


class Needs:
    """What groups of operators need, vectorised: a group is a boolean mask over ``ops``."""

    def __init__(self, data: TreeData) -> None:
        self.ops = list(data.ops)
        self.index = index = {o: i for i, o in enumerate(self.ops)}
        objects = sorted(data.rate)
        self.work = np.array([data.work[o] for o in self.ops])
        self.objects = np.zeros((len(self.ops), len(objects)), dtype=bool)
        for o in self.ops:
            for k in data.objects[o]:
                self.objects[index[o], objects.index(k)] = True
        self.rate = np.array([data.rate[k] for k in objects])
        self.volume = np.zeros((len(self.ops), len(self.ops)))  # tree edges, both ways
        for e in data.edges:
            self.volume[index[e.child], index[e.parent]] += e.volume
            self.volume[index[e.parent], index[e.child]] += e.volume
        self.incident = self.volume.sum(axis=1)
        # classes in cost order (tree_data sorts them): the first that handles is cheapest
        self.speed = np.array([c.speed for c in data.classes]) * (1 + 1e-12)
        self.card = np.array([c.bandwidth for c in data.classes]) * (1 + 1e-12)
        self.cost = np.array([float(c.cost) for c in data.classes])

    def mask(self, group: Iterable[str]) -> np.ndarray:
        """The group of these operator ids as a mask."""
        mask = np.zeros(len(self.ops), dtype=bool)
        mask[[self.index[o] for o in group]] = True
        return mask

    def names(self, mask: np.ndarray) -> set[str]:
        """The operator ids of a mask."""
        return {self.ops[i] for i in np.flatnonzero(mask)}

    def prices(self, work: np.ndarray, card: np.ndarray) -> np.ndarray:
        """The cheapest class's cost for each (compute, card) pair; inf where none handles."""
        best, _ = self.best_classes(work, card, -self.cost)
        return -best

    def best_classes(self, work: np.ndarray, card: np.ndarray,
                     values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """For each (compute, card) pair, the highest of the classes' ``values`` among the
        classes that handle it (-inf where none does) and that class."""
        handles = (work[:, None] <= self.speed) & (card[:, None] <= self.card)
        valued = np.where(handles, values, -np.inf)
        chosen = valued.argmax(axis=1)
        return valued[np.arange(len(work)), chosen], chosen

    def card_need(self, group: np.ndarray) -> float:
        """The card bandwidth the group needs: its objects' rates and the edges it cuts."""
        return float(self.rate @ self.objects[group].any(axis=0) + self.incident[group].sum()
                     - self.volume[np.ix_(group, group)].sum())

    def runs(self, group: np.ndarray, cls: int) -> bool:
        """Whether class ``cls`` handles the group (constraints (1)-(2))."""
        return bool(self.work[group].sum() <= self.speed[cls]
                    and self.card_need(group) <= self.card[cls])

    def price(self, group: np.ndarray) -> float:
        return float(self.prices(np.array([self.work[group].sum()]),
                                 np.array([self.card_need(group)]))[0])
