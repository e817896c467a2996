"""The seams between layers: imports run one way, modules stay readable, every solver status
has one documented meaning, the catalog and the docs agree."""

from __future__ import annotations

import ast
import re

import networkx as nx
import pytest

from streamplace.cli.commands.listing import methods_markdown, statuses_markdown
from streamplace.cli.synopsis import synopsis_markdown
from streamplace.control.autoscale.options import settings_markdown
from streamplace.model.decision import keys_markdown
from streamplace.solve.mip.outcome import StatusMeaning

from .conftest import ROOT

PACKAGE = ROOT / "streamplace"
LONG_MODULE = "long module:"  # a comment that says why a module is longer than ~300 lines


def _module(path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(typing_too: bool = False) -> nx.DiGraph:
    """Every import between the package's modules, including imports inside functions
    (and, with ``typing_too``, those under ``if TYPE_CHECKING:``)."""
    modules = {_module(p): p for p in PACKAGE.rglob("*.py")}
    graph = nx.DiGraph()
    graph.add_nodes_from(modules)
    for name, path in modules.items():
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree) if typing_too else _run_time_nodes(tree):
            targets = []
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                subs = [f"{node.module}.{a.name}" for a in node.names
                        if f"{node.module}.{a.name}" in modules]
                targets += subs
                if len(subs) < len(node.names):
                    targets.append(node.module)
            elif isinstance(node, ast.Import):
                targets += [a.name for a in node.names]
            targets += [p for t in targets for p in _enclosing(t) if p not in _enclosing(name)]
            graph.add_edges_from((name, t) for t in targets if t in modules and t != name)
    return graph


def _run_time_nodes(tree: ast.AST) -> list[ast.AST]:
    """Every node but those under ``if TYPE_CHECKING:``, which never run."""
    found: list[ast.AST] = []
    todo = [tree]
    while todo:
        node = todo.pop()
        found.append(node)
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING":
            todo.extend(node.orelse)
            continue
        todo.extend(ast.iter_child_nodes(node))
    return found


def _enclosing(module: str) -> list[str]:
    """The packages whose ``__init__`` runs before ``module`` does: importing a.b.c runs a
    and a.b first, so a cycle through a package's ``__init__`` is a cycle too."""
    parts = module.split(".")
    return [".".join(parts[:k]) for k in range(1, len(parts))]


def test_the_import_graph_has_no_circle():
    assert list(nx.simple_cycles(_imports())) == []


def test_no_circle_hides_behind_type_checking():
    """Two modules that need each other's types are one concern split in two."""
    assert list(nx.simple_cycles(_imports(typing_too=True))) == []


def test_layers_import_downwards_only():
    """cli -> sweep/control -> solve/io/draw -> model -> errors: no module imports a layer
    above its own."""
    rank = {"__main__": 5, "cli": 4, "sweep": 3, "control": 3, "solve": 2, "io": 2, "draw": 2,
            "model": 1}

    def layer(module: str) -> int:
        parts = module.split(".")
        return rank.get(parts[1], 0) if len(parts) > 1 else 0

    upward = [(a, b) for a, b in _imports().edges if layer(b) > layer(a)]
    assert upward == []


def test_modules_are_small_enough_to_read_in_one_sitting():
    long = [str(p.relative_to(ROOT)) for p in PACKAGE.rglob("*.py")
            if len(p.read_text().splitlines()) > 310 and LONG_MODULE not in p.read_text()]
    assert long == []


def test_method_modules_never_import_the_registry():
    graph = _imports()
    importers = set(graph.predecessors("streamplace.solve.registry"))
    assert importers <= {"streamplace.solve", "streamplace.cli.options",
                         "streamplace.cli.commands.solve", "streamplace.cli.commands.compare",
                         "streamplace.cli.commands.listing",
                         "streamplace.sweep.rows", "streamplace.sweep.checks",
                         "streamplace.control.autoscale.decide",
                         "streamplace.control.autoscale.pool"}


def test_every_highs_status_has_one_documented_meaning():
    import highspy

    from streamplace.solve.mip.highs.solve import HIGHS_STATUSES

    names = list(highspy.HighsModelStatus.__members__)
    assert sorted(HIGHS_STATUSES) == sorted(names)
    meanings = [(m.with_plan, m.without_plan, m.explanation) for m in HIGHS_STATUSES.values()]
    assert len(set(meanings)) == len(meanings)  # distinct outcomes
    assert HIGHS_STATUSES["kUnboundedOrInfeasible"].without_plan.value != "infeasible"
    for limit in ("kIterationLimit", "kSolutionLimit", "kMemoryLimit", "kInterrupt"):
        assert HIGHS_STATUSES[limit].with_plan.value != "time_limit", limit


def test_every_scip_status_has_one_meaning():
    import pyscipopt  # noqa: F401  (the backend is tested where it is installed: dev has it)

    from streamplace.solve.mip.scip import SCIP_STATUSES

    # every name PySCIPOpt's getStatus() returns (SCIP_STATUS values)
    names = {"unknown", "userinterrupt", "nodelimit", "totalnodelimit", "stallnodelimit",
             "timelimit", "memlimit", "gaplimit", "primallimit", "duallimit", "sollimit",
             "bestsollimit", "restartlimit", "optimal", "infeasible", "unbounded",
             "inforunbd"}
    assert set(SCIP_STATUSES) == names
    assert SCIP_STATUSES["timelimit"].with_plan.value == "time_limit"
    for limit in ("nodelimit", "sollimit", "memlimit", "userinterrupt"):
        assert SCIP_STATUSES[limit].with_plan.value not in ("optimal", "time_limit"), limit


def test_every_cbc_status_has_one_meaning():
    import pulp

    from streamplace.solve.mip.cbc import CBC_STATUSES

    assert sorted(CBC_STATUSES) == sorted(pulp.LpSolution.values())
    assert CBC_STATUSES["Solution Found"].with_plan.value != "optimal"
    assert all(isinstance(m, StatusMeaning) for m in CBC_STATUSES.values())


@pytest.mark.parametrize(("doc", "name", "body"), [
    ("cli.md", "methods", methods_markdown), ("models.md", "statuses", statuses_markdown),
    ("cli.md", "autoscale-options", settings_markdown), ("cli.md", "decision", keys_markdown),
    ("cli.md", "synopsis", synopsis_markdown)])
def test_generated_tables_in_the_docs_are_current(doc, name, body):
    text = (ROOT / "docs" / doc).read_text()
    found = re.search(f"<!-- {name}:start -->\n(.*?)<!-- {name}:end -->", text, re.S)
    assert found is not None and found.group(1) == body(), \
        f"docs/{doc}'s {name} table drifted: run `make golden`"


def test_the_adding_a_method_example_works_as_documented(tmp_path, monkeypatch):
    """docs/cli.md's example module, plus one catalog line, is a method of the CLI."""
    import importlib.util
    import json

    from typer.testing import CliRunner

    from streamplace.cli.app import app
    from streamplace.solve import catalog, registry

    from .conftest import sample

    text = (ROOT / "docs" / "cli.md").read_text()
    section = text.split("## Adding a method", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    (tmp_path / "least_loaded.py").write_text(code)
    spec = importlib.util.spec_from_file_location("least_loaded", tmp_path / "least_loaded.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.setattr(catalog, "CATALOG", (*catalog.CATALOG, *module.METHODS))
    registry.methods.cache_clear()
    try:
        debs = [sample("debs2015", "application.yaml"), sample("debs2015", "infrastructure.yaml")]
        runner = CliRunner()
        result = runner.invoke(app, ["solve", *debs, "--method", "least-loaded",
                                     "--solver-option", "spread=2", "--json", "-q"])
        assert result.exit_code == 0, result.stderr
        doc = json.loads(result.stdout)
        assert doc["status"] == "feasible" and doc["plan"]["model"] == "baseline"
        typo = runner.invoke(app, ["solve", *debs, "--method", "least-loaded",
                                   "--solver-option", "sprad=2"])
        assert typo.exit_code == 2 and "did you mean 'spread'?" in typo.stderr
        listed = runner.invoke(app, ["methods"])
        assert "least-loaded" in listed.stdout and "spread=int" in listed.stdout
    finally:
        registry.methods.cache_clear()


def _loaded(args: list[str]) -> set[str]:
    """The streamplace modules and the heavy libraries one whole command process loads."""
    return _loaded_by(
        "from streamplace.cli.app import main\n"
        f"sys.argv = ['streamplace', *{args!r}]\n"
        "try:\n    main()\nexcept SystemExit as exit_:\n    assert not exit_.code, exit_.code\n")


def _loaded_by(code: str) -> set[str]:
    """The streamplace modules and the heavy libraries a fresh process running ``code``
    has loaded at its end."""
    import subprocess
    import sys

    script = (
        "import sys\n" + code +
        "print(sorted(m for m in sys.modules if m.startswith('streamplace') or m in\n"
        "             ('networkx', 'matplotlib', 'pyspark', 'numpy', 'highspy', 'pydantic',\n"
        "              'statsmodels', 'pandas', 'scipy')))\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          check=False)
    assert done.returncode == 0, done.stderr
    return set(eval(done.stdout.strip().splitlines()[-1]))  # a printed list of names


@pytest.mark.parametrize("args", [["--version"], ["--help"], ["-h"]])
def test_the_version_and_the_help_load_no_command(args):
    """`streamplace --version` and the top-level help list the commands by their summaries:
    no command's module, no model, no solver."""
    loaded = _loaded(args)
    assert loaded <= {"streamplace", "streamplace.cli", "streamplace.cli.app",
                      "streamplace.cli.clock", "streamplace.cli.epilogs"}, sorted(loaded)


def test_the_top_level_help_says_what_each_command_says_first():
    """The summaries the top-level help lists are the first sentence of each command."""
    import re
    from importlib import import_module

    from streamplace.cli.app import COMMANDS, SUMMARIES

    assert set(SUMMARIES) == set(COMMANDS)
    for name, (module, function) in COMMANDS.items():
        doc = getattr(import_module(f"streamplace.cli.commands.{module}"), function).__doc__
        assert re.split(r"(?<=\.)\s", " ".join(doc.split()))[0] == SUMMARIES[name], name


def test_solving_the_sample_loads_only_what_solve_needs(tmp_path):
    """Start-up is part of every CI call: `streamplace solve` on the sample imports neither
    the other commands' modules, the control layer, bundles, nor networkx, matplotlib or
    pyspark."""
    sample = ROOT / "samples" / "debs2015"
    loaded = _loaded(["solve", str(sample / "application.yaml"),
                      str(sample / "infrastructure.yaml"), "-o", str(tmp_path / "plan.yaml"),
                      "-q"])
    assert (tmp_path / "plan.yaml").exists()
    commands = {f"streamplace.cli.commands.{m}" for m, _ in __import__(
        "streamplace.cli.app", fromlist=["COMMANDS"]).COMMANDS.values()} - {
        "streamplace.cli.commands.solve"}
    heavy = {"networkx", "matplotlib", "pyspark", "streamplace.draw", "streamplace.control",
             "streamplace.sweep", "streamplace.cli.bundle", "streamplace.solve.bundle",
             "streamplace.io.http", "statsmodels", "pandas", "scipy", *commands}
    assert sorted(loaded & heavy) == []


def test_views_draw_and_commands_command():
    """Command modules sit in streamplace.cli.commands, one per command (and nothing else
    there); the machinery they share beside them in streamplace.cli, and views (Rich tables
    and summaries) under streamplace.cli.views: neither imports a command."""
    from streamplace.cli.app import COMMANDS

    commands = {f"streamplace.cli.commands.{module}" for module, _ in COMMANDS.values()}
    graph = _imports()
    present = {n for n in graph if n.startswith("streamplace.cli.commands.")}
    assert present == commands
    for module in (n for n in graph if n.startswith("streamplace.cli.")
                   and n not in commands):
        assert not set(graph.successors(module)) & commands, module
    assert "streamplace.cli.commands.render" in commands  # the render command, not a view


# where a metric's name may be written as a string: its own module, table headings (what
# people read) and the fields of other records that happen to share a name
METRIC_NAME_ALLOWED = {
    ("streamplace/model/generate.py", "cost"),  # a processor class's price, a file field
    ("streamplace/model/evaluate/scorer.py", "traffic"),  # StreamLoad's field
    ("streamplace/cli/views/evaluation.py", "cost"),  # column headings
    ("streamplace/cli/views/evaluation.py", "traffic"),
    ("streamplace/cli/views/explain.py", "cost"),
}


def test_metric_names_are_written_in_one_module():
    """Every other module names a metric through Metric (or Term): a new metric, or a
    renamed one, changes one file."""
    from streamplace.model.metrics import Metric, Term

    names = {m.value for m in Metric} | {t.value for t in Term}
    found = set()
    for path in PACKAGE.rglob("*.py"):
        where = str(path.relative_to(ROOT))
        if where == "streamplace/model/metrics.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Constant) and node.value in names:
                found.add((where, node.value))
    assert found - METRIC_NAME_ALLOWED == set()


def test_model_families_are_the_packages_of_solve():
    """`streamplace methods` and the folders agree: each method is defined in the package of
    its model family, each family has one, and no solve module is named with a family
    prefix (the folder says it)."""
    from streamplace.solve import methods

    solve = PACKAGE / "solve"
    for method in methods():
        assert method.run.__module__.startswith(f"streamplace.solve.{method.model}."), \
            (method.name, method.model, method.run.__module__)
    families = {m.model for m in methods()}
    assert all((solve / family / "__init__.py").exists() for family in families)
    prefixed = [str(p.relative_to(ROOT)) for p in solve.rglob("*.py")
                if any(p.stem.startswith(f"{f}_") or p.stem.startswith("tree_")
                       for f in families)]
    assert prefixed == []


def test_only_the_backend_seam_imports_a_solver():
    """highspy, pulp and pyscipopt are imported in solve/mip/ alone."""
    solvers = {"highspy", "pulp", "pyscipopt"}
    found = []
    for path in PACKAGE.rglob("*.py"):
        if path.is_relative_to(PACKAGE / "solve" / "mip"):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            found += [(str(path.relative_to(ROOT)), n) for n in names
                      if n.split(".")[0] in solvers]
    assert found == []


def _calls(path) -> set[str]:
    """The names a module calls (``f()`` and ``x.f()``)."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Call):
            func = node.func
            out.add(func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", ""))
    return out


def test_commands_neither_wait_nor_poll_nor_speak_http():
    """cli/ parses, calls and renders: sleeping, polling and HTTP live in control/."""
    found = []
    for path in (PACKAGE / "cli").rglob("*.py"):
        text = path.read_text()
        bad = {"sleep", "get_json", "put_json", "fetch_snapshot", "fetch_window",
               "wait_for"} & _calls(path)
        bad |= {m for m in ("urllib", "http.client", "streamplace.io.http import get",
                            "streamplace.io.http import put") if m in text}
        found += [(str(path.relative_to(ROOT)), b) for b in sorted(bad)]
    assert found == []


def test_only_the_control_layer_sends_a_change():
    """io/ turns bytes into models: a PUT to a running job is issued from control/ alone."""
    senders = [str(p.relative_to(ROOT)) for p in PACKAGE.rglob("*.py")
               if "put_json" in _calls(p)]
    assert senders and all(s.startswith("streamplace/control/") for s in senders), senders


ENGINES = ("flink", "storm", "heron", "spark", "kubernetes")


def test_no_module_is_named_with_an_engine_as_prefix():
    """A folder says what its modules are about: control/flink/observe.py, never
    io/engines/flink_observe.py."""
    prefixed = [str(p.relative_to(ROOT)) for p in PACKAGE.rglob("*.py")
                if any(p.stem.startswith(f"{engine}_") for engine in ENGINES)]
    assert prefixed == []


def test_tests_mirror_the_package_and_no_test_module_imports_another():
    """tests/solve/ tests solve/, tests/control/ control/, ...; what several test modules
    share lives in conftest.py or tests/support/, never in a test module."""
    tests = ROOT / "tests"
    folders = {p.name for p in tests.iterdir() if p.is_dir() and not p.name.startswith((
        "_", "."))}
    packages = {p.name for p in PACKAGE.iterdir() if p.is_dir() and any(p.glob("*.py"))}
    assert folders - {"support", "e2e"} <= packages, folders - packages
    importers = []
    for path in tests.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and \
                    node.module.split(".")[-1].startswith("test_"):
                importers.append((str(path.relative_to(ROOT)), node.module))
    assert importers == []


def test_every_path_the_code_map_names_exists():
    """docs/architecture.md names modules and folders in backquotes: each is found from the
    repository, the package, or solve/ (its backend section names mip/... as solve/ does)."""
    text = (ROOT / "docs" / "architecture.md").read_text()
    named = set(re.findall(r"`([\w./]+(?:\.py|/))`", text)) - {"methods.py"}  # one per family
    assert len(named) > 40
    bases = (ROOT, PACKAGE, PACKAGE / "solve")
    missing = sorted(n for n in named if not any((b / n).exists() for b in bases))
    assert missing == []


def test_an_autoscale_option_that_flink_has_takes_its_name():
    """One name means one thing: where the Flink autoscaler has the option, the flag is its
    key (job.autoscaler.scale-down.interval is --scale-down-interval), and no autoscale flag
    takes a name another command gives another meaning: the utilisation target is
    --utilization-target wherever it is taken (the older --target-utilization read too)."""
    from streamplace.cli.args import TargetUtilizationOpt
    from streamplace.control.autoscale.settings import SETTINGS

    for s in SETTINGS.values():
        if s.flink is not None:
            assert s.flag == "--" + s.flink.replace(".", "-"), (s.flag, s.flink)
    assert "--time-limit" not in {s.flag for s in SETTINGS.values()}
    declared = TargetUtilizationOpt.__metadata__[0]  # Typer reads a first "--x" as a name
    solve_names = (declared.default, *declared.param_decls)
    assert (SETTINGS["utilization_target"].flag, *SETTINGS["utilization_target"].aliases) == \
        solve_names


def test_the_control_layer_reads_the_time_only_through_its_clock():
    """Every wait and every reading of the time in control/ goes through the clock it is
    given (control/clock.py): a loop tested in-process runs its windows in no time."""
    found = []
    for path in (PACKAGE / "control").rglob("*.py"):
        if path == PACKAGE / "control" / "clock.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            found += [(str(path.relative_to(ROOT)), n) for n in names if n == "time"]
    assert found == []


def test_the_autoscaler_reaches_an_engine_only_through_the_engine_protocol():
    """control/autoscale/ and control/running/ know no engine: what they need from a running
    system is control/engine.py's Engine (control/flink/ implements it; a test's engine runs
    a job in memory)."""
    graph = _imports()
    neutral = [n for n in graph if n.startswith(("streamplace.control.autoscale",
                                                 "streamplace.control.running"))
               or n in ("streamplace.control.engine", "streamplace.control.clock")]
    reached = sorted((n, m) for n in neutral for m in graph.successors(n)
                     if m.startswith("streamplace.control.flink"))
    assert reached == []


def test_the_forecasting_libraries_load_only_when_a_loop_plans_ahead():
    """statsmodels (and the pandas and scipy it brings) are loaded by the forecast and the
    capacity fit alone: autoscale's own modules, reactive, load none of them."""
    loaded = _loaded_by(
        "import streamplace.control.autoscale.loop, streamplace.control.autoscale.cluster\n"
        "import streamplace.cli.commands.autoscale, streamplace.cli.commands.report\n")
    assert loaded & {"statsmodels", "pandas", "scipy"} == set()
