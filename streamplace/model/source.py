"""Where each field of an input document came from: file name and line per field path.

Paths are written ``operators[2].candidates[0]``; a path without its own line borrows the
line of its nearest recorded ancestor, so every problem points somewhere useful.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from streamplace.errors import Problem

_STEP = re.compile(r"\.?([^.\[\]]+)|\[(\d+)\]")


def path_to_str(steps: tuple[str | int, ...]) -> str:
    """``("operators", 2, "id")`` -> ``"operators[2].id"``.

    >>> path_to_str(("operators", 2, "id"))
    'operators[2].id'
    """
    out = ""
    for step in steps:
        if isinstance(step, int):
            out += f"[{step}]"
        else:
            out += f".{step}" if out else step
    return out


def str_to_path(path: str) -> tuple[str | int, ...]:
    """Inverse of :func:`path_to_str`.

    >>> str_to_path("operators[2].id")
    ('operators', 2, 'id')
    """
    steps: list[str | int] = []
    for match in _STEP.finditer(path):
        name, index = match.groups()
        steps.append(int(index) if index is not None else name)
    return tuple(steps)


@dataclass
class SourceMap:
    """File name and the line (1-based) of every field path read from it."""

    file: str = "<input>"
    lines: dict[tuple[str | int, ...], int] = field(default_factory=dict)

    def line_of(self, path: str | tuple[str | int, ...]) -> int | None:
        steps = str_to_path(path) if isinstance(path, str) else path
        while True:
            if steps in self.lines:
                return self.lines[steps]
            if not steps:
                return None
            steps = steps[:-1]

    def problem(self, path: str, message: str, fix: str = "") -> Problem:
        return Problem(message=message, fix=fix, path=path, file=self.file,
                       line=self.line_of(path))
