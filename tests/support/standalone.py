"""A real Spark standalone cluster on 127.0.0.1: a Master and Workers, each a JVM of its
own started by pyspark's ``bin/spark-class``, as an operator would start them by hand.

Ports are the ones the daemons pick themselves (port 0) and read back from their log
lines, so nothing else on the machine can take them in between; readiness is a log line,
never a delay.
"""

from __future__ import annotations

import os
import queue
import re
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

STARTUP = 180  # seconds a daemon may take to say it is ready before the tests give up


@dataclass
class Daemon:
    process: subprocess.Popen[str]
    lines: queue.Queue[str] = field(default_factory=queue.Queue)
    log: list[str] = field(default_factory=list)

    def start_reading(self) -> None:
        def pump() -> None:
            stream = self.process.stderr or self.process.stdout  # the one piped
            assert stream is not None
            for line in stream:
                self.log.append(line)
                self.lines.put(line)
            self.lines.put("")  # the daemon ended
        threading.Thread(target=pump, daemon=True).start()

    def wait_for(self, pattern: str) -> re.Match[str]:
        """The first log line matching ``pattern``; fails if the daemon ends first."""
        while True:
            try:
                line = self.lines.get(timeout=STARTUP)
            except queue.Empty:
                raise AssertionError(f"no {pattern!r} from the daemon:\n" +
                                     "".join(self.log[-30:])) from None
            if not line:
                raise AssertionError("the daemon ended:\n" + "".join(self.log[-30:]))
            found = re.search(pattern, line)
            if found:
                return found


def stop_all(daemons: list[Daemon]) -> None:
    """Ask every daemon to stop (SIGTERM, as their own stop scripts do), then wait for each."""
    for daemon in daemons:
        daemon.process.terminate()
    for daemon in daemons:
        try:
            daemon.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            daemon.process.kill()


@dataclass(frozen=True)
class Cluster:
    master: str  # spark://127.0.0.1:PORT
    web: str     # http://127.0.0.1:PORT, the Master's web UI (its /json/ is the state)
    workers: int
    cores: int   # per worker
    hidden: Path | None = None  # a folder the workers and executors see empty


HIDE = 'mount -t tmpfs tmpfs "$0" && exec "$@"'


def hiding(folder: Path) -> list[str] | None:
    """A command prefix that runs a program in a mount namespace of its own where
    ``folder`` is an empty tmpfs, as on a machine that does not share this one's storage;
    None where this machine cannot make one (no unshare, no user namespaces)."""
    (folder / "probe").write_text("")
    try:
        for unshare in (["unshare", "--mount"],
                        ["unshare", "--user", "--map-current-user", "--mount"]):
            prefix = [*unshare, "sh", "-c", HIDE, str(folder)]
            try:
                seen = subprocess.run([*prefix, "test", "-e", str(folder / "probe")],
                                      capture_output=True, timeout=60)
            except (OSError, subprocess.TimeoutExpired):
                continue
            if seen.returncode == 1:  # it ran, and the file is not there
                return prefix
        return None
    finally:
        (folder / "probe").unlink()


def spark_home() -> Path:
    import pyspark

    return Path(pyspark.__file__).parent


def _start(args: list[str], home: Path, work: Path, prefix: list[str] | None = None) -> Daemon:
    env = {**os.environ, "SPARK_HOME": str(home), "SPARK_LOCAL_IP": "127.0.0.1",
           "SPARK_WORKER_DIR": str(work), "SPARK_NO_DAEMONIZE": "1"}
    process = subprocess.Popen([*(prefix or []), str(home / "bin" / "spark-class"), *args],
                               env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    daemon = Daemon(process)
    daemon.start_reading()
    return daemon


@contextmanager
def standalone_cluster(work: Path, workers: int = 2, cores: int = 2,
                       hidden: Path | None = None) -> Iterator[Cluster]:
    """A Master and ``workers`` Workers; with ``hidden``, the Workers (and so their
    executors) see that folder empty, where this machine can hide it (``Cluster.hidden``)."""
    home = spark_home()
    prefix = hiding(hidden) if hidden is not None else None
    daemons: list[Daemon] = []
    try:
        master = _start(["org.apache.spark.deploy.master.Master", "--host", "127.0.0.1",
                         "--port", "0", "--webui-port", "0"], home, work)
        daemons.append(master)
        url = master.wait_for(r"Starting Spark master at (spark://\S+)").group(1)
        web = master.wait_for(r"started at (http://\S+)").group(1)
        for k in range(workers):
            worker = _start(["org.apache.spark.deploy.worker.Worker", url, "--host",
                             "127.0.0.1", "--cores", str(cores), "--memory", "1g",
                             "--webui-port", "0", "--work-dir", str(work / f"worker{k}")],
                            home, work, prefix)
            daemons.append(worker)
            worker.wait_for(r"Successfully registered with master")
        yield Cluster(url, web.rstrip("/"), workers, cores, hidden if prefix else None)
    finally:
        stop_all(daemons)
