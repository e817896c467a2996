"""The arguments ``observe``, ``apply`` and ``autoscale`` share: the job, the window, the
offered load, the wait and the consent to change a running job."""

from __future__ import annotations

import math
import os
import sys
from typing import Annotated

import typer

from streamplace.cli.emit import EXIT_NO
from streamplace.control.autoscale.settings import SETTINGS
from streamplace.control.flink.rescale import WAIT
from streamplace.errors import InputError, Problem

JobArg = Annotated[str, typer.Argument(
    metavar="JOB", help="The running job: http://JOBMANAGER:8081/jobs/JOBID.")]
WindowOpt = Annotated[float | None, typer.Option(
    "--window", help="Read the job's exact counters over this many seconds (at least 5) "
                     "instead of Flink's 60 s rate meters.")]
SourceRateOpt = Annotated[list[str] | None, typer.Option(
    "--source-rate", help="OP=RATE (repeatable): the records per second a source offers, "
                          "where backpressure hides it; the streams downstream are scaled "
                          "to it.")]
YesOpt = Annotated[bool, typer.Option(
    "--yes", "-y", help="Change the job without asking (needed off a terminal: CI).")]
WaitOpt = Annotated[float, typer.Option("--wait", help=SETTINGS["wait"].help)]

CacertOpt = Annotated[str | None, typer.Option(
    "--cacert", help="A CA bundle (PEM) to verify an https:// JobManager with (default: the "
                     "system's).")]
CertOpt = Annotated[str | None, typer.Option(
    "--cert", help="A client certificate (PEM) for a JobManager that asks for one; its key "
                   "inside, or in --key.")]
KeyOpt = Annotated[str | None, typer.Option("--key", help="The client certificate's key "
                                                          "(PEM).")]
InsecureOpt = Annotated[bool, typer.Option(
    "--insecure", help="https:// without verifying the JobManager's certificate.")]

__all__ = ["WAIT", "CacertOpt", "CertOpt", "InsecureOpt", "JobArg", "KeyOpt", "SourceRateOpt",
           "WaitOpt", "WindowOpt", "YesOpt", "check_wait", "confirm", "connect",
           "parse_rates"]


def connect(cacert: str | None, cert: str | None, key: str | None, insecure: bool) -> None:
    """How this command connects to the JobManager (TLS; basic authentication comes from
    the address, the environment or the netrc file), checked before anything is read."""
    from streamplace.io.connecting import Connecting, configure

    configure(Connecting(cacert, cert, key, insecure))


def parse_rates(pairs: list[str] | None, label: str = "--source-rate") -> dict[str, float]:
    """``OP=RATE`` pairs; every bad one at once."""
    out, problems = {}, []
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        try:
            rate = float(value)
        except ValueError:
            rate = math.nan
        if not sep or not key.strip() or not math.isfinite(rate) or rate <= 0:
            problems.append(Problem(f"cannot read {pair!r} as OP=RATE", "give a source and "
                                    "its records per second, e.g. --source-rate events=200",
                                    path=label))
            continue
        out[key.strip()] = rate
    if problems:
        raise InputError(problems)
    return out


def check_wait(wait: float) -> None:
    """--wait within its bounds (autoscale's options define them): a wait that never ends,
    or ends before it begins, is refused before anything is sent."""
    problem = SETTINGS["wait"].check(wait)
    if problem is not None:
        raise InputError([problem])


def confirm(yes: bool) -> None:
    """Off a terminal (CI), or in a CI job, a running job changes only with --yes."""
    if yes:
        return
    if os.environ.get("CI") or not sys.stdin.isatty():
        raise InputError.single("apply changes a running job, and this is not a terminal "
                                "(or CI is set)", "add --yes to change it, or --dry-run to "
                                "see the change", path="--yes")
    if not typer.confirm("Change the running job?", default=False, err=True):
        raise typer.Exit(EXIT_NO)
