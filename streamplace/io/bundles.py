"""The bundle files (docs/formats.md, ``streamplace/bundle/v1``): a bundle's applications and
the plans that run them now read, each checked; a bundle's result written as one plan file
(each application's plan as ``solve`` writes one, under the bundle's status, F and
weights)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from streamplace.errors import InputError, Problem
from streamplace.io.loader import load_path
from streamplace.io.occupied import read_occupied
from streamplace.io.outputs import STDOUT
from streamplace.io.readers import read_instance, read_plan_for
from streamplace.model.application import Application
from streamplace.model.bundle import BUNDLE_SCHEMA
from streamplace.model.infrastructure import Infrastructure
from streamplace.model.occupied import beside
from streamplace.model.reconfiguration import Current

if TYPE_CHECKING:  # reading a plan, as every command does, needs no solver
    from streamplace.solve.bundle.instance import BundleInstance
    from streamplace.solve.bundle.result import BundleResult

__all__ = ["BUNDLE_SCHEMA", "bundle_document", "read_bundle", "read_bundle_current"]


def read_bundle(app_paths: Sequence[str], infra_path: str, target_utilization: float | None,
                occupied: Sequence[str] | None) -> tuple[list[Application], Infrastructure]:
    """Every application (all problems of all files at once), distinct names, and the
    infrastructure less the load ``--occupied`` gives."""
    apps: list[Application] = []
    problems: list[Problem] = []
    infra: Infrastructure | None = None
    for path in app_paths:
        try:
            app, infra = read_instance(path, infra_path)
        except InputError as exc:
            problems += [p for p in exc.problems if p not in problems]
            continue
        apps.append(app.with_target_utilization(target_utilization))
    seen: dict[str, str] = {}
    for app, path in zip(apps, app_paths, strict=False):
        if app.name in seen:
            problems.append(app.problem("name", f"application {app.name!r} is also "
                                        f"{seen[app.name]}", "give each application of a "
                                        "bundle its own name"))
        seen.setdefault(app.name, path)
    if problems:
        raise InputError(problems)
    assert infra is not None
    names = tuple(app.name for app in apps)
    return apps, beside(infra, read_occupied(occupied, infra, names))


def read_bundle_current(path: str, apps: Sequence[Application], infra: Infrastructure,
                        ) -> dict[str, Current]:
    """``--current`` of a bundle: a bundle plan (each application it places runs that plan;
    one it does not place arrives now), or one application's plan file, whose
    ``application`` field says which application runs it."""
    if path == STDOUT:
        raise InputError.single("--current - is not read for several applications",
                                "give the bundle plan's file", path="--current")
    data, source = load_path(path)
    if isinstance(data, dict) and data.get("schema") == BUNDLE_SCHEMA:
        placed = {e.get("application") for e in data.get("plans") or []
                  if isinstance(e, dict)}
        running = [app for app in apps if app.name in placed]
    else:
        named = data.get("application") if isinstance(data, dict) else None
        running = [app for app in apps if app.name == named]
        if not running:
            raise InputError([source.problem(
                "application", f"the plan runs application {named!r}, not one of the bundle"
                if named else "the plan does not say which application runs it",
                f"set application: to one of {', '.join(a.name for a in apps)}, or give a "
                "bundle plan")])
    return {app.name: Current({op.id: read_plan_for(path, app, infra).replicas(op.id)
                               for op in app.operators}, source=f"the current plan {path}")
            for app in running}


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
