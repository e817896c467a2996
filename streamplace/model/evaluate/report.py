"""What the evaluator reports: metrics, breakdowns, and every violated constraint by name."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, NamedTuple

from streamplace.model.metrics import METRIC_NAMES, Term


class Subject(NamedTuple):
    """What a violation or a usage row is about: a kind and the ids that name it, e.g.
    ``("operator", ("parser",))`` or ``("link", ("a", "b"))``. Code reads the ids, people
    read ``str(subject)``; nothing parses the text back."""

    kind: str  # operator | node | stream | route | link | processors | server link
    ids: tuple[str, ...]

    def __str__(self) -> str:
        joiner = " - " if self.kind == "processors" else " -> "
        return f"{self.kind} {joiner.join(self.ids)}"


@dataclass(frozen=True)
class Violation:
    """A constraint the plan breaks. ``constraint`` is a stable name (``capacity``,
    ``stability``, ``benoit.compute`` ...); ``excess`` is how far over the limit it is."""

    constraint: str
    subject: Subject
    message: str
    excess: float | None = None

    @property
    def problem(self) -> str:
        """The message without the subject's id it starts with, for places that show the
        subject beside it (each thing said once).

        >>> Violation("stability", Subject("operator", ("rank",)), "rank: 2500/s >= 2371").problem
        '2500/s >= 2371'
        """
        lead = f"{self.subject.ids[-1]}: " if self.subject.ids else ""
        return self.message[len(lead):] if lead and self.message.startswith(lead) \
            else self.message

    @property
    def key(self) -> tuple[str, ...]:
        """(constraint, ids...): a stable identity for comparing evaluations."""
        return (self.constraint, *self.subject.ids)

    def to_json(self) -> dict[str, Any]:
        return {"constraint": self.constraint, "subject": str(self.subject),
                "ids": list(self.subject.ids), "message": self.message, "excess": self.excess}


@dataclass(frozen=True)
class OperatorMetrics:
    id: str
    replicas: dict[str, int]
    count: int
    input_rate: float
    load_per_replica: float
    latency: float
    stable: bool
    cost: float


@dataclass(frozen=True)
class StreamMetrics:
    source: str
    target: str
    rate: float
    bytes_per_s: float
    delay: float
    traffic: float
    network_usage: float
    elastic_energy: float
    link_cost: float


@dataclass(frozen=True)
class PathStep:
    """One element of the critical path: an operator's latency or a stream's delay."""

    kind: str  # "operator" | "stream"
    name: str
    seconds: float


@dataclass(frozen=True)
class OdrpMetrics:
    """ODRP QoS metrics (Cardellini et al. 2017, eqs. 1-20) of one plan."""

    response_time: float
    critical_path: list[str]
    critical_steps: list[PathStep]
    cost: float
    compute_cost: float
    network_cost: float
    availability: float
    log_availability: float
    node_log_availability: float
    link_log_availability: float
    traffic: float
    network_usage: float
    elastic_energy: float
    used_nodes: list[str]
    used_links: list[tuple[str, str]]
    operators: list[OperatorMetrics]
    streams: list[StreamMetrics]
    node_usage: dict[str, dict[str, tuple[float, float]]]  # node -> dim -> (used, capacity)

    def metric(self, name: str) -> float:
        return float(getattr(self, name))


@dataclass(frozen=True)
class UtilityTerm:
    term: str
    metric: str
    weight: float
    value: float
    lo: float
    hi: float
    normalised: float
    contribution: float
    derived_bound: bool


@dataclass(frozen=True)
class Utility:
    """The SAW utility F (Cardellini et al. 2017, eq. 21) and its per-term breakdown."""

    value: float
    network_metric: str
    terms: list[UtilityTerm]

    @property
    def bounds_used(self) -> dict[str, list[float]]:
        return {t.term: [t.lo, t.hi] for t in self.terms}


@dataclass(frozen=True)
class Usage:
    subject: Subject
    used: float
    capacity: float

    @property
    def fraction(self) -> float:
        if self.capacity == float("inf"):
            return 0.0
        return self.used / self.capacity if self.capacity > 0 else float("inf")


@dataclass(frozen=True)
class BenoitMetrics:
    """Cost and resource use under constraints (1)-(5) of Benoit et al. 2008."""

    mode: str  # "constr" | "non-constr"
    cost: float
    throughput: float
    used_processors: list[str]
    purchased: dict[str, str]
    compute: list[Usage]
    processor_cards: list[Usage]
    server_cards: list[Usage]
    server_links: list[Usage]
    processor_links: list[Usage]


@dataclass(frozen=True)
class EckerScore:
    """The latency-aware score s(x) of Ecker et al., eq. 1 (lower is better)."""

    score: float
    s_lat: float
    s_sup: float
    s_co: float
    s_event: float
    weights: tuple[float, float, float, float]
    violations: int


@dataclass(frozen=True)
class PathMetrics:
    """Routes over bi-modal links (Asaduzzaman and Maheswaran, sec. 4.3): cost and tie-breakers."""

    cost: float  # sum over routes of bytes/s * per-byte cost of every link used
    load_balance: float  # mean load factor of the nodes used
    dedicated_hops: int  # remote replica pairs routed over dedicated links
    public_hops: int  # ... over one opportunistic link
    forwarding_hops: int  # nodes that only forward, over all dedicated routes
    links: list[Usage]
    uplinks: list[Usage]


@dataclass
class Evaluation:
    """Everything the one evaluator says about a plan."""

    complete: bool
    odrp: OdrpMetrics | None
    utility: Utility | None
    benoit: BenoitMetrics | None
    ecker: EckerScore | None
    paths: PathMetrics | None = None
    violations: list[Violation] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    reconfiguration: float | None = None  # M against a current plan, when re-planning

    @property
    def feasible(self) -> bool:
        return not self.violations

    def metrics(self) -> dict[str, float]:
        """The flat ``metrics`` block of a plan file (docs/formats.md)."""
        out: dict[str, float] = {}
        if self.odrp is not None:
            for name in METRIC_NAMES:
                out[name] = self.odrp.metric(name)
        if self.utility is not None:
            out["utility"] = self.utility.value
        if self.benoit is not None:
            out["benoit_cost"] = self.benoit.cost
        if self.ecker is not None:
            out["ecker_score"] = self.ecker.score
        if self.paths is not None:
            out["path_cost"] = self.paths.cost
        if self.reconfiguration is not None:
            out[Term.RECONFIGURATION.value] = self.reconfiguration
        return out

    def to_json(self) -> dict[str, Any]:
        data = asdict(self) | {"feasible": self.feasible, "metrics": self.metrics()}
        data["violations"] = [v.to_json() for v in self.violations]
        return data
