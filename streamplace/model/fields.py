"""Annotated field types shared by the input models: quantities with units and bounds.

Validators raise ``ValueError("what is wrong — how to fix")``; the reader splits the two
halves into a :class:`~streamplace.errors.Problem`.
"""

from __future__ import annotations

import math
import re
from typing import Annotated, Any

from pydantic import BeforeValidator, WithJsonSchema

from streamplace.model.units import Dimension, UnitError, parse_quantity

_UNIT_EXAMPLES: dict[Dimension, str] = {
    "time": "12 ms", "bytes": "20 MB", "bandwidth": "1 Gbps", "rate": "80 tps",
    "speed": "1.5 GHz", "ops": "1.2 Gops", "plain": "", "money": "",
}


def _checker(dimension: Dimension, minimum: float, exclusive: bool, allow_inf: bool,
             maximum: float | None) -> Any:
    def check(value: object) -> float:
        try:
            number = parse_quantity(value, dimension)
        except UnitError as exc:
            example = _UNIT_EXAMPLES[dimension]
            fix = f"write a number, or a number with a unit such as {example!r}" if example \
                else "write a plain number"
            raise ValueError(f"{exc} — {fix}") from None
        if math.isinf(number) and not (allow_inf and number > 0):
            raise ValueError("must be finite — write a finite number")
        too_small = number <= minimum if exclusive else number < minimum
        if too_small:
            relation = "greater than" if exclusive else "at least"
            raise ValueError(f"must be {relation} {minimum:g}, got {number:g} — "
                             f"use a value {relation} {minimum:g}")
        if maximum is not None and number > maximum:
            raise ValueError(f"must be at most {maximum:g}, got {number:g} — "
                             f"use a value at most {maximum:g}")
        return number

    return check


def _schema(dimension: Dimension, minimum: float, exclusive: bool, allow_inf: bool,
            maximum: float | None) -> dict[str, Any]:
    number: dict[str, Any] = {"type": "number"}
    number["exclusiveMinimum" if exclusive else "minimum"] = minimum
    if maximum is not None:
        number["maximum"] = maximum
    options: list[dict[str, Any]] = [number]
    if _UNIT_EXAMPLES[dimension]:
        options.append({"type": "string", "description":
                        f"a number with a unit, e.g. '{_UNIT_EXAMPLES[dimension]}'"})
    elif allow_inf:
        options.append({"type": "string", "enum": [".inf", "inf"]})
    if allow_inf and _UNIT_EXAMPLES[dimension]:
        options[-1]["description"] += ", or '.inf' for unbounded"
    return {"anyOf": options} if len(options) > 1 else number


def _v(dimension: Dimension, *, minimum: float = 0.0, exclusive: bool = False,
       allow_inf: bool = False, maximum: float | None = None) -> BeforeValidator:
    return BeforeValidator(_checker(dimension, minimum, exclusive, allow_inf, maximum))


def _s(dimension: Dimension, *, minimum: float = 0.0, exclusive: bool = False,
       allow_inf: bool = False, maximum: float | None = None) -> WithJsonSchema:
    return WithJsonSchema(_schema(dimension, minimum, exclusive, allow_inf, maximum))


# Spelled out one by one (not built by a factory) so that type checkers see real aliases.
Seconds = Annotated[float, _v("time"), _s("time")]
Bytes = Annotated[float, _v("bytes"), _s("bytes")]
Bandwidth = Annotated[float, _v("bandwidth", allow_inf=True), _s("bandwidth", allow_inf=True)]
PositiveBandwidth = Annotated[float, _v("bandwidth", exclusive=True, allow_inf=True),
                              _s("bandwidth", exclusive=True, allow_inf=True)]
Rate = Annotated[float, _v("rate"), _s("rate")]
PositiveRate = Annotated[float, _v("rate", exclusive=True), _s("rate", exclusive=True)]
Speed = Annotated[float, _v("speed", exclusive=True, allow_inf=True),
                  _s("speed", exclusive=True, allow_inf=True)]
Ops = Annotated[float, _v("ops"), _s("ops")]
Money = Annotated[float, _v("money"), _s("money")]
NonNegative = Annotated[float, _v("plain"), _s("plain")]
Positive = Annotated[float, _v("plain", exclusive=True), _s("plain", exclusive=True)]
Probability = Annotated[float, _v("plain", exclusive=True, maximum=1.0),
                        _s("plain", exclusive=True, maximum=1.0)]
Fraction = Annotated[float, _v("plain", maximum=1.0), _s("plain", maximum=1.0)]
ResourceAmount = Annotated[float, _v("plain", allow_inf=True), _s("plain", allow_inf=True)]

DEFAULT_DIMENSION = "units"
"""The resource dimension a plain number stands for (``resources: 8`` == ``{units: 8}``)."""
MOST_REPLICAS = 2**31 - 1
"""The most replicas one operator may run or be planned with: the largest parallelism a
Java engine can hold, exact as a float ("as many as capacity allows" is a number this
large, or no max_replicas at all)."""


def _resources(value: object) -> object:
    if isinstance(value, dict):
        return value
    if isinstance(value, list | tuple):
        raise ValueError("must be a number or a map of dimension: amount — "
                         "write e.g. 8 or {cpu: 8, memory: 16384}")
    return {DEFAULT_DIMENSION: value}


Resources = Annotated[
    dict[str, ResourceAmount],
    BeforeValidator(_resources),
    WithJsonSchema({"anyOf": [
        {"type": "number", "minimum": 0},
        {"type": "object", "additionalProperties": {"anyOf": [
            {"type": "number", "minimum": 0}, {"type": "string", "enum": [".inf", "inf"]}]}},
    ], "description": "a number (one dimension named 'units') or a map like "
                      "{cpu: 1, memory: 512}"}),
]

Demand = Annotated[
    dict[str, NonNegative],
    BeforeValidator(_resources),
    WithJsonSchema({"anyOf": [
        {"type": "number", "minimum": 0},
        {"type": "object", "additionalProperties": {"type": "number", "minimum": 0}},
    ], "description": "what one replica needs: a number (one dimension named 'units') or a "
                      "map like {cpu: 1, memory: 512}; finite"}),
]


def _identifier(value: object) -> object:
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if isinstance(value, str) and not value.strip():
        raise ValueError("must not be empty — give it a name")
    return value


Identifier = Annotated[str, BeforeValidator(_identifier),
                       WithJsonSchema({"type": "string", "minLength": 1})]


def unique_id(text: str, taken: set[str], fallback: str) -> str:
    """``text`` as an id (each run of characters other than letters, digits, ``_``, ``.``
    and ``-`` becomes one ``-``), with ``-2``, ``-3``... should it be ``taken``; added to it.

    >>> taken = set(); unique_id("counter", taken, "v"), unique_id("counter", taken, "v")
    ('counter', 'counter-2')
    >>> unique_id("localhost:39611-75b49f", set(), "v"), unique_id(" :: ", set(), "v")
    ('localhost-39611-75b49f', 'v')
    """
    base = re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-") or fallback
    name, n = base, 1
    while name in taken:
        n += 1
        name = f"{base}-{n}"
    taken.add(name)
    return name
