"""The model's response time held to Flink's latency markers, on the Nexmark-shaped jobs.

Each job (tests/support/flink_job/NexmarkJob.java) runs alone on a Flink cluster with
``metrics.latency.interval: 1000`` at a known rate and parallelism; after it settles,
``observe JOB --source-rate ... `` writes its application, infrastructure and plan, and
``observe JOB --window W --against PLAN`` compares, per source-to-sink path, the model's
response time R (eqs. 8-11), the marker's predicted age (each operator's waiting time W_q =
R_i - 1/mu_i, plus half the buffer timeout per hop, plus the network delays) and the
markers measured (mean, median, p99 over the window's histograms).

Printed per job x rate x parallelism x buffer timeout: the terms, the measured figures and
the marker prediction's error against the measured mean.

    python bench/latency.py                           # q1, q2, q5 at two loads, 100 ms
    python bench/latency.py --queries q1 --buffer-timeout 10
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.support.flink_cluster import SETTINGS, FlinkCluster, flink_cluster

PARTITIONS, WORK = 4, 10_000
CASES = {"q1": [(30.0, 1), (60.0, 1), (120.0, 2)], "q2": [(30.0, 1), (60.0, 1)],
         "q5": [(30.0, 1), (60.0, 1)]}  # (events/s, parallelism): 100 events/s a subtask


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "streamplace", *args], capture_output=True,
                          text=True, timeout=600)


def one(cluster: FlinkCluster, work: Path, query: str, rate: float, p: int,
        window: float) -> list[dict]:  # type: ignore[type-arg]
    folder = work / f"{query}-{rate:g}-{p}"
    topic = folder / "bids"
    topic.mkdir(parents=True)
    (topic / "schedule").write_text(f"{int(time.time() * 1000)} {rate}\n")
    job = cluster.submit("NexmarkJob", (query, str(rate), str(PARTITIONS), str(WORK),
                                        str(folder)), parallelism=p)
    try:
        while cluster.get(f"/jobs/{job}")["state"] != "RUNNING":
            time.sleep(0.5)
        time.sleep(30)  # the 60 s meters and the latency histograms fill
        url = f"{cluster.rest}/jobs/{job}"
        files = {k: folder / f"{k}.yaml" for k in ("app", "infra", "plan")}
        made = _run("observe", url, "--window", str(window), "--source-rate", f"bids={rate}",
                    "-o", str(files["app"]), "--infrastructure-out", str(files["infra"]),
                    "--plan-out", str(files["plan"]), "-q")
        assert made.returncode == 0, made.stderr
        held = _run("observe", url, "--window", str(window), "--source-rate", f"bids={rate}",
                    "--against", str(files["plan"]), "--application", str(files["app"]),
                    "--infrastructure", str(files["infra"]), "--json", "-q")
        drift = json.loads(held.stdout)["drift"]
        rows = drift["latency"]
        for row in rows:
            row.update(job=query, rate=rate, parallelism=p)
        if not rows:
            print(f"{query} {rate:g}/s: {drift['notes']}", file=sys.stderr)
        return rows  # type: ignore[no-any-return]
    finally:
        cluster.cancel(job)
        while cluster.get(f"/jobs/{job}")["state"] not in ("CANCELED", "FAILED", "FINISHED"):
            time.sleep(0.5)


def table(rows: list[dict], timeout: float) -> str:  # type: ignore[type-arg]
    out = [f"buffer timeout {timeout:g} ms; times in ms", "",
           "| job | events/s | subtasks | R (model) | waiting | buffers | network | marker "
           "(model) | mean | median | p99 | marker - mean |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        ms = {k: r[k] * 1000 for k in ("predicted_r", "waiting", "buffers", "delays",
                                        "predicted_marker", "measured_mean",
                                        "measured_median", "measured_p99")}
        out.append(f"| {r['job']} | {r['rate']:g} | {r['parallelism']} | "
                   f"{ms['predicted_r']:.1f} | {ms['waiting']:.1f} | {ms['buffers']:.0f} | "
                   f"{ms['delays']:.1f} | {ms['predicted_marker']:.1f} | "
                   f"{ms['measured_mean']:.1f} | {ms['measured_median']:.1f} | "
                   f"{ms['measured_p99']:.1f} | "
                   f"{ms['predicted_marker'] - ms['measured_mean']:+.1f} |")
    return "\n".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--queries", default="q1,q2,q5")
    parser.add_argument("--window", type=float, default=10.0)
    parser.add_argument("--buffer-timeout", type=float, default=100.0, help="ms")
    parser.add_argument("--flink", default="2.2.1")
    parser.add_argument("--work", default="/tmp/streamplace-bench-latency")
    args = parser.parse_args()
    work = Path(args.work) / time.strftime("%Y%m%d-%H%M%S")
    work.mkdir(parents=True)
    settings = {**SETTINGS, "metrics.latency.interval": "1000",
                "execution.buffer-timeout.interval": f"{args.buffer_timeout:g} ms"}
    rows = []
    with flink_cluster(args.flink, work / "flink", settings, taskmanagers=1) as cluster:
        for query in args.queries.split(","):
            for rate, p in CASES[query]:
                rows += one(cluster, work, query, rate, p, args.window)
                print(table(rows[-1:], args.buffer_timeout).splitlines()[-1], flush=True)
    (work / "latency.json").write_text(json.dumps(rows, indent=1))
    print(f"\nFlink {args.flink}, one 4-slot TaskManager, W = {args.window:g} s")
    print(table(rows, args.buffer_timeout))


if __name__ == "__main__":
    main()
