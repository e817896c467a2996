"""The ``streamplace`` console script: signals are handled before anything heavy loads, and
an interrupt at any moment (importing, parsing options, working) ends the process quietly
with 128 + the signal number."""

from __future__ import annotations

import contextlib
import sys

from streamplace.cli import signals


def main() -> None:
    signals.install()
    try:
        from streamplace.cli.app import main as run

        run()
    except signals.Interrupted as exc:
        # a signal outside a command's own handling (while importing or parsing options):
        # nothing was written, and there is nothing more to say than that
        with contextlib.suppress(OSError, ValueError):
            sys.stderr.write("interrupted: stopped before anything was written\n")
            sys.stderr.flush()
        sys.exit(exc.exit_code)
