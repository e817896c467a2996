"""Reading ``--occupied``: an occupied-load file, or ``APP:PLAN`` (another application and the
plan it runs), into what each running application holds (docs/formats.md)."""

from __future__ import annotations

import os
from collections.abc import Sequence

from streamplace.errors import InputError, Problem
from streamplace.io.readers import read_application, read_document, read_plan_for
from streamplace.model.checks import check_compatible
from streamplace.model.evaluate import evaluate
from streamplace.model.infrastructure import Infrastructure
from streamplace.model.occupied import HeldBy, OccupiedFile, held_by_plan, problems_of

FLAG = "--occupied"
FIX = ("give an occupied-load file (schema streamplace/occupied/v1), or APP:PLAN: the other "
       "application's file and the plan it runs, joined by a colon")


def read_occupied(specs: Sequence[str] | None, infra: Infrastructure,
                  placing: str | tuple[str, ...]) -> list[HeldBy]:
    """Every holder of every ``--occupied`` value, checked against ``infra``: unknown nodes
    and links, an application given twice, and the application being placed (``placing``,
    or any of several) among them are input errors, all reported at once."""
    placed = (placing,) if isinstance(placing, str) else placing
    holders: list[tuple[HeldBy, str]] = []
    problems: list[Problem] = []
    for spec in specs or ():
        if os.path.isfile(spec):
            doc = read_document(OccupiedFile, spec)
            for i, held in enumerate(doc.applications):
                problems += problems_of(held, infra, doc, f"applications[{i}]")
                holders.append((held, f"{spec}: applications[{i}]"))
        else:
            holders.append((_from_plan(spec, infra), spec))
    seen: dict[str, str] = {}
    for held, where in holders:
        if held.name in placed:
            problems.append(Problem(
                f"{where} is application {held.name!r}, one being placed",
                "leave it out: the occupied load is what the other applications hold (to "
                "re-plan a running application, pass its plan as --current)", path=FLAG))
        elif held.name in seen:
            problems.append(Problem(
                f"application {held.name!r} is given twice ({seen[held.name]} and {where})",
                "give each running application once", path=FLAG))
        seen.setdefault(held.name, where)
    if problems:
        raise InputError(problems)
    return [held for held, _ in holders]


def _app_and_plan(spec: str) -> tuple[str, str] | None:
    """``APP:PLAN``'s two paths (a path may hold colons; the plan's last one splits), or
    None where ``spec`` is a file of its own or has no colon."""
    app_path, colon, plan_path = spec.rpartition(":")
    if os.path.isfile(spec) or not colon or not app_path or not plan_path:
        return None
    return app_path, plan_path


def _from_plan(spec: str, infra: Infrastructure) -> HeldBy:
    parts = _app_and_plan(spec)
    if parts is None:
        raise InputError.single(f"no file {spec!r}", FIX, path=FLAG)
    app_path, plan_path = parts
    missing = [p for p in parts if not os.path.isfile(p)]
    if missing:
        raise InputError.single(f"{spec!r}: no file {missing[0]!r}", FIX, path=FLAG)
    app = read_application(app_path)
    wrong = check_compatible(app, infra)
    if wrong:
        raise InputError(wrong)
    plan = read_plan_for(plan_path, app, infra)
    ev = evaluate(app, infra, plan)
    if not ev.complete:
        raise InputError([plan.problem("placement", f"the plan places not every operator "
                                       f"of {app.name}", "give the plan it runs, whole")])
    return held_by_plan(app.name, ev)


def occupied_files(specs: Sequence[str] | None) -> list[str]:
    """The files ``--occupied`` values read (an output may overwrite none of them)."""
    out: list[str] = []
    for spec in specs or ():
        out += _app_and_plan(spec) or [spec]
    return out
