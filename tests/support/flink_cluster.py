"""A real Flink session cluster on 127.0.0.1 from the PyPI packages ``apache-flink`` and
``apache-flink-libraries`` (which carry Flink's own scripts and jars), started as an operator
would: ``bin/jobmanager.sh start-foreground`` and ``bin/taskmanager.sh start-foreground``.

The packages are fetched with ``pip download`` (no install: only the Java side is used) into a
cache folder and unpacked into a FLINK_HOME of real files (Flink's scripts do not follow a
symlinked ``lib/``). The REST port is the one the JobManager picks itself, read from its log
line; readiness is a log line, never a delay. ``tests/support/flink_job/PacedJob.java`` is compiled
with javac against the version's own jars.

Jobs are submitted over the REST API (``POST /jars/upload`` once, then ``/jars/:jarid/run``):
a ``flink run`` starts a client JVM per job, seconds each on a busy machine. ``run`` keeps
the command line for the tests that check what a user's ``flink run -D`` does.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import socket
import subprocess
import sys
import tarfile
import urllib.error
import urllib.request
import uuid
import zipfile
from collections.abc import Iterator, Mapping
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import pytest

from .standalone import Daemon, stop_all

JOB_SOURCES = Path(__file__).parent / "flink_job"  # PacedJob.java, LoadedJob.java
PARTS = ("bin", "conf", "lib", "opt", "plugins")
REQUEST_TIMEOUT = 30
SUBMIT_TIMEOUT = 300  # a hang guard: the JobManager runs the job's main() before it answers
RATE = 50  # records per second per source subtask: light enough for a busy machine


def cache_folder() -> Path:
    return Path(os.environ.get("STREAMPLACE_E2E_CACHE",
                               Path.home() / ".cache" / "streamplace-e2e"))


def flink_home(version: str) -> Path:
    """FLINK_HOME of ``version``, downloaded and unpacked once per cache folder. Several
    test workers may ask at once on a fresh machine: one fetches while the others wait on
    the folder's lock, then find it there."""
    home = cache_folder() / f"flink-{version}"
    if (home / "lib").is_dir():
        return home
    home.parent.mkdir(parents=True, exist_ok=True)
    with open(home.with_name(home.name + ".lock"), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if (home / "lib").is_dir():
            return home
        return _fetch(version, home)


def _fetch(version: str, home: Path) -> Path:
    downloads = cache_folder() / f"downloads-{version}"
    subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d",
                    str(downloads), f"apache-flink=={version}",
                    f"apache-flink-libraries=={version}"], check=True, timeout=900)
    partial = home.with_name(home.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    for archive in sorted(downloads.iterdir()):
        _unpack(archive, partial)
    for script in (partial / "bin").iterdir():
        script.chmod(0o755)
    partial.rename(home)
    return home


def _unpack(archive: Path, home: Path) -> None:
    """The members under ``pyflink/`` (wheels) or ``deps/`` (the 1.x libraries' sdist)
    whose next folder is one of FLINK_HOME's."""
    def target(name: str) -> Path | None:
        parts = name.split("/")
        for k, part in enumerate(parts[:-2]):
            if part in ("pyflink", "deps") and parts[k + 1] in PARTS:
                return home.joinpath(*parts[k + 1:])
        return None

    if archive.suffix == ".whl":
        with zipfile.ZipFile(archive) as whl:
            for info in whl.infolist():
                out = target(info.filename)
                if out is not None and not info.is_dir():
                    out.parent.mkdir(parents=True, exist_ok=True)
                    out.write_bytes(whl.read(info))
    else:
        with tarfile.open(archive) as sdist:
            for member in sdist.getmembers():
                out = target(member.name)
                source = sdist.extractfile(member) if member.isfile() else None
                if out is not None and source is not None:
                    out.parent.mkdir(parents=True, exist_ok=True)
                    out.write_bytes(source.read())


def job_jar(home: Path, work: Path) -> Path:
    classes = work / "classes"
    classes.mkdir(parents=True, exist_ok=True)
    subprocess.run(["javac", "-cp", str(home / "lib" / "*"), "-d", str(classes),
                    *map(str, sorted(JOB_SOURCES.glob("*.java")))], check=True, timeout=300)
    jar = work / "paced.jar"
    subprocess.run(["jar", "cf", str(jar), "-C", str(classes), "."], check=True, timeout=300)
    return jar


@dataclass(frozen=True)
class FlinkCluster:
    home: Path
    conf: Path
    rest: str  # http://127.0.0.1:PORT
    jar: Path

    def get(self, path: str) -> dict:  # type: ignore[type-arg]
        with urllib.request.urlopen(self.rest + path, timeout=REQUEST_TIMEOUT) as response:
            return json.loads(response.read())  # type: ignore[no-any-return]

    def put(self, path: str, body: str) -> int:
        request = urllib.request.Request(self.rest + path, data=body.encode(), method="PUT",
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=REQUEST_TIMEOUT) as response:
            return int(response.status)

    def submit(self, job: str = "PacedJob", args: tuple[str, ...] = (str(RATE),),
               parallelism: int | None = None,
               settings: Mapping[str, str] | None = None) -> str:
        """Submit ``job`` (the paced job) over the REST API, with ``settings`` as the
        job's Flink configuration (``flink run -D``'s); its JobID."""
        body: dict[str, object] = {"entryClass": job, "programArgsList": list(args)}
        if parallelism is not None:
            body["parallelism"] = parallelism
        if settings:
            body["flinkConfiguration"] = dict(settings)
        answer = self._post(f"/jars/{self.jar_id}/run", json.dumps(body).encode(),
                            "application/json")
        return str(answer["jobid"])

    @cached_property
    def jar_id(self) -> str:
        """The job jar's id on the cluster, uploaded at the first submission."""
        boundary = uuid.uuid4().hex
        body = (f'--{boundary}\r\nContent-Disposition: form-data; name="jarfile"; '
                f'filename="{self.jar.name}"\r\nContent-Type: application/x-java-archive'
                "\r\n\r\n").encode() + self.jar.read_bytes() + f"\r\n--{boundary}--\r\n".encode()
        answer = self._post("/jars/upload", body, f"multipart/form-data; boundary={boundary}")
        return str(answer["filename"]).rsplit("/", 1)[-1]

    def _post(self, path: str, body: bytes, kind: str) -> dict:  # type: ignore[type-arg]
        request = urllib.request.Request(self.rest + path, data=body, method="POST",
                                         headers={"Content-Type": kind})
        try:
            with urllib.request.urlopen(request, timeout=SUBMIT_TIMEOUT) as response:
                return json.loads(response.read())  # type: ignore[no-any-return]
        except urllib.error.HTTPError as exc:  # Flink's own words, in the test's failure
            raise AssertionError(f"POST {path}: {exc.code} {exc.read().decode()}") from exc

    def run(self, *flags: str, job: str = "PacedJob", args: tuple[str, ...] = (str(RATE),)) -> str:
        """Submit ``job`` (the paced job) detached with ``flink run``, as a user does; its
        JobID."""
        done = subprocess.run(
            [str(self.home / "bin" / "flink"), "run", "-m", self.rest.removeprefix("http://"),
             "-d", *flags, "-c", job, str(self.jar), *args],
            env=flink_env(self.conf), capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout.split("JobID")[-1].split()[0]

    def cancel(self, job: str) -> None:
        """Cancel ``job``; one that has ended already (409 Conflict) is left as it is."""
        request = urllib.request.Request(f"{self.rest}/jobs/{job}?mode=cancel",
                                         method="PATCH")
        try:
            urllib.request.urlopen(request, timeout=REQUEST_TIMEOUT).close()
        except urllib.error.HTTPError as exc:
            if exc.code != 409:
                raise


def flink_env(conf: Path) -> dict[str, str]:
    return {**os.environ, "FLINK_CONF_DIR": str(conf), "FLINK_LOG_DIR": str(conf.parent),
            "FLINK_PID_DIR": str(conf.parent)}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def write_conf(home: Path, conf: Path, settings: dict[str, str]) -> None:
    shutil.copytree(home / "conf", conf)
    java_opts = next(line.split("all:", 1)[1].strip()
                     for line in (home / "conf" / "config.yaml").read_text().splitlines()
                     if line.strip().startswith("all: --add"))
    base = {"jobmanager.rpc.address": "localhost", "jobmanager.bind-host": "localhost",
            # the TaskManager must be told this port; the others are picked by each daemon
            "jobmanager.rpc.port": str(free_port()),
            "jobmanager.memory.process.size": "1024m", "taskmanager.bind-host": "localhost",
            "taskmanager.host": "localhost", "taskmanager.numberOfTaskSlots": "4",
            "taskmanager.memory.process.size": "1280m", "rest.address": "localhost",
            "rest.bind-address": "localhost", "rest.bind-port": "0",
            "parallelism.default": "1", "env.java.opts.all": java_opts}
    lines = [f"{key}: {json.dumps(value)}" for key, value in {**base, **settings}.items()]
    (conf / "config.yaml").write_text("\n".join(lines) + "\n")


def _start(home: Path, conf: Path, script: str) -> Daemon:
    process = subprocess.Popen([str(home / "bin" / script), "start-foreground"],
                               env=flink_env(conf), stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
    daemon = Daemon(process)
    daemon.start_reading()
    return daemon


@contextmanager
def flink_cluster(version: str, work: Path, settings: dict[str, str] | None = None,
                  taskmanagers: int = 1) -> Iterator[FlinkCluster]:
    """A JobManager and ``taskmanagers`` 4-slot TaskManagers of Flink ``version``."""
    home = flink_home(version)
    conf = work / "conf"
    write_conf(home, conf, settings or {})
    jar = job_jar(home, work)
    daemons: list[Daemon] = []
    try:
        jobmanager = _start(home, conf, "jobmanager.sh")
        daemons.append(jobmanager)
        port = jobmanager.wait_for(r"Rest endpoint listening at [\w.]+:(\d+)").group(1)
        for _ in range(taskmanagers):
            taskmanager = _start(home, conf, "taskmanager.sh")
            daemons.append(taskmanager)
            taskmanager.wait_for(r"Successful registration at resource manager")
        yield FlinkCluster(home, conf, f"http://127.0.0.1:{port}", jar)
    finally:
        stop_all(daemons)


@contextmanager
def extra_taskmanager(cluster: FlinkCluster) -> Iterator[Daemon]:
    """One more 4-slot TaskManager in ``cluster``, registered before this yields; stopped
    at the end unless the test stopped it first (as a container stop does: SIGTERM)."""
    taskmanager = _start(cluster.home, cluster.conf, "taskmanager.sh")
    try:
        taskmanager.wait_for(r"Successful registration at resource manager")
        yield taskmanager
    finally:
        stop_all([taskmanager])


SETTINGS = {"jobmanager.scheduler": "adaptive", "metrics.fetcher.update-interval": "1000",
            # 1.20's names, then 2.x's: rescale at once, as a test needs
            "jobmanager.adaptive-scheduler.resource-stabilization-timeout": "0 s",
            "jobmanager.adaptive-scheduler.scaling-interval.min": "0 s",
            "jobmanager.adaptive-scheduler.submission.resource-stabilization-timeout": "0 s",
            "jobmanager.adaptive-scheduler.executing.cooldown-after-rescaling": "0 s",
            "jobmanager.adaptive-scheduler.executing.resource-stabilization-timeout": "1 s",
            # a job restarts after a lost TaskManager, as production jobs are set to (without
            # checkpointing, Flink's default is to fail it)
            "restart-strategy.type": "fixed-delay",
            "restart-strategy.fixed-delay.attempts": "10",
            "restart-strategy.fixed-delay.delay": "1 s",
            # a job scaled down gives its idle slots back to the cluster after 5 s, not 50:
            # autoscale over the cluster waits for them before a scale-up takes them
            "slot.idle.timeout": "5000",
            # a job that emits latency markers (-Dmetrics.latency.interval) keeps each
            # histogram over the last 10 (a TaskManager's setting); markers are off by
            # default, as they count in the bytes a vertex sends
            "metrics.latency.history-size": "10"}
"""The end-to-end tier's clusters: the adaptive scheduler (the REST body, apply), metrics
fetched every second (the windows of observe), and every rescale at once."""


class ClusterPool:
    """One session cluster per Flink version (two 4-slot TaskManagers), started when a test
    first asks for it and shared by the tier's modules: starting one takes 25-70 s."""

    def __init__(self, work: Path) -> None:
        self.work = work
        self.started: dict[str, FlinkCluster] = {}
        self.stack = ExitStack()

    def get(self, version: str) -> FlinkCluster:
        if version not in self.started:
            self.started[version] = self.stack.enter_context(
                flink_cluster(version, self.work / f"flink-{version}", SETTINGS,
                              taskmanagers=2))
        return self.started[version]

    def close(self) -> None:
        self.stack.close()


def worker_of(version: str, share: str = "") -> pytest.MarkDecorator:
    """Under ``make test`` (pytest-xdist, ``--dist loadgroup``) the tests of one group run on
    one worker, whose pool starts the group's cluster once; the groups run beside each
    other. ``share`` names a second group on ``version``, with a cluster of its own."""
    return pytest.mark.xdist_group(f"flink-{version}" + (f"-{share}" if share else ""))


VERSIONS = [pytest.param(version, marks=worker_of(version)) for version in ("1.20.3", "2.2.1")]
"""The versions a module runs on whole, each test on its version's worker."""
