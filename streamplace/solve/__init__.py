"""Methods that make plans: one catalog, one signature, one result type.

The contract is at this level (method, result, budget, catalog, registry); each model
family is a package (``odrp``, ``benoit``, ``ecker``, ``sbon``, ``path``, ``baseline``),
and ``mip`` is the one seam to MIP solvers (docs/architecture.md).
"""

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
