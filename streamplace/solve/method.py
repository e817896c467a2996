"""What a method is: its name, model family, the settings it honours and its own typed
parameters, each declared where the method is defined (docs/cli.md, "Methods").

A method module exports a tuple ``METHODS`` of :class:`Method` and never imports the
registry; :mod:`streamplace.solve.catalog` lists every module's methods in one place.

>>> p = Param("neighbors", int, 3, "neighbours each map is forwarded to", low=1)
>>> p.read("5")
5
>>> p.read("0")
Traceback (most recent call last):
...
streamplace.errors.InputError: neighbors: must be at least 1, got 0 — use a value of 1 or more
"""

from __future__ import annotations

import enum
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Generic, TypeVar, cast

from streamplace.errors import InputError
from streamplace.model.graph import build_graph
from streamplace.model.plan import ModelFamily
from streamplace.model.shapes import why_not_chain, why_not_dag, why_not_tree
from streamplace.solve.result import Instance, SolveOptions, SolveResult

Model = ModelFamily
SolveFn = Callable[[Instance, SolveOptions], SolveResult]
Accepts = Callable[[Instance], str | None]
Value = bool | int | float | str | None
V = TypeVar("V", int, float, str, int | None, float | None, str | None)


class Setting(enum.StrEnum):
    """General settings a method may honour (each a flag of ``streamplace solve``)."""

    TIME_LIMIT = "time_limit"
    GAP = "gap"
    SEED = "seed"
    THREADS = "threads"
    FORMULATION = "formulation"
    SOLVER = "solver"
    START = "start"
    CURRENT = "current"
    LIMITS = "limits"


@dataclass(frozen=True)
class Param(Generic[V]):
    """A parameter of one method: its name, type, default, bounds or choices, and help. The
    default is written here only: a method reads the value with :meth:`of`."""

    name: str
    kind: type[int] | type[float] | type[str]
    default: V
    help: str
    choices: tuple[str, ...] = ()
    low: float | None = None
    high: float | None = None

    def read(self, raw: str) -> Value:
        """The value of ``raw`` text (a command line's ``name=value``), checked."""
        text = raw.strip()
        if self.kind is str:
            return self.check(text)
        try:
            value: Value = self.kind(text)
        except ValueError:
            noun = "a whole number" if self.kind is int else "a number"
            raise InputError.single(f"expected {noun}, got {text!r}", f"write {self.name}=" +
                                    ("3" if self.kind is int else "0.5"),
                                    path=self.name) from None
        return self.check(value)

    def of(self, options: SolveOptions) -> V:
        """This parameter's value in ``options``: as given (checked by :meth:`Method.solve`),
        else the default."""
        value = options.params.get(self.name)
        return self.default if value is None else cast(V, value)

    def check(self, value: Value) -> Value:
        """``value`` if it is of the parameter's type and within its bounds or choices;
        InputError if not."""
        if value is not None and not _of_kind(value, self.kind):
            noun = {int: "a whole number", float: "a number"}.get(self.kind, "text")
            raise InputError.single(f"expected {noun}, got {value!r}",
                                    f"write {self.name}=" + (self.choices[0] if self.choices
                                                             else {int: "3", float: "0.5"}
                                                             .get(self.kind, "...")),
                                    path=self.name)
        if self.choices and value not in self.choices:
            raise InputError.single(f"{value!r} is not one of {', '.join(self.choices)}",
                                    f"write {self.name}={self.choices[0]}", path=self.name)
        if isinstance(value, int | float) and not isinstance(value, bool):
            if not math.isfinite(value):
                raise InputError.single("must be finite", "write a finite number",
                                        path=self.name)
            if self.low is not None and value < self.low:
                raise InputError.single(f"must be at least {self.low:g}, got {value:g}",
                                        f"use a value of {self.low:g} or more", path=self.name)
            if self.high is not None and value > self.high:
                raise InputError.single(f"must be at most {self.high:g}, got {value:g}",
                                        f"use a value of {self.high:g} or less", path=self.name)
        return value

    @property
    def signature(self) -> str:
        """``name=type`` as ``streamplace methods`` lists it."""
        if self.choices:
            return f"{self.name}={'|'.join(self.choices)}"
        return f"{self.name}={self.kind.__name__}"


def _of_kind(value: object, kind: type) -> bool:
    if isinstance(value, bool):
        return False  # True is an int to Python, never a count or a rate to a user
    if kind is float:
        return isinstance(value, int | float)
    return isinstance(value, kind)


def _always(instance: Instance) -> str | None:
    return None


@dataclass(frozen=True)
class Method:
    """A method of the catalog. :meth:`solve` has the one signature every method shares; it
    checks the parameters given and runs ``run``, the method's own function."""

    name: str
    model: Model
    exact: bool
    summary: str
    run: SolveFn = field(repr=False, compare=False)
    settings: frozenset[Setting] = frozenset({Setting.TIME_LIMIT})
    params: tuple[Param, ...] = ()  # type: ignore[type-arg]  # of any value type
    mip: bool = False  # builds an integer program (solve_mip); takes HiGHS options there
    cycles: bool = False
    replication: bool = False
    trees: bool = False
    paper: str = ""
    accepts: Accepts = field(default=_always, repr=False, compare=False)
    checks_params: bool = field(default=True, repr=False, compare=False)
    """False only for the registry's dispatch between entries of one name (each entry checks
    its own)."""

    def solve(self, instance: Instance, options: SolveOptions) -> SolveResult:
        """Solve ``instance``. Every parameter given is checked first, whichever way the
        method is called (command line, library, sweep): a misspelt name or a value out of
        range is an InputError with the command line's words, never silently ignored."""
        if self.checks_params:
            options = replace(options, params=self.resolve(options.params))
        return self.run(instance, options)

    def param(self, name: str) -> Param | None:  # type: ignore[type-arg]
        return next((p for p in self.params if p.name == name), None)

    def defaults(self) -> dict[str, Value]:
        return {p.name: p.default for p in self.params}

    def resolve(self, given: Mapping[str, object]) -> dict[str, Value]:
        """Every parameter's value: the given ones checked, the rest at their defaults."""
        out = self.defaults()
        for name, raw in given.items():
            value = cast(Value, raw)
            param = self.param(name)
            if param is None:
                raise InputError.single(f"{self.name} has no parameter {name!r}",
                                        self.parameter_hint(name), path=name)
            out[name] = param.check(value)
        return out

    def parameter_hint(self, name: str) -> str:
        import difflib

        known = [p.name for p in self.params]
        close = difflib.get_close_matches(name, known, n=1)
        if close:
            return f"did you mean {close[0]!r}?"
        return (f"{self.name} takes {', '.join(known)}" if known
                else f"{self.name} takes no parameters")


# ------------------------------------------------------------------- which instances apply

def acyclic(instance: Instance) -> str | None:
    """Methods whose model needs a DAG."""
    return why_not_dag(build_graph(instance.app))


def chain(instance: Instance) -> str | None:
    """Path mapping: a chain of services, one instance each."""
    return why_not_chain(build_graph(instance.app))


def tree(instance: Instance) -> str | None:
    """The Benoit ILP: an operator tree with a throughput (Constr with a catalog, Non-Constr
    on the given processors)."""
    return why_not_tree(instance.app)


def bought_tree(instance: Instance) -> str | None:
    """Benoit's heuristics buy processors (Constr): a tree and a catalog."""
    reason = tree(instance)
    if reason is None and not instance.infra.catalog:
        return "this heuristic buys processors, and the infrastructure has no catalog"
    return reason


def dag_not_bought_tree(instance: Instance) -> str | None:
    """The placement ``random``: any DAG but a tree to buy processors for, which Benoit's
    ``random`` of the same name serves."""
    if bought_tree(instance) is None:
        return "an operator tree with a catalog: Benoit's random applies"
    return acyclic(instance)
