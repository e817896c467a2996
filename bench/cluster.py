"""Two Nexmark-shaped jobs sharing one Flink session cluster that has too few slots for both:
``autoscale`` over the whole cluster against per-job loops racing for the same slots.

The jobs (tests/support/flink_job/NexmarkJob.java) read topics at a scheduled rate; q1
(bids -> convert -> sink) has priority 1 and weight 3, q2 (bids -> select -> sink) priority
0 and weight 1. The cluster: two TaskManagers of 4 slots (8), Flink's adaptive scheduler.

Methods, each on a cluster of its own, side by side:

- ``cluster``: one ``autoscale http://JM --jobs FILE`` (odrp, the joint bundle);
- ``racing``: one ``autoscale JOB`` (odrp) per job, side by side;
- ``flink``: one ``autoscale JOB --method flink`` (the Flink autoscaler's rule) per job;
- ``alone``: q1 by itself on the cluster (odrp): the back-pressure it would have alone.

Scenarios:

- ``race``: both start at parallelism 1; q1 is offered 300 events/s (five subtasks at the
  target 0.7), q2 150 (three): the eight slots hold both targets exactly, and the backlog
  each builds up while it waits asks for more;
- ``shift``: q2 runs 6 subtasks for 50 events/s (one would do), q1 1 subtask for 350: one
  slot is free, so q1 grows only as q2 gives slots back.

Printed per scenario x method: over-asks (a PUT the cluster did not carry out: the job did
not come to run it), PUTs held back for want of free slots, rescales, the seconds q1's source
was back-pressured, and the cluster's weighted F at the end (one dry-run step of the
cluster-wide odrp read it, the same for every method).

    python bench/cluster.py                 # both scenarios, the four methods side by side
    python bench/cluster.py --scenarios race --window 6
"""

from __future__ import annotations

import argparse
import json
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.support.flink_cluster import SETTINGS, FlinkCluster, flink_cluster

PARTITIONS, WORK = 4, 10_000
SCENARIOS = {"race": {"q1": (300.0, 1), "q2": (150.0, 1)},
             "shift": {"q1": (350.0, 1), "q2": (50.0, 6)}}  # job: (events/s, parallelism)
TERMS = {"nexmark q1": (3.0, 1), "nexmark q2": (1.0, 0)}    # name: (weight, priority)
METHODS = ("cluster", "racing", "flink", "alone")


@dataclass
class Result:
    scenario: str
    method: str
    over_asks: int = 0
    held_for_slots: int = 0
    rescales: int = 0
    q1_pressed_s: float = 0.0
    weighted_f: float | str | None = None
    slots: dict[str, int] = field(default_factory=dict)
    exits: list[int] = field(default_factory=list)


def _start(cluster: FlinkCluster, folder: Path, query: str, rate: float, p: int) -> str:
    topic = folder / query / "bids"
    topic.mkdir(parents=True)
    (topic / "schedule").write_text(f"{int(time.time() * 1000)} {rate}\n")
    job = cluster.submit("NexmarkJob", (query, str(rate), str(PARTITIONS), str(WORK),
                                        str(folder / query)), parallelism=p)
    while cluster.get(f"/jobs/{job}")["state"] != "RUNNING":
        time.sleep(0.5)
    return job


def _pressed_ms(cluster: FlinkCluster, job: str) -> float:
    return sum(float(v["metrics"].get("accumulated-backpressured-time", 0))
               for v in cluster.get(f"/jobs/{job}")["vertices"]
               if v["name"].startswith("Source"))


def _flags(window: float) -> list[str]:
    return ["--metrics-window", str(window), "--stabilization-interval", str(window),
            "--scale-down-interval", str(3 * window), "--catch-up-duration", str(6 * window),
            "--restart-time", "5", "--wait", "60", "--yes", "--quiet"]


def _count(result: Result, part: dict) -> None:  # type: ignore[type-arg]
    said = " ".join(part.get("why", []))
    if part.get("decision") == "rescale":
        result.rescales += 1
        if "sent, but" in said or part.get("seconds_to_rescale") is None:
            result.over_asks += 1
    if "not sent: the plan needs" in said or "waits for slots" in said:
        result.held_for_slots += 1


def one(cluster: FlinkCluster, work: Path, scenario: str, method: str, window: float,
        jobs_file: Path) -> Result:
    result = Result(scenario, method)
    wanted = {q: v for q, v in SCENARIOS[scenario].items() if method != "alone" or q == "q1"}
    ids = {q: _start(cluster, work, q, rate, p) for q, (rate, p) in wanted.items()}
    if method == "cluster":
        commands = [["autoscale", cluster.rest, "--jobs", str(jobs_file)]]
    else:
        rule = ["--method", "flink"] if method == "flink" else []
        commands = [["autoscale", f"{cluster.rest}/jobs/{jid}", *rule] for jid in ids.values()]
    procs = [subprocess.Popen([sys.executable, "-m", "streamplace", *c, *_flags(window)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for c in commands]
    outputs: list[list[str]] = [[] for _ in procs]
    for proc, lines in zip(procs, outputs, strict=True):
        threading.Thread(target=lambda p=proc, out=lines: out.extend(p.stdout or []),
                         daemon=True).start()
    started, last = time.monotonic(), _pressed_ms(cluster, ids["q1"])
    while time.monotonic() - started < 16 * window:
        time.sleep(1.0)
        try:
            now = _pressed_ms(cluster, ids["q1"])
        except OSError:
            continue
        result.q1_pressed_s += (now - last if now >= last else now) / 1000 / PARTITIONS
        last = now
    for proc in procs:
        proc.send_signal(signal.SIGTERM)
    for proc in procs:
        proc.wait(timeout=120)
        result.exits.append(proc.returncode)
        err = proc.stderr.read() if proc.stderr else ""
        if "does not run the plan" in err:  # a per-job loop's PUT the cluster never carried out
            result.over_asks += 1
    for k, lines in enumerate(outputs):
        (work / f"decisions-{k}.jsonl").write_text("".join(lines))
        for line in (json.loads(x) for x in lines if x.startswith("{")):
            for part in (line.get("jobs") or {}).values() or [line]:
                _count(result, part)
    result.weighted_f = _weighted_f(cluster, jobs_file, window)
    for q, jid in ids.items():
        result.slots[q] = max(v["parallelism"] for v in cluster.get(f"/jobs/{jid}")["vertices"])
        cluster.cancel(jid)
    for jid in ids.values():
        while cluster.get(f"/jobs/{jid}")["state"] not in ("CANCELED", "FINISHED", "FAILED"):
            time.sleep(0.5)
    return result


def _weighted_f(cluster: FlinkCluster, jobs_file: Path, window: float) -> float | str | None:
    """sum_a omega_a F_a of what runs, as one dry-run step of the cluster-wide odrp reads it
    (a step where a job gave no reading, restarting, is taken again: three tries)."""
    for _ in range(3):
        done = subprocess.run([sys.executable, "-m", "streamplace", "autoscale", cluster.rest,
                               "--jobs", str(jobs_file), "--max-steps", "1", "--dry-run",
                               "--stabilization-interval", "0", "--metrics-window", str(window),
                               "--yes", "--quiet"], capture_output=True, text=True, timeout=300)
        lines = [json.loads(x) for x in done.stdout.splitlines() if x.startswith("{")]
        parts = lines[0].get("jobs", {}) if lines else {}
        values = {name: (part.get("F") or {}).get("running") for name, part in parts.items()}
        if not parts or any(v is None for v in values.values()):
            continue
        if any(not isinstance(v, (int, float)) for v in values.values()):
            return "-inf"  # a job runs at its capacity: unstable
        weights = {name: TERMS.get(name, (1.0, 0))[0] for name in parts}
        total = sum(weights.values())
        return round(sum(weights[n] / total * float(v) for n, v in values.items()), 4)
    return None


def table(results: list[Result]) -> str:
    rows = ["| scenario | method | over-asks | held for slots | rescales | q1 back-pressured (s)"
            " | weighted F at the end | slots q1/q2 |", "|---|---|---|---|---|---|---|---|"]
    for r in results:
        slots = "/".join(str(r.slots.get(q, "-")) for q in ("q1", "q2"))
        rows.append(f"| {r.scenario} | {r.method} | {r.over_asks} | {r.held_for_slots} | "
                    f"{r.rescales} | {r.q1_pressed_s:.0f} | {r.weighted_f} | {slots} |")
    return "\n".join(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scenarios", default="race,shift")
    parser.add_argument("--methods", default=",".join(METHODS))
    parser.add_argument("--window", type=float, default=8.0)
    parser.add_argument("--flink", default="2.2.1")
    parser.add_argument("--work", default="/tmp/streamplace-bench-cluster")
    args = parser.parse_args()
    work = Path(args.work) / time.strftime("%Y%m%d-%H%M%S")
    work.mkdir(parents=True)
    jobs_file = work / "jobs.yaml"
    jobs_file.write_text("schema: streamplace/jobs/v1\njobs:\n" + "".join(
        f"  {name}: {{weight: {w:g}, priority: {p}}}\n" for name, (w, p) in TERMS.items()))
    methods = args.methods.split(",")
    results = []
    for scenario in args.scenarios.split(","):
        with ExitStack() as stack, ThreadPoolExecutor(len(methods)) as pool:
            clusters = [stack.enter_context(flink_cluster(
                args.flink, work / f"{scenario}-{m}" / "flink", SETTINGS, taskmanagers=2))
                for m in methods]
            done = pool.map(one, clusters, [work / f"{scenario}-{m}" for m in methods],
                            [scenario] * len(methods), methods, [args.window] * len(methods),
                            [jobs_file] * len(methods))
            results += list(done)
        print(table([r for r in results if r.scenario == scenario]), flush=True)
    (work / "results.json").write_text(json.dumps([r.__dict__ for r in results], indent=1))
    print(f"\nFlink {args.flink}, W = {args.window:g} s, 16 W per run; results in {work}")
    print(table(results))


if __name__ == "__main__":
    main()
