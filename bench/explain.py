"""``explain`` and ``report`` on a large plan: whole-command wall time against a goal, and
the cost of one what-if scored by the incremental scorer against the evaluator (the
baseline: what every what-if cost before the scorer), side by side.

Instance: 500 operators (k = 8) on 40 nodes (bench/scenarios.py), the plan of
``resource-aware``; the report holds that plan and ``first-fit-decreasing``'s. Goals:
explain within 15 s, the report of two plans within 30 s, on 2 cores.

Run: ``python bench/explain.py``.
"""

from __future__ import annotations

import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from time_limit import instance

from streamplace.io.readers import read_instance, read_plan_for
from streamplace.model.evaluate import evaluate, resolve_bounds
from streamplace.model.evaluate.scorer import PlacementScorer
from streamplace.model.evaluate.utility import candidates
from streamplace.model.graph import build_graph
from streamplace.model.network import Network
from streamplace.model.objective import Objective

GOALS = {"explain": 15.0, "report": 30.0}
TRIALS = 40


def wall(command: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "streamplace", *command, "-q"], check=True)
    return time.perf_counter() - started


def per_what_if(files: list[str], plan_file: Path) -> tuple[float, float]:
    """Seconds of one what-if: the evaluator's, the scorer's."""
    app, infra = read_instance(*files)
    plan = read_plan_for(str(plan_file), app, infra)
    network, graph, objective = Network.of(infra), build_graph(app), Objective()
    placement = {op: dict(plan.replicas(op)) for op in app.operator_ids}
    rng = random.Random(0)
    changes = []
    for op in rng.sample(app.operators, TRIALS):
        here = dict(placement[op.id])
        u = next(iter(here))
        v = rng.choice(candidates(op, network))
        here[u] -= 1
        here[v] = here.get(v, 0) + 1
        changes.append((op.id, {w: c for w, c in here.items() if c}))
    started = time.perf_counter()
    for op_id, multiset in changes:
        evaluate(app, infra, plan.model_copy(update={"placement": placement | {op_id: multiset}}),
                 objective)
    slow = (time.perf_counter() - started) / TRIALS
    bounds, _ = resolve_bounds(graph, network, objective, plan)
    scorer = PlacementScorer(graph, network, objective, bounds, placement)
    started = time.perf_counter()
    for op_id, multiset in changes * 10:
        scorer.trial(op_id, multiset)
    fast = (time.perf_counter() - started) / (TRIALS * 10)
    return slow, fast


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        files = instance(root, 500, 40, 8)
        plans = []
        for method in ("resource-aware", "first-fit-decreasing"):
            plans.append(root / f"{method}.yaml")
            subprocess.run([sys.executable, "-m", "streamplace", "solve", *files, "-m", method,
                            "-o", str(plans[-1]), "-q"], check=True)
        slow, fast = per_what_if(files, plans[0])
        print(f"one what-if, 500 operators: evaluator {slow * 1e3:.1f} ms (baseline), "
              f"scorer {fast * 1e3:.2f} ms, {slow / fast:.0f}x")
        runs = {"explain": wall(["explain", *files, str(plans[0])]),
                "report": wall(["report", *files, *map(str, plans), "-o",
                                str(root / "report.html")])}
        print(f"{'command':<8} {'wall s':>7} {'goal s':>7}  met")
        for name, seconds in runs.items():
            ok = "met" if seconds <= GOALS[name] else "NOT met"
            print(f"{name:<8} {seconds:>7.1f} {GOALS[name]:>7.1f}  {ok}")


if __name__ == "__main__":
    main()
