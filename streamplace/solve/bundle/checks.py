"""A bundle's plans checked together (``validate APP1 APP2 ... INFRA BUNDLE``): each
application's checks beside the other applications' plans, and one check that what runs
together fits together."""

from __future__ import annotations

from collections.abc import Mapping

from streamplace.model.metrics import MetricLimits
from streamplace.model.plan import Plan
from streamplace.model.validation import Check, run_checks
from streamplace.solve.bundle.instance import BundleEvaluation, BundleInstance, evaluate_bundle


def bundle_checks(joint: BundleInstance, plans: Mapping[str, Plan],
                  ) -> tuple[list[Check], BundleEvaluation]:
    """Every application's checks, named by application, then ``bundle: together``; and
    the evaluation they rest on."""
    verdict = evaluate_bundle(joint, dict(plans))
    checks: list[Check] = []
    for app in joint.apps:
        limits = joint.limits_for(app) or MetricLimits()
        for check in run_checks(verdict.evaluations[app.name], limits, plans[app.name], app,
                                joint.infra):
            checks.append(Check(f"{app.name}: {check.group}", check.name, check.passed,
                                check.message, check.details))
    checks.append(Check("bundle", "together", not verdict.problems,
                        "; ".join(verdict.problems) or "the other applications' plans fit "
                        "beside each application's", verdict.problems))
    return checks, verdict
