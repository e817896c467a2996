"""The one registry of methods (style.md, practice 2).

``--method`` choices, ``streamplace methods`` and the docs all come from here. Every method
has the same signature: ``(Instance, SolveOptions) -> SolveResult``.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from streamplace.errors import InputError
from streamplace.solve.result import Instance, SolveOptions, SolveResult

SolveFn = Callable[[Instance, SolveOptions], SolveResult]
Model = Literal["odrp", "benoit", "ecker", "sbon", "path", "baseline"]


@dataclass(frozen=True)
class MethodInfo:
    name: str
    model: Model
    exact: bool
    summary: str
    solve: SolveFn = field(repr=False, compare=False)
    options: tuple[str, ...] = ()
    cycles: bool = False
    replication: bool = False
    trees: bool = False
    seed_paper: str = ""


_REGISTRY: dict[str, MethodInfo] = {}


def register(name: str, *, model: Model, exact: bool, summary: str,
             options: tuple[str, ...] = (), cycles: bool = False, replication: bool = False,
             trees: bool = False, seed_paper: str = "") -> Callable[[SolveFn], SolveFn]:
    """Decorator adding a method to the registry under ``name``."""

    def add(fn: SolveFn) -> SolveFn:
        if name in _REGISTRY:
            raise ValueError(f"method {name!r} registered twice")
        _REGISTRY[name] = MethodInfo(name, model, exact, summary, fn, options, cycles,
                                     replication, trees, seed_paper)
        return fn

    return add


def methods() -> list[MethodInfo]:
    """Every registered method, in registration order."""
    _load_builtin()
    return list(_REGISTRY.values())


def get_method(name: str) -> MethodInfo:
    _load_builtin()
    if name not in _REGISTRY:
        close = difflib.get_close_matches(name, list(_REGISTRY), n=1)
        known = ", ".join(_REGISTRY) or "none yet"
        fix = f"did you mean {close[0]!r}?" if close else f"use one of: {known}"
        raise InputError.single(f"unknown method {name!r}", fix, path="--method")
    return _REGISTRY[name]


def _load_builtin() -> None:
    """Import the method modules (each registers itself); imports stay lazy for fast start."""
    from streamplace.solve import builtin  # noqa: F401
