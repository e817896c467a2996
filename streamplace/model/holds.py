"""Who holds what on a shared infrastructure (:mod:`streamplace.model.occupied` makes it):
kept on the free infrastructure so that a capacity message can name the holders."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Holds:
    """Who holds what: per (node, dimension) and per (from, to) link direction, the
    applications and their amounts, with the whole capacity before them."""

    nodes: dict[tuple[str, str], list[tuple[str, float]]] = field(default_factory=dict)
    links: dict[tuple[str, str], list[tuple[str, float]]] = field(default_factory=dict)
    capacity: dict[tuple[str, str], float] = field(default_factory=dict)
    bandwidth: dict[tuple[str, str], float] = field(default_factory=dict)
    names: tuple[str, ...] = ()

    def on_node(self, node: str, dim: str) -> str:
        """``" beside the occupied load (4 units in all; held: etl 2)"``, or ``""`` where
        nothing is held on ``node`` in ``dim``."""
        return _beside(self.nodes.get((node, dim)), self.capacity.get((node, dim)), dim)

    def on_link(self, a: str, b: str) -> str:
        return _beside(self.links.get((a, b)), self.bandwidth.get((a, b)), "B/s")


def _beside(held: list[tuple[str, float]] | None, whole: float | None, unit: str) -> str:
    if not held or whole is None:
        return ""
    return f" beside the occupied load ({whole:g} {unit} in all; held: {named(held)})"


def named(held: list[tuple[str, float]]) -> str:
    """``etl 3, ingest 2``: each holder and its amount."""
    return ", ".join(f"{name} {amount:g}" for name, amount in held)
