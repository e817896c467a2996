"""The backend seam (solve/mip/): the program a method built goes to any solver as written;
CBC's stop reaches CBC's process only; every HiGHS run, the cut rounds' and the persistent
models' too, is stopped by the budget."""

from __future__ import annotations

import subprocess
import threading
from pathlib import Path

import pytest
import yaml

from streamplace.solve import MipSolver, SolveOptions, SolveStatus, get_method
from streamplace.solve.budget import Budget, StopRequest

from ..conftest import DEBS, run, sample
from ..support.instances import random_instance


@pytest.mark.parametrize(("method", "files", "fmt"), [
    ("odrp", DEBS, "mps"), ("odrp", DEBS, "lp"),
    ("benoit", [sample("benoit-tree", "application.yaml"),
                sample("benoit-tree", "infrastructure.yaml")], "mps")])
def test_a_dumped_program_is_read_back_and_solved_by_highs(tmp_path, method, files, fmt):
    """--dump-model writes the very program the method solved: HiGHS, reading the file on
    its own, proves the optimum the method's solver reported for it."""
    import highspy

    model, plan = tmp_path / f"model.{fmt}", tmp_path / "plan.yaml"
    done = run("solve", *files, "--method", method, "--dump-model", str(model), "-o", str(plan),
               "-q")
    assert done.exit_code == 0, done.stderr
    solver = yaml.safe_load(plan.read_text())["solver"]
    h = highspy.Highs()
    h.silent()
    assert h.readModel(str(model)) == highspy.HighsStatus.kOk
    h.run()
    assert h.getModelStatus() == highspy.HighsModelStatus.kOptimal
    expected = solver.get("model_objective", yaml.safe_load(plan.read_text()).get("objective"))
    if expected is None:  # proven without the compact program: its optimum is the plan's cost
        expected = yaml.safe_load(plan.read_text())["metrics"]["benoit_cost"]
    assert h.getInfo().objective_function_value == pytest.approx(expected, rel=1e-6)


def _cbc_children(binary: Path) -> list[int]:
    from streamplace.solve.mip.cbc import _children_running

    return _children_running(binary)


def test_a_stop_reaches_cbc_and_no_other_child(tmp_path):
    """A program embedding streamplace has children of its own: a stop request interrupts
    the CBC process of the solve, and leaves them running."""
    import pulp

    from streamplace.io.readers import read_instance, read_objective
    from streamplace.solve import FormulationName, Instance

    app, infra = read_instance(*DEBS)
    objective = read_objective(sample("debs2015", "objective-response-time.yaml"))
    instance = Instance(app, infra, objective)
    bystander = subprocess.Popen(["sleep", "600"])
    binary = Path(pulp.PULP_CBC_CMD(msg=False).path).resolve()
    stop, seen = StopRequest(), threading.Event()

    def stop_once_cbc_runs() -> None:  # the readiness line: CBC's process exists
        while not seen.is_set():
            if _cbc_children(binary):
                seen.set()
                stop.set()
            threading.Event().wait(0.01)

    watcher = threading.Thread(target=stop_once_cbc_runs, daemon=True)
    watcher.start()
    try:
        result = get_method("odrp").solve(instance, SolveOptions(
            solver=MipSolver.CBC, formulation=FormulationName.MULTISET, stop=stop,
            params={"search": "off"}))
        seen.set()
        watcher.join()
        assert bystander.poll() is None, "a stop to CBC reached another child"
        assert stop, "CBC ended before its process was seen: the test saw no stop"
        assert result.status in (SolveStatus.INTERRUPTED, SolveStatus.OPTIMAL), result
        assert _cbc_children(binary) == []
    finally:
        bystander.kill()
        bystander.wait()


def test_share_cut_rounds_answer_the_budget():
    """The transport LPs of the share cuts run through the stoppable thread: with the budget
    stopped, a point that breaks cuts gets none, and the rounds end before their first."""
    from streamplace.solve.mip.persistent import Ended, PersistentModel
    from streamplace.solve.odrp.compact import build_compact
    from streamplace.solve.odrp.data import prepare
    from streamplace.solve.odrp.root import cut_root
    from streamplace.solve.odrp.share_cuts import ShareCuts

    stopped = StopRequest()
    stopped.set()
    for seed in range(20):
        data = prepare(random_instance(seed))
        built = build_compact(data, None, "all")
        separator = ShareCuts(data, built.shares, built.cells)
        if not separator:
            continue
        lp = PersistentModel(threads=1, relaxation=True)
        lp.load(built.model)
        assert lp.solve(Budget(None)) is Ended.OPTIMAL
        if not separator.separate(lp.values(), Budget(None)):
            continue
        assert separator.separate(lp.values(), Budget(None, stopped)) == []
        assert lp.solve(Budget(None, stopped)) is Ended.STOPPED
        root = cut_root(data, build_compact(data, None, "all"), Budget(None, stopped))
        assert root is not None and root.rounds == 0 and root.cuts == 0
        return
    pytest.fail("no instance had a share cut to separate")
