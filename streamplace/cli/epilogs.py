"""What ``--help`` ends with, per command: an example to start from and the exit codes
(docs/cli.md has the whole story)."""

from __future__ import annotations

_S = "samples/debs2015"
_FILES = f"{_S}/application.yaml {_S}/infrastructure.yaml"
EXAMPLES = {
    "solve": f"streamplace solve {_FILES} --time-limit 60 -o plan.yaml",
    "compare": f"streamplace compare {_FILES} --methods odrp,hill-climbing --time-limit 10",
    "evaluate": f"streamplace evaluate {_FILES} {_S}/plan.yaml --json",
    "validate": f"streamplace validate {_FILES} {_S}/plan.yaml --max-response-time '150 ms' "
                "--junit-xml reports/placement.xml",
    "explain": f"streamplace explain {_FILES} {_S}/plan.yaml --time-limit 30",
    "diff": f"streamplace diff {_FILES} {_S}/plan.yaml plan.yaml --fail-on-change",
    "export": f"streamplace export {_FILES} {_S}/plan.yaml --to flink "
              f"--flink-job {_S}/flink-job.json",
    "sweep": "streamplace sweep sweep.yaml -o results",
    "render": f"streamplace render {_FILES} {_S}/plan.yaml -o plan.svg",
    "report": f"streamplace report {_FILES} {_S}/plan.yaml -o report.html",
    "extract": "streamplace extract samples/eventlog -o app.yaml --infrastructure-out "
               "infra.yaml --nodes 2 --cores 4",
    "observe": "streamplace observe samples/flink/paced-snapshot.json -o app.yaml "
               "--infrastructure-out infra.yaml --plan-out current.yaml",
    "apply": "streamplace apply app.yaml infra.yaml plan.yaml "
             "http://localhost:8081/jobs/JOBID --dry-run",
    "autoscale": "streamplace autoscale http://localhost:8081/jobs/JOBID --yes "
                 "--metrics-window 30 --max-steps 5",
    "schema": "streamplace schema plan > plan.schema.json",
    "methods": "streamplace methods --json",
}
_ANSWERS = {  # a command's own codes besides 0, 2 and the signals
    "solve": "1 proven infeasible, 3 no plan (error, or no plan by the limit)",
    "compare": "3 no method found a plan",
    "validate": "1 a check failed",
    "diff": "1 the plans differ (with --fail-on-change)",
    "export": "1 refused (with --strict: the plan violates a constraint)",
    "explain": "",
    "sweep": "",
    "observe": "1 the job breaks a promise of the plan (with --against), 3 Flink reports "
               "no rates for the job yet, or it restarted during --window",
    "apply": "1 the plan breaks a constraint, 3 the job did not get to run the plan (too "
             "few slots, it failed, or --wait passed)",
    "autoscale": "3 a rescale did not take effect",
}


def epilog(command: str) -> str:
    """The example and the exit codes; ``\\b`` keeps each paragraph's lines as written."""
    codes = ", ".join(part for part in ("0 done", _ANSWERS.get(command, ""),
                                        "2 bad input (file:line: field: problem — fix)",
                                        "130/143 interrupted") if part)
    return f"\b\nExample:\n  {EXAMPLES[command]}\n\n\b\nExit codes: {codes}."
