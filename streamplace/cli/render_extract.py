"""Rich rendering of an extraction: operators, streams and what the reader left aside."""

from __future__ import annotations

from rich.console import Console

from streamplace import fmt
from streamplace.cli.render import table
from streamplace.io.eventlog import Extraction


def _count(value: float) -> str:
    return f"{value:,.0f}"


def render_extraction(con: Console, x: Extraction) -> None:
    con.print(f"[bold]{x.app_name}[/] ({x.app_id}): {len(x.operators)} operators, "
              f"{len(x.streams)} streams from {x.files} file(s), {x.log_bytes / 1e6:.3g} MB; "
              f"rates over {fmt.seconds(x.window)} ({x.window_basis})")
    ops = table(con, "Operators", "operator", "name", "tasks", "records in",
                 "records out", "run time", "service rate", "input rate")
    for op in x.operators:
        ops.add_row(op.id, op.name, str(op.tasks), _count(op.consumed), _count(op.produced),
                    fmt.seconds(op.run_seconds),
                    f"{op.service_rate:.4g}/s" if op.service_rate is not None else "-",
                    f"{op.input_rate:.4g}/s" if op.input_rate is not None else "-")
    con.print(ops)
    streams = table(con, "Streams", "from", "to", "kind", "records", "rate", "tuple size")
    for s in x.streams:
        streams.add_row(s.source, s.target, s.kind, _count(s.records), f"{s.rate:.4g}/s",
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
    for warning in x.warnings:
        con.print(f"[yellow]warning:[/] {warning}")
