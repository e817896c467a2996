"""The ``streamplace`` console script: signals are handled before anything heavy loads, and
an interrupt at any moment (importing, parsing options, working) ends the process quietly
with 128 + the signal number."""

from __future__ import annotations

import contextlib
import os
import sys

from streamplace.cli import signals


def main() -> None:
    signals.install()
    try:
        from streamplace.cli.app import main as run

        run()
    except SystemExit as exc:
        _leave_solves_behind(exc.code)
        raise
    except signals.Interrupted as exc:
        # a signal outside a command's own handling (while importing or parsing options,
        # or as the command unwinds): said as the command says it, sent change included
        rescale = sys.modules.get("streamplace.control.flink.rescale")
        sent = getattr(rescale, "SENT", [])
        line = (f"interrupted: the change was sent to {sent[-1]}, and Flink carries it out: "
                "observe the job to see where it stands") if sent else \
            "interrupted: stopped before anything was written"
        with contextlib.suppress(OSError, ValueError):
            sys.stderr.write(line + "\n")
            sys.stderr.flush()
        sys.exit(exc.exit_code)


def _leave_solves_behind(code: object) -> None:
    """Exit at once with ``code`` while a HiGHS solve left behind at its time limit still
    runs: everything is written, and waiting for it would only hold up the caller."""
    solves = sys.modules.get("streamplace.solve.mip.highs.thread")
    if solves is None or not solves.abandoned_running():
        return
    with contextlib.suppress(OSError, ValueError):
        sys.stdout.flush()
        sys.stderr.flush()
    os._exit(code if isinstance(code, int) else 0 if code is None else 1)
