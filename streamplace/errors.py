"""The exception family; only :mod:`streamplace.cli` prints these and maps them to exit codes.

Exit codes (docs/cli.md): InputError -> 2, InfeasibleError -> 1, SolverError -> 3.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Self


@dataclass(frozen=True)
class Problem:
    """One thing wrong with an input, located as precisely as the reader could.

    Rendered as ``file:line: field.path: what is wrong — how to fix``.
    """

    message: str
    fix: str = ""
    path: str = ""
    file: str | None = None
    line: int | None = None

    def render(self) -> str:
        parts = []
        if self.file is not None:
            parts.append(self.file if self.line is None else f"{self.file}:{self.line}")
        if self.path:
            parts.append(self.path)
        head = "".join(f"{p}: " for p in parts)
        tail = f" — {self.fix}" if self.fix else ""
        return f"{head}{self.message}{tail}"


class StreamplaceError(Exception):
    """Base of every error streamplace reports to a user."""

    exit_code = 3


class InputError(StreamplaceError):
    """Bad usage or bad input; carries every problem found, not just the first."""

    exit_code = 2

    def __init__(self, problems: Iterable[Problem]) -> None:
        self.problems: Sequence[Problem] = tuple(problems)
        super().__init__("\n".join(p.render() for p in self.problems))

    @classmethod
    def single(cls, message: str, fix: str = "", *, file: str | None = None,
               path: str = "", line: int | None = None) -> Self:
        return cls([Problem(message=message, fix=fix, path=path, file=file, line=line)])


class InfeasibleError(StreamplaceError):
    """The instance provably has no feasible plan; ``reasons`` say what a person can change."""

    exit_code = 1

    def __init__(self, reasons: Iterable[str]) -> None:
        self.reasons = tuple(reasons)
        super().__init__("; ".join(self.reasons))


class SolverError(StreamplaceError):
    """The solver failed or stopped without any feasible plan."""

    exit_code = 3


class EngineError(StreamplaceError):
    """The data engine (Spark) could not start or failed while running the pipeline."""

    exit_code = 3


class Unreachable(InputError):
    """A server that could not be reached, or did not answer in whole (refused, reset, cut
    short, past its deadline): bad input when nothing was sent, a fault to outlive in a
    loop that has read the job before."""


class ChangeSent(EngineError):
    """Something failed after a change was sent to a running job: it may have taken
    effect, so the fix is to look before sending it again (exit 3, never 2)."""

    def __init__(self, what: str, job: str) -> None:
        self.job = job
        super().__init__(f"{what}; the change may have been sent to {job}: observe the job "
                         "before sending it again")
