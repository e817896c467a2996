"""The response time held to the job: the model's prediction of Flink's latency markers, the
markers read from the scripted JobManager, ``observe --against`` comparing them and
``autoscale --max-response-time`` acting on them."""

from __future__ import annotations

import json

import pytest

from streamplace.control.flink.markers import MARKER
from streamplace.control.running.latency import predicted_markers
from streamplace.model.evaluate import evaluate

from ..conftest import make_app, make_infra, make_plan, run
from ..support.fake_jobmanager import fake_jobmanager
from ..support.loops import flink_decided
from ..support.snapshots import observed_files

STEP = ("--yes", "--stabilization-interval", "0", "--metrics-window", "5", "--max-steps",
        "1", "--dry-run", "-q")


def _chain():
    app = make_app({"name": "chain", "operators": [
        {"id": "src", "service_rate": 100}, {"id": "work", "service_rate": 50},
        {"id": "sink", "service_rate": 200}],
        "streams": [{"from": "src", "to": "work", "rate": 30},
                    {"from": "work", "to": "sink", "rate": 30}]})
    infra = make_infra({"name": "one", "nodes": [{"id": "n", "resources": 8}]})
    plan = make_plan({"placement": {"src": ["n"], "work": ["n"], "sink": ["n"]}}, app, infra)
    return app, infra, plan


def test_a_marker_waits_behind_the_queue_and_in_each_output_buffer_but_is_not_served():
    app, infra, plan = _chain()
    got = predicted_markers(app, infra, plan, 0.1, [("src", "sink")])[("src", "sink")]
    ev = evaluate(app, infra, plan)
    r = {m.id: m.latency for m in ev.odrp.operators}
    assert got.response_time == pytest.approx(ev.odrp.response_time)
    # W_q = R - 1/mu at work and sink (the source's own queue is not on the marker's way)
    assert got.waiting == pytest.approx((r["work"] - 1 / 50) + (r["sink"] - 1 / 200))
    assert got.hops == 2 and got.buffers == pytest.approx(0.1)
    assert got.marker == pytest.approx(got.waiting + got.buffers + got.network)
    assert got.marker < got.response_time + got.buffers


def test_marker_ids_are_read_at_both_granularities_and_single_is_not():
    src, op = "a" * 32, "b" * 32
    operator = f"3.latency.source_id.{src}.operator_id.{op}.operator_subtask_index.1.latency_mean"
    subtask = (f"0.latency.source_id.{src}.source_subtask_index.2.operator_id.{op}."
               "operator_subtask_index.0.latency_p99")
    single = f"0.latency.operator_id.{op}.operator_subtask_index.0.latency_mean"
    assert MARKER.match(operator).groups() == (src, op, "mean")
    assert MARKER.match(subtask).groups() == (src, op, "p99")
    assert MARKER.match(single) is None


@pytest.mark.parametrize("in_job", [False, True], ids=["2.x per vertex", "1.20 in the job"])
def test_observe_against_compares_each_path_with_its_markers(tmp_path, in_job):
    _doc, (app, infra, plan) = observed_files(tmp_path)
    with fake_jobmanager() as jm:
        jm.markers_in_job = in_job
        jm.config += [{"key": "metrics.latency.interval", "value": "1000"}]
        jm.checkpoints = {"mode": "exactly_once", "interval": 1000, "timeout": 600000}
        jm.latency = {"sink: Writer": 240.0}
        done = run("observe", jm.job_url, "--against", plan, "--application", app,
                   "--infrastructure", infra, "--json", "-q")
        jm.latency = {}
        without = run("observe", jm.job_url, "--against", plan, "--application", app,
                      "--infrastructure", infra, "--json", "-q")
    drift = json.loads(done.stdout)["drift"]
    [path] = drift["latency"]
    assert path["operator"] == "sink" and path["measured_mean"] == pytest.approx(0.24)
    assert path["measured_median"] == pytest.approx(0.216)
    assert path["measured_p99"] == pytest.approx(0.48)
    # no count in Flink's answer: the sink ran 80.8 s, a marker a second from each of its
    # two source subtasks, spread over its two subtasks
    assert path["measured_markers"] == pytest.approx(80.8, abs=0.1)
    assert path["hops"] == 3 and path["buffers"] == pytest.approx(0.15)  # 100 ms default
    # (L3) hop by hop: the waits for the flushes together and each hop's other terms add up
    # to the mean, and no run exceeds the promise
    assert [h["stream"][1] for h in path["per_hop"]][-1] == "sink"
    assert path["predicted_marker"] == pytest.approx(path["flush_waits"] + sum(
        h["batch"] + h["queue"] + h["fired"] * h["firing"] / 2 for h in path["per_hop"])
        + path["delays"])
    # the barrier that flushes a marker out of one buffer flushes it out of the next too
    assert path["flush_waits"] < sum(h["buffer"] for h in path["per_hop"])
    assert path["predicted_marker"] < path["predicted_p99"] < path["promised"]
    # a checkpoint a second: its barriers flush every buffer too
    assert {h["barrier"] for h in path["per_hop"]} == {1.0}
    notes = json.loads(without.stdout)["drift"]["notes"]
    assert any("latency not compared: the job reports no latency markers" in n
               and "metrics.latency.interval" in n for n in notes), notes


def test_a_path_above_max_response_time_is_repaired_by_a_replan_held_below_it(tmp_path):
    """counter busy 0.9: its queue is most of the markers' age. The markers 20 ms above the
    model's prediction of them, the limit 50 ms below the markers: the re-plan's bound on R
    comes from the calibration, and more counter subtasks meet it. A limit below what no
    parallelism shortens with what the model misses is said to be out of reach; one below
    the three hops' half-flushes alone is bad input."""
    with fake_jobmanager(busy={"counter": 0.9}) as jm:
        jm.latency = {"sink: Writer": 100.0}
        predicted = flink_decided(jm.job_url, "--max-response-time", "10s")
        app, infra, plan = (str(tmp_path / f"{k}.yaml") for k in ("app", "infra", "plan"))
        made = run("observe", jm.job_url, "--window", "5", "-o", app, "--infrastructure-out",
                   infra, "--plan-out", plan, "-q")
        assert made.exit_code == 0, made.output
        held = run("observe", jm.job_url, "--window", "5", "--against", plan,
                   "--application", app, "--infrastructure", infra, "--json", "-q")
        path = json.loads(held.stdout)["drift"]["latency"][0]
        marker = path["l1_marker"] * 1000  # the sensitivity the re-plan calibrates, (L1)
        jm.latency = {"sink: Writer": marker + 20}
        line = flink_decided(jm.job_url, "--max-response-time", f"{marker - 30:.3f}ms")
        stuck = flink_decided(jm.job_url, "--max-response-time", "165ms")
        below = run("autoscale", jm.job_url, "--max-response-time", "150ms", *STEP)
        puts = list(jm.puts)
    assert predicted["decision"] in ("dry run", "no change")
    assert path["waiting"] > 0.05 and path["buffers"] == pytest.approx(0.15)
    source = next(iter(line["seen"]))
    assert line["latency"] == {f"{source} -> sink": pytest.approx((marker + 20) / 1000,
                                                                  abs=1e-4)}
    assert any(f"{source} -> sink takes {marker + 20:.0f} ms on average (latency markers), "
               f"above --max-response-time {marker - 30:.0f} ms by 50 ms" in why
               for why in line["why"]), line["why"]
    assert any("the re-plan holds the model's response time below" in why
               for why in line["why"]), line["why"]
    assert line["decision"] == "dry run", line["why"]
    assert line["to"]["counter"] > line["from"]["counter"]
    # 165 ms: above the buffers' 150 ms, below them with what the model misses (20 ms)
    assert any("already exceeds the limit: no plan can hold it" in why
               for why in stuck["why"]), stuck["why"]
    # 150 ms: the three hops' half-flushes alone, whatever the parallelism: bad input
    assert below.exit_code == 2 and puts == [], below.output
    assert "below what numbers-pace -> sink takes whatever its parallelism: 150 ms" in \
        " ".join(below.output.split())


def test_a_p99_bound_is_broken_where_the_mean_holds_and_the_replan_takes_the_spread_off():
    """The scripted markers' p99 is twice their mean. A limit between the two holds the mean
    and breaks the p99: with --response-time-statistic p99 the path is said broken at its
    p99 and the re-plan's bound on R is lower than the mean's by the spread read (the p99
    less the mean), so that it asks at least as many counter subtasks."""
    with fake_jobmanager(busy={"counter": 0.9}) as jm:
        jm.latency = {"sink: Writer": 300.0}
        mean = flink_decided(jm.job_url, "--max-response-time", "450ms")
        p99 = flink_decided(jm.job_url, "--max-response-time", "450ms",
                            "--response-time-statistic", "P99")
    source = next(iter(p99["seen"]))
    assert mean["latency"] == {f"{source} -> sink": pytest.approx(0.3)}
    assert p99["latency"] == {f"{source} -> sink": pytest.approx(0.6)}
    assert not any("above --max-response-time" in why for why in mean["why"]), mean["why"]
    assert any(f"{source} -> sink takes 600 ms at its p99 (latency markers), above "
               "--max-response-time 450 ms by 150 ms" in why for why in p99["why"]), p99["why"]

    def bound(decided):
        said = next(why for why in decided["why"] if "holds the model's response time" in why)
        return float(said.split("below ")[1].split(" ms")[0]), said

    (held_mean, _), (held_p99, said) = bound(mean), bound(p99)
    assert held_p99 == pytest.approx(held_mean - 300, abs=1.5)
    assert "the p99 read 300 ms above the mean" in said
    assert p99["to"]["counter"] >= mean["to"]["counter"]


def test_a_statistic_without_a_bound_or_not_one_of_the_markers_is_bad_input():
    with fake_jobmanager() as jm:
        alone = run("autoscale", jm.job_url, "--response-time-statistic", "p99", *STEP)
        other = run("autoscale", jm.job_url, "--max-response-time", "0.3",
                    "--response-time-statistic", "p95", *STEP)
        puts = list(jm.puts)
    assert alone.exit_code == 2 and other.exit_code == 2 and puts == []
    assert "--response-time-statistic says what --max-response-time holds" in \
        " ".join(alone.output.split())
    assert "'p95' is not a statistic of the markers" in " ".join(other.output.split())


def test_max_response_time_on_a_job_without_markers_is_bad_input_with_the_setting():
    with fake_jobmanager() as jm:
        done = run("autoscale", jm.job_url, "--max-response-time", "0.3", *STEP)
        puts = list(jm.puts)
    assert done.exit_code == 2 and puts == []
    said = " ".join(done.output.split())
    assert "the job reports no latency markers" in said
    assert "metrics.latency.interval" in said


def test_max_response_time_needs_a_method_that_replans():
    with fake_jobmanager() as jm:
        done = run("autoscale", jm.job_url, "--max-response-time", "0.3", "--method", "ds2",
                   *STEP)
    assert done.exit_code == 2
    assert "--max-response-time is held by re-planning" in " ".join(done.output.split())


def test_markers_that_reach_no_sink_are_as_none():
    """Markers only on a vertex that is not a sink (a sink chained into it reports under an
    operator id that is no vertex's): the bound would be held on nothing; at the first
    step that is bad input, as no markers at all is."""
    from streamplace.errors import InputError

    with fake_jobmanager(busy={"counter": 0.9}) as jm:
        jm.latency = {"counter": 80.0}
        with pytest.raises(InputError, match="reach no sink"):
            flink_decided(jm.job_url, "--max-response-time", "50ms")


@pytest.mark.parametrize(("mean", "config", "said"), [
    (float("inf"), {}, "sink are not a finite number of milliseconds"),
    (float("nan"), {}, "sink hold no marker yet (NaN: the histograms are empty)"),
    (-80.0, {}, "sink negative (-80 ms)"),
    (80.0, {"execution.buffer-timeout.enabled": "false"}, "flushes its network buffers "
     "only when full"),
    (80.0, {"execution.buffer-timeout": "-1"}, "flushes its network buffers only when full"),
    # the sample job's sink has run 80.8 s: at a marker a minute, one in its histogram
    (80.0, {"metrics.latency.interval": "60000"}, "rest on about 1 markers"),
    (80.0, {"metrics.latency.interval": "60000"}, "read again in 520 s"),
    (80.0, {"metrics.latency.interval": "1000", "metrics.latency.history-size": "5"},
     "set metrics.latency.history-size to at least 10"),
])
def test_markers_that_are_no_latency_are_said_with_why_and_nothing_is_sent(mean, config, said):
    """Java prints an overflowed double as Infinity and an empty histogram's mean as NaN; a
    negative age is two TaskManagers' clocks apart; buffers flushed only when full make a
    marker's age the rate's; a histogram of too few markers is no mean: each is one line
    naming the path or the setting, exit 2, nothing sent; never an "inf" in a decision, nor
    a latency read as none or as zero."""
    with fake_jobmanager(busy={"counter": 0.9}) as jm:
        jm.latency = {"sink: Writer": mean}
        jm.config += [{"key": k, "value": v} for k, v in config.items()]
        done = run("autoscale", jm.job_url, "--max-response-time", "50ms", *STEP)
        puts = list(jm.puts)
    assert done.exit_code == 2 and puts == [], done.output
    assert said in " ".join(done.output.split()), done.output


def test_markers_that_span_less_than_the_window_read_are_said_with_the_history_to_set():
    """Ten markers at one per 97 ms arrived over 0.97 s: against a 10 s window, a window's
    firing or a 100 ms timer's phase there may be missed. A history still filling (the
    vertex ran less long than it takes) and one as long as the window are not said."""
    from streamplace.control.flink.samples import short_spans
    from streamplace.control.running.latency import Measured

    config = {"metrics.latency.history-size": "10"}
    short = Measured(0.02, 0.02, 0.03, markers=10.0, span=0.97)
    [said] = short_spans({("people", "sink"): short}, 10.0, config)
    assert said.startswith("the latency markers of people -> sink arrived over the last "
                           "1.0 s") and said.endswith("history-size to at least 104")
    filling = Measured(0.02, 0.02, 0.03, markers=60.0, span=5.8)
    whole = Measured(0.02, 0.02, 0.03, markers=128.0, span=12.4)
    assert short_spans({("a", "b"): filling, ("c", "d"): whole}, 10.0, {}) == []
    assert short_spans({("people", "sink"): short}, 0.0, config) == []  # no window read


def test_markers_spanning_part_of_a_firing_period_are_said_with_the_history_to_set():
    """q8's join fires every 10 s: 372 markers at one per 97 ms arrived over 36.1 s, 3.6
    periods, and hold three firings or four as a read falls; the note names the join, both
    paths through it and the history that spans four (412). A span of a whole number of
    periods, one of ten or more, one under one period (short_spans says so), one still
    filling, an operator that does not fire on the path and one whose firings move the mean
    by less than a twentieth (a sink's 50 ms bursts: a tenth of a millisecond) are not
    said."""
    from streamplace.control.flink.samples import part_periods
    from streamplace.control.running.hops import Hop
    from streamplace.control.running.latency import Measured, PathLatency, Predicted

    def paths(span: float, markers: float = 372.0, fired: tuple[float, ...] = (4.6,),
              ) -> list[PathLatency]:
        hops = (Hop(("src", "join"), 0.01, False, 0.3, 1, 0.001, 1.0, True, 0.0,
                    total=0.8, firings=fired),
                Hop(("join", "sink"), 0.01, False, 0.01, 1, 0.001, 1.0, True, 0.0))
        return [PathLatency(Predicted(source, "sink", 0.0, 0.0, 0.0, 0.0, 2, path=hops),
                            Measured(1.0, 0.5, 4.5, markers=markers, span=span), 0.2)
                for source in ("people", "auctions")]

    config = {"metrics.latency.history-size": "372"}
    [said] = part_periods(paths(36.1), {"join": 10.0}, config)
    assert said.startswith("join's windows fire about every 10.0 s, and the latency markers "
                           "of people -> sink and auctions -> sink arrived over the last "
                           "36.1 s, 3.6 of its periods: a read holds 3 or 4 of its firings")
    assert said.endswith("the markers' mean moves by up to 419 ms with them; set "
                         "metrics.latency.history-size to 412 to span 4")  # 4.6^2 / (1.4 x 36.1)
    for quiet in (paths(40.0), paths(30.9), paths(120.0), paths(36.1, markers=200.0),
                  paths(36.1, fired=()), paths(36.1, fired=(0.05,)), paths(0.97)):
        assert part_periods(quiet, {"join": 10.0}, config) == []
    assert part_periods(paths(36.1), {}, config) == []  # no whole firing read: no period


def test_a_path_without_markers_is_said_before_a_bound_is_held_on_the_others():
    """Two sinks, markers read at one: a bound held there only would be said held on the
    job; at the first step that is bad input naming the path without markers."""
    from streamplace.control.running.latency import Measured, unmeasured

    app = make_app({"name": "fork", "operators": [
        {"id": "src", "service_rate": 100}, {"id": "a", "service_rate": 50},
        {"id": "b", "service_rate": 50}],
        "streams": [{"from": "src", "to": "a", "rate": 30},
                    {"from": "src", "to": "b", "rate": 30}]})
    read = {("src", "a"): Measured(0.1, 0.1, 0.2)}
    assert unmeasured(read, app) == [("src", "b")]
    assert unmeasured({**read, ("src", "b"): Measured(0.1, 0.1, 0.2)}, app) == []


@pytest.mark.parametrize("slices", [1, 5])
def test_a_window_held_to_markers_is_read_in_slices_for_each_lone_subtask_s_variability(
        slices):
    """autoscale --max-response-time reads its windows in slices, as observe --against
    does: a vertex of one subtask then has its service's c_s^2 measured for (L3)'s queue,
    not assumed; a window read whole has none. The fake JobManager's counters move per
    request, so the window passes on a clock that moves only when slept."""
    from streamplace.control.flink.engine import FlinkEngine
    from streamplace.solve.budget import StopRequest

    from ..support.memory_engine import FakeClock

    with fake_jobmanager(busy={"counter": 0.5}) as jm:
        counter = next(v for v in jm.snapshot["job"]["vertices"] if v["name"] == "counter")
        jm._rescale(counter, 1)  # one subtask: no spread over subtasks to read c_s^2 from
        reading = FlinkEngine(jm.job_url, FakeClock(), StopRequest(), slices).read(5.0)
    lone = [v for v in reading.observation.vertices
            if v.parallelism == 1 and v.window is not None]
    assert [v.op for v in lone] == ["counter"], reading
    measured = [v.window.variability for v in lone if v.window.variability is not None]
    assert (len(measured) == len(lone)) if slices > 1 else not measured, lone
    # and the busy time a record takes, read from the same slices: the scripted job's
    # half-busy counter over the records it reads each second
    per_record = reading.observation.record_service()
    if slices > 1:
        counter = lone[0]
        assert per_record[counter.op] == pytest.approx(
            counter.window.busy_ms / 1000 / counter.window.counts["read-records"], rel=0.01)
    else:
        assert "counter" not in per_record
