"""What the frameworks' own schedulers would do (docs/models.md sec. 7), as baselines.

- round-robin: Storm's EvenScheduler deals instances over the nodes in turn and ignores
  resources; a plan that overflows a node is reported as its failure, as Storm's would fail
  to run.
- resource-aware: the idea of Storm's DefaultResourceAwareStrategy: operators ordered by
  how connected they are (breadth-first from the most connected), each instance on the
  candidate with the most free resources among those nearest to its placed neighbours.
- first-fit-decreasing: Heron's FirstFitDecreasingPacking idea: largest instances first,
  each on the first node (in a fixed order) with room, so that few nodes are used.
- random: every instance on a random candidate with room (SBON's RANDOM baseline; on an
  operator tree with a catalog, Benoit's Random of the same name applies instead).
Instance counts: fixed ``replicas``, else the fewest stable replicas (common.py). Operators
pinned to one node are placed first by resource-aware and first-fit-decreasing: a scheduler
has them fixed before it starts.
"""

from __future__ import annotations

from collections.abc import Callable

from streamplace.model.metrics import Metric
from streamplace.solve.method import Method, Setting, SolveFn, acyclic, dag_not_bought_tree
from streamplace.solve.placement import PlacementFailure, PlacementState, run_placement
from streamplace.solve.result import Instance, SolveOptions, SolveResult
from streamplace.solve.sbon.methods import random_placement


def _constructive(name: str, place: Callable[[PlacementState], None]) -> SolveFn:
    def solve(instance: Instance, options: SolveOptions) -> SolveResult:
        return run_placement(name, "baseline", instance, options,
                             lambda state, rng, budget: place(state))

    return solve


def round_robin(state: PlacementState) -> None:
    ring = sorted(state.network.processors)
    turn = 0
    for op, _ in state.instances():
        allowed = set(state.cands[op])
        for step in range(len(ring)):
            node = ring[(turn + step) % len(ring)]
            if node in allowed:
                state.place(op, node)
                turn = (turn + step + 1) % len(ring)
                break
        else:
            raise PlacementFailure(f"operator {op} has no candidate processor")


def resource_aware(state: PlacementState) -> None:
    graph = state.graph
    neighbours = {op: set(graph.preds[op]) | set(graph.succs[op]) for op in graph.preds}
    degree = {op: len(near) + (op in near) for op, near in neighbours.items()}  # loops: 2
    order: list[str] = sorted(op for op, cands in state.cands.items() if len(cands) == 1)
    ordered = set(order)
    for start in sorted(neighbours, key=lambda o: (-degree[o], o)):
        frontier = [start]
        while frontier:  # breadth first, the most connected neighbours first
            op = frontier.pop(0)
            if op in ordered:
                continue
            order.append(op)
            ordered.add(op)
            frontier += sorted((n for n in neighbours[op] if n not in ordered),
                               key=lambda o: (-degree[o], o))
    for op in order:
        hosts = sorted({u for n in neighbours[op] for u in state.nodes[n]})
        near = {u: min((state.network.delay(h, u) for h in hosts), default=0.0)
                for u in state.cands[op]}
        for _ in range(state.counts[op]):
            options = [u for u in state.cands[op] if state.fits(op, u)]
            if not options:
                raise PlacementFailure(f"no candidate of {op} has room for another replica")
            state.place(op, min(options, key=lambda u: (near[u], -state.room(u), u)))


def first_fit_decreasing(state: PlacementState) -> None:
    ring = sorted(state.network.processors)

    def size(item: tuple[str, int]) -> tuple[bool, float, str, int]:
        pinned = len(state.cands[item[0]]) == 1
        return (not pinned, -sum(state.op(item[0]).resources.values()), item[0], item[1])

    for op, _ in sorted(state.instances(), key=size):
        node = next((u for u in ring if u in state.cands[op] and state.fits(op, u)), None)
        if node is None:
            raise PlacementFailure(f"no node has room for a replica of {op}")
        state.place(op, node)


def _random(instance: Instance, options: SolveOptions) -> SolveResult:
    return run_placement("random", "baseline", instance, options,
                         lambda s, r, d: random_placement(s, r),
                         objective_metric=Metric.NETWORK_USAGE)


METHODS = (
    Method("random", "baseline", exact=False, run=_random, accepts=dag_not_bought_tree,
           settings=frozenset({Setting.TIME_LIMIT, Setting.SEED}), paper="Pietzuch et al. 2006",
           summary="Every instance on a random candidate with room (SBON's RANDOM)"),
    *(Method(name, "baseline", exact=False, run=_constructive(name, fn), summary=summary,
             accepts=acyclic)
      for name, fn, summary in (
        ("round-robin", round_robin, "Storm's EvenScheduler: instances dealt over nodes in "
                                     "turn, resources ignored"),
        ("resource-aware", resource_aware, "Storm's resource-aware strategy: connected "
                                           "operators first, roomiest node near neighbours"),
        ("first-fit-decreasing", first_fit_decreasing, "Heron's packing: largest instances "
                                                       "first, first node with room"))),
)
