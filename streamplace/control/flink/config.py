"""The cluster's configuration, read once where it is needed: ``GET /jobmanager/config``
answers a list of ``{"key", "value"}`` (checked against 1.20.3 and 2.2.1)."""

from __future__ import annotations

import math

from streamplace.control.durations import duration
from streamplace.control.running.hops import SEGMENT
from streamplace.control.running.latency import BUFFER_TIMEOUT
from streamplace.errors import InputError
from streamplace.io.http import Address, get_json

BUFFER_KEYS = ("execution.buffer-timeout.interval", "execution.buffer-timeout")  # 2.x, 1.x
SEGMENT_KEY = "taskmanager.memory.segment-size"
SIZES = {"": 1, "b": 1, "bytes": 1, "k": 1 << 10, "kb": 1 << 10, "kibibytes": 1 << 10,
         "m": 1 << 20, "mb": 1 << 20, "mebibytes": 1 << 20, "g": 1 << 30, "gb": 1 << 30,
         "gibibytes": 1 << 30}  # Flink's MemorySize units: powers of 1024


def cluster_config(address: Address, base: str, label: str = "JOB") -> dict[str, str]:
    """Every key the JobManager answers, and its value as text: Flink answers a list of
    ``{"key", "value"}``; a proxy or another version that answers a mapping of keys to
    values is read as one; anything else is no configuration, said (bad input)."""
    listed = get_json(address.at(f"{base}/jobmanager/config"), label)
    if isinstance(listed, dict):
        return {str(k): str(v) for k, v in listed.items() if not isinstance(v, dict | list)}
    if not isinstance(listed, list):
        raise InputError.single("GET /jobmanager/config answered no configuration (neither "
                                "Flink's list of keys and values nor a mapping)",
                                "give the JobManager's REST address", path=label)
    return {str(e["key"]): str(e["value"]) for e in listed if isinstance(e, dict)
            and "key" in e and "value" in e}


def buffer_timeout(config: dict[str, str]) -> float:
    """The cluster's buffer timeout in seconds (a job may set its own: not visible here);
    Flink's default where the cluster does not set it or sets what Flink would not read;
    infinite where buffers are flushed only when full (``execution.buffer-timeout.enabled:
    false``, or a negative timeout, the older API's -1), as 1.20 and 2.x both read them.

    >>> buffer_timeout({"execution.buffer-timeout.interval": "PT0.05S"})
    0.05
    >>> buffer_timeout({"execution.buffer-timeout": "-1"})
    inf
    """
    if config.get("execution.buffer-timeout.enabled", "").strip().lower() == "false":
        return math.inf
    for key in BUFFER_KEYS:
        if key in config:
            if config[key].strip().startswith("-"):
                return math.inf
            try:
                return duration(config[key])
            except ValueError:
                return BUFFER_TIMEOUT
    return BUFFER_TIMEOUT


def network_buffer(config: dict[str, str]) -> float:
    """The bytes of one network buffer (``taskmanager.memory.segment-size``), Flink's
    32 KiB where the cluster does not set it or sets what Flink would not read.

    >>> network_buffer({"taskmanager.memory.segment-size": "4 kb"})
    4096.0
    >>> network_buffer({})
    32768.0
    """
    text = config.get(SEGMENT_KEY, "32kb").strip().lower()
    number = text.rstrip("abcdefghijklmnopqrstuvwxyz ").strip()
    unit = text[len(number):].strip()
    try:
        size = float(number) * SIZES[unit]
    except (KeyError, ValueError):
        return float(SEGMENT)
    return size if size > 0 else float(SEGMENT)
