"""Imports every built-in method module so that each registers itself.

Each module imports its solver (highspy, pulp) inside its solve function, not at import
time, so listing methods stays fast.
"""

from streamplace.solve import benoit, exhaustive, odrp, pathmap  # noqa: F401
from streamplace.solve.heuristics import ecker, frameworks, sbon  # noqa: F401
