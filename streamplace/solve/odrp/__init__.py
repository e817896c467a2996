"""The ODRP model of Cardellini et al.: its data, formulations and row families, the root
cuts, the relaxation bound, and (``primal/``) the searches that find plans beside the solver.
The methods are in :mod:`streamplace.solve.odrp.methods`."""
