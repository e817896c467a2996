"""The operator-tree model of Benoit et al. (Constr): its data, the compact integer
program, the heuristics and the annealing, and (``branch_price/``) the column bound and
branching that prove optima. The methods are in :mod:`streamplace.solve.benoit.methods`."""
