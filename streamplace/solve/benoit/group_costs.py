"""What groups of a Constr operator tree need, vectorised for the column bound and the
annealing (constraints (1)-(2) of Benoit et al. 2008, sec. 5), and how many processors a
platform below a given cost can have."""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np

from streamplace.solve.benoit.data import TreeData


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
        self._cheapest = BestClasses(self.speed, self.card, -self.cost)

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
        best, _ = self._cheapest(work, card)
        return -best

    def best_classes(self, work: np.ndarray, card: np.ndarray,
                     values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """For each (compute, card) pair, the highest of the classes' ``values`` among the
        classes that handle it (-inf where none does) and that class (the first of equals).
        For many calls with the same values, :class:`BestClasses` once."""
        return BestClasses(self.speed, self.card, values)(work, card)

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


class BestClasses:
    """For classes' values, the best class handling each (compute, card) pair, looked up in
    a table over the distinct speeds and cards: its cell (i, j) holds the best class with
    at least the i-th speed and the j-th card, so a pair costs two binary searches, not a
    test of every class (the cheap pricing asks for thousands of pairs at a time).

    >>> choose = BestClasses(np.array([1.0, 2.0, 2.0]), np.array([5.0, 3.0, 9.0]),
    ...                      np.array([-1.0, -2.0, -4.0]))
    >>> best, chosen = choose(np.array([1.0, 1.5, 1.5, 3.0]), np.array([4.0, 3.0, 6.0, 1.0]))
    >>> best.tolist(), chosen.tolist()  # none has speed 3: -inf (and class 0)
    ([-1.0, -2.0, -4.0, -inf], [0, 1, 2, 0])
    """

    def __init__(self, speed: np.ndarray, card: np.ndarray, values: np.ndarray) -> None:
        self.speeds, at_speed = np.unique(speed, return_inverse=True)
        self.cards, at_card = np.unique(card, return_inverse=True)
        # classes from the best: the highest value, then the first
        self.order = np.lexsort((np.arange(len(values)), -values))
        rank = np.empty(len(values), dtype=np.int64)
        rank[self.order] = np.arange(len(values))
        none = len(values)  # the rank of "no class handles it"
        table = np.full((len(self.speeds) + 1, len(self.cards) + 1), none, dtype=np.int64)
        np.minimum.at(table, (at_speed, at_card), rank)
        table = np.minimum.accumulate(table[::-1], axis=0)[::-1]
        self.table = np.minimum.accumulate(table[:, ::-1], axis=1)[:, ::-1]
        self.values = np.append(values[self.order], -np.inf)
        self.classes = np.append(self.order, 0)

    def __call__(self, work: np.ndarray, card: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        best = self.table[np.searchsorted(self.speeds, work), np.searchsorted(self.cards, card)]
        return self.values[best], self.classes[best]
