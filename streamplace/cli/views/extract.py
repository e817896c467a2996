"""Rich rendering of an extraction: operators, streams and what the reader left aside."""

from __future__ import annotations

from rich.console import Console

from streamplace import fmt
from streamplace.cli.views.tables import table
from streamplace.io.eventlog import Extraction
from streamplace.io.eventlog.epochs import percentile


def _count(value: float) -> str:
    return f"{value:,.0f}"


def render_extraction(con: Console, x: Extraction) -> None:
    con.print(f"[bold]{x.app_name}[/] ({x.app_id}): {len(x.operators)} operators, "
              f"{len(x.streams)} streams from {x.files} file(s), {x.log_bytes / 1e6:.3g} MB; "
              f"rates over {fmt.seconds(x.window)} ({x.window_basis}); "
              f"{len(x.epochs)} epoch(s), the application carries the [bold]"
              f"{x.rate_statistic}[/] rate")
    ops = table(con, "Operators (service rate: records per second of useful time, i.e. run "
                     "time less shuffle fetch wait and shuffle write)",
                "operator", "name", "tasks", "records in", "records out", "run time",
                "waiting", "observed rate", "service rate", "input rate")
    for op in x.operators:
        ops.add_row(op.id, op.name, str(op.tasks), _count(op.consumed), _count(op.produced),
                    fmt.seconds(op.run_seconds),
                    _share(op.fetch_wait_seconds + op.write_seconds, op.run_seconds),
                    _rate(op.observed_rate),
                    _rate(op.service_rate), _rate(op.input_rate))
    con.print(ops)
    streams = table(con, "Streams", "from", "to", "kind", "records", "mean", "p95", "max",
                    "carried", "tuple size")
    for s in x.streams:
        per_epoch = list(s.per_epoch.values())
        streams.add_row(s.source, s.target, s.kind, _count(s.records),
                        _rate(s.records / x.window),
                        _rate(percentile(per_epoch, 95)) if per_epoch else "-",
                        _rate(max(per_epoch)) if per_epoch else "-", _rate(s.rate),
                        f"{s.tuple_size:.4g} B" if s.tuple_size is not None else "-")
    con.print(streams)
    left = [f"{x.skipped_stages} skipped stage(s) (never submitted)"]
    for key in ("corrupt lines", "malformed events", "damaged streams", "failed tasks",
                "killed tasks", "failed stage attempts"):
        if x.counts.get(key):
            left.append(f"{x.counts[key]} {key}")
    if x.unreported_stages:
        left.append(f"{x.unreported_stages} stage(s) of micro-batches without a progress "
                    "report")
    if x.unresolved_reads:
        left.append(f"{x.unresolved_reads} shuffle read(s) whose writer never ran")
    left.append(f"{x.ignored_events} event(s) of kinds not needed")
    con.print("left aside: " + ", ".join(left))
    for note in x.damage[:5]:
        con.print(f"[yellow]damaged:[/] {note}")


def _rate(value: float | None) -> str:
    return f"{value:.4g}/s" if value is not None else "-"


def _share(part: float, whole: float) -> str:
    return f"{fmt.seconds(part)} ({part / whole:.0%})" if whole > 0 and part > 0 else "-"
