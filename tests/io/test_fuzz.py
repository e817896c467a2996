"""Hostile input, generated: documents and option values no one would write on purpose
give exit 0, 1 or 2 (never 3, a crash or a hang), and no traceback (docs/cli.md, "Exit
codes"). Each property runs a bounded number of examples, so the battery's time is the
same on every run."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ..conftest import run, sample

SETTINGS = settings(max_examples=int(os.environ.get("FUZZ_EXAMPLES", "100")), deadline=None,
                    derandomize="FUZZ_EXAMPLES" not in os.environ,
                    suppress_health_check=[HealthCheck.too_slow,
                                           HealthCheck.function_scoped_fixture])
ANSWERS = {0, 1, 2}
KINDS = {"application": "application.yaml", "infrastructure": "infrastructure.yaml",
         "plan": "plan.yaml"}

scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-(10**30), 10**30),
    st.sampled_from([10**400, -(10**400)]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12), st.sampled_from(["", "1e999", "-0", "NaN", "0x10", "1_000", "∞",
                                           "'", "${HOME}", "&a", "*a", "!!python/none"]))
values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)),
    max_leaves=12)


def _base(name: str, kind: str) -> Any:
    return yaml.safe_load(Path(sample(name, KINDS[kind])).read_text())


def _paths(doc: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(doc, dict):
        for key, value in doc.items():
            out += _paths(value, (*prefix, key))
    elif isinstance(doc, list):
        for index, value in enumerate(doc):
            out += _paths(value, (*prefix, index))
    return out


def _replace(doc: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    head, rest = path[0], path[1:]
    copy = list(doc) if isinstance(doc, list) else dict(doc)
    copy[head] = _replace(doc[head], rest, value)
    return copy


@st.composite
def damaged(draw: Any) -> tuple[str, str, str]:
    """A sample, one of its documents with one value (anywhere, the whole document too)
    replaced by a hostile one, written as YAML or JSON."""
    name = draw(st.sampled_from(["video-chain", "edge-cloud", "debs2015"]))
    kind = draw(st.sampled_from(sorted(KINDS)))
    doc = _base(name, kind)
    path = draw(st.sampled_from(_paths(doc)))
    changed = _replace(doc, path, draw(values))
    if draw(st.booleans()):
        text = json.dumps(changed, allow_nan=True, default=str)
    else:
        text = yaml.safe_dump(changed, allow_unicode=True)
    return name, kind, text


def _answered(result: Any) -> None:
    assert result.exit_code in ANSWERS, result.output
    assert "Traceback" not in result.output and "internal error" not in result.output


@SETTINGS
@given(case=damaged(), command=st.sampled_from(["validate", "evaluate", "explain"]))
def test_damaged_documents_get_an_answer(case: tuple[str, str, str], command: str) -> None:
    name, kind, text = case
    with tempfile.TemporaryDirectory() as folder:
        files = {k: sample(name, f) for k, f in KINDS.items()}
        files[kind] = str(Path(folder) / f"damaged-{KINDS[kind]}")
        Path(files[kind]).write_text(text)
        args = [files["application"], files["infrastructure"], files["plan"]]
        extra = ["--time-limit", "30"] if command == "explain" else []
        _answered(run(command, *args, *extra, "--json"))


option_text = st.one_of(st.text(max_size=10), st.sampled_from(
    ["0", "-1", "nan", "inf", "-inf", "1e309", "1e-320", "99999999999999999999", "0x1f",
     " 1", "1,2", "r=1,c=nan", "r=-1", "r=1,r=2", "x=1", "=", ",", "r=1e999"]))


@SETTINGS
@given(option=st.sampled_from(["--time-limit", "--gap", "--threads", "--seed", "--weights",
                               "--network-metric", "--target-utilization", "-m",
                               "--solver-option"]),
       value=option_text)
def test_hostile_option_values_get_an_answer(option: str, value: str) -> None:
    files = [sample("video-chain", "application.yaml"),
             sample("video-chain", "infrastructure.yaml")]
    limit = [] if option == "--time-limit" else ["--time-limit", "30"]
    with tempfile.TemporaryDirectory() as folder:
        _answered(run("solve", *files, option, value, *limit, "-o",
                      str(Path(folder) / "plan.yaml"), "--json"))


@SETTINGS
@given(text=st.text(max_size=200))
def test_any_text_as_a_document_gets_an_answer(text: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        app = Path(folder) / "app.yaml"
        app.write_text(text)
        _answered(run("validate", str(app), sample("video-chain", "infrastructure.yaml"),
                      sample("video-chain", "plan.yaml")))


SNAPSHOT = json.loads(Path(sample("flink", "paced-snapshot.json")).read_text())


@SETTINGS
@given(data=st.data())
def test_damaged_flink_snapshots_get_an_answer(data: Any) -> None:
    """One value of a saved Flink job (anywhere) replaced: an application, bad input, or
    no answer when the rates are gone (exit 3, said plainly), never a crash."""
    path = data.draw(st.sampled_from(_paths(SNAPSHOT)))
    changed = _replace(SNAPSHOT, path, data.draw(values))
    with tempfile.TemporaryDirectory() as folder:
        snapshot = Path(folder) / "snapshot.json"
        snapshot.write_text(json.dumps(changed, allow_nan=True, default=str))
        result = run("observe", str(snapshot), "--json", "-q")
    assert result.exit_code in {0, 2, 3}, result.output
    assert "Traceback" not in result.output and "internal error" not in result.output
