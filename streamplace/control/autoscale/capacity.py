"""A vertex's capacity against its parallelism, fitted from what it did at each parallelism
it ran at (the memory's capacity readings; an ineffective scale-up is one more such reading),
as Gunther's universal scalability law:

    C(k) = C1 k / (1 + sigma (k - 1) + kappa k (k - 1))

sigma is contention (Amdahl's serial share), kappa coherence (what subtasks cost each other):
with both 0 the capacity is linear, as DS2 and the model's service rate take it; with kappa
above 0 it peaks and falls. The law is linear in its reciprocal, k / C(k) = a + b (k - 1) +
c k (k - 1) with a = 1 / C1, so it is fitted by non-negative least squares on that form,
each parallelism weighed by its readings (FLINK-30571 fits the same kind of coefficient for
the Flink autoscaler; ContTune's Q1 mapper reaches 14.1x at parallelism 26).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

GAIN = 0.1
"""A subtask is worth adding while it brings at least this share of what one subtask does
alone: past that the vertex is not scaled (its capacity has stopped growing)."""
LINEAR = 1e-3  # sigma and kappa below this: the capacity is linear
MOST = 100_000  # the most parallelism a curve is followed to


@dataclass(frozen=True)
class Curve:
    c1: float             # records per second of one subtask
    sigma: float = 0.0
    kappa: float = 0.0
    readings: int = 0     # the windows it was fitted from
    points: int = 0       # the distinct parallelisms among them
    unit: float = 0.0     # a subtask's records per second at the least parallelism read

    def at(self, k: int) -> float:
        """Records per second at ``k`` subtasks, full busy time.

        >>> Curve(100.0, 0.1, 0.01).at(1), round(Curve(100.0, 0.1, 0.01).at(10), 1)
        (100.0, 357.1)
        """
        return self.c1 * k / (1 + self.sigma * (k - 1) + self.kappa * k * (k - 1))

    @property
    def linear(self) -> bool:
        return self.sigma < LINEAR and self.kappa < LINEAR

    @property
    def useful(self) -> int:
        """The most subtasks worth running: the last one that still adds GAIN of one
        subtask's capacity (MOST where the curve is linear).

        >>> Curve(100.0).useful, Curve(100.0, 0.1, 0.01).useful
        (100000, 7)
        """
        if self.linear:
            return MOST
        unit = self.unit or self.c1
        k = 1
        while k < MOST and self.at(k + 1) - self.at(k) >= GAIN * unit:
            k += 1
        return k

    def said(self, op: str) -> str:
        if self.linear:
            return (f"{op}: capacity linear, {self.c1:.4g}/s a subtask (from {self.readings} "
                    f"readings at {self.points} parallelism(s))")
        stop = self.useful
        return (f"{op}: capacity fitted as C(k) = {self.c1:.4g} k / (1 + {self.sigma:.3g} "
                f"(k-1) + {self.kappa:.3g} k(k-1)) from {self.readings} readings at "
                f"{self.points} parallelisms; it stops growing past {stop} "
                f"({self.at(stop):.4g}/s)")


def fit(readings: dict[int, tuple[int, float]], service: float | None = None) -> Curve | None:
    """The curve through ``readings`` (parallelism -> (windows, mean capacity)); with one
    parallelism read, linear through it; none read, linear at ``service`` a subtask (the
    model's service rate), or None.

    >>> law = Curve(100.0, 0.05, 0.002)
    >>> got = fit({k: (3, law.at(k)) for k in (1, 2, 4, 8, 16)})
    >>> round(got.c1), round(got.sigma, 3), round(got.kappa, 4)
    (100, 0.05, 0.002)
    >>> fit({2: (5, 200.0), 4: (2, 390.0), 8: (1, 400.0)}).useful  # 8 gained nothing
    6
    """
    points = {k: v for k, v in readings.items() if k >= 1 and v[1] > 0 and v[0] > 0}
    if not points:
        return Curve(service) if service else None
    count = sum(n for n, _ in points.values())
    if len(points) == 1:
        (k, (n, capacity)), = points.items()
        return Curve(capacity / k, readings=n, points=1)
    import numpy as np
    from scipy.optimize import nnls

    ks = np.array(sorted(points), dtype=float)
    weight = np.sqrt([points[int(k)][0] for k in ks])
    y = ks / np.array([points[int(k)][1] for k in ks])
    columns = [np.ones_like(ks), ks - 1] + ([ks * (ks - 1)] if len(points) >= 3 else [])
    design = np.column_stack(columns) * weight[:, None]
    solution, _ = nnls(design, y * weight)
    a, b = float(solution[0]), float(solution[1])
    c = float(solution[2]) if len(solution) > 2 else 0.0
    least = min(points)
    unit = points[least][1] / least
    if a <= 0 or not math.isfinite(a):  # no sense in the readings: the best one, linear
        k, (n, capacity) = max(points.items(), key=lambda kv: kv[1][1] / kv[0])
        return Curve(capacity / k, readings=count, points=len(points))
    return Curve(1 / a, b / a, c / a, count, len(points), unit)
