"""The latency cost space of Pietzuch et al. 2006 (SBON, sec. 3.1.1): a point per node whose
Euclidean distances estimate the delays between nodes.

Coordinates come from the infrastructure (every node has ``coordinates``), or are embedded
from delays Vivaldi-style: nodes are masses joined by springs whose rest length is the
measured delay, and all springs relax together for a number of rounds with a shrinking
step. Measuring every pair would cost one shortest-path search per node, so large routed
infrastructures are embedded from a sample: the delays to and from a few landmark nodes plus
every explicit link. The error is reported on pairs the embedding did not see.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

import numpy as np

from streamplace.model.network import Network

DIMENSIONS = 3
ALL_PAIRS_UP_TO = 200  # nodes; beyond, landmarks
LANDMARKS = 32
HELD_OUT_SOURCES = 8
ROUNDS = 400
END_STEP = 0.25


@dataclass(frozen=True)
class CostSpace:
    """Coordinates (seconds) of the infrastructure's nodes and how well they fit."""

    ids: tuple[str, ...]
    coords: np.ndarray  # (nodes, dims)
    source: str  # "infrastructure" | "vivaldi"
    median_error: float  # median |distance - delay| / delay over held-out pairs
    p90_error: float
    pairs_fitted: int
    pairs_checked: int

    def index(self) -> dict[str, int]:
        return {u: k for k, u in enumerate(self.ids)}

    def report(self) -> dict[str, object]:
        return {"coordinates": self.source, "dimensions": int(self.coords.shape[1]),
                "embedding_median_error": round(self.median_error, 4),
                "embedding_p90_error": round(self.p90_error, 4),
                "pairs_fitted": self.pairs_fitted, "pairs_checked": self.pairs_checked}


def cost_space(network: Network, seed: int = 0, dims: int = DIMENSIONS) -> CostSpace:
    """The infrastructure's coordinates if every node has them, else a Vivaldi embedding.

    Memoised on the network, so many queries on one infrastructure embed it once.
    """
    return network.cached(("cost space", seed, dims), lambda: _build(network, seed, dims))


def _build(network: Network, seed: int, dims: int) -> CostSpace:
    ids = tuple(sorted(n.id for n in network.infra.nodes))
    rng = random.Random(seed)
    fit, check = _samples(network, ids, rng)
    given = [n.coordinates for n in sorted(network.infra.nodes, key=lambda n: n.id)]
    if all(c is not None for c in given):
        coords = np.array(given, dtype=float)
        source = "infrastructure"
    else:
        coords = vivaldi(len(ids), *fit, dims=dims, seed=seed)
        source = "vivaldi"
    median, p90 = _error(coords, *(check if len(check[0]) else fit))
    return CostSpace(ids, coords, source, median, p90, len(fit[0]),
                     len(check[0]) if len(check[0]) else len(fit[0]))


Pairs = tuple[np.ndarray, np.ndarray, np.ndarray]


def _samples(network: Network, ids: tuple[str, ...], rng: random.Random,
             ) -> tuple[Pairs, Pairs]:
    """(fitted, held-out) pairs as index arrays and symmetric delays."""
    index = {u: k for k, u in enumerate(ids)}

    def from_sources(sources: list[str]) -> dict[tuple[int, int], float]:
        out: dict[tuple[int, int], float] = {}
        for s in sources:
            forward, backward = network.delays_from(s), network.delays_to(s)
            for u in ids:
                if u != s and u in forward and u in backward:
                    a, b = sorted((index[s], index[u]))
                    out[(a, b)] = (forward[u] + backward[u]) / 2
        return out

    if len(ids) <= ALL_PAIRS_UP_TO:
        fitted = from_sources(list(ids))
        return _arrays(fitted), _arrays({})
    chosen = rng.sample(ids, LANDMARKS + HELD_OUT_SOURCES)
    fitted = from_sources(chosen[:LANDMARKS])
    for link in network.infra.links:  # local structure: every explicit link
        if link.delay is not None and link.source != link.target:
            a, b = sorted((index[link.source], index[link.target]))
            fitted[(a, b)] = min(fitted.get((a, b), math.inf), link.delay)
    held = {pair: d for pair, d in from_sources(chosen[LANDMARKS:]).items()
            if pair not in fitted}
    return _arrays(fitted), _arrays(held)


def _arrays(pairs: dict[tuple[int, int], float]) -> Pairs:
    keys = sorted(pairs)
    i = np.array([a for a, _ in keys], dtype=np.int64)
    j = np.array([b for _, b in keys], dtype=np.int64)
    d = np.array([pairs[k] for k in keys], dtype=float)
    return i, j, d


def vivaldi(n: int, i: np.ndarray, j: np.ndarray, delay: np.ndarray, *,
            dims: int = DIMENSIONS, seed: int = 0, rounds: int = ROUNDS) -> np.ndarray:
    """Spring embedding of ``n`` nodes from measured pair delays (Vivaldi, all nodes at once).

    Every round each spring pushes or pulls both its ends by its error along their
    direction; a node moves by the mean of its springs' forces times a step shrinking from
    0.5 to 0.25 (steps near 1 overshoot; smaller ones stall before the springs settle).

    >>> import numpy as np
    >>> x = vivaldi(3, np.array([0, 0, 1]), np.array([1, 2, 2]), np.array([3.0, 4.0, 5.0]))
    >>> round(float(np.linalg.norm(x[0] - x[1])), 3), round(float(np.linalg.norm(x[1] - x[2])), 3)
    (3.0, 5.0)
    """
    gen = np.random.default_rng(seed)
    scale = float(np.median(delay)) if len(delay) else 1.0
    x = gen.normal(scale=scale or 1.0, size=(n, dims))
    if not len(delay):
        return x
    # a 5 ms miss matters more between neighbours than across the world, so short springs
    # pull harder: by 1/sqrt(length), which fitted transit-stub delays best (1/length
    # over-fits the local structure and tears the global one)
    weight = np.where(delay > 0, np.sqrt(np.median(delay) / np.maximum(delay, 1e-12)), 1.0)
    weight = np.minimum(weight, 100.0)
    springs = np.bincount(i, weight, minlength=n) + np.bincount(j, weight, minlength=n)
    springs = np.maximum(springs, 1e-12)[:, None]
    for step in np.geomspace(0.5, END_STEP, rounds):
        diff = x[i] - x[j]
        dist = np.linalg.norm(diff, axis=1)
        flat = dist < 1e-12
        if flat.any():  # coincident ends: push apart in a random direction
            diff[flat] = gen.normal(size=(int(flat.sum()), dims))
            dist[flat] = np.linalg.norm(diff[flat], axis=1)
        push = (weight * (delay - dist) / dist)[:, None] * diff
        force = np.column_stack([np.bincount(i, push[:, d], minlength=n)
                                 - np.bincount(j, push[:, d], minlength=n)
                                 for d in range(dims)])
        x += step * force / springs
    return x


def _error(coords: np.ndarray, i: np.ndarray, j: np.ndarray,
           delay: np.ndarray) -> tuple[float, float]:
    keep = delay > 0
    if not keep.any():
        return 0.0, 0.0
    dist = np.linalg.norm(coords[i[keep]] - coords[j[keep]], axis=1)
    rel = np.abs(dist - delay[keep]) / delay[keep]
    return float(np.median(rel)), float(np.quantile(rel, 0.9))
