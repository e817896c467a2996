"""What is checked of a sweep file before any scenario runs: method names, repeated axis
values (two scenarios with one id), and its size (docs/cli.md, ``sweep``).

A row is the place for what one scenario does (infeasible, a method that does not apply
to a failed variant); a name that can never run or a sweep too large to mean it is the
file's fault, refused at once with the line to change.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Any

from streamplace.errors import InputError, Problem
from streamplace.model.sweep import SweepFile
from streamplace.solve.bundle.modes import mode_problem
from streamplace.solve.registry import method_names, unknown_method_fix
from streamplace.sweep.scenarios import full_names

LARGE_SWEEP = 10_000  # scenarios; more need --yes


def check_sweep(sweep: SweepFile) -> None:
    """InputError listing every unknown method, every method a bundle cannot place that
    way, and every repeated axis value."""
    problems = _unknown_methods(sweep)
    if sweep.applications is not None:
        for index, name in enumerate(sweep.methods):
            found = mode_problem(sweep.bundle, name, "bundle") \
                if name in method_names() else None
            if found is not None:
                problems.append(sweep.problem(f"methods[{index}]", found.message, found.fix))
    axes = sweep.axes
    for name, values in (("methods", sweep.methods), ("axes.rate_scale", axes.rate_scale),
                         ("applications", sweep.applications),
                         ("axes.failures", axes.failures), ("axes.weights", axes.weights),
                         ("axes.seed", axes.seed), ("infrastructures", sweep.infrastructures)):
        problems += _repeated(sweep, name, values or [])
    if problems:
        raise InputError(problems)


def check_size(sweep: SweepFile, failures: dict[str, int], yes: bool) -> int:
    """The number of scenarios; InputError above LARGE_SWEEP unless ``yes``.
    ``failures``: the failure variants of each infrastructure file."""
    axes = sweep.axes
    per_failure = (len(axes.rate_scale) * len(axes.weights or [None]) * len(axes.seed)
                   * len(axes.arrivals or [None]) * len(sweep.methods))
    count = per_failure * sum(failures.values())
    if count > LARGE_SWEEP and not yes:
        probes = "" if sweep.analysis == "grid" else ", each several solves"
        hours = count * (sweep.time_limit or 0) / 3600
        bound = f", up to {hours:,.0f} hours at its time limit" if hours >= 1 else ""
        raise InputError([sweep.problem(
            "axes", f"the sweep has {count:,} scenarios{probes}{bound}",
            f"add --yes to run them all, or give the axes fewer values (over "
            f"{LARGE_SWEEP:,} scenarios needs --yes)")])
    return count


def _unknown_methods(sweep: SweepFile) -> list[Problem]:
    known = method_names()
    return [sweep.problem(f"methods[{index}]", f"unknown method {name!r}",
                          unknown_method_fix(name))
            for index, name in enumerate(sweep.methods) if name not in known]


def _repeated(sweep: SweepFile, name: str, values: Sequence[Any]) -> list[Problem]:
    seen: dict[str, int] = {}
    out = []
    for index, value in enumerate(values):
        key = _key(value)
        if key in seen:
            out.append(sweep.problem(
                f"{name}[{index}]", f"{_shown(value)} repeats {name}[{seen[key]}]: the two "
                "would be one scenario under one id", "give each value once"))
        else:
            seen[key] = index
    return out


def _key(value: Any) -> str:
    if isinstance(value, dict):  # weights: r and response_time are one term
        value = full_names(value)
    if isinstance(value, float) and math.isfinite(value) and value == int(value):
        value = int(value)  # 1 and 1.0 are one rate scale
    return json.dumps(value, sort_keys=True)


def _shown(value: Any) -> str:
    return json.dumps(value, sort_keys=True) if isinstance(value, dict) else repr(value)
