"""Reading command-line values: objectives from flags, thresholds with units."""

from __future__ import annotations

from typing import get_args

from streamplace.errors import InputError
from streamplace.io.readers import read_objective
from streamplace.model.objective import NetworkMetric, Objective, Weights
from streamplace.model.units import Dimension, UnitError, parse_quantity

_WEIGHT_KEYS = {"r": "response_time", "a": "availability", "c": "cost", "z": "network",
                "response_time": "response_time", "availability": "availability",
                "cost": "cost", "network": "network"}


def parse_weights(text: str) -> Weights:
    """``r=0.5,c=0.5`` (or full term names) -> Weights; unnamed terms weigh 0.

    >>> parse_weights("r=1").response_time
    1.0
    """
    values: dict[str, float] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        key, sep, raw = part.partition("=")
        term = _WEIGHT_KEYS.get(key.strip())
        if not sep or term is None:
            raise InputError.single(f"cannot read weight {part!r}",
                                    "write r=..,a=..,c=..,z=.. (response time, availability, "
                                    "cost, network)", path="--weights")
        try:
            values[term] = parse_quantity(raw.strip(), "plain")
        except UnitError as exc:
            raise InputError.single(str(exc), "write a non-negative number",
                                    path="--weights") from None
        if values[term] < 0:
            raise InputError.single(f"weight {key} is negative", "use weights >= 0",
                                    path="--weights")
    if sum(values.values()) <= 0:
        raise InputError.single("every weight is 0", "give one term a positive weight",
                                path="--weights")
    return Weights(**values)


def build_objective(path: str | None, weights: str | None,
                    network_metric: str | None) -> Objective:
    """The objective file's, with ``--weights`` / ``--network-metric`` taking precedence."""
    objective = read_objective(path) if path else Objective()
    updates: dict[str, object] = {}
    if weights:
        updates["weights"] = parse_weights(weights)
    if network_metric:
        allowed = get_args(NetworkMetric)
        if network_metric not in allowed:
            raise InputError.single(f"unknown network metric {network_metric!r}",
                                    f"use one of {', '.join(allowed)}", path="--network-metric")
        updates["network_metric"] = network_metric
    return objective.model_copy(update=updates)


def parse_limit(text: str | None, option: str, dimension: Dimension) -> float | None:
    if text is None:
        return None
    try:
        return parse_quantity(text, dimension)
    except UnitError as exc:
        raise InputError.single(str(exc), "write a number, optionally with a unit",
                                path=option) from None


def parse_solver_options(pairs: list[str]) -> dict[str, bool | int | float | str]:
    """``["mip_rel_gap=0.01", "presolve=off"]`` -> typed values for the solver.

    >>> parse_solver_options(["mip_pscost_minreliable=0", "presolve=off"])
    {'mip_pscost_minreliable': 0, 'presolve': 'off'}
    """
    out: dict[str, bool | int | float | str] = {}
    for pair in pairs:
        name, sep, raw = pair.partition("=")
        if not sep or not name.strip():
            raise InputError.single(f"cannot read solver option {pair!r}",
                                    "write name=value", path="--solver-option")
        value: bool | int | float | str = raw.strip()
        if raw.strip().lower() in ("true", "false"):
            value = raw.strip().lower() == "true"
        else:
            for kind in (int, float):
                try:
                    value = kind(raw)
                    break
                except ValueError:
                    continue
        out[name.strip()] = value
    return out
