"""The Spark session extraction and sweeps run on: ``local[*]`` by default, any master on
request.

Inside ``spark-submit`` (or a notebook that already has a session) the session in place is
used as it is and left running; a session started here is stopped when the work is done.
"""

from __future__ import annotations

import contextlib
import enum
import os
import re
import shutil
import socket
import sys
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from streamplace.errors import EngineError, InputError

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


class Engine(enum.StrEnum):
    """Where extraction and sweeps do their data work: on Spark, or in this process."""

    SPARK = "spark"
    PYTHON = "python"

    @classmethod
    def named(cls, name: str) -> Engine:
        """The engine ``name`` says (exit 2 naming ``--engine`` otherwise).

        >>> Engine.named("python")
        <Engine.PYTHON: 'python'>
        """
        try:
            return cls(name)
        except ValueError:
            raise InputError.single(f"unknown engine {name!r}",
                                    f"use one of {', '.join(cls)}", path="--engine") from None


# The session started here: no UI, no console progress bar (it would interleave with
# the Rich progress on stderr), and no event log of its own.
_QUIET = {"spark.ui.enabled": "false", "spark.ui.showConsoleProgress": "false",
          "spark.eventLog.enabled": "false"}


@contextlib.contextmanager
def spark_session(master: str | None = None, quiet: bool = False,
                  name: str = "streamplace",
                  needs: tuple[str, ...] = (),
                  shared: Path | None = None) -> Iterator[SparkSession]:
    """The session to run on; ``master=None`` means the one in place, else ``local[*]``.
    ``quiet`` starts the JVM with its stderr on /dev/null (it announces its incubator
    modules there before any log configuration applies); failures still reach Python.
    On executors of their own, a task first checks that their Python imports ``needs``
    (the modules the work imports there), and that they see and can write to the folder
    ``shared`` (where they write results): exit 2 with the fix, not rows of errors or a
    results folder without data."""
    try:
        from pyspark.sql import SparkSession
    except ImportError as exc:  # pragma: no cover - pyspark is a dependency
        raise EngineError(f"PySpark is not installed ({exc}); pip install pyspark") from None
    active = SparkSession.getActiveSession()
    if active is not None:
        yield active
        return
    # a fresh builder: SparkSession.builder is shared and keeps earlier options
    builder = SparkSession.Builder().appName(name)
    for key, value in _QUIET.items():
        builder = builder.config(key, value)
    quiet_log = Path(__file__).with_name("log4j2.properties").as_uri()
    builder = builder.config("spark.driver.extraJavaOptions",
                             f"-Dlog4j2.configurationFile={quiet_log}")
    if master is not None or "PYSPARK_GATEWAY_PORT" not in os.environ:
        builder = builder.master(master or "local[*]")
    if master is not None and master.startswith("spark://"):
        check_reachable(master)
    if (master or "local").startswith("local"):
        # local workers must run this interpreter, which has the codecs installed
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    try:
        with _jvm_stderr_silenced(quiet):
            spark = builder.getOrCreate()
    except Exception as exc:  # Py4J and PySpark raise plain exceptions when the JVM fails
        raise EngineError(f"Spark did not start: {str(exc).strip().splitlines()[0]} — "
                          "check that Java 17+ is installed (JAVA_HOME) and the --master "
                          "URL is reachable") from None
    shipped = None
    try:
        if _remote_workers(str(spark.sparkContext.master)):
            shipped = _ship_package(spark)
            check_executors(spark, needs, shared)
        yield spark
    finally:
        spark.stop()
        if shipped is not None:  # served to executors until the session stopped
            shutil.rmtree(shipped, ignore_errors=True)


REACH_SECONDS = 5.0  # per master address: Spark itself retries for over a minute


def check_reachable(master: str) -> None:
    """A standalone master (``spark://host:port``, or several for HA) that accepts a TCP
    connection; exit 2 at once otherwise, where Spark would retry its registration for
    about 90 seconds before failing."""
    addresses = master.removeprefix("spark://").split(",")
    for address in addresses:
        host, _, port = address.strip().rpartition(":")
        try:
            with socket.create_connection((host or address, int(port or 7077)),
                                          timeout=REACH_SECONDS):
                return
        except (OSError, ValueError):
            continue
    raise InputError.single(f"no Spark master answers at {master}",
                            "check the --master URL (spark://HOST:PORT, 7077 by default) and "
                            "that the master runs (sbin/start-master.sh)", path="--master")


@contextlib.contextmanager
def _jvm_stderr_silenced(quiet: bool) -> Iterator[None]:
    """While the JVM starts, file descriptor 2 points at /dev/null, which the JVM inherits."""
    if not quiet:
        yield
        return
    sys.stderr.flush()
    saved = os.dup(2)
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(devnull)


def _remote_workers(master: str) -> bool:
    """Whether executors run in their own processes (a cluster, or ``local-cluster``).

    >>> [_remote_workers(m) for m in ("local", "local[*]", "local-cluster[2,1,1024]")]
    [False, False, True]
    """
    return not (master == "local" or master.startswith("local["))


def check_executors(spark: SparkSession, needs: tuple[str, ...],
                    shared: Path | None = None) -> None:
    """One task on the executors: their Python runs and imports ``needs``, and sees (a
    file this process put there) and can write to the folder ``shared``. One task runs on
    one executor: a cluster whose executors differ can still pass, and the results' own
    check (sweep.store.Store.write_parquet) names a folder that holds no data after all."""
    token = f".streamplace-probe-{uuid.uuid4().hex}"
    if shared is not None:
        (shared / token).write_text("")

    def probe(_: object) -> tuple[str, list[str], str | None]:
        import importlib
        import os as executor_os
        import sys as executor_sys

        missing = []
        for module in needs:
            try:
                importlib.import_module(module)
            except ImportError:
                missing.append(module)
        unseen = None
        if shared is not None:
            mine = executor_os.path.join(shared, token + "-executor")
            try:
                if not executor_os.path.exists(executor_os.path.join(shared, token)):
                    unseen = "they cannot see it"
                else:
                    with open(mine, "w"):
                        pass
                    executor_os.remove(mine)
            except OSError as exc:
                unseen = f"they cannot write there ({exc.strerror})"
        return executor_sys.executable, missing, unseen

    fix = ("set PYSPARK_PYTHON to a Python that has streamplace's dependencies (pip install "
           "streamplace there): on a cluster that shares this machine's filesystem, "
           f"PYSPARK_PYTHON={sys.executable}")
    try:
        ((executable, missing, unseen),) = \
            spark.sparkContext.parallelize([0], 1).map(probe).collect()
    except Exception as exc:  # Py4J wraps the worker's failure (version mismatch, no Python)
        raise InputError.single("the executors cannot run streamplace's Python tasks: "
                                + worker_failure(str(exc)), fix, path="--master") from None
    finally:
        if shared is not None:
            (shared / token).unlink(missing_ok=True)
    if missing:
        raise InputError.single(f"the executors' Python ({executable}) cannot import "
                                f"{', '.join(missing)}", fix, path="--master")
    if unseen:
        raise InputError.single(
            f"the executors write the results to {shared}, but {unseen}: results.parquet "
            "would hold no data", "give -o a folder on storage every executor and this "
            "machine share at the same path (NFS), or use --engine python; then run again "
            "with --resume", path="--output")


_PYTHON_RAISED = re.compile(r"^\s*(?:[\w.]+\.)?\w+(?:Error|Exception): \S")


def worker_failure(text: str) -> str:
    """What a Python worker's failure says, out of the Java stack trace around it: the
    last exception line Python raised (PySpark's version mismatch, an import error).

    >>> worker_failure("py4j...\\n  at org.X(Y.scala:1)\\nValueError: bad\\n  at org.Z")
    'ValueError: bad'
    """
    raised = [line.strip() for line in text.splitlines() if _PYTHON_RAISED.match(line)]
    if raised:
        return raised[-1].removeprefix("pyspark.errors.exceptions.base.")
    return next((line.strip() for line in text.splitlines() if line.strip()), text)


def _ship_package(spark: SparkSession) -> str:
    """Executors on other machines need this package (to digest a log, to solve); the
    folder of the archive, for the caller to remove once the session stops."""
    root = Path(__file__).resolve().parents[1]
    folder = tempfile.mkdtemp(prefix="streamplace-")
    archive = shutil.make_archive(os.path.join(folder, "streamplace"), "zip",
                                  root_dir=root.parent, base_dir=root.name)
    spark.sparkContext.addPyFile(archive)
    return folder
