"""Shared by several test modules (no test module imports another)."""

from __future__ import annotations

BATTERY: dict[tuple[str, str], dict[str, object]] = {
    ("odrp", "odrp"): {}, ("odp", "odrp"): {},
    ("benoit", "benoit"): {}, **{(name, "benoit"): {} for name in (
        "random", "comp-greedy", "comm-greedy", "object-greedy", "subtree-bottom-up",
        "object-grouping", "object-availability")},
    **{(name, "ecker"): {"work": 2000} for name in ("hill-climbing", "ant-system", "hybrid")},
    ("exhaustive", "sbon"): {}, ("relaxation", "sbon"): {}, ("producer", "sbon"): {},
    ("consumer", "sbon"): {},
    ("path-exact", "path"): {}, ("least-cost-map", "path"): {},
    ("annealed-least-cost-map", "path"): {}, ("random-neighbor", "path"): {},
    **{(name, "baseline"): {} for name in ("random", "round-robin", "resource-aware",
                                           "first-fit-decreasing", "ds2")},
}
