"""An existing Flink autoscaler configuration handed over: the ``job.autoscaler.*`` keys of
a Flink configuration (a ``flink-conf.yaml`` of flat keys, a 2.x ``config.yaml`` of nested
ones, or what the JobManager answers at ``GET /jobmanager/config``) become the options of
the same meaning (:data:`~streamplace.control.autoscale.settings.SETTINGS` holds each
option's key), so that a team gets the behaviour it configured.

Values are read as Flink reads them: a duration is a number and a unit (``30 s``, ``5 min``,
``1h``, ``PT30S``), milliseconds without one; a list is separated by ``;`` (or ``,``); the
deprecated ``target.utilization`` and ``target.utilization.boundary`` are read as
``utilization.target`` and its min and max. A key with no option here is named, not
silently dropped.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from streamplace.control.autoscale.options import default
from streamplace.control.autoscale.settings import FLINK_PREFIX, SETTINGS
from streamplace.control.durations import duration
from streamplace.errors import InputError, Problem
from streamplace.io.loader import load_path

DURATIONS = {"metrics_window", "stabilization_interval", "scale_down_interval",
             "catch_up_duration", "restart_time", "backlog_processing_lag_threshold"}
IGNORED = {"enabled", "scaling.enabled"}  # whether the Flink autoscaler runs: it does not
DEPRECATED = {"target.utilization": "utilization_target",
              "target.utilization.boundary": "utilization_boundary"}


def flink_configuration(source: str, cluster: Callable[[], dict[str, str]],
                        ) -> dict[str, str]:
    """The configuration ``source`` names, flattened to ``key: value`` strings: a file, or
    ``cluster`` for the cluster's own (what ``cluster()`` reads)."""
    if source == "cluster":
        return cluster()
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
    out or overruled; every value that cannot be read at once as an InputError. Where a
    deprecated key and the key that replaced it both are, the new one wins, said where they
    disagree. ``scaling.enabled: false`` is Flink's "recommend, never rescale" (a dry
    run); ``enabled: false`` turns the autoscaler off, and is refused."""
    by_key = {s.flink: field for field, s in SETTINGS.items() if s.flink}
    out: dict[str, Any] = {}
    left: list[str] = []
    problems: list[Problem] = []
    deprecated: dict[str, tuple[str, Any]] = {}
    for key, raw in sorted(config.items()):
        if not key.startswith(FLINK_PREFIX):
            continue
        name = key.removeprefix(FLINK_PREFIX)
        if name in IGNORED:
            _switch(name, key, raw, out, left, origin)
            continue
        field = DEPRECATED.get(name) or by_key.get(name)
        if field is None:
            left.append(f"{key} is not an autoscale option here: left out")
            continue
        try:
            value = _value(field, raw)
        except ValueError as exc:
            problems.append(Problem(f"{raw!r} {exc}", "give a value as Flink "
                                    "would read it", path=key, file=origin))
            continue
        if name in DEPRECATED:
            deprecated[field] = (key, value)
        else:
            out[field] = value
    if problems:
        raise InputError(problems)
    for field, (key, value) in deprecated.items():
        if field not in out:
            out[field] = value
        elif out[field] != value:
            new = next(k for k, f in by_key.items() if f == field)
            left.append(f"{key} (deprecated) says {value:g} and {FLINK_PREFIX}{new} "
                        f"{out[field]:g}: {FLINK_PREFIX}{new} wins")
    return out, left


def _switch(name: str, key: str, raw: str, out: dict[str, Any], left: list[str],
            origin: str) -> None:
    """``enabled`` and ``scaling.enabled``, as Flink's autoscaler reads them."""
    if raw.strip().lower() != "false":
        return
    if name == "enabled":
        raise InputError.single("false turns the autoscaler off: nothing would be "
                                "decided", "set it to true, or give autoscale another "
                                "configuration", path=key, file=origin)
    out["dry_run"] = True
    left.append(f"{key}: false is Flink's \"recommend, never rescale\": decisions are made "
                "and said, nothing is sent")


def bounded(chosen: dict[str, Any]) -> dict[str, Any]:
    """The options with a handed-over ``target.utilization.boundary`` (deprecated) turned
    into the min and max it sets around the target finally chosen, command line included,
    where neither is set otherwise."""
    out = dict(chosen)
    boundary = out.pop("utilization_boundary", None)
    if boundary is not None:
        target = float(out["utilization_target"])
        if out.get("utilization_min") is None:
            out["utilization_min"] = max(0.0, target - boundary)
        if out.get("utilization_max") is None:
            out["utilization_max"] = min(1.0, target + boundary)
    return out


def _value(field: str, raw: str) -> Any:
    text = raw.strip()
    if field in DURATIONS:
        return duration(text)
    if field == "vertex_exclude_ids":
        return tuple(p.strip() for p in re.split(r"[;,]", text) if p.strip())
    given = default(field) if field in SETTINGS else 0.0
    if isinstance(given, bool):
        if text.lower() not in ("true", "false"):
            raise ValueError("is not true or false")
        return text.lower() == "true"
    if isinstance(given, int):
        return int(text)
    if isinstance(given, float) or field == "utilization_boundary" or given is None:
        return float(text)
    return text  # a named value (MAX, BALANCED...): checked() takes it in any case
