"""Autoscaling Nexmark-shaped jobs on real Flink: ``autoscale --method odrp``, ``ds2`` and
``flink`` (the Flink autoscaler's rule), side by side on the same jobs and rate scenarios.

The jobs (tests/support/flink_job/NexmarkJob.java) read topics whose events arrive at a
scheduled rate (a broker's topic: four partitions; the source reports ``pendingRecords``
and its partitions as Flink's Kafka source does). Every job starts at parallelism 1:

- q1: bids -> convert (map) -> sink;            q2: bids -> select (filter) -> sink;
- q5: bids -> hot items (keyed sliding window, 3 bids in 10 to 8 hot auctions) -> sink;
- q8: people, auctions -> join (tumbling window join) -> sink;
- q11: bids -> sessions (keyed session window) -> sink.

Scenarios (W the metrics window):

- ``known``: a constant rate;
- ``step``: the rate doubles once the job has settled;
- ``backlog``: the source is paused for 4 W (events keep arriving), then released;
- ``flap``: the rate doubles and halves every 2 W, for 10 W.

Each run: ``--metrics-window W --stabilization-interval W --scale-down-interval 6W
--catch-up-duration 6W --restart-time 5`` (a rescale here stops the job 3-5 s; Flink's own
default of 300 s against a catch-up of 6 W would ask for six times the rate).

Printed per job x scenario x method: rescales until the first window without backpressure,
rescales in all (and under the flapping rate), slots at the end (the most subtasks of any
vertex: one slot-sharing group), seconds the sources were back-pressured, seconds to drain
the backlog after its release, and the heaviest vertex's busiest subtask against what the
last rescale predicted for it.

    python bench/autoscale.py                      # q1 at a known rate, the three methods
    python bench/autoscale.py --all --window 8 --workers 3   # every job and scenario
    python bench/autoscale.py --queries q1 --scenarios known,step,backlog,flap --flink 1.20.3
"""

from __future__ import annotations

import argparse
import json
import re
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

PARTITIONS, WORK = 4, 10_000  # per topic; microseconds of work per event in the work vertex
RATES = {"q1": 150.0, "q2": 150.0, "q5": 150.0, "q8": 50.0, "q11": 150.0}
TOPICS = {"q8": ("people", "auctions")}
PRESSED = 100.0  # ms per second back-pressured: the source is held back


@dataclass
class Run:
    job: str
    scenario: str
    method: str
    rescales: int = 0
    to_free: int | None = None      # rescales until a window without backpressure
    flap_rescales: int | None = None
    slots: int = 0
    pressed_s: float = 0.0
    drain_s: float | None = None
    busy: float | None = None       # the heaviest vertex's busiest subtask, last window
    predicted: float | None = None  # its utilisation the model gives at the rate offered
    rate: float = 0.0               # the topics' rate at the end
    decisions: list[dict] = field(default_factory=list)  # type: ignore[type-arg]


class Topics:
    """The schedules of a job's topics: the rate from now on, appended."""

    def __init__(self, folder: Path, names: tuple[str, ...]) -> None:
        self.folders = [folder / name for name in names]
        for f in self.folders:
            f.mkdir(parents=True, exist_ok=True)
            (f / "schedule").write_text("")

    def rate(self, rate: float) -> None:
        self.now = rate
        now = int(time.time() * 1000)
        for f in self.folders:
            with (f / "schedule").open("a") as out:
                out.write(f"{now} {rate}\n")

    def hold(self, on: bool) -> None:
        for f in self.folders:
            (f / "hold").touch() if on else (f / "hold").unlink(missing_ok=True)


def _pressed_ms(cluster: FlinkCluster, job: str) -> dict[str, float]:
    """Each source's accumulated back-pressured milliseconds (over its subtasks, since the
    job last started them)."""
    return {v["id"]: float(v["metrics"].get("accumulated-backpressured-time", 0))
            for v in cluster.get(f"/jobs/{job}")["vertices"] if v["name"].startswith("Source")}


def _pending(cluster: FlinkCluster, job: str, vid: str) -> float:
    listed = cluster.get(f"/jobs/{job}/vertices/{vid}/subtasks/metrics")
    ids = [m["id"] for m in listed if m["id"].endswith(".pendingRecords")]
    if not ids:
        return 0.0
    got = cluster.get(f"/jobs/{job}/vertices/{vid}/subtasks/metrics?get={','.join(ids)}")
    return sum(float(m.get("sum", 0)) for m in got)


def _scenario(scenario: str, topics: Topics, rate: float, window: float, run: Run,
              clock: dict[str, float], stop: threading.Event) -> float:
    """Drive the rates; returns the seconds the scenario lasts."""
    def at(seconds: float) -> bool:
        return not stop.wait(max(0.0, clock["start"] + seconds - time.monotonic()))

    if scenario == "known":
        return 16 * window
    if scenario == "step":
        if at(8 * window):
            topics.rate(2 * rate)
        return 20 * window
    if scenario == "backlog":
        if at(2 * window):
            topics.hold(True)
        if at(6 * window):
            topics.hold(False)
            clock["released"] = time.monotonic()
        return 20 * window
    if scenario == "flap":
        clock["flap"] = clock["start"] + 8 * window
        for k in range(5):
            if at(8 * window + 4 * k * window):
                topics.rate(2 * rate)
            if at(10 * window + 4 * k * window):
                topics.rate(rate)
        clock["flap_end"] = time.monotonic()
        return 30 * window
    raise SystemExit(f"no scenario {scenario}")


def one(cluster: FlinkCluster, work: Path, job_name: str, scenario: str, method: str,
        window: float) -> Run:
    run = Run(job_name, scenario, method)
    folder = work / f"{job_name}-{scenario}-{method}"
    topics = Topics(folder, TOPICS.get(job_name, ("bids",)))
    rate = RATES[job_name]
    topics.rate(rate)
    job = cluster.submit("NexmarkJob", (job_name, str(rate), str(PARTITIONS), str(WORK),
                                        str(folder)))
    while cluster.get(f"/jobs/{job}")["state"] != "RUNNING":
        time.sleep(0.5)
    sources = [v["id"] for v in cluster.get(f"/jobs/{job}")["vertices"]
               if v["name"].startswith("Source")]
    state = folder / "state.json"
    scaler = subprocess.Popen(
        [sys.executable, "-m", "streamplace", "autoscale", f"{cluster.rest}/jobs/{job}",
         "--method", method, "--metrics-window", str(window), "--stabilization-interval",
         str(window), "--scale-down-interval", str(6 * window), "--catch-up-duration",
         str(6 * window), "--restart-time", "5", "--yes", "--quiet", "--state", str(state),
         "--wait", "180"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    lines: list[str] = []
    threading.Thread(target=lambda: lines.extend(scaler.stdout or []), daemon=True).start()
    clock = {"start": time.monotonic()}
    stop = threading.Event()
    counted: dict[str, float] = {}
    drained = None
    duration = [16 * window]
    driver = threading.Thread(target=lambda: duration.__setitem__(
        0, _scenario(scenario, topics, rate, window, run, clock, stop)), daemon=True)
    driver.start()
    while time.monotonic() - clock["start"] < duration[0] or driver.is_alive():
        time.sleep(1.0)
        now = time.monotonic()
        try:
            pressed = _pressed_ms(cluster, job)
            lag = sum(_pending(cluster, job, vid) for vid in sources)
        except Exception:
            pressed, lag = {}, None
        for vid, ms in pressed.items():  # a restart starts the counter again
            seen = counted.get(vid, 0.0)
            run.pressed_s += (ms - seen if ms >= seen else ms) / 1000 / len(sources)
            counted[vid] = ms
        if "released" in clock and drained is None and lag is not None \
                and lag < rate * window:
            drained = now - clock["released"]
    stop.set()
    scaler.send_signal(signal.SIGTERM)
    scaler.wait(timeout=120)
    run.drain_s = round(drained, 1) if drained is not None else None
    run.decisions = [json.loads(x) for x in lines if x.startswith("{")]
    run.rate = topics.now
    run.slots = max(v["parallelism"] for v in cluster.get(f"/jobs/{job}")["vertices"])
    summarise(run, clock.get("flap", 0) - clock["start"],
              clock.get("flap_end", 0) - clock["start"])
    cluster.cancel(job)
    while cluster.get(f"/jobs/{job}")["state"] not in ("CANCELED", "FINISHED", "FAILED"):
        time.sleep(0.5)
    return run


def summarise(run: Run, flap_began: float, flap_ended: float) -> None:
    """The figures of a run from its decisions. The model's utilisation of the heaviest
    vertex is the last decision's prediction at the rate it planned for, scaled to the
    topics' true rate (the plan adds the backlog and the restart's queue to it)."""
    steps = [d for d in run.decisions if d.get("step")]
    rescaled = [d for d in steps if d["decision"] == "rescale"]
    run.rescales = len(rescaled)
    count = 0
    for d in steps:
        free = d.get("seen") and all(v["backpressured"] < 0.1 for v in d["seen"].values())
        if free and count:
            run.to_free = count
            break
        count += d["decision"] == "rescale"
    if flap_began > 0:
        run.flap_rescales = sum(1 for d in rescaled
                                if flap_began <= d["seconds"] <= flap_ended + 60)
    last = steps[-1] if steps else None
    if not (last and last.get("seen") and last.get("predicted")):
        return
    heavy = max((op for op, v in last["seen"].items() if last["predicted"].get(op)
                 is not None), key=lambda op: last["seen"][op]["busy_max"] or 0, default=None)
    planned = [float(x) for x in re.findall(r" ([\d.e+]+)/s", last.get("offered", ""))]
    if heavy and planned:
        run.busy = last["seen"][heavy]["busy_max"]
        run.predicted = last["predicted"][heavy] * run.rate / (sum(planned) / len(planned))


def table(runs: list[Run]) -> str:
    head = ("| job | scenario | method | rescales to no backpressure | rescales | under "
            "flapping | slots | s back-pressured | s to drain | busy / predicted |")
    rows = [head, "|" + "---|" * 10]
    for r in runs:
        cell = (f"{r.busy:.2f} / {r.predicted:.2f}" if r.busy is not None and r.predicted
                else "-")
        rows.append(f"| {r.job} | {r.scenario} | {r.method} | "
                    f"{'-' if r.to_free is None else r.to_free} | {r.rescales} | "
                    f"{'-' if r.flap_rescales is None else r.flap_rescales} | {r.slots} | "
                    f"{r.pressed_s:.0f} | {'-' if r.drain_s is None else r.drain_s} | "
                    f"{cell} |")
    return "\n".join(rows)


def goals(runs: list[Run], window: float) -> list[str]:
    """The issue's goals, each with the runs it holds on and the ones it does not."""
    by = {(r.job, r.scenario, r.method): r for r in runs}
    checks: dict[str, list[tuple[str, bool]]] = {}

    def check(goal: str, where: str, held: bool) -> None:
        checks.setdefault(goal, []).append((where, held))

    for r in runs:
        where = f"{r.job} {r.scenario} {r.method}"
        if r.busy is not None and r.predicted is not None:
            check("busy within 0.1 of predicted", where, abs(r.busy - r.predicted) <= 0.1)
        if r.scenario in ("known", "step"):
            check("one rescale to no backpressure", where, r.to_free == 1)
        if r.scenario == "flap" and r.flap_rescales is not None:
            check("at most 2 rescales under the flapping rate", where, r.flap_rescales <= 2)
        if r.scenario == "backlog":
            check(f"backlog drained within the catch-up ({6 * window:g} s)", where,
                  r.drain_s is not None and r.drain_s <= 6 * window)
        odrp = r if r.method == "odrp" else None
        others = [by.get((r.job, r.scenario, m)) for m in ("flink", "ds2")]
        if odrp and all(others):
            check("odrp: no more rescales than flink or ds2", where,
                  all(odrp.rescales <= o.rescales for o in others if o))
            flink = others[0]
            assert flink is not None
            check("odrp: no more slots at the end than flink", where, odrp.slots <= flink.slots)
    out = []
    for goal, results in checks.items():
        missed = [w for w, held in results if not held]
        out.append(f"- {goal}: {len(results) - len(missed)} of {len(results)}"
                   + (f" (not: {'; '.join(missed)})" if missed else ""))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--flink", default="2.2.1")
    parser.add_argument("--queries", default="q1")
    parser.add_argument("--scenarios", default="known")
    parser.add_argument("--all", action="store_true",
                        help="every job (q1,q2,q5,q8,q11) and scenario (known,step,backlog,flap)")
    parser.add_argument("--methods", default="odrp,ds2,flink")
    parser.add_argument("--window", type=float, default=10.0)
    parser.add_argument("--workers", type=int, default=1, help="clusters side by side")
    parser.add_argument("--work", default="/tmp/streamplace-bench-autoscale")
    parser.add_argument("--out", help="also write every run, decisions included, as JSON")
    parser.add_argument("--table", nargs="+", help="print the table of runs saved with --out "
                        "again (several files: the later ones' runs replace the earlier's)")
    args = parser.parse_args()
    if args.table:
        merged: dict[tuple[str, str, str], dict] = {}  # type: ignore[type-arg]
        for path in args.table:
            for r in json.loads(Path(path).read_text()):
                merged[(r["job"], r["scenario"], r["method"])] = r
        saved = list(merged.values())
        again = [Run(**dict(r.items())) for r in saved]
        print(table(again) + "\n\n" + "\n".join(goals(again, args.window)))
        return
    if args.all:
        args.queries, args.scenarios = "q1,q2,q5,q8,q11", "known,step,backlog,flap"
    work = Path(args.work)
    shutil.rmtree(work, ignore_errors=True)  # a run's clusters and topics start afresh
    todo = [(j, s, m) for j in args.queries.split(",") for s in args.scenarios.split(",")
            for m in args.methods.split(",")]
    runs: list[Run] = []
    def go(cluster: FlinkCluster, item: tuple[str, str, str]) -> Run:
        run = one(cluster, work, *item, args.window)
        print(table([run]).splitlines()[-1], flush=True)
        return run

    runs = side_by_side(args.flink, work, args.workers, todo, go)
    print(f"\nFlink {args.flink}, window {args.window:g} s, {PARTITIONS} partitions per topic, "
          f"{WORK} us of work per event\n")
    print(table(runs) + "\n\n" + "\n".join(goals(runs, args.window)))
    if args.out:
        Path(args.out).write_text(json.dumps([asdict(r) for r in runs], indent=1))


if __name__ == "__main__":
    main()
