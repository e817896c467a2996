"""Connecting as users connect: an https:// JobManager verified against a CA given with
--cacert (or not at all, with --insecure, and only then), a client certificate where the
JobManager asks for one, and basic authentication from the environment or a netrc file;
each failure said with the flag that mends it. Certificates are made by openssl for each
run; the JobManager is the scripted one, over TLS."""

from __future__ import annotations

import base64
import shutil
import ssl
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from streamplace.io import connecting

from ..conftest import run
from ..support.fake_jobmanager import fake_jobmanager

pytestmark = pytest.mark.skipif(shutil.which("openssl") is None, reason="no openssl")


def _openssl(*args: str, cwd: Path) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True, timeout=120)


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A CA, a server certificate for 127.0.0.1 and a client certificate, both signed by
    it; and a second CA that signed neither."""
    d = tmp_path_factory.mktemp("pki")
    for ca in ("ca", "other-ca"):
        _openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", f"{ca}.key",
                 "-out", f"{ca}.pem", "-days", "2", "-subj", f"/CN={ca}", cwd=d)
    (d / "san.cnf").write_text("subjectAltName=IP:127.0.0.1\n")
    for name, extra in (("server", ["-extfile", "san.cnf"]), ("client", [])):
        _openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", f"{name}.key", "-out",
                 f"{name}.csr", "-subj", f"/CN={name}", cwd=d)
        _openssl("x509", "-req", "-in", f"{name}.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
                 "-CAcreateserial", "-out", f"{name}.pem", "-days", "2", *extra, cwd=d)
    return d


def _server(pki: Path, client_certificates: bool = False) -> ssl.SSLContext:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(pki / "server.pem", pki / "server.key")
    if client_certificates:
        context.load_verify_locations(pki / "ca.pem")
        context.verify_mode = ssl.CERT_REQUIRED
    return context


@pytest.fixture(autouse=True)
def _fresh() -> Iterator[None]:
    """Each command sets how the process connects; the next test starts from the default."""
    yield
    connecting.configure(connecting.Connecting())


def _observe(url: str, *args: str) -> tuple[int, str]:
    done = run("observe", url, "--json", "-q", *args)
    return done.exit_code, done.output


def test_an_https_jobmanager_is_verified_against_the_ca_given(pki):
    with fake_jobmanager(tls=_server(pki)) as jm:
        trusted = _observe(jm.job_url, "--cacert", str(pki / "ca.pem"))
        untrusted = _observe(jm.job_url)
        wrong = _observe(jm.job_url, "--cacert", str(pki / "other-ca.pem"))
        unchecked = _observe(jm.job_url, "--insecure")
    assert trusted[0] == 0, trusted[1]
    for code, said in (untrusted, wrong):
        assert code == 2 and "certificate is not trusted" in said and "--cacert" in said, said
    assert unchecked[0] == 0, unchecked[1]


def test_a_jobmanager_that_asks_for_a_client_certificate_gets_the_one_given(pki):
    ca = ("--cacert", str(pki / "ca.pem"))
    with fake_jobmanager(tls=_server(pki, client_certificates=True)) as jm:
        without = _observe(jm.job_url, *ca)
        given = _observe(jm.job_url, *ca, "--cert", str(pki / "client.pem"), "--key",
                         str(pki / "client.key"))
    assert without[0] == 2 and "--cert" in without[1], without[1]
    assert given[0] == 0, given[1]


@pytest.mark.parametrize(("args", "said"), [
    (("--cacert", "missing.pem"), "missing.pem: no such file"),
    (("--key", "KEY"), "--key without --cert"),
    (("--cert", "CA"), "the TLS files cannot be used"),
])
def test_tls_files_that_cannot_be_used_are_bad_input(pki, args, said):
    args = tuple(str(pki / "client.key") if a == "KEY" else str(pki / "ca.pem") if a == "CA"
                 else a for a in args)
    code, output = _observe("https://127.0.0.1:9/jobs/" + "0" * 32, *args)
    assert code == 2 and said in " ".join(output.split()), output


def test_basic_authentication_comes_from_the_environment_or_the_netrc_file(tmp_path,
                                                                           monkeypatch):
    """Without credentials in the address: STREAMPLACE_REST_USER and _PASSWORD, else the
    netrc file's entry for the host; neither: the JobManager's 401, said with the fix."""
    monkeypatch.delenv("STREAMPLACE_REST_USER", raising=False)
    monkeypatch.setenv("NETRC", str(tmp_path / "none"))
    with fake_jobmanager() as jm:
        jm.authorization = "Basic " + base64.b64encode(b"ops:s3cr#t").decode()
        refused = _observe(jm.job_url)
        monkeypatch.setenv("STREAMPLACE_REST_USER", "ops")
        monkeypatch.setenv("STREAMPLACE_REST_PASSWORD", "s3cr#t")
        from_environment = _observe(jm.job_url)
        monkeypatch.delenv("STREAMPLACE_REST_USER")
        netrc = tmp_path / "netrc"
        netrc.write_text("machine 127.0.0.1 login ops password s3cr#t\n")
        netrc.chmod(0o600)
        monkeypatch.setenv("NETRC", str(netrc))
        from_netrc = _observe(jm.job_url)
    assert refused[0] == 2 and "401" in refused[1], refused[1]
    assert from_environment[0] == 0, from_environment[1]
    assert from_netrc[0] == 0, from_netrc[1]
    assert "s3cr#t" not in refused[1] + from_environment[1] + from_netrc[1]
