"""Bad input: every problem at once, as file:line: field.path: problem — fix; never a crash."""

from __future__ import annotations

from pathlib import Path

import pytest

from streamplace.errors import InputError
from streamplace.io.loader import parse
from streamplace.io.readers import read_application, read_infrastructure, read_instance

from ..conftest import sample


def _problems(path: Path, reader=read_application) -> list[str]:
    with pytest.raises(InputError) as info:
        reader(str(path))
    return [p.render() for p in info.value.problems]


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_yaml_syntax_error_has_a_line(tmp_path):
    [msg] = _problems(write(tmp_path, "a.yaml", "name: x\noperators:\n  - id: [a\n"))
    assert msg.startswith(f"{tmp_path / 'a.yaml'}:4: invalid YAML")


def test_json_syntax_error_has_a_line(tmp_path):
    [msg] = _problems(write(tmp_path, "a.json", '{\n  "name": "x",\n  "operators": [,]\n}'))
    assert ":3: invalid JSON" in msg


def test_unknown_key_suggests_the_right_one(tmp_path):
    path = write(tmp_path, "a.yaml", "name: x\noperators:\n  - id: a\n    servce_rate: 3\n")
    [msg] = _problems(path)
    assert msg == (f"{path}:4: operators[0].servce_rate: unknown key 'servce_rate' — "
                   "did you mean 'service_rate'?")


def test_every_problem_is_reported_at_once(tmp_path):
    path = write(tmp_path, "a.yaml", """\
name: x
operators:
  - id: a
    service_rate: -3
    max_replicas: 0
  - id: b
    latency: 20 MB
    cost: .nan
streams:
  - {from: a, to: b, rate: "fast"}
""")
    msgs = _problems(path)
    assert len(msgs) == 5
    assert any(":4: operators[0].service_rate: must be greater than 0" in m for m in msgs)
    assert any(":5: operators[0].max_replicas: must be at least 1" in m for m in msgs)
    assert any(":7: operators[1].latency: unknown unit 'MB' for a time" in m for m in msgs)
    assert any(":8: operators[1].cost: NaN" in m for m in msgs)
    assert any(":10: streams[0].rate: 'fast' is not a rate" in m for m in msgs)


def test_dangling_references_and_duplicates(tmp_path):
    path = write(tmp_path, "a.yaml", """\
name: x
operators:
  - {id: a, objects: [o9]}
  - {id: a}
streams:
  - {from: a, to: ghost, rate: 1}
""")
    msgs = _problems(path)
    assert any(":4: operators[1].id: duplicate operator id 'a'" in m for m in msgs)
    assert any(":3: operators[0].objects[0]: unknown object 'o9'" in m for m in msgs)
    assert any(":6: streams[0].to: unknown operator 'ghost'" in m for m in msgs)


def test_candidates_must_name_processors(tmp_path):
    app = write(tmp_path, "a.yaml", "name: x\noperators:\n  - {id: a, candidates: [n1, s, zz]}\n")
    infra = write(tmp_path, "i.yaml",
                  "name: i\nnodes:\n  - {id: n1}\n  - {id: s, role: server}\n")
    with pytest.raises(InputError) as info:
        read_instance(str(app), str(infra))
    msgs = [p.render() for p in info.value.problems]
    assert any("candidates[1]: node 's' is a server, not a processor" in m for m in msgs)
    assert any("candidates[2]: unknown node 'zz'" in m for m in msgs)


def test_resource_names_must_match_between_files(tmp_path):
    app = write(tmp_path, "a.yaml", "name: x\noperators:\n  - {id: a, resources: 1}\n")
    infra = write(tmp_path, "i.yaml", "name: i\nnodes:\n  - {id: n1, resources: {cpu: 4}}\n")
    with pytest.raises(InputError, match="resource a plain number is not declared by any node"):
        read_instance(str(app), str(infra))


def test_infrastructure_link_problems(tmp_path):
    path = write(tmp_path, "i.yaml", """\
name: i
nodes: [{id: a}, {id: b}]
links:
  - {from: a, to: b, delay: -1 ms}
  - {from: b, to: a}
  - {from: a, to: c}
""")
    msgs = _problems(path, read_infrastructure)
    assert any(":4: links[0].delay: must be at least 0" in m for m in msgs)
    path = write(tmp_path, "j.yaml", "name: i\nnodes: [{id: a}, {id: b}]\nlinks:\n"
                 "  - {from: a, to: b}\n  - {from: b, to: a}\n  - {from: a, to: c}\n")
    msgs = _problems(path, read_infrastructure)
    assert any(":5: links[1]: link b -> a is also given by links[0]" in m for m in msgs)
    assert any(":6: links[2].to: unknown node 'c'" in m for m in msgs)


def test_alias_bomb_is_rejected(tmp_path):
    lines = ['a: &a ["x","x","x","x","x","x","x","x","x"]']
    for i in range(1, 10):
        prev, cur = chr(96 + i), chr(97 + i)
        lines.append(f"{cur}: &{cur} [" + ",".join([f"*{prev}"] * 9) + "]")
    with pytest.raises(InputError, match="alias bomb"):
        parse("\n".join(lines), "bomb.yaml")


def test_absurd_size_is_rejected_before_parsing(tmp_path, monkeypatch):
    import streamplace.io.loader as loader

    monkeypatch.setattr(loader, "MAX_BYTES", 1000)
    path = write(tmp_path, "big.yaml", "name: x\n" + "#" * 2000)
    with pytest.raises(InputError, match="over the 1,000-byte limit"):
        read_application(str(path))


def test_unsafe_yaml_tags_are_refused():
    with pytest.raises(InputError, match="remove the tag"):
        parse("x: !!python/object/apply:os.system [echo]\n", "evil.yaml")


def test_duplicate_keys_are_errors():
    with pytest.raises(InputError, match="duplicate key 'name'"):
        parse("name: a\nname: b\n", "d.yaml")
    with pytest.raises(InputError, match="duplicate key 'name'"):
        parse('{"name": "a", "name": "b"}', "d.json")


def test_top_level_must_be_a_mapping(tmp_path):
    [msg] = _problems(write(tmp_path, "a.yaml", "- 1\n- 2\n"))
    assert "the top level is a list, not a mapping" in msg


def test_json_input_gets_line_numbers(tmp_path):
    path = write(tmp_path, "a.json", '{\n  "name": "x",\n  "operators": [\n'
                 '    {"id": "a", "colour": 1}\n  ]\n}\n')
    [msg] = _problems(path)
    assert msg.startswith(f"{path}:4: operators[0].colour: unknown key")


def test_yaml_12_floats_and_units_are_read(tmp_path):
    path = write(tmp_path, "a.yaml", "name: x\noperators:\n"
                 "  - {id: a, work: 1.2e9, service_rate: 1e3, output_size: 2 MiB}\n")
    op = read_application(str(path)).operators[0]
    assert (op.work, op.service_rate, op.output_size) == (1.2e9, 1000.0, 2 * 2**20)


def test_samples_read_cleanly():
    """Every bundled sample reads without a problem, whole: each file's operators, streams
    and nodes as many as the file lists."""
    import yaml

    for name in ("debs2015", "benoit-tree", "edge-cloud", "video-chain"):
        app_path, infra_path = sample(name, "application.yaml"), sample(name, "infrastructure.yaml")
        app, infra = read_instance(app_path, infra_path)
        with open(app_path) as app_file, open(infra_path) as infra_file:
            app_doc, infra_doc = yaml.safe_load(app_file), yaml.safe_load(infra_file)
        assert [op.id for op in app.operators] == [op["id"] for op in app_doc["operators"]]
        assert len(app.streams) == len(app_doc.get("streams", []))
        assert [node.id for node in infra.nodes] == [n["id"] for n in infra_doc["nodes"]]


def test_a_device_as_input_is_refused_at_the_limit(monkeypatch):
    """/dev/zero has no size to check: the read itself is bounded (it was read until memory
    ran out)."""
    from streamplace.io import loader

    from ..conftest import run

    monkeypatch.setattr(loader, "MAX_BYTES", 2**20)
    done = run("validate", "/dev/zero", sample("debs2015", "infrastructure.yaml"),
               sample("debs2015", "plan.yaml"))
    assert done.exit_code == 2, done.stderr
    assert "/dev/zero" in done.stderr and "limit" in done.stderr


def test_a_loop_of_links_is_bad_input_everywhere(tmp_path):
    from ..conftest import run

    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    loop = str(tmp_path / "a")
    validated = run("validate", loop, sample("debs2015", "infrastructure.yaml"),
                    sample("debs2015", "plan.yaml"))
    assert validated.exit_code == 2 and "symbolic links" in validated.stderr, validated.stderr
    extracted = run("extract", loop, "--engine", "python")
    assert extracted.exit_code == 2 and "loop of links" in extracted.stderr, extracted.stderr
