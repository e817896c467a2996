"""How a vertex's output grows with its input (its output-growth exponent), measured: a
window emits one result per key and slide whatever the input, a join's matches grow with the
product of its inputs. Scaling every stream downstream of an offered load by the same factor
(each operator's selectivity kept) predicts them wrong, so each vertex's exponent e (out
proportional to in^e) is fitted over the readings the loop has taken at different input
rates, and the streams it sends are scaled by the input's factor to the power e.
"""

from __future__ import annotations

import math

from streamplace.control.running.observation import PRESSED, Observation
from streamplace.model.state import GROWTH_KEPT

SPREAD = 1.3       # the input rates read must differ by this factor before e is fitted
FIT = 0.9          # and the fit explain this share of the outputs' variance (R^2)
LEAST = 3          # readings, at least
BOUNDS = (0.0, 3.0)  # e outside them is a reading gone wrong, not an operator


def record(readings: dict[str, list[tuple[float, float]]], obs: Observation) -> None:
    """Each vertex's records in and out per second over the window into ``readings``, where
    it had both and was not held back (a back-pressured vertex's rates say what got
    through)."""
    for v in obs.vertices:
        rate_in = v.meter("numRecordsInPerSecond")
        rate_out = v.meter("numRecordsOutPerSecond")
        if v.source or not rate_in or not rate_out or v.pressed >= PRESSED:
            continue
        kept = readings.setdefault(v.op, [])
        kept.append((rate_in, rate_out))
        del kept[:-GROWTH_KEPT]


def fitted(readings: dict[str, list[tuple[float, float]]]) -> dict[str, float]:
    """e per vertex read LEAST times at input rates SPREAD apart or more: the least-squares
    slope of log out over log in, within BOUNDS, where it fits (R^2 of FIT or more: a window
    read over part of its firings gives scattered readings, and no e); a vertex not yet read
    so is left out (e = 1).

    >>> round(fitted({"join": [(100.0, 130.0), (150.0, 290.0), (200.0, 520.0)]})["join"], 2)
    2.0
    """
    out = {}
    for op, points in readings.items():
        ins = [math.log(i) for i, _ in points]
        if len(points) < LEAST or max(ins) - min(ins) < math.log(SPREAD):
            continue
        outs = [math.log(o) for _, o in points]
        mean_in, mean_out = sum(ins) / len(ins), sum(outs) / len(outs)
        sxy = sum((x - mean_in) * (y - mean_out) for x, y in zip(ins, outs, strict=True))
        sxx = sum((x - mean_in) ** 2 for x in ins)
        syy = sum((y - mean_out) ** 2 for y in outs)
        slope = sxy / sxx
        fit = sxy * sxy / (sxx * syy) if syy > 0 else 1.0
        if fit >= FIT and BOUNDS[0] <= slope <= BOUNDS[1] and abs(slope - 1.0) > 0.1:
            out[op] = slope
    return out
