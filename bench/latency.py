"""Latency markers against the model, (L3) of docs/models.md, where users run Flink.

Each Nexmark-shaped job (tests/support/flink_job/NexmarkJob.java) runs alone on a Flink
cluster at a rate that keeps its work vertex busy a known share of the time, with a marker
every 97 ms (``metrics.latency.interval: 97``: not a multiple of any buffer timeout, so
the markers are written at every phase of the flushers' cycle) and a history spanning a
whole number of the jobs' firing periods (``markers``). After 30 s, ``observe
--source-rate ...`` writes its application, infrastructure and plan, and ``observe --window
W --against PLAN`` compares each source-to-sink path's predicted mean, p99 and promise with
the markers' mean and p99.

The grid: Flink versions x TaskManagers (one 4-slot, or two 2-slot with every vertex at
two subtasks, so that half of each hop crosses between them) x buffer timeouts (ms; ``fill``
is a 1 s timeout with 8 KiB buffers, which the 540-byte events fill first) x jobs x busy
shares, the topics' events arriving evenly (``--arrivals even``) or four at a time, their
four partitions' together (``--arrivals together``). A case is "within" when the predicted
mean is within 20% of the measured mean and the p99 within 30%; a miss is named with its
cause: the flushers' phase (one run's mean lies within the model's band of the mean over
runs) or the model.

The model's mean is over the timers' phases: every task flushes on its own timer, so each
hop after the first adds an offset fixed while the tasks run, and a restart draws it again.
With ``--runs N`` each case is restarted N times on the same cluster and judged as one: its
measured mean is the mean over the runs (the mean of the markers pooled), and the pooled
p99, which lies between the runs' least and greatest p99, is taken as that range (the
prediction is within when it is within 30% of a value in it).

    python bench/latency.py                                  # the whole grid (~3 h)
    python bench/latency.py --flink 2.2.1 --taskmanagers 1 --queries q1,q2,q5
    python bench/latency.py --flink 2.2.1 --taskmanagers 1 --buffer-timeouts 100 --runs 3
    python bench/latency.py --summary /tmp/streamplace-bench-latency/*/latency.json
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from streamplace.control.flink.samples import HISTORY
from streamplace.control.running.hops import Hop, distribution
from tests.support.flink_cluster import SETTINGS, FlinkCluster, flink_cluster

PARTITIONS, WORK = 4, 10_000
CAPACITY = {"q1": 100.0, "qc": 100.0, "q2": 100.0, "q5": 88.0, "q8": 42.5, "q11": 100.0}
"""Events/s of one topic that keep one subtask of the work vertex busy: WORK us an event
(q5 counts a fifth of it in each of the five sliding windows an event falls in, and its
windows' upkeep costs an eighth more: busy 1.02-1.05 read at 90 events/s, Flink 2.2.1 and
1.20.3, one TaskManager; q8's join takes both its topics, each at this rate)."""
GROWTH = {"q8": 2.0}
"""How the work grows with the rate where it is not in proportion: q8 matches every person
with every auction of a window, so its work grows as the rate squared (busy 0.05, 0.31-0.36
and 1.12-1.21 read at 10, 25 and 45 events/s a topic, Flink 2.2.1, one TaskManager)."""
ARRIVALS = ("even", "together")
"""A topic's events arrive evenly (its partitions staggered, as a paced producer writing to
them in turn leaves them), or its PARTITIONS partitions' events arrive together, in bursts
of PARTITIONS (tests/support/flink_job/Arrivals.java)."""
INTERVAL = 0.097  # seconds between two markers of a source subtask
HELD = 1.2  # markers span this many windows: the model's window waits for its ends
PERIOD = 10.0
"""Seconds between two firings of q8's tumbling windows, the longest of the jobs' (q5's
sliding windows fire every 2 s): markers spanning a whole number of them hold as many
firings whenever they are read."""


def markers(window: float) -> int:
    """Markers a histogram keeps (``metrics.latency.history-size``), set here over the
    end-to-end tier's 10: as many as span a whole number of PERIOD, at least HELD windows.
    A span between two whole numbers holds one firing more or less as the read falls in the
    period: 372 markers, 36 s, read as three of q8's 4.6 s firings (0.83 of their share of
    the time: the markers' quantiles and mean) in six runs read at the same time after the
    job started (docs/benchmarks.md).
    206 at one per 97 ms span 20 s, two firings of q8's join, and every phase of a 100 ms
    timer (each marker 3 ms on from the last); 10 span 1 s, 30 ms of that timer's phases.

    >>> markers(10.0), markers(30.0)
    (206, 412)
    """
    span = math.ceil(HELD * window / PERIOD) * PERIOD
    return max(HISTORY, round(span / INTERVAL))


TOPICS = {"q8": ("people", "auctions")}
TIMEOUTS = {"10": {"execution.buffer-timeout.interval": "10 ms"},
            "100": {"execution.buffer-timeout.interval": "100 ms"},
            "fill": {"execution.buffer-timeout.interval": "1000 ms",
                     "taskmanager.memory.segment-size": "8kb"}}
MEAN_WITHIN, P99_WITHIN = 0.20, 0.30
SATURATED = 0.95  # a busy share read at which the queue grows: no steady latency


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    # an internal error is printed with its traceback, for the run that fails to name it
    return subprocess.run([sys.executable, "-m", "streamplace", *args], capture_output=True,
                          text=True, timeout=600, env={**os.environ, "STREAMPLACE_DEBUG": "1"})


def rate_at(query: str, busy: float, p: int) -> float:
    """Events/s of one topic that keep the work vertex's subtasks busy ``busy`` of the time."""
    return round(busy ** (1 / GROWTH.get(query, 1.0)) * CAPACITY[query] * p, 1)


def one(cluster: FlinkCluster, work: Path, query: str, busy: float, p: int,
        window: float, arrivals: str) -> list[dict]:  # type: ignore[type-arg]
    rate = rate_at(query, busy, p)
    folder = work / f"{query}-{busy:g}-{p}-{int(time.time())}"
    topics = TOPICS.get(query, ("bids",))
    for name in topics:
        (folder / name).mkdir(parents=True)
        (folder / name / "schedule").write_text(f"{int(time.time() * 1000)} {rate}\n")
        if arrivals == "even":
            (folder / name / "staggered").touch()
    job = cluster.submit("NexmarkJob", (query, str(rate), str(PARTITIONS), str(WORK),
                                        str(folder)), parallelism=p)
    rates = [f for name in topics for f in ("--source-rate", f"{name}={rate}")]
    try:
        while cluster.get(f"/jobs/{job}")["state"] != "RUNNING":
            time.sleep(0.5)
        time.sleep(30)  # then two windows are read: the histograms fill (one marker 97 ms)
        url = f"{cluster.rest}/jobs/{job}"
        files = {k: folder / f"{k}.yaml" for k in ("app", "infra", "plan")}
        made = _run("observe", url, "--window", str(window), *rates, "-o", str(files["app"]),
                    "--infrastructure-out", str(files["infra"]),
                    "--plan-out", str(files["plan"]), "-q")
        if made.returncode != 0:
            print(f"{query} busy {busy:g}: observe failed: {made.stderr.strip()}",
                  file=sys.stderr)
            return []
        held = _run("observe", url, "--window", str(window), *rates, "--against",
                    str(files["plan"]), "--application", str(files["app"]),
                    "--infrastructure", str(files["infra"]), "--json", "-q")
        if held.returncode not in (0, 1):  # 1: the job broke a promise of the plan
            print(f"{query} busy {busy:g}: observe --against failed: "
                  f"{held.stderr.strip()}", file=sys.stderr)
            return []
        drift = json.loads(held.stdout)["drift"]
        rows = drift["latency"]
        for row in rows:
            row.update(job=query, rate=rate, busy=busy, parallelism=p, arrivals=arrivals,
                       history=markers(window), window=window)
        if not rows:
            print(f"{query} busy {busy:g}: {drift['notes']}", file=sys.stderr)
        return rows  # type: ignore[no-any-return]
    finally:
        cluster.cancel(job)
        while cluster.get(f"/jobs/{job}")["state"] not in ("CANCELED", "FAILED", "FINISHED"):
            time.sleep(0.5)


def recompute(row: dict, barrier: float) -> dict:  # type: ignore[type-arg]
    """A row's (L3) prediction made again from its hops' terms, as the model now makes it
    (rows saved before observe read the job's checkpoint interval take ``barrier``
    seconds; before the hops carried their service, it is had from the queue's term,
    rho / (1 - rho) c_s^2 / 2 S)."""
    if not row.get("per_hop"):
        return row
    hops = []
    for i, h in enumerate(row["per_hop"]):
        rho, cs2, queue = h["busy"], h["variability"], float(h["queue"])
        service = h.get("service") or (queue * 2 * (1 - rho) / (rho * cs2)
                                       if rho and cs2 and rho < 1 else 0.0)
        delay = h.get("delay", row["delays"] if i == 0 else 0.0)
        hops.append(Hop(tuple(h["stream"]), h["flush"], h["filled"], rho, h["channels"],
                        float(service), cs2, h["measured"], delay,
                        float(h.get("barrier", barrier)), h.get("total"),
                        tuple(h.get("firings", [h["firing"]] if h.get("firing") else []))))
    got = distribution(tuple(hops))
    return {**row, "predicted_marker": got.mean, "predicted_p99": got.p99,
            "promised": got.promise, "dominant": got.dominant(tuple(hops))}


CASE = ("flink", "taskmanagers", "timeout", "arrivals", "history", "window", "job", "busy",
        "parallelism", "source", "operator")


def over_runs(rows: list[dict]) -> list[dict]:  # type: ignore[type-arg]
    """Each case's runs (rows alike in CASE) as one row: the means averaged (the pooled
    markers' mean is the mean of the runs' means, as they hold alike many), the p99 as the
    runs' range (``p99_low`` to ``measured_p99``: the pooled p99 lies in it), and the hops
    of the run whose busiest vertex read the most."""
    cases: dict[tuple, list[dict]] = {}  # type: ignore[type-arg]
    for r in rows:
        cases.setdefault(tuple(r.get(k) for k in CASE), []).append(r)
    out = []
    for runs in cases.values():
        if len(runs) == 1:
            out.append(runs[0])
            continue
        p99s = [float(r["measured_p99"]) for r in runs]
        averaged = {k: statistics.fmean(float(r[k]) for r in runs) for k in (
            "measured_mean", "predicted_marker", "predicted_p99", "predicted_r", "promised")}
        out.append({**max(runs, key=_busiest), **averaged, "runs": len(runs),
                    "measured_p99": max(p99s), "p99_low": min(p99s)})
    return out


def saved(row: dict) -> dict:  # type: ignore[type-arg]
    """A row as saved, with what rows saved before a field was kept had: their topics'
    events arrived together (the partitions were not staggered), and their histograms held
    the end-to-end tier's last 10 markers (the clusters' settings were taken whole), and
    were read over 10 s windows."""
    return {"arrivals": "together", "history": 10, "window": 10.0, **row}


def _off(predicted: float, low: float, high: float) -> float:
    """How far ``predicted`` is off the nearest value in [low, high], as a share of it."""
    nearest = min(max(predicted, low), high)
    return predicted / nearest - 1


def phase_spread(band: float, runs: int) -> float:
    """How far the timers' phases alone may take the mean of ``runs`` runs off the model's:
    one run's anywhere in the band; the mean of several within two standard deviations of
    the mean of as many offsets spread evenly over the band (band / sqrt 3 each, the most a
    sum of such offsets has), since the band's edges are then out of reach."""
    return min(band, 2 * band / math.sqrt(3 * runs))


def verdict(row: dict) -> str:  # type: ignore[type-arg]
    """Within, or the miss and its cause."""
    mean, p99 = row["measured_mean"], row["measured_p99"]
    predicted, predicted_p99 = float(row["predicted_marker"]), float(row["predicted_p99"])
    off_mean = predicted / mean - 1
    off_p99 = _off(predicted_p99, float(row.get("p99_low", p99)), p99)
    if abs(off_mean) <= MEAN_WITHIN and abs(off_p99) <= P99_WITHIN:
        return "within"
    causes = []
    if abs(off_mean) > MEAN_WITHIN:
        phase = abs(predicted - mean) <= phase_spread(row["phase_band"], row.get("runs", 1))
        causes.append(f"mean {off_mean:+.0%}" + (" (in the phase band)" if phase else ""))
    if abs(off_p99) > P99_WITHIN:
        causes.append(f"p99 {off_p99:+.0%}")
    return "; ".join(causes)


def _busiest(row: dict) -> float:  # type: ignore[type-arg]
    """The busy share the window read at the busiest vertex on the path."""
    return max((max(float(h["busy"]), float(h.get("total") or 0.0))  # all its work
                for h in row.get("per_hop", [])), default=0.0)


def table(rows: list[dict]) -> str:  # type: ignore[type-arg]
    out = ["| Flink | TMs | timeout | arrivals | history | W | job | busy (read) | events/s | "
           "runs | R | mean (model) | mean | p99 (model) | p99 | promised | mostly | verdict |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        ms = {k: float(r[k]) * 1000 for k in (  # a JSON "inf" is a path at its capacity
            "predicted_r", "predicted_marker", "measured_mean", "predicted_p99",
            "measured_p99", "promised")}
        p99 = f"{ms['measured_p99']:.0f}"
        if "p99_low" in r:
            p99 = f"{float(r['p99_low']) * 1000:.0f}-{p99}"
        out.append(f"| {r['flink']} | {r['taskmanagers']} | {r['timeout']} | "
                   f"{r['arrivals']} | {r['history']} | {r.get('window', 10.0):g} | {r['job']} | "
                   f"{r['busy']:g} ({_busiest(r):.2f}) | {r['rate']:g} | {r.get('runs', 1)} | "
                   f"{ms['predicted_r']:.0f} | "
                   f"{ms['predicted_marker']:.0f} | {ms['measured_mean']:.0f} | "
                   f"{ms['predicted_p99']:.0f} | {p99} | "
                   f"{ms['promised']:.0f} | {r['dominant']} | {verdict(r)} |")
    within = sum(verdict(r) == "within" for r in rows)
    steady = [r for r in rows if _busiest(r) < SATURATED and math.isfinite(
        float(r["predicted_marker"]))]
    out.append(f"\n{within} of {len(rows)} cases within (mean {MEAN_WITHIN:.0%}, p99 "
               f"{P99_WITHIN:.0%}); above the promise: "
               f"{sum(r['measured_p99'] > float(r['promised']) for r in rows)}")
    out.append(f"where the job keeps up (busy read below {SATURATED:g}, the model "
               f"bounded): {sum(verdict(r) == 'within' for r in steady)} of {len(steady)} "
               f"within, {sum('phase band' in verdict(r) for r in steady)} means off within "
               f"the timers' band, "
               f"{sum(r['measured_p99'] > float(r['promised']) for r in steady)} above the "
               "promise")
    return "\n".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--queries", default="q1,q2,q5,q11,qc,q8", help=(
        "in this order on each cluster: q8 last, since one over its capacity slows the "
        "jobs after it on the same TaskManager"))
    parser.add_argument("--busy", default="0.2,0.5,0.9", help="shares of the work vertex")
    parser.add_argument("--buffer-timeouts", default="10,100,fill")
    parser.add_argument("--taskmanagers", default="1,2")
    parser.add_argument("--flink", default="2.2.1,1.20.3")
    parser.add_argument("--runs", type=int, default=1, help=(
        "restarts of each case, judged as one (a restart draws the timers' phases again)"))
    parser.add_argument("--arrivals", default="even", choices=ARRIVALS, help=(
        "the topics' events arrive evenly, or their partitions' together"))
    parser.add_argument("--window", type=float, default=10.0)
    parser.add_argument("--work", default="/tmp/streamplace-bench-latency")
    parser.add_argument("--summary", nargs="*", help="print the table of saved runs only")
    parser.add_argument("--barrier", type=float, default=1.0, help=(
        "with --summary: the jobs' checkpoint interval (s), for rows saved without it"))
    args = parser.parse_args()
    if args.summary:
        print(table(over_runs([recompute(saved(r), args.barrier) for f in args.summary
                               for r in json.loads(Path(f).read_text())])))
        return
    work = Path(args.work) / time.strftime("%Y%m%d-%H%M%S")
    work.mkdir(parents=True)
    rows: list[dict] = []  # type: ignore[type-arg]
    for version in args.flink.split(","):
        for tms in map(int, args.taskmanagers.split(",")):
            for timeout in args.buffer_timeouts.split(","):
                settings = {**SETTINGS, "metrics.latency.interval": f"{INTERVAL * 1000:g}",
                            "metrics.latency.history-size": str(markers(args.window)),
                            "taskmanager.numberOfTaskSlots": str(4 // tms),
                            "taskmanager.load-balance.mode": "slots", **TIMEOUTS[timeout]}
                place = work / f"flink-{version}-{tms}-{timeout}"
                with flink_cluster(version, place, settings, taskmanagers=tms) as cluster:
                    for query in args.queries.split(","):
                        for busy in map(float, args.busy.split(",")):
                            for run in range(args.runs):
                                got = one(cluster, place, query, busy, tms, args.window,
                                          args.arrivals)
                                for r in got:
                                    r.update(flink=version, taskmanagers=tms,
                                             timeout=timeout, run=run)
                                    print(table([r]).splitlines()[2], flush=True)
                                rows += got
                                (work / "latency.json").write_text(json.dumps(rows, indent=1))
    print(f"\nW = {args.window:g} s\n{table(over_runs(rows))}")


if __name__ == "__main__":
    main()
