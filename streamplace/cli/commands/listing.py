"""``streamplace schema`` and ``streamplace methods``: listings on stdout, never cut."""

from __future__ import annotations

from typing import Annotated

import typer

from streamplace.cli.args import JsonOpt
from streamplace.cli.console import handle_errors, stdout_console
from streamplace.cli.options import FLAGS
from streamplace.cli.views.methods import render_methods
from streamplace.errors import InputError
from streamplace.io.outputs import write_output
from streamplace.io.schema import KINDS, json_schema
from streamplace.io.writers import json_text
from streamplace.solve import methods


@handle_errors
def schema_command(kind: Annotated[str, typer.Argument(
        metavar="KIND", help=f"Which file kind: {', '.join(KINDS)}.")]) -> None:
    """Print the JSON Schema of a file kind on stdout."""
    if kind not in KINDS:
        raise InputError.single(f"no file kind {kind!r}", f"use one of {', '.join(KINDS)}",
                                path="KIND")
    write_output("-", json_text(json_schema(kind)))


@handle_errors
def methods_command(json_: JsonOpt = False) -> None:
    """List every method: its model, exact or heuristic, settings and parameters."""
    catalog = methods()
    if json_:
        write_output("-", json_text([
            {"name": m.name, "model": m.model, "exact": m.exact, "summary": m.summary,
             "settings": sorted(s.value for s in m.settings),
             "parameters": [{"name": p.name, "type": p.kind.__name__, "default": p.default,
                             "choices": list(p.choices), "help": p.help} for p in m.params],
             "highs_options": m.mip, "cycles": m.cycles, "replication": m.replication,
             "trees": m.trees, "paper": m.paper} for m in catalog]))
    else:
        render_methods(stdout_console(), catalog)


def methods_markdown() -> str:
    """The catalog as the Markdown table of docs/cli.md (kept in step by ``make golden``)."""
    lines = ["| method | model | kind | settings | parameters (`--solver-option`) | summary |",
             "|---|---|---|---|---|---|"]
    for m in methods():
        settings = ", ".join(f"`{FLAGS[s]}`" for s in sorted(m.settings))
        params = [f"`{p.signature}` (default {p.default if p.default is not None else 'auto'})"
                  .replace("|", "\\|") for p in m.params]
        if m.mip:
            params.append("HiGHS options")
        lines.append(f"| `{m.name}` | {m.model} | {'exact' if m.exact else 'heuristic'} | "
                     f"{settings} | {', '.join(params) or '-'} | {m.summary} |")
    return "\n".join(lines) + "\n"


def statuses_markdown() -> str:
    """How every status each backend can report maps to a plan's status (docs/models.md)."""
    from streamplace.solve.mip.solve import status_tables

    lines = ["| solver | its status | with an incumbent | without one | meaning |",
             "|---|---|---|---|---|"]
    for solver, table in status_tables().items():
        for name, meaning in table.items():
            lines.append(f"| {solver} | `{name}` | `{meaning.with_plan.value}` | "
                         f"`{meaning.without_plan.value}` | {meaning.explanation} |")
    return "\n".join(lines) + "\n"
