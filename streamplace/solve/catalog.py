"""Every built-in method, in the order ``streamplace methods`` lists them: exact methods of
each model first, then its heuristics, model by model, then the frameworks' baselines.

A new method is one module exporting ``METHODS`` and one line here (docs/cli.md, "Adding a
method"). Method modules import their solvers (highspy, pulp) inside their solve
functions, so reading the catalog stays fast.
"""

from streamplace.solve import exhaustive, odrp, pathmap, trees
from streamplace.solve.heuristics import ds2, ecker, frameworks, sbon

CATALOG = (
    *odrp.METHODS,
    *trees.METHODS,
    *ecker.METHODS,
    *exhaustive.METHODS,
    *sbon.METHODS,
    *pathmap.METHODS,
    *frameworks.METHODS,
    *ds2.METHODS,
)
