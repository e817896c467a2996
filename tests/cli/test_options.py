"""Options that mean the same thing mean it on every command that can take them: each
command that reads an application takes --target-utilization, each objective comes with
its weights and network metric, each --current with --ignore-names, each set of limits with
every metric's flag, and one --engine choice."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer
import yaml
from typer.testing import CliRunner

from streamplace.cli.app import COMMANDS, build_app
from streamplace.model.metrics import Metric

from ..conftest import sample

APP = build_app()
COMMAND = typer.main.get_command(APP)
DEBS = [sample("debs2015", "application.yaml"), sample("debs2015", "infrastructure.yaml")]
PLAN = sample("debs2015", "plan.yaml")
runner = CliRunner()


def flags(name: str) -> set[str]:
    command = COMMAND.commands[name]  # type: ignore[attr-defined]
    return {opt for p in command.params for opt in p.opts}


def arguments(name: str) -> set[str]:
    command = COMMAND.commands[name]  # type: ignore[attr-defined]
    return {p.name for p in command.params if p.param_type_name == "argument"}


READS_AN_APPLICATION = sorted(n for n in COMMANDS if {"application", "files"} & arguments(n))


def test_the_commands_that_read_an_application_are_the_ones_expected():
    assert READS_AN_APPLICATION == ["apply", "compare", "diff", "evaluate", "explain", "export",
                                    "render", "report", "solve", "validate"]


@pytest.mark.parametrize("name", [*READS_AN_APPLICATION, "sweep"])
def test_every_command_that_reads_an_application_takes_the_target_utilization(name):
    """By the Flink autoscaler's name, as autoscale takes it; the older spelling still
    read, so that scripts keep working."""
    assert {"--utilization-target", "--target-utilization"} <= set(flags(name))


@pytest.mark.parametrize("name", [n for n in COMMANDS if "--objective" in flags(n)])
def test_every_objective_comes_with_weights_and_a_network_metric(name):
    assert {"--weights", "--network-metric"} <= flags(name)


@pytest.mark.parametrize("name", [n for n in COMMANDS if "--current" in flags(n)])
def test_every_current_plan_comes_with_ignore_names(name):
    assert "--ignore-names" in flags(name)


def test_the_commands_that_score_a_plan_take_the_plan_that_runs_now():
    scoring = {"solve", "compare", "evaluate", "validate", "explain"}
    assert {n for n in COMMANDS if "--current" in flags(n)} == scoring


@pytest.mark.parametrize("name", ["solve", "validate"])
def test_limits_are_taken_for_every_metric(name):
    assert {m.flag for m in Metric} <= flags(name)


def test_one_engine_choice_for_extract_and_sweep():
    def choices(name: str) -> list[str]:
        command = COMMAND.commands[name]  # type: ignore[attr-defined]
        engine = next(p for p in command.params if "--engine" in p.opts)
        return [e.value for e in engine.type_descriptor.annotation]

    assert choices("extract") == choices("sweep") == ["spark", "python"]
    refused = run("sweep", sample("debs2015", "plan.yaml"), "--engine", "flink")
    assert refused.exit_code == 2 and "spark" in refused.stderr


# the options at work -----------------------------------------------------------------

def run(*args: str):
    return runner.invoke(APP, list(args))


@pytest.mark.parametrize("command", [["render", "-o", "{tmp}/p.dot"],
                                     ["report", "-o", "{tmp}/r.html"],
                                     ["export", "--to", "kubernetes", "-o", "{tmp}/k.yaml"]])
def test_render_report_and_export_see_a_plan_break_a_tight_target(tmp_path, command):
    """At rho = 0.05 the sample plan's replicas run above the target: each command says so,
    where at the default it does not."""
    args = [a.format(tmp=tmp_path) for a in command]
    written = {"render": "p.dot", "report": "r.html"}.get(args[0])

    def said(*extra: str) -> str:
        result = run(args[0], *DEBS, PLAN, *args[1:], *extra)
        assert result.exit_code == 0, result.stderr
        return (tmp_path / written).read_text() if written else result.stderr

    plain, tight = said(), said("--target-utilization", "0.05")
    assert "stability" not in plain and "violates" not in plain
    assert "stability" in tight or "violates" in tight


def test_explain_with_the_plan_that_runs_now_scores_the_reconfiguration_term(tmp_path):
    moved = yaml.safe_load(Path(PLAN).read_text())
    moved["placement"]["partialRank"] = {"n2": 2}
    other = tmp_path / "other.yaml"
    other.write_text(yaml.safe_dump(moved))
    alone = json.loads(run("explain", *DEBS, PLAN, "--json").stdout)
    replanned = run("explain", *DEBS, PLAN, "--current", str(other), "--json")
    assert replanned.exit_code == 0, replanned.stderr
    doc = json.loads(replanned.stdout)
    terms = {t["term"] for t in doc["utility"]["terms"]}
    assert "reconfiguration" in terms
    assert "reconfiguration" not in {t["term"] for t in alone["utility"]["terms"]}


@pytest.mark.parametrize("name", READS_AN_APPLICATION)
def test_a_bad_flag_fails_before_any_file_is_read(name, tmp_path):
    """The opening checks the flags' values first: the missing files are not what is said."""
    extra = {"diff": ["cur.yaml", "new.yaml"], "report": ["p.yaml", "-o", "r.html"],
             "render": ["p.yaml", "-o", "p.svg"], "export": ["p.yaml", "--to", "spark"],
             "compare": [], "solve": [],
             "apply": ["p.yaml", "http://127.0.0.1:9/jobs/" + "0" * 32]}.get(name, ["p.yaml"])
    result = run(name, str(tmp_path / "app.yaml"), str(tmp_path / "infra.yaml"), *extra,
                 "--target-utilization", "1.5")
    assert result.exit_code == 2
    assert "--utilization-target" in result.stderr, result.stderr
