"""The best plan any bench run ever found on an instance, kept in bench/best_known/NAME.yaml
(its score under ``key``, the method and the plan's fields), so each run prints its
distance to it."""

from __future__ import annotations

import math
from collections.abc import Iterable
from pathlib import Path
from typing import Any

BEST_KNOWN = Path(__file__).parent / "best_known"


def kept(name: str) -> dict[str, Any] | None:
    """What is kept for ``name`` (its score, the method, the plan); None before any run."""
    import yaml

    path = BEST_KNOWN / f"{name}.yaml"
    return yaml.safe_load(path.read_text()) if path.exists() else None


def keep_best(name: str, key: str, found: Iterable[tuple[float | None, dict[str, Any]]],
              maximize: bool) -> float:
    """The kept score, replaced (with its plan) by any of ``found`` that beats it; each is
    (score or None, the fields to keep: method and plan)."""
    import yaml

    path = BEST_KNOWN / f"{name}.yaml"
    known = kept(name)
    sign = 1.0 if maximize else -1.0
    best = known[key] if known else -sign * float("inf")
    for score, fields in found:
        margin = 1e-9 * max(1.0, abs(best)) if math.isfinite(best) else 0.0
        if score is not None and sign * (score - best) > margin:
            best, known = score, {key: score, **fields}
    if known is not None:
        BEST_KNOWN.mkdir(exist_ok=True)
        path.write_text(yaml.safe_dump(known, sort_keys=True))
    return best
