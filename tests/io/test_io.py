"""Writers (atomic, round-trip), units and the exported schemas."""

from __future__ import annotations

import json
import os
import stat

import jsonschema
import pytest
import yaml

from streamplace.io.outputs import Output, write_output, write_outputs
from streamplace.io.readers import read_instance, read_plan_for
from streamplace.io.schema import KINDS, json_schema
from streamplace.io.writers import dumps, plan_document
from streamplace.model.evaluate import evaluate
from streamplace.model.units import UnitError, parse_quantity

from ..conftest import sample


@pytest.mark.parametrize(("text", "dimension", "value"), [
    ("12 ms", "time", 0.012), ("1 min", "time", 60), ("20 MB", "bytes", 2e7),
    ("8 Mb", "bytes", 1e6), ("2 KiB", "bytes", 2048), ("1 Gbps", "bandwidth", 1.25e8),
    ("10 GB/s", "bandwidth", 1e10), ("80 tps", "rate", 80), ("0.5 /s", "rate", 0.5),
    ("30 /min", "rate", 0.5), ("1.5 GHz", "speed", 1.5e9), ("1.2 Gops", "ops", 1.2e9),
    (".inf", "bandwidth", float("inf")), (7, "plain", 7.0)])
def test_units(text, dimension, value):
    assert parse_quantity(text, dimension) == pytest.approx(value)


@pytest.mark.parametrize(("text", "dimension"), [
    ("20 MB", "time"), ("nan", "time"), ("3 ms", "plain"), (True, "plain"), ([1], "time")])
def test_bad_units(text, dimension):
    with pytest.raises(UnitError):
        parse_quantity(text, dimension)


def test_atomic_write_replaces_whole_file_and_keeps_mode(tmp_path):
    target = tmp_path / "plan.yaml"
    target.write_text("old")
    os.chmod(target, 0o640)
    write_output(str(target), "new contents")
    assert target.read_text() == "new contents"
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert [p.name for p in tmp_path.iterdir()] == ["plan.yaml"]  # no temporary left over


def test_failed_write_leaves_the_old_file(tmp_path):
    target = tmp_path / "plan.yaml"
    target.write_text("old")

    with pytest.raises(TypeError):
        write_outputs([Output(str(target), 12345)])  # type: ignore[arg-type]
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["plan.yaml"]


@pytest.mark.parametrize("fmt", ["yaml", "json"])
def test_plan_round_trip(tmp_path, fmt):
    app, infra = read_instance(sample("benoit-tree", "application.yaml"),
                               sample("benoit-tree", "infrastructure.yaml"))
    plan = read_plan_for(sample("benoit-tree", "plan.yaml"), app, infra)
    ev = evaluate(app, infra, plan)
    out = tmp_path / f"plan.{fmt}"
    write_output(str(out), dumps(plan_document(plan, ev), fmt))
    again = read_plan_for(str(out), app, infra)
    assert again.placement == plan.placement
    assert again.downloads == plan.downloads and again.purchased == plan.purchased
    assert again.metrics["benoit_cost"] == 16646
    assert evaluate(app, infra, again).metrics() == pytest.approx(ev.metrics())


def test_infinities_are_valid_json():
    text = dumps({"r": float("inf")}, "json")
    assert json.loads(text) == {"r": "inf"}


def test_yaml_plan_uses_flow_style_placements():
    text = dumps({"placement": {"parser": {"n1": 2, "n3": 1}}}, "yaml")
    assert "parser: {n1: 2, n3: 1}" in text


@pytest.mark.parametrize("name", ["debs2015", "benoit-tree", "edge-cloud"])
def test_samples_validate_against_the_exported_schemas(name):
    for kind, file in (("application", "application.yaml"),
                       ("infrastructure", "infrastructure.yaml"), ("plan", "plan.yaml")):
        with open(sample(name, file)) as handle:
            data = yaml.safe_load(handle)
        jsonschema.validate(data, json_schema(kind))
    if name == "debs2015":
        with open(sample(name, "objective-balanced.yaml")) as handle:
            jsonschema.validate(yaml.safe_load(handle), json_schema("objective"))
    if name == "benoit-tree":  # the Dell R900 catalog, in a file of its own
        with open(sample(name, "catalog.yaml")) as handle:
            jsonschema.validate(yaml.safe_load(handle), json_schema("catalog"))


def test_schemas_are_valid_json_schema():
    for kind in KINDS:
        jsonschema.Draft202012Validator.check_schema(json_schema(kind))
