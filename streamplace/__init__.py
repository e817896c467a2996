"""streamplace: where the operators of a stream-processing application should run.

The public API is organised by layer: :mod:`streamplace.model` (the domain and the one
evaluator), :mod:`streamplace.io` (files <-> model), :mod:`streamplace.solve` (methods) and
:mod:`streamplace.cli` (the command line).
"""

__version__ = "0.1.0"
