"""Reader and evaluator speed on large synthetic instances, against plain baselines.

Prints, side by side in one run:
- reading an application file: ``yaml.safe_load`` (pure-Python PyYAML, no validation) as the
  baseline against streamplace's reader (libyaml, line numbers, validation, semantic checks);
- evaluating one plan (every metric of every model) as the instance grows;
- shortest-path routing against a mesh of the same size.
Run: ``python bench/io_evaluate.py`` (or ``make bench``).
"""

from __future__ import annotations

import random
import tempfile
import time
from pathlib import Path
from typing import Any

import yaml

from streamplace.io.readers import read_application, read_instance, read_plan_for
from streamplace.io.writers import dumps
from streamplace.model.evaluate import evaluate


def timed(fn: Any, repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def instance(n_ops: int, n_nodes: int, routing: str, seed: int = 1) -> tuple[dict, dict, dict]:
    rng = random.Random(seed)
    ops = [{"id": f"op{i}", "service_rate": rng.uniform(200, 800), "max_replicas": 3,
            "resources": 1} for i in range(n_ops)]
    streams = [{"from": f"op{i}", "to": f"op{i + 1}", "rate": 50, "tuple_size": "200 B"}
               for i in range(n_ops - 1)]
    streams += [{"from": f"op{i}", "to": f"op{j}", "rate": 5, "tuple_size": 100}
                for i in range(0, n_ops - 3, 7) for j in (i + 3,)]
    nodes = [{"id": f"n{u}", "resources": 4 * n_ops // n_nodes + 4,
              "availability": 0.999} for u in range(n_nodes)]
    if routing == "mesh":
        links = [{"from": f"n{u}", "to": f"n{v}", "delay": f"{rng.uniform(1, 30):.2f} ms"}
                 for u in range(n_nodes) for v in range(u + 1, n_nodes)]
    else:
        links = [{"from": f"n{u}", "to": f"n{(u + k) % n_nodes}",
                  "delay": f"{rng.uniform(1, 10):.2f} ms"}
                 for u in range(n_nodes) for k in (1, 7) if n_nodes > 7]
    plan = {"placement": {op["id"]: [f"n{rng.randrange(n_nodes)}"] for op in ops}}
    return ({"name": "bench", "operators": ops, "streams": streams},
            {"name": "bench", "nodes": nodes, "links": links, "routing": routing}, plan)


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        print("reading an application file (best of 3)")
        print(f"{'operators':>10} {'size':>10} {'yaml.safe_load':>15} {'streamplace':>12} "
              f"{'ratio':>7}")
        for n_ops in (500, 2000, 8000):
            app, _, _ = instance(n_ops, 20, "mesh")
            path = folder / f"app{n_ops}.yaml"
            path.write_text(dumps(app, "yaml"))
            base = timed(lambda p=path: yaml.load(p.read_text(), Loader=yaml.SafeLoader))
            ours = timed(lambda p=path: read_application(str(p)))
            print(f"{n_ops:>10} {path.stat().st_size / 1e6:>8.2f}MB {base:>14.3f}s "
                  f"{ours:>11.3f}s {base / ours:>6.2f}x")

        print("\nevaluating one plan: every metric, every model (best of 3)")
        print(f"{'operators':>10} {'nodes':>6} {'mesh':>10} {'shortest-path':>14} {'ratio':>7}")
        for n_ops, n_nodes in ((100, 10), (500, 50), (2000, 200)):
            times = {}
            for routing in ("mesh", "shortest-path"):
                app, infra, plan = instance(n_ops, n_nodes, routing)
                for name, data in (("app", app), ("infra", infra), ("plan", plan)):
                    (folder / f"{name}.yaml").write_text(dumps(data, "yaml"))
                a, i = read_instance(str(folder / "app.yaml"), str(folder / "infra.yaml"))
                p = read_plan_for(str(folder / "plan.yaml"), a, i)
                times[routing] = timed(lambda a=a, i=i, p=p: evaluate(a, i, p))
            print(f"{n_ops:>10} {n_nodes:>6} {times['mesh']:>9.3f}s "
                  f"{times['shortest-path']:>13.3f}s "
                  f"{times['shortest-path'] / times['mesh']:>6.2f}x")


if __name__ == "__main__":
    main()
