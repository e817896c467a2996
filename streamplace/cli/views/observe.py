"""Rich rendering of an observed Flink job: its vertices as operators, and its streams."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape

from streamplace.cli.views.tables import table
from streamplace.control.flink.drift import Drift
from streamplace.control.running.observation import Observation


def render_observation(con: Console, obs: Observation) -> None:
    version = f"Flink {obs.version}" if obs.version else "Flink"
    con.print(f"[bold]{escape(obs.job)}[/] ({obs.job_id}, {version}): {len(obs.vertices)} "
              f"vertices, {len(obs.streams)} streams, {len(obs.taskmanagers)} "
              "TaskManager(s); " + (f"rates are counters over {obs.window:.0f} s"
                                    if obs.window else "rates are Flink's 60 s meters"))
    ops = table(con, "Operators (service rate: records per second of busy time, per replica)",
                "operator", "name", "parallelism", "running", "busy", "records in",
                "records out", "service rate")
    for v in obs.vertices:
        ops.add_row(v.op, escape(v.name), str(v.parallelism),
                    "-" if v.seconds is None else f"{v.seconds:.0f} s",
                    "-" if v.busy is None else f"{v.busy:.0%}",
                    _rate(v.meter("numRecordsInPerSecond")),
                    _rate(v.meter("numRecordsOutPerSecond")), _rate(v.service_rate))
    con.print(ops)
    streams = table(con, "Streams", "from", "to", "rate", "tuple size", "measured as")
    for s in obs.streams:
        streams.add_row(s.source, s.target, _rate(s.rate),
                        "-" if s.tuple_size is None else f"{s.tuple_size:.4g} B", s.basis)
    con.print(streams)


def _rate(value: float | None) -> str:
    return f"{value:.4g}/s" if value is not None else "-"


def render_drift(con: Console, drift: Drift) -> None:
    """Predicted against measured, per operator, then what is off and what is broken."""
    basis = f"counters over {drift.window:.0f} s" if drift.window else "Flink's 60 s meters"
    rows = table(con, f"The plan against the running job ({basis}; tolerance "
                 f"{drift.tolerance:g})", "operator", "subtasks", "utilisation", "busy",
                 "busiest", "rate (plan)", "rate", "capacity (plan)", "capacity",
                 "back-pressured")
    for r in drift.rows:
        rows.add_row(r.op, f"{r.running} ({r.planned})" if r.running != r.planned
                     else str(r.running), _share(r.predicted_utilization), _share(r.busy),
                     _share(r.busy_max), _rate(r.predicted_rate), _rate(r.rate),
                     _rate(r.capacity), _rate(r.true_capacity), f"{r.pressed:.0%}")
    con.print(rows)
    con.print(f"source {_rate(drift.source_rate)} (plan {_rate(drift.predicted_source_rate)}), "
              f"sink {_rate(drift.sink_rate)} (plan {_rate(drift.predicted_sink_rate)})")
    if drift.latency:
        paths = table(con, "Response time against the latency markers (ms)", "path",
                      "R (model)", "mean (model)", "p99 (model)", "promised", "mean",
                      "median", "p99")
        for p in drift.latency:
            pr, m, e = p.predicted, p.measured, p.predicted.expected
            paths.add_row(f"{pr.source} -> {pr.op}", *(f"{x * 1000:.1f}" for x in (
                pr.response_time, e.mean, e.p99, e.promise, m.mean, m.median, m.p99)))
        con.print(paths)
        for p in drift.latency:
            e = p.predicted.expected
            con.print(f"{p.predicted.source} -> {p.predicted.op}: mostly "
                      f"{e.dominant(p.predicted.path)}; one run's mean lies within "
                      f"{e.band * 1000:.0f} ms of the model's mean (each task flushes on "
                      "its own timer)")
    for r in drift.rows:
        for why in r.off:
            con.print(f"[yellow]off:[/] {r.op}: {escape(why)}")
    for p in drift.latency:
        if p.off:
            con.print(f"[yellow]off:[/] {escape(p.off)}")
    for note in drift.notes:
        con.print(f"note: {escape(note)}")


def _share(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"
