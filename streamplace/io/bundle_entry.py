"""One application's plan read out of a bundle plan file (docs/formats.md,
``streamplace/bundle/v1``), as every command that reads a plan reads one."""

from __future__ import annotations

from typing import Any

from streamplace.errors import InputError
from streamplace.model.bundle import BUNDLE_SCHEMA
from streamplace.model.source import SourceMap


def bundle_entry(data: Any, source: SourceMap,
                  name: str) -> tuple[Any, SourceMap]:
    """The entry of a bundle's ``plans`` whose ``application`` is ``name``, with the lines
    of the bundle file (a problem in it points into the bundle); any other document as it
    is (one application's plan file)."""
    if not isinstance(data, dict) or data.get("schema") != BUNDLE_SCHEMA:
        return data, source
    plans = data.get("plans")
    entries = plans if isinstance(plans, list) else []
    names = [e.get("application") for e in entries if isinstance(e, dict)]
    for i, entry in enumerate(entries):
        if isinstance(entry, dict) and entry.get("application") == name:
            prefix = ("plans", i)
            lines = {key[2:]: line for key, line in source.lines.items()
                     if key[:2] == prefix}
            return entry, SourceMap(source.file, lines)
    raise InputError([source.problem(
        "plans", f"the bundle plan has no plan for application {name!r} (it places "
        f"{', '.join(repr(n) for n in names) or 'none'})",
        "give one of the applications the bundle was solved for, or solve the bundle again "
        "with this one")])
