"""Sweep throughput: scenarios on Spark ``local[*]`` against one after another in one
process, on the DEBS 2015 sample.

The sweep crosses 6 rate scales, no failure and each node's failure (7), 3 objectives and
two methods (odrp, hill-climbing): 252 scenarios, each solved as ``streamplace solve``
would. Each engine runs in its own process, so peak memory is its own; the table prints
scenarios per minute over the run itself, Spark's start-up apart (session, first Python
workers importing the package), the ratio to the single process, and the driver's peak
resident memory (and the JVM heap in use, which in local mode holds the executors too).
Both engines must give the same statuses and objectives; the bench stops if they differ.

Run: ``python bench/sweep.py [--master local[*]] [--methods odrp,hill-climbing]``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "samples" / "debs2015"


def write_sweep(folder: Path, methods: list[str]) -> Path:
    for name in ("application.yaml", "infrastructure.yaml"):
        (folder / name).write_text((SAMPLE / name).read_text())
    path = folder / "sweep.yaml"
    path.write_text(yaml.safe_dump({
        "schema": "streamplace/sweep/v1", "application": "application.yaml",
        "infrastructure": "infrastructure.yaml", "methods": methods, "time_limit": 60,
        "axes": {"rate_scale": [0.5, 0.75, 1, 1.25, 1.5, 2],
                 "failures": ["none", "each-node"],
                 "weights": [{"r": 1}, {"c": 1}, {"r": 1, "a": 1, "c": 1, "z": 1}]}}))
    return path


def measure(engine: str, sweep_path: str, master: str) -> dict[str, Any]:
    from streamplace.io.readers import read_document
    from streamplace.model.sweep import SweepFile
    from streamplace.solve.budget import StopRequest
    from streamplace.sweep.rows import Settings
    from streamplace.sweep.run import run_scenario
    from streamplace.sweep.scenarios import expand, read_inputs

    sweep = read_document(SweepFile, sweep_path)
    inputs = read_inputs(sweep, sweep_path)
    scenarios = expand(sweep, inputs)
    settings = Settings.of(sweep)
    results: dict[str, Any] = {}

    def done(scenario: Any, outcomes: list[Any]) -> None:
        row = outcomes[0].row
        results[scenario.id] = [row["status"], row["objective"]]

    startup = jvm_mb = None
    if engine == "spark":
        from streamplace.io.spark import spark_session
        from streamplace.sweep.runner import run_on_spark

        begin = time.perf_counter()
        with spark_session(master, quiet=True, name="bench-sweep") as spark:
            sc = spark.sparkContext
            cores = sc.defaultParallelism
            sc.parallelize(range(cores), cores).map(
                lambda _: __import__("streamplace.sweep.run").__name__).count()
            startup = time.perf_counter() - begin
            start = time.perf_counter()
            run_on_spark(spark, inputs, settings, scenarios, done, StopRequest())
            seconds = time.perf_counter() - start
            runtime = sc._jvm.java.lang.Runtime.getRuntime()
            jvm_mb = (runtime.totalMemory() - runtime.freeMemory()) / 1e6
    else:
        start = time.perf_counter()
        for scenario in scenarios:
            done(scenario, run_scenario(inputs, settings, scenario))
        seconds = time.perf_counter() - start
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"seconds": seconds, "startup": startup, "rss_mb": rss_mb, "jvm_mb": jvm_mb,
            "scenarios": len(scenarios), "results": results}


def _run(engine: str, sweep_path: Path, master: str) -> dict[str, Any]:
    out = subprocess.run([sys.executable, __file__, "--measure", engine, str(sweep_path),
                          "--master", master], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--master", default="local[*]")
    parser.add_argument("--methods", default="odrp,hill-climbing")
    parser.add_argument("--measure", nargs=2, metavar=("ENGINE", "SWEEP"),
                        help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        print(json.dumps(measure(args.measure[0], args.measure[1], args.master)))
        return
    with tempfile.TemporaryDirectory(prefix="bench-sweep-") as folder:
        path = write_sweep(Path(folder), args.methods.split(","))
        runs = {engine: _run(engine, path, args.master) for engine in ("python", "spark")}
    if runs["python"]["results"] != runs["spark"]["results"]:
        differ = [k for k, v in runs["python"]["results"].items()
                  if runs["spark"]["results"].get(k) != v]
        raise SystemExit(f"the engines disagree on {len(differ)} scenario(s): {differ[:5]}")
    total = runs["python"]["scenarios"]
    print(f"{total} scenarios (DEBS 2015; {args.methods}); {os.cpu_count()} cores, Spark "
          f"master {args.master}")
    print(f"{'engine':<10}{'seconds':>9}{'per minute':>12}{'vs python':>11}"
          f"{'driver RSS':>12}{'JVM heap':>10}{'start-up':>10}")
    for engine, r in runs.items():
        ratio = runs["python"]["seconds"] / r["seconds"]
        jvm = f"{r['jvm_mb']:.0f} MB" if r["jvm_mb"] is not None else "-"
        up = f"{r['startup']:.1f} s" if r["startup"] is not None else "-"
        print(f"{engine:<10}{r['seconds']:>9.1f}{total / r['seconds'] * 60:>12.1f}"
              f"{ratio:>10.2f}x{r['rss_mb']:>9.0f} MB{jvm:>10}{up:>10}")


if __name__ == "__main__":
    main()
