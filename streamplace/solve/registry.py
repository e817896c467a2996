"""The one registry of methods: ``--method`` choices, ``streamplace methods`` and the docs
all come from the catalog it reads (:mod:`streamplace.solve.catalog`).

Every method has the same signature: ``(Instance, SolveOptions) -> SolveResult``. A name
may have one entry per model family (``random``); :func:`get_method` with an instance picks
the entry that applies to it.
"""

from __future__ import annotations

import difflib
from dataclasses import replace
from functools import cache

from streamplace.errors import InputError
from streamplace.model.plan import ModelFamily
from streamplace.solve.method import Method, Value
from streamplace.solve.result import HighsValue, Instance, MipSolver, SolveOptions, SolveResult


@cache
def methods() -> tuple[Method, ...]:
    """Every method, in the catalog's order (imports stay lazy for a fast start)."""
    from streamplace.solve.catalog import CATALOG

    seen: set[tuple[str, str]] = set()
    for method in CATALOG:
        key = (method.name, method.model)
        if key in seen:
            raise ValueError(f"method {method.name!r} ({method.model}) is catalogued twice")
        seen.add(key)
    return CATALOG


def method_names() -> list[str]:
    return list(dict.fromkeys(m.name for m in methods()))


def get_method(name: str, instance: Instance | None = None) -> Method:
    """The method called ``name``; with an ``instance``, the entry of that name that applies
    to it (the first entry when none does: its ``accepts`` then says why). Without one, a
    name with several entries gives the first, whose ``solve`` runs the entry that applies
    to the instance it is given."""
    entries = [m for m in methods() if m.name == name]
    if not entries:
        raise InputError.single(f"unknown method {name!r}", unknown_method_fix(name),
                                path="method")
    if len(entries) == 1:
        return entries[0]
    if instance is not None:
        return next((m for m in entries if m.accepts(instance) is None), entries[0])

    def dispatch(inst: Instance, options: SolveOptions) -> SolveResult:
        return get_method(name, inst).solve(inst, options)

    return replace(entries[0], run=dispatch, checks_params=False)


def unknown_method_fix(name: str) -> str:
    """What to write instead of a method name no entry has."""
    names = method_names()
    close = difflib.get_close_matches(name, names, n=1)
    return f"did you mean {close[0]!r}?" if close else f"use one of: {', '.join(names)}"


def model_of(name: str) -> ModelFamily | None:
    """The model family of the method called ``name``, when one entry has that name."""
    entries = {m.model for m in methods() if m.name == name}
    return next(iter(entries)) if len(entries) == 1 else None


def read_options(method: Method, given: list[tuple[str, str]], solver: MipSolver,
                 ) -> tuple[dict[str, Value], dict[str, HighsValue]]:
    """Options given as text (name, value), split into the method's own parameters (typed
    and checked by their declarations) and HiGHS options (typed as HiGHS declares them);
    an unknown or ill-typed name is an InputError with a hint, located at the name."""
    params: dict[str, Value] = {}
    highs: dict[str, HighsValue] = {}
    for name, raw in given:
        if name in params or name in highs:
            raise InputError.single(f"{name} is given twice", "give it once", path=name)
        param = method.param(name)
        if param is not None:
            params[name] = param.read(raw)
        elif method.mip and solver == MipSolver.HIGHS:
            from streamplace.solve.mip.highs.solve import read_highs_option

            highs[name] = read_highs_option(name, raw)
        else:
            fix = method.parameter_hint(name)
            if method.mip:
                fix += "; HiGHS options apply when HiGHS solves"
            raise InputError.single(f"{method.name} has no parameter {name!r}", fix,
                                    path=name)
    return params, highs


def applicable(name: str, instance: Instance) -> Method:
    """The method called ``name`` that applies to ``instance``; InputError saying why not
    when none does."""
    method = get_method(name, instance)
    reason = method.accepts(instance)
    if reason is not None:
        raise InputError.single(f"{name} does not apply: {reason}",
                                "pick a method of the instance's model (streamplace methods)",
                                path="method")
    return method
