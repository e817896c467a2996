"""``streamplace extract`` on event logs written by real Spark jobs
(tests/support/spark_jobs.py)."""

from __future__ import annotations

import itertools
import json
import re
import shutil
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from streamplace.cli.app import app
from streamplace.errors import InputError
from streamplace.io.eventlog import Extraction, extract
from streamplace.io.eventlog.build import extract_application
from streamplace.io.eventlog.codecs import decoded_chunks, lines_of
from streamplace.io.eventlog.digest import Digest, merge_all
from streamplace.io.eventlog.layout import find_event_log
from streamplace.io.eventlog.read import read_locally
from streamplace.io.eventlog.records import FAILED, OK

from ..conftest import SAMPLES

runner = CliRunner()


def _ops(x: Extraction) -> dict[str, Any]:
    return {op.id: op for op in x.operators}


def _edges(x: Extraction) -> dict[tuple[str, str], Any]:
    return {(s.source, s.target): s for s in x.streams}


def _only(folder: Path, pattern: str) -> Path:
    (found,) = sorted(folder.glob(pattern))
    return found


# SQL under AQE, rolling zstd ---------------------------------------------------------------

def test_sql_join_graph_through_lineage_and_the_plan(spark_logs: Any, spark: Any) -> None:
    rolling = _only(spark_logs.sql, "eventlog_v2_*")
    assert sorted(p.suffix for p in rolling.glob("events_*")) == [".zstd"]
    x = extract([str(spark_logs.sql)], spark=spark)
    truth = spark_logs.truth["sql"]
    ops = _ops(x)
    assert len(ops) == 4
    # AQE runs each query stage as its own job: later jobs list skipped copies as parents
    assert x.skipped_stages > 0 and x.unresolved_reads == 0
    by_role = {}
    for op in x.operators:
        if op.consumed == truth["orders"]:
            by_role["orders"] = op
        elif op.consumed == truth["customers"]:
            by_role["customers"] = op
    assert "Range" in by_role["orders"].name and "HashAggregate" in by_role["orders"].name
    edges = _edges(x)
    join = next(s.target for s in x.streams if s.kind == "broadcast")
    final = next(t for (f, t) in edges if f == join)
    assert "BroadcastHashJoin" in ops[join].name
    assert set(edges) == {(by_role["customers"].id, join), (by_role["orders"].id, join),
                          (join, final)}
    broadcast = edges[by_role["customers"].id, join]
    assert broadcast.kind == "broadcast" and broadcast.records == truth["customers"]
    partial = edges[by_role["orders"].id, join]
    assert partial.kind == "shuffle" and partial.records == truth["partial_aggregates"]
    # the join stage's output: one partial aggregate per region and per reduce task
    assert edges[join, final].records == truth["regions"] * ops[join].tasks
    assert ops[join].consumed == truth["partial_aggregates"] + truth["customers"]
    # one window for every stream: rates in the ratio of the records
    for s in x.streams:
        assert s.rate == pytest.approx(s.records / x.window)
    assert x.window_basis.startswith("first job start")
    assert by_role["orders"].input_rate == pytest.approx(truth["orders"] / x.window)
    assert all(op.service_rate and op.service_rate > 0 for op in x.operators)


# RDD chain, plain single file -----------------------------------------------------------

def test_rdd_chain_record_ratios_and_task_counts(spark_logs: Any, spark: Any) -> None:
    log = _only(spark_logs.rdd, "*")
    assert log.is_file() and log.suffix == ""
    x = extract([str(log)], spark=spark)
    truth = spark_logs.truth["rdd"]
    assert [op.id for op in x.operators] == ["s0", "s1", "s2"]
    assert [op.name.split(" ")[0] for op in x.operators] == ["distinct", "repartition", "count"]
    assert [op.tasks for op in x.operators] == [4, 4, 2]
    edges = _edges(x)
    assert set(edges) == {("s0", "s1"), ("s1", "s2")}
    assert edges["s0", "s1"].records == truth["distinct_written"]
    assert edges["s1", "s2"].records == truth["repartition_written"]
    assert edges["s0", "s1"].rate / edges["s1", "s2"].rate == pytest.approx(4.0)
    ops = _ops(x)
    assert ops["s1"].consumed == truth["distinct_written"]
    assert ops["s2"].consumed == truth["repartition_written"] == truth["count"]
    # a parallelized collection reports no input: the source is rated by what it produced
    assert ops["s0"].consumed == 0 and ops["s0"].produced == truth["distinct_written"]
    assert ops["s0"].input_rate is None
    # the service rate is per second of useful time, the observed one per second of run time
    assert ops["s1"].service_rate == pytest.approx(
        truth["distinct_written"] / ops["s1"].useful_seconds)
    assert ops["s1"].observed_rate == pytest.approx(
        truth["distinct_written"] / ops["s1"].run_seconds)
    assert ops["s1"].service_rate >= ops["s1"].observed_rate
    assert x.hosts and all(cores == 8 for cores in x.hosts.values())


def _by_hand(log: Path) -> dict[int, tuple[float, float, float, float]]:
    """Straight from the log's task metrics, stage by stage: records consumed (shuffle
    records read, or input records), run ms, fetch wait ms, and useful ms as models.md sec. 8
    defines it, summed over successful tasks."""
    out: dict[int, list[float]] = {}
    for line in log.read_text().splitlines():
        event = json.loads(line)
        if event["Event"] != "SparkListenerTaskEnd" or \
                event["Task End Reason"]["Reason"] != "Success":
            continue
        m = event["Task Metrics"]
        run = m["Executor Run Time"]
        wait = m["Shuffle Read Metrics"]["Fetch Wait Time"]
        write = m["Shuffle Write Metrics"]["Shuffle Write Time"] / 1e6
        useful = max(run - wait - write, 0.01 * run) if run > 0 else 0.0
        records = m["Shuffle Read Metrics"]["Total Records Read"] + \
            m["Input Metrics"]["Records Read"]
        totals = out.setdefault(event["Stage ID"], [0.0, 0.0, 0.0, 0.0])
        for i, value in enumerate((records, run, wait, useful)):
            totals[i] += value
    return {sid: (t[0], t[1], t[2], t[3]) for sid, t in out.items()}


def test_true_rates_leave_out_shuffle_waits_on_a_shuffle_heavy_job(spark_logs: Any,
                                                                   spark: Any) -> None:
    log = _only(spark_logs.shuffle, "*")
    x = extract([str(log)], spark=spark)
    assert len(x.operators) == 2  # the map stage, and the reducers reading its shuffle
    reduce = x.operators[1]
    (sid,) = reduce.stages
    records, run_ms, wait_ms, useful_ms = _by_hand(log)[sid]
    assert wait_ms > 0.02 * run_ms  # reducers on other executors waited for their blocks
    assert reduce.fetch_wait_seconds == pytest.approx(wait_ms / 1000)
    assert reduce.service_rate == pytest.approx(records / (useful_ms / 1000))
    assert reduce.observed_rate == pytest.approx(records / (run_ms / 1000))
    assert reduce.service_rate > reduce.observed_rate
    document = next(op for op in x.application_document()["operators"]
                    if op["id"] == reduce.id)
    assert document["service_rate"] == pytest.approx(reduce.service_rate, rel=1e-5)
    report = next(op for op in x.report()["operators"] if op["id"] == reduce.id)
    assert report["observed_rate"] == reduce.observed_rate


def test_spark_and_single_process_readers_agree(spark_logs: Any, spark: Any) -> None:
    for folder in (spark_logs.sql, spark_logs.rdd, spark_logs.stream):
        on_spark = extract([str(folder)], spark=spark)
        local = extract([str(folder)], engine="python")
        assert on_spark.application_document() == local.application_document()
        assert on_spark.counts == local.counts


# Structured Streaming, lz4 ---------------------------------------------------------------

def _stamp(text: str) -> float:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def test_streaming_micro_batches_collapse(spark_logs: Any, spark: Any) -> None:
    log = _only(spark_logs.stream, "*.lz4")
    x = extract([str(log)], spark=spark)
    progress = spark_logs.truth["stream"]["progress"]
    assert len(progress) >= 4
    assert len(x.operators) == 2 and len(x.streams) == 1
    (stream,) = x.streams
    source = _ops(x)[stream.source]
    assert len(source.stages) >= len(progress) - 1   # one stage per batch that had rows
    assert "MicroBatchScan" in source.name
    # the window is the query's own: first to last progress report
    span = _stamp(progress[-1]["timestamp"]) - _stamp(progress[0]["timestamp"])
    assert x.window == pytest.approx(span, abs=1e-3)
    rows = sum(p["rows"] for p in progress)
    assert source.consumed == rows
    assert source.input_rate == pytest.approx(rows / span)
    assert source.input_rate == pytest.approx(200, rel=0.35)   # rowsPerSecond


def test_streaming_epochs_and_the_three_rate_statistics(spark_logs: Any, spark: Any) -> None:
    """Epochs are the query's progress intervals; the file carries the statistic chosen."""
    import numpy

    log = _only(spark_logs.stream, "*.lz4")
    progress = spark_logs.truth["stream"]["progress"]
    stamps = [_stamp(p["timestamp"]) for p in progress]
    by_hand = [p["rows"] / (b - a) for p, (a, b) in zip(progress[1:],
                                                         itertools.pairwise(stamps),
                                                         strict=True)]
    span = stamps[-1] - stamps[0]
    expected = {"mean": sum(p["rows"] for p in progress) / span,
                "p95": float(numpy.percentile(by_hand, 95)), "max": max(by_hand)}
    got = {}
    for statistic, rate in expected.items():
        x = extract([str(log)], spark=spark, rate_statistic=statistic)
        (stream,) = x.streams
        source = _ops(x)[stream.source]
        got[statistic] = source.input_rate
        assert len(x.epochs) == len(progress) - 1
        assert source.input_rate == pytest.approx(rate, rel=1e-6), statistic
        report = x.report()
        assert report["rate_statistic"] == statistic
        assert [e["inputs"][source.id] for e in report["epochs"]] == pytest.approx(by_hand)
        document = next(op for op in x.application_document()["operators"]
                        if op["id"] == source.id)
        assert document["input_rate"] == pytest.approx(rate, rel=1e-5)
    # the option changes what the application carries, in the statistics' order
    assert got["max"] >= got["p95"] and got["max"] > got["mean"]


def test_a_batch_log_on_two_slots_says_how_to_size_a_deployment(spark_logs: Any,
                                                                 tmp_path: Path) -> None:
    """Spark ran the stages one after another on 2 slots; side by side they need more. The
    warning names --nodes and --cores, solve points there, and a sized skeleton solves."""
    log = str(spark_logs.cluster)
    app_file, infra_file = tmp_path / "app.yaml", tmp_path / "infra.yaml"
    first = runner.invoke(app, ["extract", log, "--engine", "python", "-o", str(app_file),
                                "--infrastructure-out", str(infra_file)])
    assert first.exit_code == 0, first.output
    assert "--nodes" in first.output and "--cores" in first.output
    advice = re.search(r"--nodes (\d+) --cores (\d+)", first.output)
    assert advice is not None
    stuck = runner.invoke(app, ["solve", str(app_file), str(infra_file), "-q"])
    assert stuck.exit_code == 1 and "--nodes N --cores C" in stuck.output
    sized = runner.invoke(app, ["extract", log, "--engine", "python", "-o", str(app_file),
                                "--infrastructure-out", str(infra_file),
                                "--nodes", advice.group(1), "--cores", advice.group(2)])
    assert sized.exit_code == 0 and "--nodes" not in sized.output.replace(
        f"({advice.group(1)} nodes", "")
    nodes = yaml.safe_load(infra_file.read_text())["nodes"]
    assert len(nodes) == int(advice.group(1))
    assert all(n["resources"] == int(advice.group(2)) for n in nodes)
    solved = runner.invoke(app, ["solve", str(app_file), str(infra_file), "-q"])
    assert solved.exit_code == 0, solved.output


# layouts, codecs, damage ------------------------------------------------------------------

def test_folder_of_many_applications_needs_app_id(spark_logs: Any, spark: Any) -> None:
    with pytest.raises(InputError, match="--app-id"):
        find_event_log([str(spark_logs.many)])
    codecs = {}
    for path in sorted(spark_logs.many.iterdir()):
        if path.name.startswith("."):
            continue
        log = find_event_log([str(spark_logs.many)], app_id=path.name.split(".")[0])
        codecs[log.files[0].codec] = extract([str(spark_logs.many)], spark=spark,
                                             app_id=log.app_id)
    assert set(codecs) == {"lzf", "snappy", None}
    for codec in ("lzf", "snappy"):
        edges = _edges(codecs[codec])
        assert edges["s0", "s1"].records == spark_logs.truth[codec]["distinct_written"]
    with pytest.raises(InputError, match="no event log of application"):
        find_event_log([str(spark_logs.many)], app_id="app-nope")


def test_failed_task_attempts_counted_not_summed(spark_logs: Any, spark: Any) -> None:
    failing = next(p for p in spark_logs.many.iterdir()
                   if not p.name.startswith(".") and "." not in p.name)
    x = extract([str(failing)], spark=spark)
    assert x.counts.get("failed tasks") == 1
    first = x.operators[0]
    assert _edges(x)[first.id, x.operators[1].id].records > 0
    assert first.tasks == 4
    # the failed attempt of partition 0 is counted, not summed: four successes, one failure
    totals = read_locally(find_event_log([str(failing)])).tasks[first.stages[0]]
    assert (totals[OK], totals[FAILED]) == (4, 1)


def test_damaged_in_progress_log_keeps_what_is_readable(spark_logs: Any, tmp_path: Path,
                                                        spark: Any) -> None:
    original = _only(spark_logs.rdd, "*")
    lines = original.read_bytes().splitlines(keepends=True)
    damaged = tmp_path / f"{original.name}.inprogress"
    body = b"".join(lines[:5]) + b'{"Event":"SparkListenerTaskEnd","Stage ID":\n' + \
        b"not json at all\n" + b'{"Event":"SomeoneElsesEvent","x":1}\n' + b"".join(lines[5:])
    damaged.write_bytes(body + b'{"Event":"SparkListenerJobEnd","Job')   # cut mid-line
    before = damaged.read_bytes()
    x = extract([str(damaged)], spark=spark)
    assert damaged.read_bytes() == before                    # inputs are never modified
    assert x.counts["corrupt lines"] == 3
    assert x.ignored_events >= 1
    assert any(".inprogress" in w for w in x.warnings)
    clean = extract([str(original)], spark=spark)
    assert _edges(x).keys() == _edges(clean).keys()
    assert [s.records for s in x.streams] == [s.records for s in clean.streams]


def test_truncated_compressed_streams_are_reported(spark_logs: Any, tmp_path: Path) -> None:
    for source in [_only(spark_logs.stream, "*.lz4"),
                   *(p for p in spark_logs.many.iterdir() if p.suffix in (".lzf", ".snappy")),
                   _only(_only(spark_logs.sql, "eventlog_v2_*"), "events_*")]:
        cut = tmp_path / source.name
        data = source.read_bytes()
        cut.write_bytes(data[: len(data) * 9 // 10])
        x = extract([str(cut)], engine="python")
        assert x.counts["damaged streams"] == 1, source.name
        assert x.damage and x.operators


def test_segments_of_a_rolling_log_join_in_order(spark_logs: Any, tmp_path: Path) -> None:
    import zstandard

    rolling = _only(spark_logs.sql, "eventlog_v2_*")
    segment = _only(rolling, "events_*")
    app = rolling.name[len("eventlog_v2_"):]
    with segment.open("rb") as raw:
        reader = zstandard.ZstdDecompressor().stream_reader(raw, read_across_frames=True)
        lines = reader.read().splitlines(keepends=True)
    split = tmp_path / rolling.name
    split.mkdir()
    tenth = len(lines) // 10
    parts = [lines[k * tenth:(k + 1) * tenth] for k in range(9)] + [lines[9 * tenth:]]
    for n, part in enumerate(parts, start=1):  # events_10 sorts before events_2 by name
        (split / f"events_{n}_{app}.zstd").write_bytes(
            zstandard.ZstdCompressor().compress(b"".join(part)))
    log = find_event_log([str(split)])
    assert [f.segment for f in log.files] == list(range(1, 11))
    whole = extract([str(rolling)], engine="python")
    assert extract([str(split)], engine="python").application_document() == \
        whole.application_document()


# CLI and the round trip to a solver -------------------------------------------------------

@pytest.mark.parametrize("which", ["sql", "rdd", "stream"])
def test_extracted_files_solve_with_odrp(spark_logs: Any, spark: Any, tmp_path: Path,
                                         which: str) -> None:
    app_file, infra_file = tmp_path / "app.yaml", tmp_path / "infra.yaml"
    result = runner.invoke(app, ["extract", str(getattr(spark_logs, which)), "-o", str(app_file),
                                 "--infrastructure-out", str(infra_file)])
    assert result.exit_code == 0, result.output
    assert "Operators" in result.output and "Streams" in result.output
    document = yaml.safe_load(app_file.read_text())
    assert document["schema"] == "streamplace/application/v1"
    solved = runner.invoke(app, ["solve", str(app_file), str(infra_file), "--method", "odrp",
                                 "--json", "--quiet"])
    assert solved.exit_code == 0, solved.output
    assert json.loads(solved.stdout)["status"] == "optimal"


def test_cli_json_and_bad_paths(spark_logs: Any, spark: Any, tmp_path: Path) -> None:
    result = runner.invoke(app, ["extract", str(spark_logs.rdd), "--json", "--quiet"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["application"]["operators"][0]["id"] == "s0"
    assert doc["report"]["streams"][0]["records"] == spark_logs.truth["rdd"]["distinct_written"]
    missing = runner.invoke(app, ["extract", str(tmp_path / "nope")])
    assert missing.exit_code == 2 and "no such file" in missing.output
    many = runner.invoke(app, ["extract", str(spark_logs.many)])
    assert many.exit_code == 2 and "--app-id" in many.output
    shutil.copy(_only(spark_logs.rdd, "*"), tmp_path / "log")
    same = runner.invoke(app, ["extract", str(tmp_path / "log"), "-o", str(tmp_path / "log")])
    assert same.exit_code == 2 and "also an input" in same.output


def test_byte_ranges_own_each_line_once(spark_logs: Any) -> None:
    from streamplace.io.eventlog.read import _digest_pieces, pieces

    log = find_event_log([str(spark_logs.rdd)])
    whole = read_locally(log)
    for split in (997, 4096, 65_536):
        work = pieces(log, split)
        assert len(work) == -(-log.size // split)
        parts = merge_all([d for piece in work for d in _digest_pieces([piece])])
        assert parts.counts == whole.counts
        assert parts.tasks == whole.tasks and parts.stages == whole.stages


@settings(max_examples=200, deadline=None)
@given(st.lists(st.binary(max_size=12).map(lambda b: b.replace(b"\n", b"")), max_size=30),
       st.integers(1, 40), st.integers(1, 16), st.booleans())
def test_every_line_belongs_to_exactly_one_byte_range(lines, split, chunk, last_newline):
    """Ranges split anywhere (on a newline, inside a line, chunk edges anywhere): their
    lines, in order, are the file's lines (but the empty ones), each once."""
    import io

    from streamplace.io.eventlog import read

    data = b"\n".join(lines) + (b"\n" if last_newline and lines else b"")
    expected = [line for line in data.split(b"\n") if line]  # an empty line holds no event
    old = read.CHUNK
    read.CHUNK = chunk  # small chunks, so chunk edges fall everywhere
    try:
        got = [line for start in range(0, len(data), split)
               for line in read._range_lines(io.BytesIO(data), start,
                                             min(start + split, len(data)))]
    finally:
        read.CHUNK = old
    assert got == expected


def test_retried_stage_attempt_is_one_operator(spark_logs: Any, tmp_path: Path) -> None:
    """A stage that failed and ran again (attempt 1 recomputes only what was missing)."""
    lines = [json.loads(line) for line in _only(spark_logs.rdd, "*").read_text().splitlines()]
    out = []
    for event in lines:
        out.append(event)
        if event["Event"] == "SparkListenerStageCompleted" and \
                event["Stage Info"]["Stage ID"] == 1:
            event["Stage Info"]["Failure Reason"] = "FetchFailed(...)"
            retry = json.loads(json.dumps(event["Stage Info"]))
            retry.update({"Stage Attempt ID": 1, "Number of Tasks": 1})
            del retry["Failure Reason"]
            out.append({"Event": "SparkListenerStageSubmitted", "Stage Info": retry})
            out.append({"Event": "SparkListenerStageCompleted", "Stage Info": retry})
    log = tmp_path / "local-retried"
    log.write_text("".join(json.dumps(e) + "\n" for e in out))
    x = extract([str(log)], engine="python")
    assert x.counts["failed stage attempts"] == 1
    assert [op.id for op in x.operators] == ["s0", "s1", "s2"]
    assert _ops(x)["s1"].tasks == 4                  # attempt 0 listed every partition


def test_digests_merge_in_any_grouping(spark_logs: Any) -> None:
    """Any chunking of the bytes and any grouping of lines into digests: the same result."""
    data = _only(spark_logs.sql, "eventlog_v2_*")
    whole = extract([str(data)], engine="python").application_document()
    log = find_event_log([str(data)])
    raw = log.files[0]
    with open(raw.path, "rb") as f:
        text = b"".join(decoded_chunks(f, raw.codec, print))

    @settings(max_examples=25, deadline=None)
    @given(cuts=st.lists(st.integers(0, len(text)), max_size=12),
           groups=st.lists(st.integers(1, 40), min_size=1, max_size=8))
    def check(cuts: list[int], groups: list[int]) -> None:
        bounds = sorted({0, len(text), *cuts})
        chunks = [text[a:b] for a, b in itertools.pairwise(bounds)]
        lines = list(lines_of(iter(chunks)))
        assert b"".join(line + b"\n" for line in lines) == text
        digests, i = [], 0
        for size in groups * (len(lines) // sum(groups) + 1):
            if i >= len(lines):
                break
            d = Digest()
            for line in lines[i:i + size]:
                d.add_line(line)
            digests.append(d)
            i += size
        merged = extract_application(merge_all(list(reversed(digests))), log)
        assert merged.application_document()["streams"] == whole["streams"]
        assert merged.application_document() == whole

    check()


def test_cluster_master_with_executors_in_their_own_processes(spark_logs: Any,
                                                              tmp_path: Path) -> None:
    """--master local-cluster: executor JVMs and Python workers outside this process read
    the log (the package is shipped to them); the skeleton counts executor cores per host."""
    import subprocess
    import sys

    from ..support.spark_jobs import CLUSTER

    app_file, infra_file = tmp_path / "app.json", tmp_path / "infra.yaml"
    run = subprocess.run([sys.executable, "-m", "streamplace", "extract",
                          str(spark_logs.cluster), "--master", CLUSTER, "-o", str(app_file),
                          "--infrastructure-out", str(infra_file), "--quiet"],
                         capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert run.returncode == 0, run.stderr
    local = extract([str(spark_logs.cluster)], engine="python")
    assert json.loads(app_file.read_text()) == local.application_document()
    (node,) = yaml.safe_load(infra_file.read_text())["nodes"]
    assert node["resources"] == 2
    edges = _edges(local)
    assert edges["s0", "s1"].records == spark_logs.truth["cluster"]["distinct_written"]


# Hardening: outputs all or none, quiet means quiet, cut logs in the tool's words ----------

def test_several_outputs_are_written_all_or_none(spark_logs: Any, tmp_path: Path) -> None:
    existing = tmp_path / "infra.yaml"
    existing.write_text("kept\n")
    result = runner.invoke(app, ["extract", str(spark_logs.rdd), "--engine", "python",
                                 "--infrastructure-out", str(existing),
                                 "-o", "/proc/streamplace-app.yaml"])
    assert result.exit_code == 2, result.output
    assert "/proc/streamplace-app.yaml: cannot write" in result.output
    assert existing.read_text() == "kept\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["infra.yaml"]


def test_quiet_extraction_prints_nothing_not_even_the_jvm(spark_logs: Any,
                                                          tmp_path: Path) -> None:
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "streamplace", "extract", str(spark_logs.rdd),
                           "--quiet", "-o", str(tmp_path / "app.yaml")],
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stderr == "" and done.stdout == ""
    assert yaml.safe_load((tmp_path / "app.yaml").read_text())["operators"]


def test_a_cut_log_is_reported_in_the_tools_words(spark_logs: Any, tmp_path: Path) -> None:
    """Cut anywhere, a log extracts what it holds or says why not, never in the validation
    library's words (a cut before the first progress report used to end that way)."""
    source = _only(spark_logs.stream, "*.lz4")
    data = source.read_bytes()
    said = set()
    for percent in range(2, 60):
        cut = tmp_path / source.name
        cut.write_bytes(data[: len(data) * percent // 100])
        result = runner.invoke(app, ["extract", str(cut), "--engine", "python", "--quiet"])
        assert result.exit_code in (0, 2), result.output
        assert "validation" not in result.output and "should have" not in result.output
        if result.exit_code == 2:
            reason = result.stderr.split(": ", 2)[2]
            # how many stages ran before the first progress report is the machine's pace
            assert re.match(r"no stage ran in this event log — |none of the \d+ stage\(s\) "
                            r"that ran can be placed|the log spans no measurable time",
                            reason), reason
            said.add(reason[:12])
    # a cut between a stage's report and its job's end spans no time: some runs have one
    assert {"no stage ran", "none of the "} <= said <= {"no stage ran", "none of the ",
                                                          "the log span"}



def test_a_log_whose_jobs_never_end_names_itself_in_the_error() -> None:
    """Stages ran but no job or task finished (a log cut there): the error says which log,
    as every input error does, and why."""
    log = find_event_log([str(SAMPLES / "eventlog")])
    d = Digest()
    for raw in log.files:
        with open(raw.path, "rb") as f:
            for line in lines_of(decoded_chunks(f, raw.codec, print)):
                if b"SparkListenerTaskEnd" not in line and b"SparkListenerJobEnd" not in line:
                    d.add_line(line)
    with pytest.raises(InputError) as caught:
        extract_application(d, log)
    assert caught.value.problems[0].render().startswith(
        f"{log.app_id}: the log spans no measurable time")

def test_task_totals_do_not_depend_on_how_a_log_is_cut() -> None:
    """Useful time is kept in whole nanoseconds: three tasks whose shuffle writes leave
    fractions of a millisecond sum to the same totals in any grouping."""
    from streamplace.io.eventlog.digest import Digest

    def line(run: int, wait: int, write_ns: int) -> bytes:
        return json.dumps({"Event": "SparkListenerTaskEnd", "Stage ID": 0,
                           "Task End Reason": {"Reason": "Success"}, "Task Info": {},
                           "Task Metrics": {"Executor Run Time": run,
                                            "Shuffle Read Metrics": {"Fetch Wait Time": wait},
                                            "Shuffle Write Metrics": {
                                                "Shuffle Write Time": write_ns}}}).encode()

    # in milliseconds these sum to 2151.092029 one way, 2151.0920290000004 another
    lines = [line(276, 4, 1_777_198), line(1644, 0, 534_919), line(242, 3, 1_595_854)]

    def digest(group: list[bytes]) -> Digest:
        d = Digest()
        for item in group:
            d.add_line(item)
        return d

    whole = digest(lines).tasks
    for groups in ([lines[:1], lines[1:]], [lines[2:], lines[:2]], [[x] for x in lines]):
        assert merge_all([digest(g) for g in groups]).tasks == whole


def _rolling_copy(spark_logs: Any, tmp_path: Path, parts: int = 3) -> tuple[Path, str, list]:
    """The SQL application's rolling log split into ``parts`` zstd segments 1..parts."""
    import zstandard

    rolling = _only(spark_logs.sql, "eventlog_v2_*")
    app = rolling.name[len("eventlog_v2_"):]
    with _only(rolling, "events_*").open("rb") as raw:
        reader = zstandard.ZstdDecompressor().stream_reader(raw, read_across_frames=True)
        lines = reader.read().splitlines(keepends=True)
    split = tmp_path / rolling.name
    split.mkdir()
    size = len(lines) // parts
    chunks = [lines[k * size:(k + 1) * size] for k in range(parts - 1)] + \
        [lines[(parts - 1) * size:]]
    for n, chunk in enumerate(chunks, start=1):
        (split / f"events_{n}_{app}.zstd").write_bytes(
            zstandard.ZstdCompressor().compress(b"".join(chunk)))
    for status in rolling.glob("appstatus_*"):
        shutil.copy(status, split / status.name)
    return split, app, chunks


def test_a_segment_present_twice_is_refused_not_counted_twice(spark_logs: Any,
                                                              tmp_path: Path) -> None:
    """events_1_x and events_1_x.zstd: every rate would double. Spark refuses such a log."""
    import zstandard

    split, app_id, chunks = _rolling_copy(spark_logs, tmp_path)
    (split / f"events_1_{app_id}").write_bytes(b"".join(chunks[0]))
    with pytest.raises(InputError, match="segment 1 is here twice"):
        find_event_log([str(split)])
    done = runner.invoke(app, ["extract", str(split), "--engine", "python", "-o",
                                   str(tmp_path / "a.yaml")])
    assert done.exit_code == 2 and "segment 1 is here twice" in done.output
    assert zstandard  # the segments above are zstd, as Spark 4 writes them


def test_a_missing_segment_is_refused_not_read_in_part(spark_logs: Any, tmp_path: Path) -> None:
    split, app_id, _ = _rolling_copy(spark_logs, tmp_path)
    (split / f"events_2_{app_id}.zstd").unlink()
    with pytest.raises(InputError, match="segment 2 is missing"):
        find_event_log([str(split)])


def test_a_compacted_log_reads_from_its_last_compact_file(spark_logs: Any,
                                                          tmp_path: Path) -> None:
    """The segments a compaction left beside its .compact file are not read again: the
    rates are those of the log without them."""
    import zstandard

    split, app_id, chunks = _rolling_copy(spark_logs, tmp_path)
    whole = extract([str(split)], engine="python").application_document()
    (split / f"events_2_{app_id}.zstd.compact").write_bytes(
        zstandard.ZstdCompressor().compress(b"".join(chunks[0] + chunks[1])))
    log = find_event_log([str(split)])
    assert [(f.segment, f.compacted) for f in log.files] == [(2, True), (3, False)]
    assert extract([str(split)], engine="python").application_document() == whole


def test_one_whole_log_in_two_codecs_is_refused(spark_logs: Any, tmp_path: Path) -> None:
    source = _only(spark_logs.stream, "*.lz4")
    shutil.copy(source, tmp_path / source.name)
    shutil.copy(source, tmp_path / source.name.replace(".lz4", ".lz4.inprogress"))
    with pytest.raises(InputError, match="the log is here 2 times"):
        find_event_log([str(tmp_path)])


# bounded reading: decompression bombs, lines without end, lines nested too deep ------------

def _peak_rss_of(code: str) -> tuple[int, str]:
    """Run ``code`` in a fresh interpreter; its peak resident memory in MiB, and stdout."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", code + "\nimport resource\nprint("
                           "resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024)"],
                          capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr
    *out, peak = done.stdout.strip().splitlines()
    return int(peak), "\n".join(out)


def test_a_zstd_bomb_is_decoded_in_bounded_memory(spark_logs: Any, tmp_path: Path) -> None:
    """A 40 kB zstd file of 256 MiB of newlines after a real log: memory stays near the
    read chunk (it took 2.4-2.9 GB), and the events before it are all read."""
    import zstandard

    source = _only(_only(spark_logs.sql, "eventlog_v2_*"), "events_*")
    bomb = tmp_path / "app-bomb.zstd"
    bomb.write_bytes(source.read_bytes() + zstandard.ZstdCompressor(level=19).compress(
        b"\n" * (256 << 20)))
    assert bomb.stat().st_size < source.stat().st_size + 100_000
    plain = tmp_path / "app-plain.zstd"
    shutil.copy(source, plain)
    code = ("from streamplace.io.eventlog import extract\n"
            "x = extract([{!r}], engine='python')\n"
            "print(len(x.operators))")
    peak, operators = _peak_rss_of(code.format(str(bomb)))
    alone, expected = _peak_rss_of(code.format(str(plain)))
    assert int(operators) == int(expected) > 0
    # the bomb decodes to 256 MiB: held whole, it would add that and more (it added 2 GB)
    assert peak - alone < 128, f"{peak} MiB with the bomb, {alone} MiB without"


def test_a_line_without_end_is_counted_not_held(tmp_path: Path, monkeypatch) -> None:
    """A line far over the limit is one corrupt line; the events after it are read. Its
    pieces are never joined, so its length costs time linear in it."""
    from streamplace.io.eventlog import codecs

    monkeypatch.setattr(codecs, "MAX_LINE", 1 << 20)
    log = tmp_path / "app-long"
    events = [b'{"Event":"SparkListenerLogStart","Spark Version":"4.0.0"}\n',
              b"x" * (5 << 20) + b"\n",
              b'{"Event":"SparkListenerApplicationEnd","Timestamp":2}\n']
    log.write_bytes(b"".join(events))
    lines = list(codecs.lines_of(iter(log.read_bytes()[k:k + 4096]
                                      for k in range(0, log.stat().st_size, 4096))))
    assert lines[1] == codecs.OVERLONG and len(lines) == 3
    assert lines[2].startswith(b'{"Event":"SparkListenerApplicationEnd"')


def test_a_line_nested_too_deep_is_one_corrupt_line(spark_logs: Any, spark: Any,
                                                    tmp_path: Path) -> None:
    """On both engines: the log is read, the line counted (the Spark engine threw the whole
    log away with Python and Java tracebacks)."""
    original = _only(spark_logs.stream, "*.lz4")
    plain = tmp_path / "app-deep"
    from streamplace.io.eventlog.codecs import decoded_chunks

    with original.open("rb") as raw:
        text = b"".join(decoded_chunks(raw, "lz4", print))
    plain.write_bytes(text + b"[" * 200_000 + b"]" * 200_000 + b"\n")
    clean = extract([str(original)], engine="python")
    for engine in ("python", "spark"):
        x = extract([str(plain)], engine=engine, spark=spark if engine == "spark" else None)
        assert x.counts.get("corrupt lines", 0) == clean.counts.get("corrupt lines", 0) + 1, \
            engine
        assert [s.records for s in x.streams] == [s.records for s in clean.streams], engine


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([b"a", b"bb", b"\n", b"ccc\n", b"\n\n", b"dddd"]),
                max_size=30), st.integers(1, 6), st.integers(2, 8))
def test_lines_of_is_the_plain_split(pieces: list[bytes], cut: int, max_line: int) -> None:
    """However the bytes are cut into chunks: the lines of a plain split, empty ones left
    out, each over ``max_line`` replaced by OVERLONG."""
    from streamplace.io.eventlog.codecs import OVERLONG

    data = b"".join(pieces)
    chunks = [data[k:k + cut] for k in range(0, len(data), cut)]
    expected = [line if len(line) <= max_line else OVERLONG
                for line in data.split(b"\n") if line]
    assert list(lines_of(iter(chunks), max_line=max_line)) == expected
