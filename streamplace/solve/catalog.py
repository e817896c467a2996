"""Every built-in method, in the order ``streamplace methods`` lists them: exact methods of
each model first, then its heuristics, model by model, then the frameworks' baselines.

A new method is one module exporting ``METHODS`` and one line here (docs/cli.md, "Adding a
method"). Method modules import their solvers (highspy, pulp) inside their solve
functions, so reading the catalog stays fast.
"""

from streamplace.solve.baseline import ds2, frameworks
from streamplace.solve.benoit import methods as benoit
from streamplace.solve.ecker import methods as ecker
from streamplace.solve.odrp import methods as odrp
from streamplace.solve.path import methods as path
from streamplace.solve.sbon import exhaustive
from streamplace.solve.sbon import methods as sbon

CATALOG = (
    *odrp.METHODS,
    *benoit.METHODS,
    *ecker.METHODS,
    *exhaustive.METHODS,
    *sbon.METHODS,
    *path.METHODS,
    *frameworks.METHODS,
    *ds2.METHODS,
)
