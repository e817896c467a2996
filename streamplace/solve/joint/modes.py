"""The ways to place a bundle by name (``solve --bundle``, a sweep's ``bundle:``)."""

from __future__ import annotations

from collections.abc import Callable

from streamplace.solve.joint.instance import JointInstance
from streamplace.solve.joint.lexicographic import solve_lexicographic
from streamplace.solve.joint.result import JointResult
from streamplace.solve.joint.solve import place_in_priority_order, solve_joint
from streamplace.solve.method import Method
from streamplace.solve.result import SolveOptions

Placement = Callable[[JointInstance, Method, SolveOptions], JointResult]
PLACEMENTS: dict[str, Placement] = {"joint": solve_joint, "lexicographic": solve_lexicographic,
                                    "priority": place_in_priority_order}
