"""Methods that make plans: a registry, one signature, one result type."""

from streamplace.solve.registry import MethodInfo, get_method, methods, register
from streamplace.solve.result import Instance, SolveOptions, SolveResult, SolveStatus

__all__ = ["Instance", "MethodInfo", "SolveOptions", "SolveResult", "SolveStatus",
           "get_method", "methods", "register"]
