"""The answers of Flink's REST API read as values, each checked on its way in: a damaged or
hand-edited answer gives None (or nothing) where a number, a count or a list should be."""

from __future__ import annotations

import math
from typing import Any

from streamplace.control.flink.job import METERS
from streamplace.model.fields import MOST_REPLICAS


def totals(value: Any) -> dict[str, float]:
    """A vertex's accumulated counters (``read-records``, ``accumulated-busy-time``...)."""
    if not isinstance(value, dict):
        return {}
    numbers = {k: as_number(v) for k, v in value.items()}
    return {k: v for k, v in numbers.items() if v is not None and v >= 0}


def incomplete(value: Any) -> list[str]:
    """The counters a metrics object flags as not complete (``read-records-complete:
    false``...): Flink could not gather them from every subtask, and answers a partial sum
    (often 0) in their place. A missing flag is no flag: older versions send none.

    >>> incomplete({"read-records": 0, "read-records-complete": False,
    ...             "write-records": 9, "write-records-complete": True})
    ['read-records']
    """
    if not isinstance(value, dict):
        return []
    return [k.removesuffix("-complete") for k, v in value.items()
            if k.endswith("-complete") and v is False]


def meters(value: Any) -> dict[str, tuple[float, float]]:
    """Per metric of METERS, its (sum, avg) over the vertex's subtasks."""
    out = {}
    for m in value if isinstance(value, list) else []:
        if isinstance(m, dict) and m.get("id") in METERS:
            total, mean = as_number(m.get("sum")), as_number(m.get("avg"))
            if total is not None and mean is not None:
                out[m["id"]] = (total, mean)
    return out


def placed(value: Any) -> dict[str, int]:
    """How many of a vertex's live subtasks run on each TaskManager."""
    out: dict[str, int] = {}
    for s in as_list(value.get("subtasks")) if isinstance(value, dict) else []:
        tm = s.get("taskmanager-id") if isinstance(s, dict) else None
        if isinstance(tm, str) and tm and s.get("status") in ("RUNNING", "DEPLOYING",
                                                              "INITIALIZING"):
            out[tm] = out.get(tm, 0) + 1
    return out


def as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def as_number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    try:
        number = float(value)
    except (TypeError, ValueError, OverflowError):
        return None
    return number if math.isfinite(number) else None


def as_count(value: Any) -> int | None:
    """A count Flink could hold (a Java int), else None."""
    return value if isinstance(value, int) and not isinstance(value, bool) \
        and 0 < value <= MOST_REPLICAS else None
