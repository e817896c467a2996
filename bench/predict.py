"""Planning ahead on real Flink: ``autoscale --horizon`` (odrp planned ahead) beside odrp
reactive, the Flink autoscaler's rule (with its defaults, and chasing the load with a short
scale-down interval) and DS2, each on a cluster of its own, side by side, on the
Nexmark-shaped jobs of tests/support/flink_job/NexmarkJob.java (a subtask of the work vertex
takes about 100 events/s; qc's work vertex contends for a lock its TaskManager's subtasks
share, so that its capacity is sublinear and stops growing).

Loads (W the metrics window, 10 s by default):

- ``protocol`` (ContTune's, scaled to this machine): six rate levels in a random
  permutation, twice (12 changes), each held 4 W; on q1, q5, q8 and qc;
- ``sine`` and ``square``: a period of 10 W, x1 to x4 and back, for 7 periods; on q1, q5
  and q11 (the season given, as a team that knows its daily cycle gives it);
- ``step``: a flat rate that triples at 12 W, unannounced; on q1.

Printed per run: rescales, reconfigurations per rate change, backlogged records (the share
of those offered that joined the sources' lag, sampled every second, from the first period's
end: the ramp from parallelism 1 is in the saved runs' ``backlogged_all``), windows in which a
source was back-pressured 10% or more and seconds back-pressured (from the first period's
end), slot-seconds (sampled every second; from the first period's end), and the gap of the
run's slot-seconds to its hindsight optimum (``report --optimum``, under the budget the
planned-ahead run was given). Then each goal of the issue, met or not.

    python bench/predict.py                   # q1 under protocol and sine, four clusters
    python bench/predict.py --all --out runs.json        # every load on its jobs: ~3 h
    python bench/predict.py --loads sine --queries q1 --workers 2
    python bench/predict.py --table runs.json            # the table of a saved run again
"""

from __future__ import annotations

import argparse
import json
import math
import random
import shutil
import signal
import subprocess
import sys
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sidebyside import side_by_side

from tests.support.flink_cluster import FlinkCluster

PARTITIONS, WORK = 4, 10_000
BASE = {"q1": 60.0, "q2": 60.0, "q5": 60.0, "q8": 20.0, "q11": 60.0, "qc": 60.0}
"""events/s at x1: q8's join works per match, qc's lock caps it near 400/s on 2 TaskManagers."""
LOADS = {"protocol": ("q1", "q5", "q8", "qc"), "sine": ("q1", "q5", "q11"),
         "square": ("q1", "q5", "q11"), "step": ("q1",)}
METHODS = ("ahead", "odrp", "flink", "flink-short", "ds2")
WAVE_METHODS = METHODS
OTHER_METHODS = ("ahead", "odrp", "flink", "ds2")
PERIOD = 10           # windows a wave's period takes
PERIODS = 7
LEVEL = 4             # windows a protocol level is held
PRESSED = 0.1


@dataclass
class Run:
    job: str
    load: str
    method: str
    changes: int = 0
    rescales: int = 0
    per_change: float | None = None
    backlogged: float = 0.0         # records that joined the lag, after the first period
    offered: float = 0.0            # (or level), as every other column
    backlogged_all: float = 0.0     # the same from the start: the ramp from parallelism 1
    offered_all: float = 0.0
    pressed_windows: int = 0        # after the first period (or the first level)
    pressed_s: float = 0.0
    slot_seconds: float = 0.0       # after the first period
    slot_seconds_late: float = 0.0  # after the third (the season learnt)
    gap: float | None = None        # slot-seconds over the hindsight optimum's
    backlog_gap: float | None = None  # backlogged share over the optimum's (report's measure)
    most: int = 0                   # the most parallelism the work vertex ran
    seconds: float = 0.0
    decisions: list[dict] = field(default_factory=list)  # type: ignore[type-arg]

    @property
    def backlog_share(self) -> float:
        return self.backlogged / self.offered if self.offered else 0.0


def schedule(load: str, base: float, window: float, seed: int) -> tuple[list[tuple[float,
                                                                                 float]],
                                                                      float, int, float]:
    """(seconds from the start, rate) steps, the load's length, its rate changes, and when
    its first period (or level) ends."""
    period = PERIOD * window
    if load == "protocol":
        levels = [base * k for k in (1, 2, 3, 4, 5, 6)]
        rng = random.Random(seed)
        order = rng.sample(levels, 6) + rng.sample(levels, 6)
        steps = [(6 * window + i * LEVEL * window, r) for i, r in enumerate(order)]
        return [(0.0, order[0]), *steps], 6 * window + 12 * LEVEL * window, 12, 6 * window
    if load in ("sine", "square"):
        steps = []
        t = 0.0
        while t < PERIODS * period:
            phase = (t % period) / period
            shape = (1 - math.cos(2 * math.pi * phase)) / 2 if load == "sine" else \
                (1.0 if phase >= 0.5 else 0.0)
            steps.append((t, base * (1 + 3 * shape)))
            t += window / 2
        changes = 2 * PERIODS if load == "square" else PERIODS * 2
        return steps, PERIODS * period, changes, period
    if load == "step":
        return [(0.0, 2 * base), (12 * window, 6 * base)], 24 * window, 1, 12 * window
    raise SystemExit(f"no load {load}")


def arguments(method: str, load: str, window: float) -> list[str]:
    common = ["--metrics-window", str(window), "--stabilization-interval", str(window),
              "--catch-up-duration", str(6 * window), "--restart-time", "5"]
    if method == "ahead":
        budget = f"2/{PERIOD * window:g}" if load in ("sine", "square") else \
            f"1/{LEVEL * window:g}"
        extra = ["--season", str(PERIOD * window)] if load in ("sine", "square") else []
        return ["--method", "odrp", "--horizon", "12", "--max-rescales", budget, *extra,
                *common]
    if method == "flink-short":
        return ["--method", "flink", "--scale-down-interval", str(4 * window), *common]
    return ["--method", method, *common]


def _get(cluster: FlinkCluster, path: str) -> dict:  # type: ignore[type-arg]
    return cluster.get(path)


def one(cluster: FlinkCluster, work: Path, job_name: str, load: str, method: str,
        window: float, seed: int) -> Run:
    run = Run(job_name, load, method)
    folder = work / f"{job_name}-{load}-{method}"
    topics = ("people", "auctions") if job_name == "q8" else ("bids",)
    steps, length, run.changes, first = schedule(load, BASE[job_name], window, seed)
    start_ms = int(time.time() * 1000) + 2000
    for name in topics:
        (folder / name).mkdir(parents=True, exist_ok=True)
        (folder / name / "schedule").write_text("".join(
            f"{start_ms + int(1000 * t)} {rate}\n" for t, rate in steps))
    job = cluster.submit("NexmarkJob", (job_name, str(steps[0][1]), str(PARTITIONS), str(WORK),
                                        str(folder)))
    while _get(cluster, f"/jobs/{job}")["state"] != "RUNNING":
        time.sleep(0.5)
    vertices = _get(cluster, f"/jobs/{job}")["vertices"]
    sources = [v["id"] for v in vertices if v["name"].startswith("Source")]
    state = folder / "state.json"
    scaler = subprocess.Popen(
        [sys.executable, "-m", "streamplace", "autoscale", f"{cluster.rest}/jobs/{job}",
         *arguments(method, load, window), "--yes", "--quiet", "--state", str(state),
         "--wait", "180"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    lines: list[str] = []
    threading.Thread(target=lambda: lines.extend(scaler.stdout or []), daemon=True).start()
    began = start_ms / 1000
    counted: dict[str, float] = {}
    last_lag: float | None = None
    while time.time() - began < length:
        time.sleep(1.0)
        now = time.time() - began
        rate = next((r for t, r in reversed(steps) if t <= now), steps[0][1])
        run.offered_all += rate * len(topics)
        if now >= first:
            run.offered += rate * len(topics)
        try:
            detail = _get(cluster, f"/jobs/{job}")
            width = max(v["parallelism"] for v in detail["vertices"])
            run.most = max(run.most, *(v["parallelism"] for v in detail["vertices"]
                                       if not v["name"].startswith(("Source", "sink"))))
            lag = sum(_lag(cluster, job, vid) for vid in sources)
            pressed = {v["id"]: float(v["metrics"].get("accumulated-backpressured-time", 0))
                       for v in detail["vertices"] if v["id"] in sources}
        except Exception:  # a restart: the job's answers are incomplete for a moment
            continue
        if now >= first:
            run.slot_seconds += width
            if now >= 3 * first:
                run.slot_seconds_late += width
            for vid, ms in pressed.items():
                seen = counted.get(vid, ms)
                run.pressed_s += (ms - seen if ms >= seen else ms) / 1000 / len(sources)
        counted.update(pressed)
        if last_lag is not None and lag > last_lag:
            run.backlogged_all += lag - last_lag
            if now >= first:
                run.backlogged += lag - last_lag
        last_lag = lag
    scaler.send_signal(signal.SIGTERM)
    scaler.wait(timeout=120)
    cluster.cancel(job)
    run.decisions = [json.loads(x) for x in lines if x.startswith("{")]
    steps_ = [d for d in run.decisions if d.get("step")]
    run.rescales = sum(1 for d in steps_ if d["decision"] == "rescale")
    run.per_change = run.rescales / run.changes if run.changes else None
    run.pressed_windows = sum(1 for d in steps_ if d.get("seen") and d["seconds"] >= first
                              and any(v["backpressured"] >= PRESSED for op, v in
                                      d["seen"].items() if op.startswith("source")
                                      or op in ("bids", "people", "auctions")))
    run.gap, run.backlog_gap = _gap(state, arguments("ahead", load, window))
    run.seconds = round(time.time() - began, 1)
    return run


def _lag(cluster: FlinkCluster, job: str, vid: str) -> float:
    listed = cluster.get(f"/jobs/{job}/vertices/{vid}/subtasks/metrics")
    ids = [m["id"] for m in listed if m["id"].endswith(".pendingRecords")]
    if not ids:
        return 0.0
    got = cluster.get(f"/jobs/{job}/vertices/{vid}/subtasks/metrics?get={','.join(ids)}")
    return sum(float(m.get("sum", 0)) for m in got)


def _gap(state: Path, ahead: list[str]) -> tuple[float | None, float | None]:
    """The run's slot-seconds over its hindsight optimum's, and its backlogged share over
    the optimum's, under the planned-ahead run's budget (``report --optimum
    --max-rescales``)."""
    budget = ahead[ahead.index("--max-rescales") + 1]
    done = subprocess.run([sys.executable, "-m", "streamplace", "report", "--optimum",
                           str(state), "--max-rescales", budget, "--json", "-q"],
                          capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        return None, None
    gap = json.loads(done.stdout)["optimum"][0]["gap"]
    return (gap["slot_seconds"], gap["backlog_share"]) if gap else (None, None)


def table(runs: list[Run]) -> str:
    rows = ["| job | load | method | rescales | per change | backlogged | windows "
            "back-pressured | s back-pressured | slot-seconds | after 3 periods | gap to "
            "optimum | most |", "|" + "---|" * 12]
    for r in runs:
        rows.append(
            f"| {r.job} | {r.load} | {r.method} | {r.rescales} | "
            f"{'-' if r.per_change is None else f'{r.per_change:.2f}'} | "
            f"{r.backlog_share:.2%} | {r.pressed_windows} | {r.pressed_s:.0f} | "
            f"{r.slot_seconds:.0f} | {r.slot_seconds_late:.0f} | "
            f"{'-' if r.gap is None else f'{r.gap:+.1%}'} | {r.most} |")
    return "\n".join(rows)


def goals(runs: list[Run]) -> list[str]:
    by = {(r.job, r.load, r.method): r for r in runs}
    checks: dict[str, list[tuple[str, bool]]] = {}

    def check(goal: str, where: str, held: bool) -> None:
        checks.setdefault(goal, []).append((where, held))

    for r in runs:
        if r.method != "ahead":
            continue
        where = f"{r.job} {r.load}"
        flink, short = by.get((r.job, r.load, "flink")), by.get((r.job, r.load, "flink-short"))
        if r.load == "protocol" and r.per_change is not None:
            check("at most 1.1 reconfigurations per rate change", where, r.per_change <= 1.1)
            if flink:
                check("backlogged records at most half the Flink rule's", where,
                      r.backlogged <= 0.5 * flink.backlogged)
        if r.load in ("sine", "square"):
            check("no window back-pressured after the first period", where,
                  r.pressed_windows == 0)
            if flink:
                check("slot-seconds at most 0.9 x the Flink rule holding the peak", where,
                      r.slot_seconds <= 0.9 * flink.slot_seconds)
            if short:
                check("no more rescales than the Flink rule chasing the load", where,
                      r.rescales <= short.rescales)
        if r.gap is not None and r.backlog_gap is not None:
            check("within 10% of the hindsight optimum's slot-seconds, at no more backlog",
                  f"{where}: {r.gap:+.1%}, backlog {r.backlog_gap:+.2%}",
                  r.gap <= 0.10 and r.backlog_gap <= 0.0)
        if r.load == "step":
            odrp = by.get((r.job, r.load, "odrp"))
            if odrp:
                check("the unforeseen step: no more windows back-pressured than reactive",
                      where, r.pressed_windows <= odrp.pressed_windows)
        if r.job == "qc":
            linear = by.get((r.job, r.load, "ds2"))
            check("the contended vertex: at most 2 rescales to no backpressure", where,
                  _to_free(r) is not None and (_to_free(r) or 0) <= 2)
            if linear:
                check("the contended vertex: no past the fitted peak (DS2 beside it)",
                      f"{where}: {r.most} against DS2's {linear.most}", r.most <= linear.most)
    out = []
    for goal, results in checks.items():
        missed = [w for w, held in results if not held]
        out.append(f"- {goal}: {len(results) - len(missed)} of {len(results)}"
                   + (f" (not: {'; '.join(missed)})" if missed else ""))
    return out


def _to_free(r: Run) -> int | None:
    count = 0
    for d in r.decisions:
        if not d.get("step"):
            continue
        free = d.get("seen") and all(v["backpressured"] < PRESSED for v in d["seen"].values())
        if free and count:
            return count
        count += d["decision"] == "rescale"
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--flink", default="2.2.1")
    parser.add_argument("--loads", default="protocol,sine")
    parser.add_argument("--queries", default="q1",
                        help="only these jobs (default q1; 'all': each load's)")
    parser.add_argument("--all", action="store_true", help="every load, each on its jobs")
    parser.add_argument("--methods", help="only these methods (default: each load's)")
    parser.add_argument("--window", type=float, default=10.0)
    parser.add_argument("--workers", type=int, default=4, help="clusters side by side")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--work", default="/tmp/streamplace-bench-predict")
    parser.add_argument("--out", help="also write every run, decisions included, as JSON")
    parser.add_argument("--table", nargs="+", help="print the table of runs saved with --out")
    args = parser.parse_args()
    if args.table:
        saved = [r for path in args.table for r in json.loads(Path(path).read_text())]
        again = [Run(**r) for r in saved]
        print(table(again) + "\n\n" + "\n".join(goals(again)))
        return
    if args.all:
        args.loads, args.queries = ",".join(LOADS), "all"
    todo = []
    for load in args.loads.split(","):
        methods = args.methods.split(",") if args.methods else \
            (WAVE_METHODS if load in ("sine", "square") else OTHER_METHODS)
        for job in (args.queries.split(",") if args.queries != "all" else LOADS[load]):
            todo += [(job, load, m) for m in methods]
    work = Path(args.work)
    shutil.rmtree(work, ignore_errors=True)
    began = time.monotonic()
    runs: list[Run] = []
    done: list[Run] = []
    lock = threading.Lock()

    def go(cluster: FlinkCluster, item: tuple[str, str, str]) -> Run:
        run = one(cluster, work, *item, args.window, args.seed)
        print(table([run]).splitlines()[-1], flush=True)
        with lock:  # each run kept as it ends: an interrupted bench keeps what finished
            done.append(run)
            if args.out:
                _save(Path(args.out), done)
        return run

    runs = side_by_side(args.flink, work, args.workers, todo, go)
    took = time.monotonic() - began
    print(f"\nFlink {args.flink}, window {args.window:g} s, {len(runs)} runs on "
          f"{args.workers} clusters side by side in {took / 60:.0f} min\n")
    print(table(runs) + "\n\n" + "\n".join(goals(runs)))
    if args.out:
        _save(Path(args.out), runs)


def _save(path: Path, runs: list[Run]) -> None:
    partial = path.with_name(path.name + ".partial")
    partial.write_text(json.dumps([asdict(r) for r in runs], indent=1))
    partial.replace(path)


if __name__ == "__main__":
    main()
