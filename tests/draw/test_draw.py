"""Pictures and reports, checked without golden images: the SVG's text and element ids, the
PNG's size and ink, the DOT parsed back to the same graph, and the HTML report in a real
headless Chromium with the network shut and watched."""

from __future__ import annotations

import itertools
import os
import re
import shutil
import struct
import subprocess
import threading
import xml.etree.ElementTree as ET
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import networkx as nx
import pytest
import yaml

from ..conftest import run, sample

DEBS = [sample("debs2015", "application.yaml"), sample("debs2015", "infrastructure.yaml")]
PLAN = sample("debs2015", "plan.yaml")
SVG = "{http://www.w3.org/2000/svg}"


def placement() -> dict[str, dict[str, int]]:
    return yaml.safe_load(Path(PLAN).read_text())["placement"]


def critical_path() -> list[str]:
    result = run("evaluate", *DEBS, PLAN, "--json", "-q")
    import json

    return json.loads(result.stdout)["evaluation"]["odrp"]["critical_path"]


def test_svg_holds_every_operator_node_and_the_critical_path(tmp_path: Path) -> None:
    out = tmp_path / "plan.svg"
    result = run("render", *DEBS, PLAN, "-o", str(out))
    assert result.exit_code == 0, result.output
    root = ET.parse(out).getroot()
    texts = " ".join("".join(t.itertext()) for t in root.iter(f"{SVG}text"))
    app = yaml.safe_load(Path(DEBS[0]).read_text())
    infra = yaml.safe_load(Path(DEBS[1]).read_text())
    for op in app["operators"]:
        assert op["id"] in texts
    for node in infra["nodes"]:
        assert node["id"] in texts
    ids = {g.get("id") for g in root.iter(f"{SVG}g") if g.get("id")}
    path = critical_path()
    for op in path:  # every operator of the path is drawn as a critical box on its node
        assert any(i == f"critical-box:{op}@{u}" for u in placement()[op] for i in ids), op
    assert not any(i.startswith("critical-box:computeRouteID") for i in ids)
    for a, b in itertools.pairwise(path):
        assert any(i.startswith(f"critical-flow:{a}@") and f"->{b}@" in i for i in ids), (a, b)


def test_png_has_the_stated_size_and_is_not_blank(tmp_path: Path) -> None:
    out = tmp_path / "plan.png"
    result = run("render", *DEBS, PLAN, "-o", str(out), "--size", "1200x800")
    assert result.exit_code == 0 and "1200x800 px" in result.output
    header = out.read_bytes()[:24]
    assert header[:8] == b"\x89PNG\r\n\x1a\n"
    assert struct.unpack(">II", header[16:24]) == (1200, 800)
    assert ink(out) > 0.02


def ink(png: Path) -> float:
    """The share of pixels that are not (nearly) white."""
    import matplotlib.image

    pixels = matplotlib.image.imread(str(png))[:, :, :3]
    return float((pixels.min(axis=2) < 0.9).mean())


def test_dot_parses_back_to_the_same_graph(tmp_path: Path) -> None:
    out = tmp_path / "plan.dot"
    assert run("render", *DEBS, PLAN, "-o", str(out)).exit_code == 0
    graph = nx.nx_pydot.read_dot(str(out))
    boxes = {f"{op}@{u}" for op, reps in placement().items() for u in reps}
    assert {n.strip('"') for n in graph.nodes} - {"\\n", "node"} == boxes
    app = yaml.safe_load(Path(DEBS[0]).read_text())
    expected = {(f"{s['from']}@{u}", f"{s['to']}@{v}") for s in app["streams"]
                for u in placement()[s["from"]] for v in placement()[s["to"]]}
    assert {(a.strip('"'), b.strip('"')) for a, b, _ in graph.edges} == expected


def test_a_large_plan_is_drawn_aggregated_with_the_detail_on_stderr(tmp_path: Path) -> None:
    ops = [{"id": f"op{i}", "latency": 0.001} for i in range(60)]
    streams = [{"from": f"op{i}", "to": f"op{i + 1}", "rate": 10} for i in range(59)]
    nodes = [{"id": f"n{u}", "zone": "edge" if u < 10 else "cloud"} for u in range(32)]
    (tmp_path / "a.yaml").write_text(yaml.safe_dump({"name": "long", "operators": ops,
                                                     "streams": streams}))
    (tmp_path / "i.yaml").write_text(yaml.safe_dump({"name": "many", "nodes": nodes}))
    (tmp_path / "p.yaml").write_text(yaml.safe_dump(
        {"placement": {f"op{i}": {f"n{i % 32}": 1} for i in range(60)}}))
    out = tmp_path / "big.svg"
    result = run("render", str(tmp_path / "a.yaml"), str(tmp_path / "i.yaml"),
                 str(tmp_path / "p.yaml"), "-o", str(out))
    assert result.exit_code == 0, result.output
    assert "aggregated" in result.output and "op59" in result.output
    root = ET.parse(out).getroot()
    ids = {g.get("id") for g in root.iter(f"{SVG}g") if g.get("id")}
    assert {f"node:n{u}" for u in range(32)} <= ids
    assert any(i.startswith("traffic:") for i in ids)
    texts = " ".join("".join(t.itertext()) for t in root.iter(f"{SVG}text"))
    assert "edge" in texts and "cloud" in texts


def test_render_refuses_an_unknown_format(tmp_path: Path) -> None:
    result = run("render", *DEBS, PLAN, "-o", str(tmp_path / "plan.jpg"))
    assert result.exit_code == 2 and "*.svg" in result.output


class _Recorder(BaseHTTPRequestHandler):
    seen: ClassVar[list[str]] = []

    def _record(self) -> None:
        _Recorder.seen.append(f"{self.command} {self.path}")
        self.send_response(403)
        self.end_headers()

    do_GET = do_POST = do_CONNECT = do_HEAD = _record

    def log_message(self, *args: Any) -> None:
        return None


def chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is missing: .ci/run installs Debian's chromium package")
        pytest.skip("chromium is not installed (apt-get install chromium)")
    return found


def browse(html: Path, tmp_path: Path) -> tuple[Path, str, list[str]]:
    """Open ``html`` in headless Chromium with every request routed to a proxy that refuses
    and records it: a screenshot, the page's text, and what tried to leave the page."""
    binary = chromium()
    _Recorder.seen = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Recorder)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    proxy = f"http://127.0.0.1:{server.server_address[1]}"
    flags = [binary, "--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
             f"--proxy-server={proxy}", "--proxy-bypass-list=<-loopback>",
             "--disable-background-networking", "--disable-component-update",
             "--disable-sync", "--disable-default-apps", "--no-first-run",
             "--disable-domain-reliability", "--metrics-recording-only",
             "--disable-extensions", "--disable-client-side-phishing-detection",
             "--disable-breakpad", "--disable-field-trial-config", "--no-pings",
             "--no-service-autorun", "--password-store=basic", "--use-mock-keychain",
             "--disable-features=Translate,MediaRouter,OptimizationHints,"
             "NetworkTimeServiceQuerying,AutofillServerCommunication,"
             "DialMediaRouteProvider,InterestFeedContentSuggestions,SignInProfileCreation",
             f"--user-data-dir={tmp_path / 'profile'}"]
    tmp_path.mkdir(parents=True, exist_ok=True)
    shot = tmp_path / "shot.png"
    try:
        subprocess.run([*flags, "--window-size=1280,1600", f"--screenshot={shot}",
                        html.as_uri()], capture_output=True, timeout=120, check=True)
        dom = subprocess.run([*flags, "--dump-dom", html.as_uri()], capture_output=True,
                             text=True, timeout=120, check=True).stdout
    finally:
        server.shutdown()
    return shot, dom, list(_Recorder.seen)


def hosts(requests: list[str]) -> set[str]:
    """The hosts requests went to (``GET http://host/...``, ``CONNECT host:443``)."""
    out = set()
    for request in requests:
        target = request.split(" ", 1)[1]
        out.add(target.split("://", 1)[-1].split("/", 1)[0].split(":", 1)[0])
    return out


def browser_noise(tmp_path: Path) -> set[str]:
    """Hosts Chromium itself contacts whatever the page (sign-in, search preconnects), as
    seen on an empty page under the same flags: what the report adds must be nothing."""
    blank = tmp_path / "blank.html"
    blank.write_text("<!DOCTYPE html><title>blank</title><p>blank</p>")
    return hosts(browse(blank, tmp_path / "control")[2])


def no_external_reference(text: str) -> None:
    """Nothing in the file points outside it: no script, no URL but SVG's XML namespaces."""
    assert "<script" not in text and "@import" not in text
    assert not re.findall(r"url\((?!#)", text)  # url(#clip) points inside the file
    assert not re.findall(r"(?:src|href)\s*=\s*[\"'](?!#)", text)
    assert set(re.findall(r"https?://[^\s\"'<>]+", text)) <= {
        "http://www.w3.org/2000/svg", "http://www.w3.org/1999/xlink"}


def test_the_report_opens_in_chromium_offline_and_shows_the_metrics(tmp_path: Path) -> None:
    other = tmp_path / "other.yaml"
    data = yaml.safe_load(Path(PLAN).read_text())
    data["placement"]["partialRank"] = {"n1": 1, "n2": 1}
    other.write_text(yaml.safe_dump(data))
    report = tmp_path / "report.html"
    result = run("report", *DEBS, PLAN, str(other), "-o", str(report))
    assert result.exit_code == 0, result.output
    no_external_reference(report.read_text())
    shot, dom, requests = browse(report, tmp_path)
    assert hosts(requests) <= browser_noise(tmp_path)
    assert ink(shot) > 0.02
    import json

    metrics = json.loads(run("evaluate", *DEBS, PLAN, "--json", "-q").stdout)["metrics"]
    assert "69.17 ms" in dom and f"{metrics['utility']:.6g}" in dom
    assert "Comparison" in dom and "Binding constraints" in dom
    assert dom.count("<svg") >= 3  # the comparison chart and both drawings


def test_validate_html_puts_the_failed_checks_first(tmp_path: Path) -> None:
    out = tmp_path / "validate.html"
    result = run("validate", sample("debs2015", "application-2x.yaml"), DEBS[1], PLAN,
                 "--html", str(out), "-q")
    assert result.exit_code == 1
    no_external_reference(out.read_text())
    _shot, dom, requests = browse(out, tmp_path)
    assert hosts(requests) <= browser_noise(tmp_path)
    first_fail, first_pass = dom.find(">FAIL<"), dom.find(">pass<")
    assert 0 < first_fail < first_pass
    assert "stability" in dom[first_fail:first_pass]


def test_a_link_planted_where_a_temporary_file_went_is_never_written_through(tmp_path):
    """`.r.png.partial` was a fixed name: a link there sent the picture into the file it
    pointed to, and left r.png a link. Temporary names are now the writer's own."""
    from ..conftest import sample

    victim = tmp_path / "victim.txt"
    victim.write_text("keep me\n")
    (tmp_path / ".r.png.partial").symlink_to(victim)
    edge = [sample("edge-cloud", name) for name in
            ("application.yaml", "infrastructure.yaml", "plan.yaml")]
    done = run("render", *edge, "-o", str(tmp_path / "r.png"))
    assert done.exit_code == 0, done.stderr
    assert victim.read_text() == "keep me\n"
    picture = tmp_path / "r.png"
    assert not picture.is_symlink() and picture.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == [".r.png.partial", "r.png",
                                                          "victim.txt"]


def test_two_renders_of_one_file_at_once_both_end_well(tmp_path):
    """Two writers of one picture each write a temporary file of their own: both succeed,
    and the file is one whole picture (fixed temporary names failed 4 runs in 5)."""
    import subprocess
    import sys

    from ..conftest import sample

    edge = [sample("edge-cloud", name) for name in
            ("application.yaml", "infrastructure.yaml", "plan.yaml")]
    command = [sys.executable, "-m", "streamplace", "render", *edge, "-o",
               str(tmp_path / "same.png")]
    writers = [subprocess.Popen(command, stderr=subprocess.PIPE, text=True) for _ in range(3)]
    for writer in writers:
        _, err = writer.communicate(timeout=300)
        assert writer.returncode == 0, err
    assert (tmp_path / "same.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert [p.name for p in tmp_path.iterdir()] == ["same.png"]


def test_the_time_limit_bounds_the_drawings_of_a_report(tmp_path):
    """A limit that has passed before the first drawing: every drawing and chart is left
    out, each saying so, and the report is still written (drawing 500 operators took 25x
    the limit)."""
    from ..conftest import DEBS, PLAN

    out = tmp_path / "report.html"
    done = run("report", *DEBS, PLAN, PLAN, "-o", str(out), "--time-limit", "1e-9", "-q")
    assert done.exit_code == 0, done.stderr
    html = out.read_text()
    assert html.count("Drawing left out") == 3  # the comparison chart and two plans
    assert "<svg" not in html
    full = run("report", *DEBS, PLAN, "-o", str(tmp_path / "full.html"), "-q")
    assert full.exit_code == 0 and "<svg" in (tmp_path / "full.html").read_text()
