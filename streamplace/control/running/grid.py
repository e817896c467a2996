"""Distributions of a wait on an even grid of GRID points, ``step`` seconds apart: the
pieces (L3)'s marker age is convolved from (``hops.py``)."""

from __future__ import annotations

import numpy as np

GRID = 4096  # points of the distribution's grid: a quantile within 1/4096


def point(at: float, step: float) -> np.ndarray:
    """All the mass at ``at`` (the grid's last point, where beyond it)."""
    pmf = np.zeros(GRID)
    pmf[min(GRID - 1, round(at / step))] = 1.0
    return pmf


def uniform(low: float, high: float, step: float) -> np.ndarray:
    """Uniform on [low, high], each grid point holding the mass within half a step of it."""
    if high - low < step:
        return point((low + high) / 2, step)
    edges = (np.arange(GRID + 1) - 0.5) * step
    cdf = np.clip((edges - low) / (high - low), 0.0, 1.0)
    return np.diff(cdf)


def queue_wait(busy: float, scale: float, step: float) -> np.ndarray:
    """No wait with probability 1 - rho, else exponential of mean ``scale``."""
    edges = np.maximum((np.arange(GRID + 1) - 0.5) * step, 0.0)
    pmf: np.ndarray = busy * np.diff(1.0 - np.exp(-edges / scale))
    pmf[0] += 1.0 - busy
    return pmf


def quantile_of(pmf: np.ndarray, x: np.ndarray, q: float) -> float:
    """The ``q`` quantile of ``pmf`` over the points ``x``."""
    cdf = np.cumsum(np.clip(pmf, 0.0, None))
    return float(x[min(len(x) - 1, int(np.searchsorted(cdf, q * cdf[-1])))])
