"""``streamplace validate APP1 APP2 ... INFRA BUNDLE``: each application's plan of a bundle
checked beside the other applications' plans (what runs together must fit together)."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from streamplace.cli.bundle import bundle_limits
from streamplace.cli.emit import EXIT_NO, Emission, check_outputs, emit
from streamplace.cli.views.checks import render_checks
from streamplace.io.bundles import read_bundle
from streamplace.io.junit import junit_xml
from streamplace.io.occupied import occupied_files
from streamplace.io.outputs import Output
from streamplace.io.readers import read_plan_for
from streamplace.model.checks import application_warnings
from streamplace.model.metrics import Metric
from streamplace.model.objective import Objective
from streamplace.model.validation import Check
from streamplace.solve.bundle.checks import bundle_checks
from streamplace.solve.bundle.instance import BundleInstance


def validate_bundle(app_paths: Sequence[str], infra_path: str, plan_path: str,
                    limit_texts: Mapping[Metric, str | None], objective: Objective,
                    target_utilization: float | None, occupied: Sequence[str] | None,
                    junit: str | None, json_: bool, quiet: bool) -> None:
    started = time.perf_counter()
    check_outputs([junit], [*app_paths, infra_path, plan_path, *occupied_files(occupied)],
                  json_)
    apps, infra = read_bundle(app_paths, infra_path, target_utilization, occupied)
    common, own = bundle_limits(limit_texts, apps)
    joint = BundleInstance(tuple(apps), infra, objective, common or None, own)
    plans = {app.name: read_plan_for(plan_path, app, infra) for app in apps}
    checks, verdict = bundle_checks(joint, plans)
    passed = all(c.passed for c in checks)
    warnings = [w for app in apps for w in application_warnings(app)] + [
        f"{name}: {w}" for name, ev in verdict.evaluations.items() for w in ev.warnings]
    outputs = []
    if junit:
        outputs.append(Output(junit, junit_xml(
            checks, f"streamplace validate {Path(plan_path).name}",
            time.perf_counter() - started)))
    heading = f"{', '.join(a.name for a in apps)} on {infra.name}"

    def show(con: Console) -> None:
        con.print(f"[bold]{heading}: validate {plan_path}[/] (each beside the others)")
        render_checks(con, checks)

    emit(Emission(
        document={"command": "validate", "passed": passed, "applications": {
            name: {"metrics": ev.metrics() if ev.complete else None,
                   "violations": [v.to_json() for v in ev.violations]}
            for name, ev in verdict.evaluations.items()},
            "checks": [c.to_json() for c in checks], "warnings": warnings},
        outputs=outputs, show=show, warnings=warnings, code=0 if passed else EXIT_NO,
        verdict=failed_checks(checks)), json_=json_, quiet=quiet)


def failed_checks(checks: list[Check]) -> list[str]:
    """What failed, said even with --quiet: a CI log must show why the job went red."""
    failed = [c for c in checks if not c.passed]
    if not failed:
        return []
    names = ", ".join(f"{c.group}.{c.name}" for c in failed)
    return [f"[bold red]failed:[/] {len(failed)} of {len(checks)} checks ({escape(names)})"]
