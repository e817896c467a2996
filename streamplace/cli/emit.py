"""The one way a command hands its results to the user (docs/cli.md, "Output").

Human output (Rich tables, warnings, notes) goes to stderr; the ``--json`` document and any
output written to ``-`` go to stdout; files are written all or none
(:mod:`streamplace.io.outputs`); the exit code comes last.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import typer
from rich.console import Console
from rich.markup import escape

from streamplace.cli.console import console
from streamplace.cli.runtime import signal_exit_code
from streamplace.errors import InputError
from streamplace.io.outputs import STDOUT, Output, same_file, write_outputs
from streamplace.io.writers import json_text
from streamplace.solve.budget import StopRequest
from streamplace.solve.result import SolveResult, SolveStatus

EXIT_NO = 1
EXIT_NO_ANSWER = 3


@dataclass
class Emission:
    """Everything one command produces."""

    document: dict[str, Any] | list[Any] | None = None  # the --json document
    outputs: list[Output] = field(default_factory=list)
    show: Callable[[Console], None] | None = None  # tables on stderr
    notes: list[str] = field(default_factory=list)  # said after writing, unless --quiet
    verdict: list[str] = field(default_factory=list)  # said last, even with --quiet
    warnings: list[str] = field(default_factory=list)
    code: int = 0


def emit(emission: Emission, *, json_: bool = False, quiet: bool = False) -> None:
    """Show, write, print the JSON document, then exit with the emission's code."""
    con = console()
    for warning in emission.warnings:
        con.print(f"[yellow]warning:[/] {escape(warning)}")
    if not quiet and emission.show is not None:
        emission.show(con)
    outputs = list(emission.outputs)
    if json_ and emission.document is not None:
        outputs.append(Output(STDOUT, json_text(emission.document)))
    write_outputs(outputs)
    for line in ([] if quiet else emission.notes) + emission.verdict:
        con.print(line)
    if emission.code:
        raise typer.Exit(emission.code)


def solve_exit_code(result: SolveResult, stop: StopRequest) -> int:
    """0 with a plan; 1 when proven infeasible; 3 without a plan; 128 + signal when a
    signal stopped the method (its best plan is written all the same)."""
    if result.status == SolveStatus.INTERRUPTED and stop.signum is not None:
        return signal_exit_code(stop)
    if result.status == SolveStatus.INFEASIBLE:
        return EXIT_NO
    return 0 if result.plan is not None else EXIT_NO_ANSWER


def check_outputs(outputs: Sequence[str | None], inputs: Sequence[str | None],
                  json_: bool = False) -> None:
    """Before any work: no output overwrites an input, none shares stdout with --json, and
    at most one input reads standard input."""
    for out in outputs:
        if out is None:
            continue
        if out == STDOUT and json_:
            raise InputError.single("-o - and --json would both write to standard output",
                                    "drop one, or write the plan to a file", path="--output")
        for source in inputs:
            if source is not None and same_file(out, source):
                raise InputError.single(f"output {out!r} is also an input",
                                        "write to another file", path="--output")
    readers = [source for source in inputs if source == STDOUT]
    if len(readers) > 1:
        raise InputError.single(f"{len(readers)} inputs read standard input (-)",
                                "only one file can come from -; give the others as files",
                                file="<stdin>")
