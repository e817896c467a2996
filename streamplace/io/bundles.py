"""The bundle plan file (docs/formats.md, ``streamplace/bundle/v1``): a bundle's result
written as one (each application's plan as ``solve`` writes one, under the bundle's status,
F and weights), and one application's plan read out of one."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from streamplace.errors import InputError
from streamplace.model.bundle import BUNDLE_SCHEMA
from streamplace.model.source import SourceMap

if TYPE_CHECKING:  # reading a plan, as every command does, needs no solver
    from streamplace.solve.bundle.instance import BundleInstance
    from streamplace.solve.bundle.result import BundleResult

__all__ = ["BUNDLE_SCHEMA", "bundle_document", "bundle_entry"]


def bundle_entry(data: dict[str, Any], source: SourceMap,
                  name: str) -> tuple[Any, SourceMap]:
    """The entry of a bundle's ``plans`` whose ``application`` is ``name``, with the lines
    of the bundle file (a problem in it points into the bundle)."""
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


def bundle_document(result: BundleResult, joint: BundleInstance) -> dict[str, Any] | None:
    from streamplace.io.writers import plan_document  # reading a plan needs no writer

    if result.plans is None or result.evaluation is None:
        return None
    plans = []
    for app in joint.apps:
        ev = result.evaluation.evaluations[app.name]
        plan = result.plans[app.name].model_copy(update={
            "application": app.name, "infrastructure": joint.infra.name,
            "method": result.method, "model": "odrp", "status": None,
            "objective": ev.utility.value if ev.utility else None, "bound": None, "gap": None})
        plans.append(plan_document(plan, ev))
    return {"schema": BUNDLE_SCHEMA, "infrastructure": joint.infra.name,
            "method": result.method, "bundle": result.mode, "status": result.status.value,
            "objective": result.objective, "bound": result.bound, "gap": result.gap,
            "weights": result.evaluation.weights, "plans": plans}
