"""The bundle plan a bundle's result is written as (docs/formats.md,
``streamplace/bundle/v1``): each application's plan as ``solve`` writes one, under the
bundle's status, F and weights."""

from __future__ import annotations

from typing import Any

from streamplace.io.writers import plan_document
from streamplace.model.bundle import BUNDLE_SCHEMA
from streamplace.solve.joint.instance import JointInstance
from streamplace.solve.joint.result import JointResult


def bundle_document(result: JointResult, joint: JointInstance) -> dict[str, Any] | None:
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
