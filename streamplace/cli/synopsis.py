"""The synopsis at the top of docs/cli.md, written from the commands themselves (their
arguments, and each option as its ``--help`` shows it), so that it cannot drift from what
they take."""

from __future__ import annotations

from typing import Any

import typer

from streamplace.cli.app import COMMANDS, build_app

WIDTH = 92


def synopsis_markdown() -> str:
    """Every command's line, wrapped under its name, in a fenced block."""
    group = typer.main.get_command(build_app())
    commands: dict[str, Any] = getattr(group, "commands", {})  # Typer's own click
    lines = []
    for name in COMMANDS:
        command = commands[name]
        ctx = command.make_context(name, [], resilient_parsing=True)
        params = command.params
        head = f"streamplace {name}"
        words = [_argument(p) for p in params if p.param_type_name == "argument"]
        words += [_option(p, ctx) for p in params if p.param_type_name == "option"
                  and not p.hidden and "--help" not in p.opts]
        lines += _wrapped(head, words)
    lines += ["streamplace --version",
              "streamplace --install-completion        # bash, zsh or fish: the shell it "
              "runs from",
              "streamplace --show-completion           # the script, to install by hand"]
    return "```\n" + "\n".join(lines) + "\n```\n"


def _wrapped(head: str, words: list[str]) -> list[str]:
    """``head`` and its words, filled to WIDTH, each further line under the first word;
    a word (an option and its metavar) is never cut."""
    lines, line = [], head
    for word in words:
        if len(line) + 1 + len(word) > WIDTH and line.strip() != head:
            lines.append(line)
            line = " " * len(head)
        line += " " + word
    return [*lines, line]


def _argument(p: Any) -> str:
    name = str(p.metavar or p.name or "").strip("{}").upper()
    if p.nargs == -1 and "..." not in name:
        name += "..."
    return name if p.required else f"[{name}]"


def _option(p: Any, ctx: Any) -> str:
    """``--flag <metavar>``: its first long name, and the metavar its ``--help`` shows; in
    brackets where it may be left out; one that may be given again says so."""
    flag = next(o for o in p.opts if o.startswith("--"))
    last = p.get_help_record(ctx)[0].split(", ")[-1]
    kind = last.split(" ", 1)[1] if " " in last and "/" not in last else ""
    kind = {"<list[str]>": "<str>", "<int range>": "<int>", "<float range>": "<float>"
            }.get(kind, kind)
    said = f"{flag} {kind}".strip() + (" ..." if getattr(p, "multiple", False) else "")
    return said if p.required else f"[{said}]"
