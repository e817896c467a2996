"""Methods that make plans: one catalog, one signature, one result type."""

from streamplace.solve.method import Method, Param, Setting
from streamplace.solve.registry import applicable, get_method, method_names, methods
from streamplace.solve.result import (
    FormulationName,
    Instance,
    MipSolver,
    SolveOptions,
    SolveResult,
    SolveStatus,
)

__all__ = ["FormulationName", "Instance", "Method", "MipSolver", "Param", "Setting",
           "SolveOptions", "SolveResult", "SolveStatus", "applicable", "get_method",
           "method_names", "methods"]
