"""The one way to place a bundle (several applications together on one infrastructure):
``solve APP1 APP2 ... INFRA --bundle MODE`` and a sweep's ``bundle:`` both come here."""

from __future__ import annotations

from collections.abc import Callable

from streamplace.errors import InputError, Problem
from streamplace.model.bundle import BundleMode
from streamplace.solve.bundle.instance import BundleInstance
from streamplace.solve.bundle.lexicographic import solve_lexicographic
from streamplace.solve.bundle.result import BundleResult
from streamplace.solve.bundle.solve import PROGRAM_METHODS, place_in_priority_order, solve_joint
from streamplace.solve.method import Method
from streamplace.solve.result import SolveOptions

Placement = Callable[[BundleInstance, Method, SolveOptions], BundleResult]
PLACEMENTS: dict[BundleMode, Placement] = {BundleMode.JOINT: solve_joint,
                                           BundleMode.LEXICOGRAPHIC: solve_lexicographic,
                                           BundleMode.PRIORITY: place_in_priority_order}


def mode_problem(mode: BundleMode, method: str, path: str) -> Problem | None:
    """Why ``method`` cannot place a bundle in ``mode``: only odrp has one program over
    every application."""
    if not mode.one_program or method in PROGRAM_METHODS:
        return None
    setting = f"{path} priority" if path.startswith("--") else f"{path}: priority"
    return Problem(f"{method} has no program over a bundle ({mode.value} needs one)",
                   f"set {setting} to place the applications one after another with "
                   f"{method}, or use {', '.join(PROGRAM_METHODS)}", path=path)


def place_bundle(bundle: BundleInstance, method: Method, mode: BundleMode,
                 options: SolveOptions) -> BundleResult:
    problem = mode_problem(mode, method.name, "--bundle")
    if problem is not None:
        raise InputError([problem])
    return PLACEMENTS[BundleMode(mode)](bundle, method, options)
