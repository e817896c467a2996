"""Numbers with unit strings: ``"12 ms"``, ``"20 MB"``, ``"1 Gbps"``, ``"1.5 GHz"``.

Every quantity is stored in SI base units (docs/formats.md): seconds, bytes, bytes/s, tuples/s,
operations/s, operations. Each field has a *dimension*, so ``delay: "20 MB"`` is an error
rather than a silently wrong number.

Examples
--------
>>> parse_quantity("12 ms", "time")
0.012
>>> parse_quantity("1 Gbps", "bandwidth")
125000000.0
>>> parse_quantity("1.5 GHz", "speed")
1500000000.0
>>> parse_quantity("20 MB", "bytes")
20000000.0
>>> parse_quantity(3, "rate")
3.0
"""

from __future__ import annotations

import math
import re
from typing import Literal

Dimension = Literal["plain", "time", "bytes", "bandwidth", "rate", "speed", "ops", "money"]

_DECIMAL = {"": 1.0, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15}
_BINARY = {"Ki": 2.0**10, "Mi": 2.0**20, "Gi": 2.0**30, "Ti": 2.0**40}


def _bytes_units() -> dict[str, float]:
    units = {"byte": 1.0, "bytes": 1.0}
    for p, m in _DECIMAL.items():
        units[f"{p}B"] = m
        units[f"{p}b"] = m / 8
        units[f"{p}bit"] = m / 8
    for p, m in _BINARY.items():
        units[f"{p}B"] = m
    return units


def _bandwidth_units() -> dict[str, float]:
    units = {f"{u}/s": m for u, m in _bytes_units().items()}
    for p, m in _DECIMAL.items():
        units[f"{p}bps"] = m / 8
    return units


def _prefixed(bases: tuple[str, ...], scale: float = 1.0) -> dict[str, float]:
    return {f"{p}{b}": m * scale for b in bases for p, m in _DECIMAL.items()}


_UNITS: dict[str, dict[str, float]] = {
    "plain": {},
    "money": {},
    "time": {"s": 1.0, "sec": 1.0, "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "ns": 1e-9,
             "min": 60.0, "h": 3600.0},
    "bytes": _bytes_units(),
    "bandwidth": _bandwidth_units(),
    "rate": {"/s": 1.0, "1/s": 1.0, "/min": 1 / 60, "/h": 1 / 3600,
             **_prefixed(("Hz", "tps", "tuples/s", "tuple/s", "events/s", "records/s"))},
    "speed": _prefixed(("Hz", "ops/s", "op/s", "flops", "FLOPS", "flop/s")),
    "ops": _prefixed(("ops", "op", "flop")),
}

_DIMENSION_WORDS = {
    "plain": "a plain number", "money": "a plain number (cost)", "time": "a time",
    "bytes": "a size", "bandwidth": "a bandwidth", "rate": "a rate", "speed": "a speed",
    "ops": "an amount of work",
}

_EXAMPLES = {
    "time": "s, ms, us, ns, min, h", "bytes": "B, kB, MB, GB, KiB, MiB, Mb",
    "bandwidth": "B/s, MB/s, GB/s, Mbps, Gbps", "rate": "/s, tps, tuples/s, Hz, /min",
    "speed": "Hz, MHz, GHz, ops/s, Gflops", "ops": "ops, Mops, Gops, Gflop",
}

_NUMBER = re.compile(
    r"^\s*(?P<num>[+-]?(?:(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?|inf|infinity|\.inf))"
    r"\s*(?P<unit>\S.*?)?\s*$",
    re.IGNORECASE,
)


class UnitError(ValueError):
    """A quantity string that cannot be read; the message says what to write instead."""


def parse_quantity(value: object, dimension: Dimension) -> float:
    """Read a number or a number-with-unit string as a float in SI base units.

    NaN is always rejected; infinities are returned (callers decide whether they are allowed).
    """
    if isinstance(value, bool):
        raise UnitError(f"expected {_DIMENSION_WORDS[dimension]}, got a boolean")
    if isinstance(value, int | float):
        try:
            number = float(value)
        except OverflowError:  # an integer past the largest float (about 1.8e308)
            raise UnitError(f"{str(value)[:12]}... ({len(str(value))} digits) is too large "
                            "for a number here: write at most about 1e308, or .inf where "
                            "the field allows it") from None
    elif isinstance(value, str):
        number = _parse_text(value, dimension)
    else:
        raise UnitError(f"expected {_DIMENSION_WORDS[dimension]}, got {type(value).__name__}")
    if math.isnan(number):
        raise UnitError("NaN is not a number streamplace can use")
    return number


def _parse_text(text: str, dimension: Dimension) -> float:
    match = _NUMBER.match(text)
    if match is None:
        raise UnitError(f"{text!r} is not {_DIMENSION_WORDS[dimension]}")
    raw = match.group("num").lower().replace(".inf", "inf")
    number = float(raw)
    unit = match.group("unit")
    if unit is None:
        return number
    table = _UNITS[dimension]
    if unit not in table:
        hint = _EXAMPLES.get(dimension)
        if hint is None:
            raise UnitError(f"{text!r} has a unit, but this field is {_DIMENSION_WORDS[dimension]}")
        raise UnitError(f"unknown unit {unit!r} for {_DIMENSION_WORDS[dimension]} (use {hint})")
    return number * table[unit]
