from __future__ import annotations

import itertools
import signal
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest

from streamplace.errors import InputError
from streamplace.io.readers import build_document
from streamplace.model.application import Application, Operator
from streamplace.model.checks import check_application, check_infrastructure, check_plan
from streamplace.model.evaluate import Evaluation, evaluate
from streamplace.model.infrastructure import Infrastructure
from streamplace.model.plan import Plan
from streamplace.model.source import SourceMap


@pytest.fixture(scope="session", autouse=True)
def _sigint_as_in_a_terminal() -> Iterator[None]:
    """The commands the tests start get SIGINT as a terminal's foreground job does, however
    the suite itself was started: run in the background of a non-interactive shell (``make
    test &``), the suite inherits SIGINT ignored and would hand that on to every command,
    which by design keeps running through it (test_reliability.py tests that). A handled
    signal is reset to its default in a child, so handling it here is enough."""
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    yield

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"
SPARK_FIXTURES = {"spark", "spark_logs"}
SPARK_MODULES = {"test_extract.py", "test_sweep.py", "test_readme.py"}  # most of each runs Spark


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark what starts Spark, so that ``make test-fast`` (``-m "not e2e and not spark"``)
    leaves it out: tests that take a Spark fixture, and the modules whose commands run on
    Spark. First among the hooks: pytest-xdist reads the group mark in its own."""
    for item in items:
        shares = bool(SPARK_FIXTURES & set(getattr(item, "fixturenames", ())))
        if shares or item.path.name in SPARK_MODULES:
            item.add_marker(pytest.mark.spark)
        if shares:
            # under pytest-xdist (--dist loadgroup), one worker runs every test that takes
            # the session or the event logs: they are made once, not per worker. A command
            # that starts Spark itself runs on any worker.
            item.add_marker(pytest.mark.xdist_group("spark"))


UNGROUPED = pytest.StashKey[bool]()


@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session: pytest.Session) -> None:
    """Under ``--dist loadgroup``, pytest-xdist names a grouped test ``<id>@<group>`` on the
    worker. Where it could not (pytest-xdist#1386), each grouped test fails saying so,
    rather than every worker start Spark and write its logs unseen."""
    if session.config.getoption("loadgroup", False):
        for item in session.items:
            if item.get_closest_marker("xdist_group") and "@" not in item.nodeid:
                item.stash[UNGROUPED] = True


def pytest_runtest_setup(item: pytest.Item) -> None:
    if item.stash.get(UNGROUPED, False):
        pytest.fail("pytest-xdist did not put this test in its group: this pytest and "
                    "pytest-xdist do not work together (pytest-xdist#1386); install the "
                    "versions pyproject.toml names", pytrace=False)


def _checked(document: Any, problems: list[Any]) -> Any:
    if problems:
        raise InputError(problems)
    return document


def make_app(data: dict[str, Any]) -> Application:
    app = build_document(Application, data, SourceMap("app.yaml"))
    return _checked(app, check_application(app))


def make_infra(data: dict[str, Any]) -> Infrastructure:
    infra = build_document(Infrastructure, data, SourceMap("infra.yaml"))
    return _checked(infra, check_infrastructure(infra))


def make_plan(data: dict[str, Any], app: Application, infra: Infrastructure) -> Plan:
    plan = build_document(Plan, data, SourceMap("plan.yaml"))
    problems = check_plan(plan, app, infra)
    if problems:
        raise InputError(problems)
    return plan


def sample(name: str, file: str) -> str:
    return str(SAMPLES / name / file)


@pytest.fixture
def two_nodes() -> Infrastructure:
    """u: speed-up 1, A 0.9; v: speed-up 2, A 0.8; link u-v 10 ms, A 0.95, 0.001 per byte."""
    return make_infra({
        "name": "two",
        "nodes": [{"id": "u", "resources": 4, "availability": 0.9},
                  {"id": "v", "resources": 4, "speedup": 2, "availability": 0.8}],
        "links": [{"from": "u", "to": "v", "delay": 0.01, "availability": 0.95,
                   "cost": 0.001}],
    })


@pytest.fixture
def chain() -> Application:
    """a (mu 100, pinned on u) -> b (mu 50, k 3) -> c (fixed 2 ms, pinned on v)."""
    return make_app({
        "name": "chain",
        "operators": [
            {"id": "a", "service_rate": 100, "candidates": ["u"]},
            {"id": "b", "service_rate": 50, "max_replicas": 3},
            {"id": "c", "latency": 0.002, "candidates": ["v"]},
        ],
        "streams": [{"from": "a", "to": "b", "rate": 60, "tuple_size": 10},
                    {"from": "b", "to": "c", "rate": 30, "tuple_size": 20}],
    })


def placements(app: Application, infra: Infrastructure,
               sizes: Callable[[Operator], Iterable[int]],
               model: str | None = None) -> Iterator[Plan]:
    """Every plan giving each operator a multiset of its candidates, of the sizes allowed."""
    choices = []
    for op in app.operators:
        cands = op.candidates or [n.id for n in infra.nodes]
        choices.append([ms for m in sizes(op)
                        for ms in itertools.combinations_with_replacement(cands, m)])
    for combo in itertools.product(*choices):
        yield Plan.model_validate({"model": model, "placement": {
            op.id: list(ms) for op, ms in zip(app.operators, combo, strict=True)}})


def feasible_or_failed(name: str, result: Any, instance: Any) -> Evaluation | None:
    """A heuristic either fails out loud (no plan, says so) or returns a feasible plan,
    whose evaluation is returned."""
    from streamplace.solve import SolveStatus

    if result.status == SolveStatus.ERROR:
        assert result.plan is None and f"{name} failed" in result.message
        return None
    assert result.status == SolveStatus.FEASIBLE
    ev = evaluate(instance.app, instance.infra, result.plan, instance.objective)
    assert ev.violations == []
    return ev


def best_feasible(instance: Any, sizes: Callable[[Operator], Iterable[int]],
                  value: Callable[[Evaluation], float], model: str | None = None,
                  maximise: bool = False) -> float | None:
    """Brute force: the best ``value`` over every plan of :func:`placements` the evaluator
    finds feasible (None if none is)."""
    best = None
    for plan in placements(instance.app, instance.infra, sizes, model):
        ev = evaluate(instance.app, instance.infra, plan, instance.objective,
                      getattr(instance, "current", None), getattr(instance, "limits", None))
        if ev.violations:
            continue
        v = value(ev)
        if best is None or (v > best if maximise else v < best):
            best = v
    return best


def best_utility(instance: Any, single_replica: bool = False) -> float | None:
    """Brute force over every replica count ODRP allows (one where ``single_replica`` and the
    operator fixes none): the best utility F of a feasible plan, None if no plan is."""
    def sizes(op: Operator) -> range:
        cap = 1 if single_replica and op.replicas is None else op.replica_cap
        return range(op.min_replicas, cap + 1)

    return best_feasible(instance, sizes, lambda ev: ev.utility.value, maximise=True)


def assert_exact(result: Any, expected: float | None, label: object = None) -> bool:
    """An exact method's result against brute force's ``expected``: proven infeasible when
    brute force found no plan, else proven optimal with the same objective. Returns whether
    there was a plan to compare."""
    from streamplace.solve import SolveStatus

    if expected is None:
        assert result.status == SolveStatus.INFEASIBLE, label
        return False
    assert result.status == SolveStatus.OPTIMAL, (label, result.message)
    assert result.objective == pytest.approx(expected, abs=1e-7), label
    return True


def heuristic_plans(names: Iterable[str], instance: Any, options: Any,
                    required: bool = True) -> list[tuple[str, Any, Evaluation]]:
    """Run each heuristic; each fails out loud or plans feasibly (:func:`feasible_or_failed`).
    Returns (name, result, evaluation) of those that planned; unless ``required`` is False,
    at least one must have."""
    from streamplace.solve import get_method

    planned = []
    for name in names:
        result = get_method(name).solve(instance, options)
        ev = feasible_or_failed(name, result, instance)
        if ev is not None:
            planned.append((name, result, ev))
    assert planned or not required, "every heuristic failed"
    return planned


@pytest.fixture(scope="session")
def flink_pool(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """The end-to-end tier's Flink clusters, one per version, shared by its modules."""
    from .support.flink_cluster import ClusterPool

    pool = ClusterPool(tmp_path_factory.mktemp("flink"))
    try:
        yield pool
    finally:
        pool.close()


@pytest.fixture(scope="session")
def spark_logs(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """Event logs of real Spark jobs (tests/support/spark_jobs.py), written once per test run."""
    from .support.spark_jobs import write_logs

    return write_logs(tmp_path_factory.mktemp("eventlogs"))


@pytest.fixture(scope="session")
def spark(spark_logs: Any) -> Iterator[Any]:
    """The one extraction session every Spark test shares (after the logs are written)."""
    from pyspark.sql import SparkSession

    session = (SparkSession.Builder().master("local[2]").appName("streamplace-tests")
               .config("spark.ui.enabled", "false")
               .config("spark.eventLog.enabled", "false")
               .config("spark.ui.showConsoleProgress", "false")
               .config("spark.log.level", "ERROR").getOrCreate())
    yield session
    session.stop()


DEBS = [sample("debs2015", "application.yaml"), sample("debs2015", "infrastructure.yaml")]
PLAN = sample("debs2015", "plan.yaml")


def run(*args: str, stdin: str | None = None) -> Any:
    """The command line through Typer's runner, as a user would call it."""
    from typer.testing import CliRunner

    from streamplace.cli.app import app

    return CliRunner().invoke(app, list(args), input=stdin)
