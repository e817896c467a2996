"""An existing Flink autoscaler configuration handed over: the ``job.autoscaler.*`` keys of
a Flink configuration (a ``flink-conf.yaml`` of flat keys, a 2.x ``config.yaml`` of nested
ones, or what the JobManager answers at ``GET /jobmanager/config``) become the options of
the same meaning (:data:`~streamplace.control.autoscale.options.SETTINGS` holds each
option's key), so that a team gets the behaviour it configured.

Values are read as Flink reads them: a duration is a number and a unit (``30 s``, ``5 min``,
``1h``, ``PT30S``), milliseconds without one; a list is separated by ``;`` (or ``,``); the
deprecated ``target.utilization`` and ``target.utilization.boundary`` are read as
``utilization.target`` and its min and max. A key with no option here is named, not
silently dropped.
"""

from __future__ import annotations

import re
from typing import Any

from streamplace.control.autoscale.jobs import cluster_address, cluster_path
from streamplace.control.autoscale.options import FLINK_PREFIX, SETTINGS, AutoscaleOptions
from streamplace.control.flink.job import split_job_url
from streamplace.errors import InputError, Problem
from streamplace.io.http import Address, get_json, is_url
from streamplace.io.loader import load_path

DURATIONS = {"metrics_window", "stabilization_interval", "scale_down_interval",
             "catch_up_duration", "restart_time", "backlog_processing_lag_threshold"}
UNITS = {"ms": 0.001, "milli": 0.001, "millis": 0.001, "millisecond": 0.001,
         "milliseconds": 0.001, "s": 1.0, "sec": 1.0, "secs": 1.0, "second": 1.0,
         "seconds": 1.0, "min": 60.0, "m": 60.0, "mins": 60.0, "minute": 60.0,
         "minutes": 60.0, "h": 3600.0, "hour": 3600.0, "hours": 3600.0, "d": 86400.0,
         "day": 86400.0, "days": 86400.0}
IGNORED = {"enabled", "scaling.enabled"}  # whether the Flink autoscaler runs: it does not
DEPRECATED = {"target.utilization": "utilization_target",
              "target.utilization.boundary": "utilization_boundary"}
_ISO = re.compile(r"P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:([\d.]+)S)?)?", re.I)


def flink_configuration(source: str, job: str) -> dict[str, str]:
    """The configuration ``source`` names, flattened to ``key: value`` strings: a file, or
    ``cluster`` for the JobManager of ``job``."""
    if source == "cluster":
        if not is_url(job):
            raise InputError.single("--flink-config cluster reads the JobManager of a live "
                                    "job", "give the job's address", path="--flink-config")
        cluster = cluster_address(job)
        if cluster is not None:
            address, base = Address.parse(cluster, "JOB"), cluster_path(cluster)
        else:
            address, base, _ = split_job_url(job, "JOB")
        answer = get_json(address.at(f"{base}/jobmanager/config"), "--flink-config")
        return {str(e["key"]): str(e["value"]) for e in answer if isinstance(e, dict)
                and "key" in e and "value" in e} if isinstance(answer, list) else {}
    document, _ = load_path(source)
    if not isinstance(document, dict):
        raise InputError.single("is not a Flink configuration (keys and values)",
                                "give a flink-conf.yaml or config.yaml", file=source)
    return dict(_flat(document))


def _flat(document: dict[str, Any], prefix: str = "") -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for key, value in document.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            out += _flat(value, name + ".")
        else:
            out.append((name, ";".join(map(str, value)) if isinstance(value, list)
                        else str(value).lower() if isinstance(value, bool) else str(value)))
    return out


def handed_over(config: dict[str, str], origin: str) -> tuple[dict[str, Any], list[str]]:
    """The options ``config``'s ``job.autoscaler.*`` keys set, and a line per key left
    out; every value that cannot be read at once as an InputError."""
    by_key = {s.flink: field for field, s in SETTINGS.items() if s.flink}
    out: dict[str, Any] = {}
    left, problems = [], []
    for key, raw in sorted(config.items()):
        if not key.startswith(FLINK_PREFIX):
            continue
        name = key.removeprefix(FLINK_PREFIX)
        field = DEPRECATED.get(name) or by_key.get(name)
        if field is None:
            if name not in IGNORED:
                left.append(f"{key} is not an autoscale option here: left out")
            continue
        try:
            out[field] = _value(field, raw)
        except ValueError as exc:
            problems.append(Problem(f"{key}: {raw!r} {exc}", "give a value as Flink "
                                    "would read it", path=key, file=origin))
    if problems:
        raise InputError(problems)
    boundary = out.pop("utilization_boundary", None)
    if boundary is not None:  # the deprecated key: min and max fall back to target -+ it
        target = float(out.get("utilization_target", AutoscaleOptions().utilization_target))
        out.setdefault("utilization_min", max(0.0, target - boundary))
        out.setdefault("utilization_max", min(1.0, target + boundary))
    return out, left


def _value(field: str, raw: str) -> Any:
    text = raw.strip()
    if field in DURATIONS:
        return duration(text)
    if field == "vertex_exclude_ids":
        return tuple(p.strip() for p in re.split(r"[;,]", text) if p.strip())
    default = SETTINGS[field].default if field in SETTINGS else 0.0
    if isinstance(default, bool):
        if text.lower() not in ("true", "false"):
            raise ValueError("is not true or false")
        return text.lower() == "true"
    if isinstance(default, int):
        return int(text)
    if isinstance(default, float) or field == "utilization_boundary" or default is None:
        return float(text)
    return text  # a named value (MAX, BALANCED...): checked() takes it in any case


def duration(text: str) -> float:
    """Seconds in a Flink duration.

    >>> [duration(t) for t in ("30 s", "5 min", "1h", "PT1M30S", "1500")]
    [30.0, 300.0, 3600.0, 90.0, 1.5]
    """
    iso = _ISO.fullmatch(text)
    if iso and text.upper().startswith("P") and any(iso.groups()):
        d, h, m, s = (float(g) if g else 0.0 for g in iso.groups())
        return d * 86400 + h * 3600 + m * 60 + s
    found = re.fullmatch(r"([\d.]+)\s*([a-zA-Z]*)", text)
    if not found:
        raise ValueError("is not a duration (a number and a unit, e.g. 30 s)")
    unit = found.group(2).lower()
    if unit and unit not in UNITS:
        raise ValueError(f"has a unit {unit!r} Flink does not know")
    return float(found.group(1)) * (UNITS[unit] if unit else 0.001)
