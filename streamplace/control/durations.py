"""A duration as Flink's configuration writes one (``TimeUtils.parseDuration``): a number and
a unit (``30 s``, ``5 min``, ``1h``), milliseconds without one, or ISO-8601 (``PT30S``).
The one parser of every command that reads a Flink configuration value."""

from __future__ import annotations

import re

UNITS = {"ns": 1e-9, "nano": 1e-9, "nanos": 1e-9, "nanosecond": 1e-9, "nanoseconds": 1e-9,
         "µs": 1e-6, "us": 1e-6, "micro": 1e-6, "micros": 1e-6, "microsecond": 1e-6,
         "microseconds": 1e-6, "ms": 0.001, "milli": 0.001, "millis": 0.001, "millisecond": 0.001,
         "milliseconds": 0.001, "s": 1.0, "sec": 1.0, "secs": 1.0, "second": 1.0,
         "seconds": 1.0, "min": 60.0, "m": 60.0, "mins": 60.0, "minute": 60.0,
         "minutes": 60.0, "h": 3600.0, "hour": 3600.0, "hours": 3600.0, "d": 86400.0,
         "day": 86400.0, "days": 86400.0}
_ISO = re.compile(r"P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:([\d.]+)S)?)?", re.I)


def duration(text: str) -> float:
    """Seconds in a Flink duration; ValueError, saying why, when it is none.

    >>> [duration(t) for t in ("30 s", "5 min", "1h", "PT1M30S", "PT0.1S", "1500", "250 µs")]
    [30.0, 300.0, 3600.0, 90.0, 0.1, 1.5, 0.00025]
    """
    text = text.strip()
    iso = _ISO.fullmatch(text)
    if iso and text.upper().startswith("P") and any(iso.groups()):
        d, h, m, s = (float(g) if g else 0.0 for g in iso.groups())
        return d * 86400 + h * 3600 + m * 60 + s
    found = re.fullmatch(r"(\d+(?:\.\d+)?)\s*([a-zA-Zµ]*)", text)
    if not found:
        raise ValueError("is not a duration (a number and a unit, e.g. 30 s)")
    unit = found.group(2).lower()
    if unit and unit not in UNITS:
        raise ValueError(f"has a unit {unit!r} Flink does not know")
    return float(found.group(1)) * (UNITS[unit] if unit else 0.001)
