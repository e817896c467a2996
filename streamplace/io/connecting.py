"""How this process connects to a JobManager, whatever the address: its TLS (a CA bundle, a
client certificate, or no verification when asked) and the basic authentication an address
without credentials takes (the environment's, else the netrc file's). The commands that
speak to a JobManager set it once from their options (:func:`configure`)."""

from __future__ import annotations

import base64
import netrc
import os
import ssl
from dataclasses import dataclass

from streamplace.errors import InputError


@dataclass(frozen=True)
class Connecting:
    """How this process connects, whatever the address: the commands that speak to a
    JobManager set it once from their options (:func:`configure`)."""

    cacert: str | None = None    # a CA bundle (PEM) to verify the server with
    cert: str | None = None      # a client certificate (PEM), its key inside or in ``key``
    key: str | None = None
    insecure: bool = False       # https without verification

    def context(self) -> ssl.SSLContext:
        context = ssl.create_default_context(cafile=self.cacert)
        if self.insecure:
            context.check_hostname = False
            context.verify_mode = ssl.CERT_NONE
        if self.cert:
            context.load_cert_chain(self.cert, self.key)
        return context


_CONNECTING = [Connecting()]
_CONTEXT: list[ssl.SSLContext] = []  # built once, on the first https request
USER_VARIABLE, PASSWORD_VARIABLE = "STREAMPLACE_REST_USER", "STREAMPLACE_REST_PASSWORD"


def configure(connecting: Connecting) -> None:
    """Connect so from now on; each file is checked here (bad input before anything is
    read), and the TLS context built once."""
    for flag, path in (("--cacert", connecting.cacert), ("--cert", connecting.cert),
                       ("--key", connecting.key)):
        if path is not None and not os.path.isfile(path):
            raise InputError.single(f"{path}: no such file", f"give {flag} a PEM file",
                                    path=flag)
    if connecting.key and not connecting.cert:
        raise InputError.single("--key without --cert", "give the client certificate "
                                "with --cert", path="--key")
    try:
        connecting.context()
    except (ssl.SSLError, OSError) as exc:
        raise InputError.single(f"the TLS files cannot be used: {exc}", "give PEM files: "
                                "--cacert the CA, --cert the client certificate (and "
                                "--key its key)", path="--cert" if connecting.cert
                                else "--cacert") from None
    _CONNECTING[0] = connecting
    _CONTEXT.clear()


def tls_context() -> ssl.SSLContext:
    """The context every https request of this process uses."""
    if not _CONTEXT:
        _CONTEXT.append(_CONNECTING[0].context())
    return _CONTEXT[0]


def credentials(host: str) -> str | None:
    """Basic authentication for ``host`` where the address has none: the environment's,
    else the netrc file's (``$NETRC``, or ``~/.netrc``)."""
    user, password = os.environ.get(USER_VARIABLE), os.environ.get(PASSWORD_VARIABLE)
    if user is None:
        try:
            found = netrc.netrc(os.environ.get("NETRC")).authenticators(host)
        except (OSError, netrc.NetrcParseError):
            found = None
        if found is None:
            return None
        user, _account, password = found
    return "Basic " + base64.b64encode(f"{user}:{password or ''}".encode()).decode("ascii")
