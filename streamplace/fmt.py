"""Human formatting of numbers with units for tables.

>>> seconds(0.03997)
'39.97 ms'
>>> byte_rate(2500.0)
'2.5 kB/s'
>>> seconds(float("inf"))
'inf'
"""

from __future__ import annotations

import math


def _si(value: float, unit: str, prefixes: tuple[tuple[float, str], ...]) -> str:
    if not math.isfinite(value):
        return "inf" if value > 0 else ("-inf" if value < 0 else "nan")
    for scale, prefix in prefixes:
        if abs(value) >= scale:
            return f"{value / scale:.4g} {prefix}{unit}"
    return f"{value:.4g} {unit}"


_BIG = ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"))


def seconds(value: float) -> str:
    if math.isfinite(value) and value != 0 and abs(value) < 1:
        if abs(value) >= 1e-3:
            return f"{value * 1e3:.4g} ms"
        return f"{value * 1e6:.4g} us"
    return _si(value, "s", ())


def byte_rate(value: float) -> str:
    return _si(value, "B/s", _BIG)


def number(value: float | None) -> str:
    if value is None:
        return "-"
    if not math.isfinite(value):
        return "inf" if value > 0 else "-inf"
    return f"{value:.6g}"


def percent(value: float) -> str:
    if not math.isfinite(value):
        return "inf"
    return f"{value * 100:.1f}%"


def multiset(replicas: dict[str, int]) -> str:
    """``{"n1": 2, "n3": 1}`` -> ``n1×2, n3``."""
    return ", ".join(f"{u}×{c}" if c > 1 else u for u, c in replicas.items())
