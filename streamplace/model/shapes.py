"""Which shapes of application a model needs, and why an application is not one of them.

Methods answer "do I apply here?" from these (``Method.accepts``) before anything runs, and
the models that need a shape check it with the same words.
"""

from __future__ import annotations

from streamplace.model.application import Application
from streamplace.model.graph import AppGraph, build_graph


def why_not_dag(graph: AppGraph) -> str | None:
    cycle = graph.cycle()
    if cycle is None:
        return None
    return f"the streams form a cycle {' -> '.join(cycle)}; this model needs a DAG"


def why_not_chain(graph: AppGraph) -> str | None:
    """A path task (Asaduzzaman and Maheswaran): one source, every operator feeding at most
    one and fed by at most one, one instance each."""
    if graph.cycle() is not None or any(len(graph.preds[o]) > 1 or len(graph.succs[o]) > 1
                                        for o in graph.app.operator_ids):
        return ("a path task is a chain: every operator feeds at most one and is fed by at "
                "most one")
    if len(graph.sources) != 1:
        return f"a path task has one source, this application has {len(graph.sources)}"
    for op in graph.app.operators:
        if (op.replicas or 1) != 1:
            return (f"operator {op.id} asks for {op.replicas} replicas; a path task maps one "
                    "instance per service")
    return None


def why_not_tree(app: Application) -> str | None:
    """An in-network operator tree (Benoit et al.): a throughput to sustain, and every
    operator feeding at most one parent."""
    if app.throughput is None:
        return "this model needs the application's throughput (results per second)"
    graph = build_graph(app)
    cycle = why_not_dag(graph)
    if cycle is not None:
        return cycle
    for s in graph.streams:
        if len(graph.succs[s.source]) > 1:
            return f"operator {s.source} has two parents; a tree gives each at most one"
    return None
