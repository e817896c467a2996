"""apply, autoscale and observe against a JobManager that misbehaves as real ones do
(tests/support/fake_jobmanager.py): counters answered incomplete, connections reset or
dropped after a change was sent, a job id gone, two slot-sharing groups, signals while a
window or a rescale is waited for. Exit codes: 2 only when nothing was sent and the input
is at fault; 3 once a change may have been sent; 130/143 with a last line that is true."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from streamplace.io import http

from ..conftest import run
from ..support.fake_jobmanager import fake_jobmanager
from ..support.loops import flink_decisions
from ..support.snapshots import SNAPSHOT

HANG_GUARD = 120  # seconds: only ever reached when the behaviour under test is broken
STEP = ("--yes", "--stabilization-interval", "0", "--metrics-window", "5", "-q")


def streamplace(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "streamplace", *args], text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def finished(proc: subprocess.Popen[str]) -> tuple[int, list[dict[str, Any]], str]:
    out, err = proc.communicate(timeout=HANG_GUARD)
    return proc.returncode, [json.loads(line) for line in out.splitlines()], err


def when(ready: Any, proc: subprocess.Popen[str]) -> None:
    """Wait until ``ready()`` holds (a request the fake saw: the readiness signal)."""
    guard = time.monotonic() + HANG_GUARD
    while not ready() and proc.poll() is None and time.monotonic() < guard:
        time.sleep(0.05)
    assert ready(), proc.communicate(timeout=HANG_GUARD)


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    """The sample job observed: its application, TaskManagers and the plan it runs. Its
    paced source sleeps, busy all the time: ten times its service rate leaves room for a
    plan that keeps it."""
    done = run("observe", SNAPSHOT, "--json", "-q")
    assert done.exit_code == 0, done.output
    doc = json.loads(done.stdout)
    for op in doc["application"]["operators"]:
        op["service_rate"] *= 10
    out = {}
    for key in ("application", "infrastructure", "plan"):
        out[key] = tmp_path / f"{key}.yaml"
        out[key].write_text(yaml.safe_dump(doc[key]))
    return out


def wider(files: dict[str, Path], **parallelism: int) -> list[str]:
    """APP INFRA PLAN with the operators named run at the parallelism given."""
    plan = yaml.safe_load(files["plan"].read_text())
    for op, k in parallelism.items():
        node = next(iter(plan["placement"][op]))
        plan["placement"][op] = {node: k}
    path = files["plan"].with_name("wider.yaml")
    path.write_text(yaml.safe_dump(plan))
    return [str(files["application"]), str(files["infrastructure"]), str(path)]


# ------------------------------------------------------------------ incomplete readings

def test_a_counter_answered_incomplete_is_no_reading_and_the_job_is_left_alone():
    """FLINK-39925: Flink answers the record counters 0 with complete: false while busy
    time moves. Read as counts, the busy vertex looks idle and is halved; here the step is
    "no reading", says why, and nothing is sent."""
    with fake_jobmanager(busy={"counter": 0.3}, pressed={"Source: numbers -> pace": 0.9}) \
            as jm:
        jm.fault(f"/vertices/{jm.vertex_id('counter')}", *["incomplete"] * 40)
        lines = flink_decisions(jm.job_url, "--method", "ds2")
        assert lines[0]["decision"] == "no change" and jm.puts == []
        assert "incomplete" in lines[0]["why"][0] and "no reading" in lines[0]["why"][0]


def test_observe_over_a_window_with_an_incomplete_counter_says_no_reading():
    with fake_jobmanager() as jm:
        jm.fault(f"/vertices/{jm.vertex_id('counter')}", *["incomplete"] * 40)
        done = run("observe", jm.job_url, "--window", "5", "--json", "-q")
    assert done.exit_code == 3 and "no reading" in done.output and "incomplete" in done.output


# ------------------------------------------------------------------ after the PUT

@pytest.mark.parametrize("fault", ["drop", "404", "hold"])
def test_trouble_after_the_put_says_the_change_may_have_been_sent(files, fault, monkeypatch):
    """A dropped connection, a job id gone or an answer held past the deadline, once the
    change was taken: exit 3, "may have been sent", never exit 2 "check the address"."""
    monkeypatch.setattr(http, "DEADLINE", 3.0)
    with fake_jobmanager() as jm:
        if fault == "404":
            jm.fault(f"=/jobs/{jm.jid}", "404", after_put=True)
        else:
            jm.put_fault = fault
        done = run("apply", *wider(files, counter=3), jm.job_url, "--yes", "--wait", "30")
    assert len(jm.puts) == 1
    assert done.exit_code == 3, done.output
    assert "may have been sent" in done.output and "check the" not in done.output


def test_a_connection_reset_while_polling_is_read_again(files):
    with fake_jobmanager() as jm:
        jm.fault(f"=/jobs/{jm.jid}", "reset", "reset", after_put=True)
        done = run("apply", *wider(files, counter=3), jm.job_url, "--yes", "--wait", "60")
    assert done.exit_code == 0, done.output
    assert len(jm.puts) == 1 and "applied" in done.output


def test_a_dropped_connection_is_named_as_such_not_as_an_answer_that_is_not_http():
    with fake_jobmanager() as jm:
        jm.fault(f"=/jobs/{jm.jid}", "drop")
        done = run("observe", jm.job_url, "-q")
    assert done.exit_code == 2 and "closed the connection" in done.output
    assert "not HTTP" not in done.output


@pytest.mark.parametrize("wait", ["nan", "inf", "-1", "0"])
def test_a_wait_that_never_ends_or_never_begins_is_refused_before_anything_is_sent(
        files, wait):
    with fake_jobmanager() as jm:
        done = run("apply", *wider(files, counter=3), jm.job_url, "--yes", "--wait", wait)
    assert done.exit_code == 2 and "--wait" in done.output and jm.puts == []


# ------------------------------------------------------------------ what the cluster holds

def test_slot_sharing_groups_add_up_when_the_slots_are_counted(files):
    """Two groups: a slot holds one subtask of each vertex of one group only. Source at 3
    and counter at 4 in different groups need 7 slots where 6 exist: nothing is sent."""
    with fake_jobmanager() as jm:
        jm.slots_total = 6
        for v in jm.snapshot["job"]["vertices"]:
            v["slotSharingGroupId"] = "b" * 32 if v["name"] in ("counter", "evens") \
                else "a" * 32
        refused = run("apply", *wider(files, **{"numbers-pace": 3, "counter": 4}),
                      jm.job_url, "--yes")
        fits = run("apply", *wider(files, **{"numbers-pace": 3, "counter": 3}), jm.job_url,
                   "--yes", "--dry-run")
    assert refused.exit_code == 3 and "needs 7 slots" in refused.output
    assert "slot-sharing groups" in refused.output and jm.puts == []
    assert fits.exit_code == 0, fits.output


def test_apply_leaves_the_lower_bound_alone_unless_asked(files):
    """FLINK-34311: raising the lower bound to the target "could potentially cause job
    failure"; the bound the job has (1 here) stays, and --lower-bound upper pins it."""
    with fake_jobmanager() as jm:
        kept = run("apply", *wider(files, counter=3), jm.job_url, "--yes")
        pinned = run("apply", *wider(files, counter=4), jm.job_url, "--yes",
                     "--lower-bound", "upper")
    assert kept.exit_code == 0 and pinned.exit_code == 0, kept.output + pinned.output
    counter = jm.vertex_id("counter")
    assert jm.puts[0][counter]["parallelism"] == {"lowerBound": 1, "upperBound": 3}
    assert jm.puts[1][counter]["parallelism"] == {"lowerBound": 4, "upperBound": 4}


# ------------------------------------------------------------------ signals

def test_sigterm_during_the_metrics_window_ends_the_loop_at_once_with_a_last_line():
    """A container stop gives a few seconds: the loop does not wait out an hour's window."""
    with fake_jobmanager() as jm:
        loop = streamplace("autoscale", jm.job_url, "--yes", "--stabilization-interval", "0",
                           "--metrics-window", "3600", "-q")
        when(lambda: jm.gets("/vertices/") >= 8, loop)  # the window's first end is read
        loop.send_signal(signal.SIGTERM)
        code, lines, err = finished(loop)
    assert code == 143, err
    assert [line["decision"] for line in lines] == ["stopped"]


@pytest.mark.parametrize("held", ["the wait for the job", "the PUT's answer"])
def test_sigterm_while_a_rescale_is_in_flight_says_it_was_sent_and_exits_143(held):
    """SIGTERM while the job never gets to the rescale, or while the JobManager holds the
    PUT's answer: the loop does not wait either out; its last lines say the change was
    sent, and it exits 143."""
    with fake_jobmanager(busy={"counter": 0.99}) as jm:
        extra: tuple[str, ...] = ()
        if held == "the wait for the job":
            jm.settle, extra = False, ("--wait", "3600")
        else:
            jm.put_fault = "hold"
        loop = streamplace("autoscale", jm.job_url, "--method", "ds2", *extra, *STEP)
        when(lambda: bool(jm.puts), loop)
        loop.send_signal(signal.SIGTERM)
        code, lines, err = finished(loop)
    assert code == 143, err
    assert [line["decision"] for line in lines] == ["rescale", "stopped"]
    assert any("the change was sent" in why for why in lines[0]["why"])


def test_an_interrupt_while_the_put_is_in_flight_says_the_change_was_sent(files):
    """Ctrl-C while Flink holds the PUT: the job may rescale; the last line says so."""
    with fake_jobmanager() as jm:
        jm.put_fault = "hold"
        apply = streamplace("apply", *wider(files, counter=3), jm.job_url, "--yes")
        when(lambda: bool(jm.puts), apply)
        apply.send_signal(signal.SIGINT)
        _, err = apply.communicate(timeout=HANG_GUARD)
    assert apply.returncode == 130
    last = err.strip().splitlines()[-1]
    assert "the change was sent" in last and "before anything" not in err


# ------------------------------------------------------------------ blips

def test_one_connection_reset_is_a_step_without_a_reading_and_the_loop_goes_on():
    with fake_jobmanager() as jm:
        def once() -> None:  # the first reading has ended: the next request is reset
            jm.fault(f"=/jobs/{jm.jid}", "reset")
            jm.on_load = None
        jm.on_load = once
        lines = flink_decisions(jm.job_url, "--dry-run", steps=3)
    assert len(lines) == 3
    assert any("no reading" in line["why"][0] for line in lines[1:]), lines
    assert lines[-1]["seen"], lines[-1]


def test_a_jobmanager_that_never_answered_is_a_wrong_address(files):
    """Every request reset from the first: a wrong address (exit 2, nothing sent), not a
    blip to outlive."""
    with fake_jobmanager() as jm:
        jm.fault("/", *["reset"] * 100)
        done = run("autoscale", jm.job_url, "--max-steps", "3", "--dry-run", *STEP)
    assert done.exit_code == 2 and "cannot reach" in done.output


@pytest.mark.parametrize("wrong", ["port", "job", "cluster"])
def test_a_wrong_address_is_said_before_the_first_wait(wrong):
    """With an hour's stabilisation interval before the first reading, a JobManager that
    does not answer, or one that runs no job of that id, is said at once (exit 2), with
    advice that fits autoscale (it reads a live job: no saved file)."""
    with fake_jobmanager() as jm:
        if wrong in ("port", "cluster"):
            jm.fault("/", *["reset"] * 100)
            url = jm.job_url if wrong == "port" else jm.job_url.split("/jobs/")[0]
        else:
            url = jm.job_url[:-32] + "f" * 32
        code, lines, err = finished(streamplace(
            "autoscale", url, "--dry-run", "--stabilization-interval", "3600", "-q"))
    assert code == 2 and not lines, err
    assert ("404" if wrong == "job" else "cannot reach") in err
    assert "save the job" not in err
    assert not any(method == "PUT" for method, _ in jm.requests)


# ------------------------------------------------------------------ strict output

def test_every_decision_line_is_strict_json_whatever_f_is():
    from streamplace.model.decision import Decision, Replan, number

    line = Decision(decision="no change", why=["x"], seconds=1.0,
                    F=Replan(running=number(float("-inf")), plan=number(float("nan")),
                             status="optimal")).line()

    def refuse(word: str) -> None:
        raise ValueError(word)

    parsed = json.loads(line, parse_constant=refuse)
    assert parsed["F"] == {"running": "-inf", "plan": "nan", "status": "optimal"}


# ------------------------------------------------------------------ bad input

def test_a_password_never_reaches_a_message_whatever_it_holds():
    for password in ("pa/ss", "pa#ss", "pa?ss", "p@ss/w#rd?x"):
        done = run("observe", f"http://user:{password}@127.0.0.1:notaport/jobs/{'a' * 32}")
        assert done.exit_code == 2, done.output
        assert "user" not in done.output and password not in done.output, done.output
        for mark in "/#?@":  # no tail of it either, from any mark a parser splits at
            if mark in password:
                assert mark + password.split(mark, 1)[1] not in done.output, done.output


def test_observe_against_a_plan_made_for_another_application_is_refused(files, tmp_path):
    plan = yaml.safe_load(files["plan"].read_text())
    plan["application"] = "another-application"
    other = tmp_path / "other.yaml"
    other.write_text(yaml.safe_dump(plan))
    done = run("observe", SNAPSHOT, "--against", str(other), "--application",
               str(files["application"]), "--infrastructure", str(files["infrastructure"]))
    assert done.exit_code == 2 and "another-application" in done.output


def test_observe_tolerance_alone_is_refused_as_application_alone_is():
    done = run("observe", SNAPSHOT, "--tolerance", "0.2")
    assert done.exit_code == 2 and "--against" in done.output


def test_weights_too_large_to_add_up_still_weigh():
    """1e308 twice overflows a plain sum to infinity, and every normalised weight to 0:
    every plan would score 0 and be called optimal. Weights are ratios."""
    from ..conftest import DEBS

    huge = run("solve", *DEBS, "--weights", "cost=1e308,response_time=1e308", "--json", "-q")
    plain = run("solve", *DEBS, "--weights", "cost=1,response_time=1", "--json", "-q")
    assert huge.exit_code == plain.exit_code == 0, huge.output
    assert json.loads(huge.stdout)["objective"] == pytest.approx(
        json.loads(plain.stdout)["objective"]) != 0


def test_a_strictly_positive_field_says_more_than_its_bound():
    from streamplace.errors import InputError
    from streamplace.io.readers import application_from

    for field in ("target_utilization", "weight"):
        with pytest.raises(InputError) as refused:
            application_from({"name": "a", field: 0, "operators": [{"id": "s"}]}
                             if field == "weight" else
                             {"name": "a", "operators": [{"id": "s", field: 0}]}, "a.yaml")
        assert "must be more than 0" in str(refused.value), refused.value
        assert "at least 0" not in str(refused.value)


def test_a_job_that_lists_no_vertex_is_not_waited_for():
    """Each end of a window is read again until its counters move, for at most 15 s: a job
    listing no vertex has none to move, and its window takes the window's length."""
    from streamplace.control.flink.window import fetch_window

    from ..support.loops import FakeClock

    with fake_jobmanager() as jm:
        jm.snapshot["job"]["vertices"] = []
        clock = FakeClock()
        fetch_window(jm.job_url, 5.0, clock)
    assert clock.t <= 5.0 + 2 * 0.5


def test_a_jobmanagers_escape_sequences_never_reach_the_terminal():
    """A co-tenant names its job and a vertex with terminal escapes (clear the screen, set
    the title): what the JobManager says is shown without them."""
    with fake_jobmanager() as jm:
        jm.snapshot["job"]["name"] = "orders\x1b[2J\x1b]0;owned\x07"
        jm.snapshot["job"]["vertices"][1]["name"] += "\x1b[31m"
        done = run("observe", jm.job_url, "--json")
    assert done.exit_code == 0, done.output
    assert "\x1b" not in done.output and "\x07" not in done.output
    assert json.loads(done.stdout)["report"]["job"] == "orders[2J]0;owned"


def test_a_reset_in_the_first_window_is_a_blip_not_a_wrong_address():
    """The JobManager answered, then a connection is reset while the first window is read:
    that step has no reading, said, and the loop goes on (a wrong address is one that never
    answered)."""
    with fake_jobmanager() as jm:
        jm.faults[f"/vertices/{jm.vertex_id('counter')}"] = ["", "", "reset"]
        lines = flink_decisions(jm.job_url, "--dry-run", steps=2)
    assert "no reading" in lines[0]["why"][0] and lines[1]["seen"], lines
