"""What a method says about its own run: the solver and its version, time, the model's size,
the search's counters. Written flat into a plan's ``solver`` block (docs/formats.md) and
shown in the solve summary; it reads like a mapping, so ``report["rounds"]`` works too.

>>> r = SolverReport("highs", seconds=1.5, size=ModelSize(10, 8, 4, 20)).counting(rounds=2)
>>> r["rounds"], r["variables"], "version" in r
(2, 10, False)
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any


@dataclass(frozen=True)
class ModelSize:
    """An integer program's size, with its rows counted by family where the formulation
    records them (``capacity``, ``latency``, ``traffic`` ...)."""

    variables: int
    integer_variables: int
    constraints: int
    nonzeros: int
    rows_by_family: Mapping[str, int] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"variables": self.variables,
                               "integer_variables": self.integer_variables,
                               "constraints": self.constraints, "nonzeros": self.nonzeros}
        if self.rows_by_family:
            out["rows_by_family"] = dict(self.rows_by_family)
        return out


@dataclass(frozen=True)
class SolverReport(Mapping[str, Any]):
    """One run's statistics. ``counters`` are the method's own (moves, rounds, maps
    explored, the embedding's error ...)."""

    name: str
    version: str | None = None
    seconds: float | None = None
    model_status: str | None = None  # the solver's own words for how it ended
    mip_start: str | None = None  # what became of a MIP start given to the solver
    nodes: int | None = None
    seed: int | None = None
    build_seconds: float | None = None
    load_seconds: float | None = None
    size: ModelSize | None = None
    options: Mapping[str, Any] = field(default_factory=dict)
    counters: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        # counters are kept apart from the fields: one named like a field, or like what a
        # field writes, is refused rather than let overwrite it in the plan file
        taken = FIELD_KEYS & set(self.counters)
        if taken:
            raise ValueError(f"counters {sorted(taken)} would overwrite the report's fields")

    def counting(self, **counters: Any) -> SolverReport:
        """This report with a method's own counters added."""
        return replace(self, counters={**self.counters, **counters})

    def named(self, name: str) -> SolverReport:
        return replace(self, name=name)

    def to_json(self) -> dict[str, Any]:
        """The flat ``solver`` block of a plan file; absent values are left out."""
        out: dict[str, Any] = {"name": self.name}
        for key in ("version", "seconds", "load_seconds", "model_status", "mip_start", "nodes",
                    "seed"):
            value = getattr(self, key)
            if value is not None:
                out[key] = value
        if self.options:
            out["options"] = dict(self.options)
        if self.size is not None:
            out.update(self.size.to_json())
        if self.build_seconds is not None:
            out["build_seconds"] = self.build_seconds
        out.update(self.counters)
        return out

    def shown(self) -> list[tuple[str, str]]:
        """(label, value) rows for people: every scalar, nested tables left to the file."""
        return [(key.replace("_", " "), str(value)) for key, value in self.to_json().items()
                if not isinstance(value, dict | list)]

    def __getitem__(self, key: str) -> Any:
        return self.to_json()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.to_json())

    def __len__(self) -> int:
        return len(self.to_json())


FIELD_KEYS = frozenset(f.name for f in fields(SolverReport)) | \
    frozenset(f.name for f in fields(ModelSize))
"""What :meth:`SolverReport.to_json` may write from the report's own fields (a model's size
is written flat): no counter may take one of these names."""
