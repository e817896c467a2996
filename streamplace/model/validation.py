"""The checks of ``streamplace validate``: every constraint family, then user thresholds."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from streamplace.model.application import Application
from streamplace.model.evaluate.report import Evaluation
from streamplace.model.infrastructure import Infrastructure
from streamplace.model.metrics import MetricLimits
from streamplace.model.plan import Plan

CORE_CONSTRAINTS = ("placement.missing", "placement.role", "replicas.fixed", "replicas.max",
                    "candidates", "capacity", "stability", "route.unreachable", "route.invalid")
BENOIT_CONSTRAINTS = ("benoit.single_processor", "benoit.compute", "benoit.processor_card",
                      "benoit.server_card", "benoit.server_link", "benoit.processor_link",
                      "benoit.download_missing", "benoit.download_duplicate",
                      "benoit.download_server")
PATH_CONSTRAINTS = ("route.mixed", "bandwidth", "uplink")


@dataclass(frozen=True)
class Check:
    group: str  # "plan" | "constraints" | "thresholds"
    name: str
    passed: bool
    message: str
    details: tuple[str, ...] = field(default=())

    def to_json(self) -> dict[str, Any]:
        return {"group": self.group, "name": self.name, "passed": self.passed,
                "message": self.message, "details": list(self.details)}


def run_checks(evaluation: Evaluation, limits: MetricLimits, plan: Plan,
               app: Application, infra: Infrastructure) -> list[Check]:
    """The plan's identity, every constraint family that applies, then the thresholds:
    ``evaluation`` is the plan evaluated with ``limits``, whose violations are the failed
    thresholds."""
    foreign = {kind for kind, _, _ in foreign_names(plan, app, infra)}
    checks = [_names_match("application", plan.application, app.name, foreign),
              _names_match("infrastructure", plan.infrastructure, infra.name, foreign)]
    names = list(CORE_CONSTRAINTS)
    if evaluation.benoit is not None:
        names += BENOIT_CONSTRAINTS
    if evaluation.paths is not None:
        names += PATH_CONSTRAINTS
    if plan.model == "ecker":
        names.append("ecker.headroom")
    if evaluation.reconfiguration is not None:
        names.append("reconfiguration.max_moves")
    names += sorted({v.constraint for v in evaluation.violations
                     if not v.constraint.startswith("limit.")} - set(names))
    for name in names:
        hits = [v for v in evaluation.violations if v.constraint == name]
        message = f"{len(hits)} violation(s)" if hits else "satisfied"
        checks.append(Check("constraints", name, not hits, message,
                            tuple(f"{v.subject}: {v.problem}" for v in hits)))
    odrp = evaluation.odrp
    broken = {v.constraint for v in evaluation.violations}
    for metric, bound in limits.bounds.items():
        name = metric.limit_name
        if odrp is None:
            checks.append(Check("thresholds", name, False,
                                f"{metric} is undefined: some operator has no replica"))
            continue
        relation = ">=" if metric.higher_is_better else "<="
        checks.append(Check("thresholds", name, f"limit.{name}" not in broken,
                            f"{metric} = {metric.exact(odrp.metric(metric))} (limit "
                            f"{relation} {metric.exact(bound)})"))
    return checks


def foreign_names(plan: Plan, app: Application, infra: Infrastructure,
                  ) -> list[tuple[str, str, str]]:
    """(field, what the plan names, what it is given) for each of ``application`` and
    ``infrastructure`` the plan names otherwise; a plan that names none (written by hand)
    has none."""
    return [(kind, recorded, actual) for kind, recorded, actual in (
        ("application", plan.application, app.name),
        ("infrastructure", plan.infrastructure, infra.name))
        if recorded is not None and recorded != actual]


def _names_match(kind: str, recorded: str | None, actual: str,
                 foreign: set[str]) -> Check:
    """A plan made for another application (or infrastructure) fails validation: its
    operators or nodes may match by accident and say nothing about this one."""
    if kind not in foreign:
        detail = "written by hand, names no " + kind if recorded is None else recorded
        return Check("plan", kind, True, f"for {actual!r}" if recorded else detail)
    return Check("plan", kind, False, f"the plan was made for {kind} {recorded!r}, not "
                 f"{actual!r}", (f"re-solve for {actual!r}, or give the {kind} the plan was "
                                 "made for",))
