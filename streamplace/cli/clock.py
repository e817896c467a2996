"""The command's clock: ``--time-limit`` bounds the whole command (docs/cli.md, "What bounds
time and memory"), so for the console script it counts from the process's start; where the
app runs inside a longer-lived process (a test runner, a notebook), from the command's own.
"""

from __future__ import annotations

import os
import time

_IMPORTED = time.perf_counter()


class _Clock:
    process = False                  # whether the process is the command
    command = time.perf_counter()    # when the last command in this process began


def count_from_process_start() -> None:
    """The process is the command (the console script): its clock starts with the process."""
    _Clock.process = True


def command_begins() -> None:
    """A command starts (each invocation of the app): where the process is not the command,
    its clock starts now."""
    _Clock.command = time.perf_counter()


def seconds_since_start() -> float:
    """Seconds since the command started: for the console script, since the process
    started."""
    if not _Clock.process:
        return time.perf_counter() - _Clock.command
    return process_seconds()


def process_seconds() -> float:
    """Seconds since this process started (Linux: from /proc; elsewhere since import)."""
    try:
        with open("/proc/self/stat", encoding="ascii") as stat_file:
            fields = stat_file.read().rsplit(")", 1)[1].split()
        with open("/proc/uptime", encoding="ascii") as uptime:
            up = float(uptime.read().split()[0])
        started = int(fields[19]) / os.sysconf("SC_CLK_TCK")  # field 22 of stat(5)
        return max(0.0, up - started)
    except (OSError, ValueError, IndexError):
        return time.perf_counter() - _IMPORTED
