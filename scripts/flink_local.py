"""A live Flink to try streamplace on: a Flink 2.2.1 session cluster on 127.0.0.1 (a
JobManager and two TaskManagers of 4 slots, the adaptive scheduler) running a
Nexmark-shaped job (q1: bids -> convert -> sink; a convert subtask takes about 100
events/s) at a chosen rate, started at parallelism 1. Its files stay in one folder
(``out/flink`` by default): the job's address in ``job``, Flink's logs in ``log/``.

    python scripts/flink_local.py start [--rate 150] [--query q1]   # make flink
    python scripts/flink_local.py rate 300                          # make flink-rate RATE=300
    python scripts/flink_local.py stop                              # make flink-stop

Flink comes from PyPI (``apache-flink``, ``apache-flink-libraries``: about 300 MB, fetched
once into ``~/.cache/streamplace-e2e`` or ``$STREAMPLACE_E2E_CACHE``); the job is compiled
with the JDK's ``javac``. The daemons are started as an operator starts them
(``bin/jobmanager.sh start``, ``bin/taskmanager.sh start``) and outlive this script;
``stop`` stops them with the same scripts.
"""

from __future__ import annotations

import argparse
import json
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.support.flink_cluster import (  # noqa: E402  (the repository's root first)
    SETTINGS,
    FlinkCluster,
    flink_env,
    flink_home,
    free_port,
    job_jar,
    write_conf,
)
from tests.support.nexmark import PARTITIONS, WORK  # noqa: E402

VERSION = "2.2.1"
TASKMANAGERS = 2
READY = 300  # seconds the daemons may take to answer, at most (a busy machine: about 30)
QUERIES = ("q1", "q2", "q5", "q8", "q11", "qc")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--folder", type=Path, default=ROOT / "out" / "flink")
    verbs = parser.add_subparsers(dest="verb", required=True)
    start = verbs.add_parser("start", help="start the cluster and the job")
    start.add_argument("--rate", type=float, default=150.0, help="events/s offered")
    start.add_argument("--query", choices=QUERIES, default="q1")
    start.add_argument("--port", type=int, default=8081,
                       help="the REST port (another one if it is taken)")
    rate = verbs.add_parser("rate", help="offer another rate from now on")
    rate.add_argument("rate", type=float)
    verbs.add_parser("stop", help="stop the job and the cluster")
    args = parser.parse_args()
    folder: Path = args.folder.resolve()
    if args.verb == "start":
        return _start(folder, args.rate, args.query, args.port)
    if args.verb == "rate":
        return _rate(folder, args.rate)
    return _stop(folder)


def _start(folder: Path, rate: float, query: str, port: int) -> int:
    if (folder / "job").exists():
        print(f"already running: {(folder / 'job').read_text().strip()} "
              "(make flink-stop first)", file=sys.stderr)
        return 1
    if rate <= 0:
        print("--rate: give events per second above 0", file=sys.stderr)
        return 2
    home = flink_home(VERSION)
    shutil.rmtree(folder, ignore_errors=True)
    (folder / "log").mkdir(parents=True)
    port = port if _free(port) else free_port()
    write_conf(home, folder / "conf", {**SETTINGS, "rest.bind-port": str(port),
                                       "rest.port": str(port)})
    env = flink_env(folder / "conf") | {"FLINK_LOG_DIR": str(folder / "log"),
                                        "FLINK_PID_DIR": str(folder)}
    subprocess.run([str(home / "bin" / "jobmanager.sh"), "start"], env=env, check=True,
                   capture_output=True)
    for _ in range(TASKMANAGERS):
        subprocess.run([str(home / "bin" / "taskmanager.sh"), "start"], env=env, check=True,
                       capture_output=True)
    rest = f"http://127.0.0.1:{port}"
    cluster = FlinkCluster(home, folder / "conf", rest, job_jar(home, folder / "build"))
    _until(lambda: cluster.get("/overview")["slots-total"] == 4 * TASKMANAGERS,
           "the TaskManagers to register", folder)
    topic = folder / "bids"
    topic.mkdir()
    (topic / "schedule").write_text(f"{int(time.time() * 1000)} {rate:g}\n")
    job = cluster.submit("NexmarkJob", (query, f"{rate:g}", str(PARTITIONS), str(WORK),
                                        str(folder)), 1)
    _until(lambda: _statuses(cluster, job) == {"RUNNING"}, "every subtask to run", folder)
    url = f"{rest}/jobs/{job}"
    (folder / "job").write_text(url + "\n")
    print(f"Flink {VERSION} on {rest} (web UI), {TASKMANAGERS} TaskManagers of 4 slots\n"
          f"{query} offered {rate:g} events/s at parallelism 1: {url}\n"
          f"its address is in {_shown(folder / 'job')}; another rate: make flink-rate "
          "RATE=300; stop: make flink-stop")
    return 0


def _rate(folder: Path, rate: float) -> int:
    schedule = folder / "bids" / "schedule"
    if not schedule.exists():
        print("no local Flink runs here: make flink first", file=sys.stderr)
        return 1
    if rate <= 0:
        print("RATE: give events per second above 0", file=sys.stderr)
        return 2
    with schedule.open("a") as lines:  # the job's source reads it every few milliseconds
        lines.write(f"{int(time.time() * 1000)} {rate:g}\n")
    print(f"offering {rate:g} events/s from now on")
    return 0


def _stop(folder: Path) -> int:
    if not (folder / "conf").exists():
        print("no local Flink runs here", file=sys.stderr)
        return 0
    home = flink_home(VERSION)
    env = flink_env(folder / "conf") | {"FLINK_LOG_DIR": str(folder / "log"),
                                        "FLINK_PID_DIR": str(folder)}
    for script, verb in (("taskmanager.sh", "stop-all"), ("jobmanager.sh", "stop-all")):
        subprocess.run([str(home / "bin" / script), verb], env=env, check=False,
                       capture_output=True)
    (folder / "job").unlink(missing_ok=True)
    print("stopped the local Flink")
    return 0


def _statuses(cluster: FlinkCluster, job: str) -> set[str]:
    """Every subtask's status, as observe reads them (a vertex's details lag the job's
    state by the JobManager's cache)."""
    return {s["status"] for v in cluster.get(f"/jobs/{job}")["vertices"]
            for s in cluster.get(f"/jobs/{job}/vertices/{v['id']}")["subtasks"]}


def _until(ready: Callable[[], bool], what: str, folder: Path) -> None:
    """Poll ``ready`` until it holds, for READY seconds at most (then the logs' folder is
    named). Unlike the suite's ``until``, a daemon not answering yet is waited for, and
    a wait that ends unmet ends the script."""
    ends = time.monotonic() + READY
    while time.monotonic() < ends:
        try:
            if ready():
                return
        except (urllib.error.URLError, OSError, KeyError, json.JSONDecodeError):
            pass  # not answering yet
        time.sleep(0.5)
    raise SystemExit(f"gave up waiting for {what} after {READY} s: see {folder / 'log'}")


def _free(port: int) -> bool:
    with socket.socket() as probe:
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def _shown(path: Path) -> str:
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


if __name__ == "__main__":
    sys.exit(main())
