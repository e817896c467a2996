"""Kubernetes: one Deployment per operator and node, with the node's replicas, the
operator's resource requests and a required node affinity on the node (docs/engines.md,
Kubernetes). Every Deployment of an operator carries the same ``app.kubernetes.io/name``,
so one Service or PodDisruptionBudget selects all its replicas across nodes. Manifests are
apps/v1 and validated against the Kubernetes 1.34 schemas in the tests."""

from __future__ import annotations

import hashlib
import re
from typing import Any

from streamplace.errors import InputError, Problem
from streamplace.io.engines.common import (
    Artifact,
    Component,
    Export,
    ExportOptions,
    components,
    resource_note,
    summary_row,
    yaml_text,
)
from streamplace.model.application import Application
from streamplace.model.infrastructure import Infrastructure
from streamplace.model.plan import Plan

KUBERNETES_VERSION = "1.34"
_LABEL_VALUE = re.compile(r"(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?")
_MAX_NAME = 63
_DNS_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")
_DNS_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")


def export_kubernetes(app: Application, infra: Infrastructure, plan: Plan,
                      options: ExportOptions) -> Export:
    _check_options(options)
    items = components(app, plan)
    _check_nodes(items, options.node_label)
    apps = distinct_label_values([c.name for c in items])
    manifests, rows, taken = [], [], set[str]()
    for c in items:
        names = []
        for node, count in sorted(c.replicas.items()):
            name = dns_name(f"{c.name}-{node}", taken)
            manifests.append(deployment(app, c, node, count, name, options, apps[c.name]))
            names.append(name)
        rows.append(summary_row(c, deployments=names))
    text = "".join("---\n" + yaml_text(m) for m in manifests)
    notes = [
        f"one Deployment per operator and node ({len(manifests)} in all): replicas on a "
        "node are that Deployment's replicas, pinned by a required node affinity on "
        f"{options.node_label}; the node ids must be the nodes' {options.node_label} values",
        "the image is a placeholder unless given with --image ({application} and "
        "{operator} are filled in)",
        *resource_note(app, "Kubernetes"),
    ]
    if not any(c.cpu is not None or c.memory is not None for c in items):
        notes.append("no operator declares cpu or memory: the Deployments request nothing, "
                     "and the scheduler packs them by affinity alone")
    return Export("kubernetes", [Artifact("manifests", text,
                                          f"apps/v1 Deployments (Kubernetes "
                                          f"{KUBERNETES_VERSION})")], notes, rows)


def deployment(app: Application, c: Component, node: str, replicas: int, name: str,
               options: ExportOptions, app_label: str) -> dict[str, Any]:
    """One Deployment; ``app_label`` is the operator's ``app.kubernetes.io/name``, which
    must differ from every other operator's (:func:`distinct_label_values`)."""
    selector = {"app.kubernetes.io/name": app_label,
                "app.kubernetes.io/part-of": label_value(app.name),
                "streamplace/node": node}
    labels = {**selector, "app.kubernetes.io/managed-by": "streamplace"}
    container: dict[str, Any] = {
        "name": dns_name(c.name, set()),
        "image": options.image.format(application=app.name, operator=c.name)}
    requests = {}
    if c.cpu is not None:
        requests["cpu"] = cpu_quantity(c.cpu)
    if c.memory is not None:
        requests["memory"] = f"{round(c.memory)}Mi"
    if requests:
        container["resources"] = {"requests": requests}
    affinity = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": [
            {"key": options.node_label, "operator": "In", "values": [node]}]}]}}}
    return {
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": name, "namespace": options.namespace, "labels": labels,
                     "annotations": {"streamplace/operator": c.op.id,
                                     "streamplace/application": app.name}},
        "spec": {"replicas": replicas, "selector": {"matchLabels": selector},
                 "template": {"metadata": {"labels": labels},
                              "spec": {"affinity": affinity, "containers": [container]}}},
    }


def dns_name(text: str, taken: set[str]) -> str:
    """A DNS-1123 label for ``text``, unique among ``taken`` (which it joins): lower case,
    other characters as '-', and a short hash when shortened or already taken.

    >>> dns_name("partialRank-n1", set())
    'partialrank-n1'
    >>> dns_name("a_b", {"a-b"}).startswith("a-b-")
    True
    """
    base = re.sub(r"[^a-z0-9-]+", "-", text.lower()).strip("-") or "operator"
    name = base[:_MAX_NAME].rstrip("-")
    if name != base or name in taken:
        digest = hashlib.sha1(text.encode()).hexdigest()[:8]
        name = f"{base[:_MAX_NAME - 9].rstrip('-')}-{digest}"
    taken.add(name)
    return name


def label_value(text: str) -> str:
    """``text`` if it is a valid label value, else its DNS form."""
    if len(text) <= _MAX_NAME and _LABEL_VALUE.fullmatch(text):
        return text
    return dns_name(text, set())


def distinct_label_values(names: list[str]) -> dict[str, str]:
    """A label value per name, no two alike: names that are valid label values keep
    themselves, others take their DNS form, with a short hash where that form is taken
    (``enrich-geo``, ``enrich geo`` and ``enrich:geo`` would otherwise share selectors and
    their Deployments fight over each other's pods).

    >>> sorted(distinct_label_values(["enrich-geo", "enrich geo"]).values())
    ['enrich-geo', 'enrich-geo-...']
    """
    out = {name: name for name in names if label_value(name) == name}
    used = set(out.values())
    for name in sorted(set(names) - set(out)):
        value = label_value(name)
        if value in used:
            digest = hashlib.sha1(name.encode()).hexdigest()[:8]
            value = f"{value[:_MAX_NAME - 9].rstrip('-_.')}-{digest}"
        out[name] = value
        used.add(value)
    return out


def cpu_quantity(cores: float) -> str:
    """A Kubernetes CPU quantity.

    >>> cpu_quantity(2.0), cpu_quantity(0.25)
    ('2', '250m')
    """
    return f"{cores:g}" if float(cores).is_integer() else f"{round(cores * 1000)}m"


def _check_options(options: ExportOptions) -> None:
    problems = []
    try:
        image = options.image.format(application="a", operator="o")
    except (KeyError, IndexError, ValueError, AttributeError) as exc:
        problems.append(Problem(f"cannot fill in the image {options.image!r}: {exc!r}",
                                "use only {application} and {operator}, and write a "
                                "literal brace as {{ or }}", path="--image"))
    else:
        if not image.strip() or any(ch.isspace() for ch in image):
            problems.append(Problem(f"image {options.image!r} is empty or has a space",
                                    "give an image reference such as registry/name:tag",
                                    path="--image"))
    if len(options.namespace) > _MAX_NAME or not _DNS_LABEL.fullmatch(options.namespace):
        problems.append(Problem(f"namespace {options.namespace!r} is not a DNS-1123 label",
                                "use lower-case letters, digits and '-' (at most 63)",
                                path="--namespace"))
    prefix, _, key = options.node_label.rpartition("/")
    if (len(key) > _MAX_NAME or not key or not _LABEL_VALUE.fullmatch(key)
            or (prefix and (len(prefix) > 253 or not _DNS_SUBDOMAIN.fullmatch(prefix)))
            or options.node_label.count("/") > 1):
        problems.append(Problem(f"node label {options.node_label!r} is not a label key",
                                "write [prefix/]name, e.g. kubernetes.io/hostname",
                                path="--node-label"))
    if problems:
        raise InputError(problems)


def _check_nodes(items: list[Component], label: str) -> None:
    bad = sorted({u for c in items for u in c.replicas
                  if len(u) > _MAX_NAME or not _LABEL_VALUE.fullmatch(u)})
    if bad:
        raise InputError([Problem(f"node id {u!r} cannot be a {label} label value",
                                  "name the node as Kubernetes does (letters, digits, '-', "
                                  "'_', '.'; at most 63)", path=f"nodes.{u}") for u in bad])
